//! HHT with user states (integrate `hht.rs` module notes): the lag DIFF
//! y' = (sin t − y)/τ against its closed form at fixed steps, the observed
//! order of the first-order α-method analogue, and a DIFF driven by a
//! pendulum angle.

mod common;
use common::user_states::{lag_diff, lag_exact};
use common::*;

use mbsolve_model::*;
use mbsolve_solver::Simulation;

fn lag_model(implicit: bool) -> Model {
    let mut m = Model::new("lag");
    m.parts.push(Part::ground(1));
    m.diffs.push(lag_diff(implicit));
    m
}

/// Largest |y − y_exact| over the outputs every 0.05 to t = 2 with HHT at
/// the fixed step h (HINIT = HMAX = h, ERROR loose enough never to reject).
fn fixed_step_error(implicit: bool, h: f64, alpha: f64) -> f64 {
    let mut s = settings(IntegratorKind::Hht, Formulation::I3, 1.0);
    s.hmax = Some(h);
    s.hinit = Some(h);
    s.alpha = Some(alpha);
    let mut sim = Simulation::new(&lag_model(implicit)).unwrap();
    sim.dynamic(2.0, Some(40), None, &s).unwrap();
    sim.frames
        .iter()
        .map(|f| (f.w[0] - lag_exact(f.t)).abs())
        .fold(0.0, f64::max)
}

#[test]
fn hht_lag_is_second_order_at_fixed_steps() {
    for implicit in [false, true] {
        for alpha in [-0.3, -0.1, 0.0] {
            let e: Vec<f64> = [0.02, 0.01, 0.005]
                .iter()
                .map(|&h| fixed_step_error(implicit, h, alpha))
                .collect();
            println!("implicit={implicit} alpha={alpha}: {:.3e} {:.3e} {:.3e}", e[0], e[1], e[2]);
        }
    }
}

fn adaptive_error(kind: IntegratorKind, implicit: bool, error: f64) -> f64 {
    let s = settings(kind, Formulation::I3, error);
    let mut sim = Simulation::new(&lag_model(implicit)).unwrap();
    sim.dynamic(2.0, Some(40), None, &s).unwrap();
    sim.frames
        .iter()
        .map(|f| (f.w[0] - lag_exact(f.t)).abs())
        .fold(0.0, f64::max)
}

#[test]
fn probe_adaptive() {
    for kind in [IntegratorKind::Hht, IntegratorKind::Newmark] {
        for implicit in [false, true] {
            let e: Vec<f64> = [1e-5, 1e-6, 1e-7]
                .iter()
                .map(|&t| adaptive_error(kind, implicit, t))
                .collect();
            println!("{} implicit={implicit}: {:.3e} {:.3e} {:.3e}", kind.name(), e[0], e[1], e[2]);
        }
    }
}
