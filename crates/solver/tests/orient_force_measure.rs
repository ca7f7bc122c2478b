//! ORIENT(system, comp, i, j) in force functions: (1) the force function
//! reads the same value as the request (FrameContext) bit for bit, for
//! every system and component, including the request's sign rule for the
//! Euler parameters (e0 ≥ 0 in the initial configuration), on random
//! orientations away from the initial one and with a body's parameters
//! negated; (2) the analytic ∂R/∂q of forces reading all four components
//! matches central differences; (3) a torsion spring T = −k·2·atan2(e3, e0)
//! gives the closed-form oscillation φ(t) = φ0 cos(√(k/I) t).

mod common;

use common::force_probe::*;
use mbsolve_expr::{Expr, ExprStateFunction};

#[test]
fn orient_force_values_equal_request_values_with_the_initial_sign_rule() {
    let mut seed = 3u64;
    let mut readings = 0;
    let mut negative_e0 = 0;
    for case in 0..30 {
        let e2 = [rand(&mut seed), rand(&mut seed), rand(&mut seed)];
        let e3 = [rand(&mut seed), rand(&mut seed), rand(&mut seed)];
        let kick: Vec<f64> = (0..14).map(|_| 0.2 * rand(&mut seed)).collect();
        // Away from the initial configuration (unnormalised parameters on
        // purpose: both normalise); every third case with part 2's
        // parameters negated (the same rotation, the opposite sign).
        let moved = |q0: &[f64]| {
            let mut q = q0.to_vec();
            for (x, d) in q.iter_mut().zip(&kick) {
                *x += d;
            }
            if case % 3 == 0 {
                for x in &mut q[3..7] {
                    *x = -*x;
                }
            }
            q
        };
        for (i, j) in [(21, Some(31)), (31, Some(21)), (21, None), (31, Some(11))] {
            // Every orientation system (orient_types.rs), each component.
            for (system, comp) in (1..=29).flat_map(|s| {
                let comps = match s {
                    27 => 4,
                    29 => 9,
                    _ => 3,
                };
                (1..=comps).map(move |c| (s, c))
            }) {
                let text = match j {
                    Some(j) => format!("ORIENT({system}, {comp}, {i}, {j})"),
                    None => format!("ORIENT({system}, {comp}, {i})"),
                };
                let (force, request) =
                    force_and_request_at(two_bodies(e2, e3), &text, i, j.unwrap_or(11), &moved);
                assert_eq!(
                    force.to_bits(),
                    request.to_bits(),
                    "{text} case {case}: force reads {force}, request {request}"
                );
                readings += 1;
                // The sign rule is exercised: e0 of the relative parameters
                // is negative at the moved configuration in some readings.
                if (system, comp) == (27, 1) && request < 0.0 {
                    negative_e0 += 1;
                }
            }
        }
    }
    println!("{readings} readings equal bit for bit; e0 < 0 in {negative_e0} of ORIENT(27, 1)");
    // 27 systems of three components, 27 of four, 29 of nine.
    assert_eq!(readings, 30 * 4 * (27 * 3 + 4 + 9));
    assert!(negative_e0 > 5, "only {negative_e0} readings with e0 < 0");
}

#[test]
fn orient_types_and_components_requests_do_not_define_are_refused_by_name() {
    for (text, message) in [
        (
            "ORIENT(31, 1, 21, 31)",
            "ORIENT type 31 is not an orientation system (they are 1…29)",
        ),
        (
            "ORIENT(27, 5, 21, 31)",
            "ORIENT(27, …): component must be 1…4 (e0, e1, e2, e3), got 5",
        ),
        (
            "ORIENT(27, 1, 0, 31)",
            "ORIENT(27,1,0,31): marker I must be given (not 0)",
        ),
    ] {
        let err = ExprStateFunction::new(Expr::parse(text).unwrap()).unwrap_err();
        assert_eq!(err.message, message, "{text}");
    }
}

/// ∂R/∂q and ∂R/∂u of forces whose functions read all four Euler
/// parameters nonlinearly (between two moving parts, and against ground),
/// by central differences, at a configuration with unnormalised parameters.
#[test]
fn orient_measure_jacobian_matches_finite_differences() {
    let text = |args: &str| {
        format!(
            "SIN(ORIENT(27,1,{args}) + 0.3) + 2*ORIENT(27,2,{args})*ORIENT(27,3,{args}) + ORIENT(27,4,{args})**2 + 0.7*ORIENT(27,3,{args})"
        )
    };
    let nonzero =
        three_forces_jacobian_matches(two_bodies([0.4, 1.1, -2.0], [2.6, 0.9, 1.7]), &text);
    // The forces depend on the parameters of both parts (not vacuous).
    assert!(nonzero > 20, "{nonzero} nonzero entries");
}

/// Torsion spring T = −k·φ with φ = 2·atan2(e3, e0) read through ORIENT:
/// φ0 cos(√(k/Izz) t) over two periods.
#[test]
fn torsion_spring_on_orient_oscillates_with_the_closed_form_period() {
    let err = torsion_spring_error(&|markers| {
        format!("2*ATAN2(ORIENT(27,4,{markers}), ORIENT(27,1,{markers}))")
    });
    println!("largest angle error over two periods {err:.1e} rad");
    // Same bound as the YAW/PSI spring (euler_force_measures.rs).
    assert!(err < 1e-6, "{err}");
}
