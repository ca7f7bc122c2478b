//! Work-precision benchmark: error versus wall time of GSTIFF, WSTIFF, HHT
//! and NEWMARK over a sweep of ERROR on two models —
//!  * a free slider-crank (crank 0.5 m, rod 1.5 m, 1 kg parts, no gravity)
//!    whose crank starts at 2π rad/s, 2 s;
//!  * the 16-link pendulum chain (1 m, 1 kg rods released horizontally), 1 s.
//!
//! The error of a run is the largest deviation over the 100 output times of
//! the slider's x (slider-crank) or the chain tip's position, from a
//! reference run with GSTIFF at ERROR = 1e-10 (its own uncertainty is
//! printed as the difference to GSTIFF at ERROR = 1e-9).
//!
//! cargo run --release --example work_precision

use mbsolve_model::{IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::{models, Frame, Simulation};
use std::time::Instant;

struct Case {
    name: &'static str,
    model: Model,
    end: f64,
    /// The monitored quantity at one frame.
    probe: fn(&Frame) -> [f64; 3],
}

/// Probe values at the outputs, wall time [s], steps, Jacobian evaluations.
type RunResult = (Vec<[f64; 3]>, f64, u64, u64);

fn run(case: &Case, settings: &IntegratorSettings) -> Result<RunResult, String> {
    let start = Instant::now();
    let mut sim = Simulation::new(&case.model).map_err(|e| e.to_string())?;
    let st = sim
        .dynamic(case.end, Some(100), None, settings)
        .map_err(|e| e.to_string())?;
    let wall = start.elapsed().as_secs_f64();
    let probes = sim.frames.iter().map(case.probe).collect();
    Ok((probes, wall, st.steps, st.jacobian_evaluations))
}

fn max_dev(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max)
}

fn settings(kind: IntegratorKind, error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind,
        error: Some(error),
        ..Default::default()
    }
}

fn main() {
    let n = 16;
    let cases = [
        Case {
            name: "free slider-crank",
            model: models::free_slider_crank(0.5, 1.5, 2.0 * std::f64::consts::PI),
            end: 2.0,
            // Slider (part 4) CM: q index 3·7.. of body 2 (bodies 0,1,2).
            probe: |f| [f.q[14], 0.0, 0.0],
        },
        Case {
            name: "16-link chain",
            model: models::chain(n),
            end: 1.0,
            // Tip = last rod's CM + its x axis × 0.5 (rotation about z).
            probe: |f| {
                let o = 7 * 15;
                let (e0, e3) = (f.q[o + 3], f.q[o + 6]);
                let (c, s) = (e0 * e0 - e3 * e3, 2.0 * e0 * e3);
                [f.q[o] + 0.5 * c, f.q[o + 1] + 0.5 * s, f.q[o + 2]]
            },
        },
    ];
    for case in &cases {
        let (reference, _, _, _) =
            run(case, &settings(IntegratorKind::Gstiff, 1e-10)).expect("reference run");
        let check = run(case, &settings(IntegratorKind::Gstiff, 1e-9))
            .map(|r| max_dev(&r.0, &reference))
            .unwrap_or(f64::NAN);
        println!(
            "\n{} ({} s, 100 outputs); reference GSTIFF ERROR=1e-10 (ERROR=1e-9 differs by {:.2e})",
            case.name, case.end, check
        );
        println!(
            "{:>8} {:>8} {:>8} {:>8} {:>10} {:>12}",
            "", "ERROR", "steps", "jac", "wall [ms]", "max error"
        );
        for kind in [
            IntegratorKind::Gstiff,
            IntegratorKind::Wstiff,
            IntegratorKind::Hht,
            IntegratorKind::Newmark,
        ] {
            for error in [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7] {
                match run(case, &settings(kind, error)) {
                    Ok((p, wall, steps, jac)) => println!(
                        "{:>8} {:>8.0e} {:>8} {:>8} {:>10.2} {:>12.3e}",
                        kind.name(),
                        error,
                        steps,
                        jac,
                        1e3 * wall,
                        max_dev(&p, &reference)
                    ),
                    Err(e) => println!("{:>8} {:>8.0e} failed: {e}", kind.name(), error),
                }
            }
        }
    }
}
