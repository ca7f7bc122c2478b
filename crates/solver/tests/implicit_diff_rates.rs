//! The consistent-rate solve of the user states at the start of an
//! analysis names the implicit DIFF that makes it impossible. The drill
//! string corpus deck (adamspy-drillstring, DIFF/9000204
//! `IMPLICIT, FUNCTION = DIF(9000202) - DIF(9000204)`) has such a DIFF: an
//! algebraic equation that reads no DIF1. The message used to name the
//! row with the largest residual instead (there, an unrelated LSE).

mod common;
use common::user_states::diff;
use common::*;

use mbsolve_model::*;
use mbsolve_solver::Simulation;

/// DIFF/1: w₁' = 100 (its row starts with the largest residual, w' = 0
/// against 100); DIFF/2: the implicit `residual`, both from w = 2.
fn pair(residual: &str) -> Model {
    let mut m = Model::new("two DIFFs");
    m.parts.push(Part::ground(1));
    m.diffs.push(diff(1, "100", false, 2.0, None));
    m.diffs.push(diff(2, residual, true, 2.0, None));
    m
}

/// DIFF/2 is algebraic (no DIF1), exactly satisfied at its IC.
#[test]
fn an_implicit_diff_without_dif1_is_named() {
    let mut sim = Simulation::new(&pair("DIF(1) - DIF(2)")).unwrap();
    let e = sim
        .dynamic(
            1.0,
            Some(10),
            None,
            &settings(IntegratorKind::Gstiff, Formulation::I3, 1e-6),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the equation of DIFF/2 reads no time derivative (DIF1) at t = 0, so it cannot be solved for a consistent one"),
        "{e}"
    );
}

/// The same pair with DIFF/2 reading its own DIF1 solves: the refusal is
/// for the algebraic form only. w₂' = w₁' = 100 from the first frame.
#[test]
fn the_same_diff_with_dif1_solves() {
    let mut sim = Simulation::new(&pair("DIF1(1) - DIF1(2)")).unwrap();
    sim.dynamic(
        1.0,
        Some(10),
        None,
        &settings(IntegratorKind::Gstiff, Formulation::I3, 1e-6),
    )
    .unwrap();
    let last = sim.frames.last().unwrap();
    assert!((last.t - 1.0).abs() < 1e-12);
    // w = 2 + 100 t for both states; the integrator is exact on a line.
    for k in 0..2 {
        assert!((last.w[k] - 102.0).abs() < 1e-6, "w{k} = {}", last.w[k]);
        assert!((last.wp[k] - 100.0).abs() < 1e-6, "w{k}' = {}", last.wp[k]);
    }
}
