//! Benchmark: N-link pendulum chain (uniform rods 1 m, 1 kg, revolute joints
//! about z, initially horizontal, released from rest), 1 s with GSTIFF and
//! WSTIFF at ERROR = 1e-3, then HHT and NEWMARK at their default ERROR
//! (1e-5, the seeds' calibration to GSTIFF's 1e-3). Prints steps, Jacobian
//! evaluations, factorizations, wall time, wall time per step and per body
//! per step for each N, and the GSTIFF per-step cost ratio N=1000 / N=100.
//! `--serial` / `--parallel` force the element evaluation path (default:
//! parallel from `PARALLEL_MIN_BODIES` bodies).
//!
//! cargo run --release --example chain_bench [--serial|--parallel] [N ...]

use mbsolve_model::{IntegratorKind, IntegratorSettings};
use mbsolve_solver::{models, Simulation};
use std::time::Instant;

fn main() {
    let flags: Vec<String> = std::env::args().skip(1).collect();
    let parallel = if flags.iter().any(|a| a == "--serial") {
        Some(false)
    } else if flags.iter().any(|a| a == "--parallel") {
        Some(true)
    } else {
        None
    };
    let args: Vec<usize> = flags.iter().filter_map(|a| a.parse().ok()).collect();
    let ns = if args.is_empty() {
        vec![1, 2, 4, 8, 16, 32, 100, 300, 1000]
    } else {
        args
    };
    let runs = [
        IntegratorSettings {
            error: Some(1e-3),
            ..Default::default()
        },
        IntegratorSettings {
            kind: IntegratorKind::Wstiff,
            error: Some(1e-3),
            ..Default::default()
        },
        IntegratorSettings {
            kind: IntegratorKind::Hht,
            ..Default::default()
        },
        IntegratorSettings {
            kind: IntegratorKind::Newmark,
            ..Default::default()
        },
    ];
    println!(
        "{:>8} {:>6} {:>8} {:>8} {:>8} {:>10} {:>12} {:>14} {:>16}",
        "",
        "N",
        "steps",
        "rejects",
        "jac",
        "LU",
        "wall [s]",
        "wall/step [ms]",
        "per body-step [µs]"
    );
    let mut per_step = std::collections::HashMap::new();
    for settings in &runs {
        for &n in &ns {
            let name = settings.kind.name();
            let model = models::chain(n);
            let start = Instant::now();
            let mut sim = match Simulation::new(&model) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("N = {n}: {e}");
                    continue;
                }
            };
            if let Some(p) = parallel {
                sim.data.parallel = p;
            }
            let result = sim.dynamic(1.0, Some(100), None, settings);
            let wall = start.elapsed().as_secs_f64();
            match result {
                Ok(st) => {
                    let ps = 1e3 * wall / st.steps as f64;
                    if settings.kind == IntegratorKind::Gstiff {
                        per_step.insert(n, ps);
                    }
                    println!(
                        "{:>8} {:>6} {:>8} {:>8} {:>8} {:>10} {:>12.3} {:>14.4} {:>16.2}",
                        name,
                        n,
                        st.steps,
                        st.rejected_steps,
                        st.jacobian_evaluations,
                        st.factorizations,
                        wall,
                        ps,
                        1e3 * ps / n as f64
                    );
                }
                Err(e) => println!("{name:>8} {n:>6} failed: {e}"),
            }
        }
    }
    if let (Some(a), Some(b)) = (per_step.get(&100), per_step.get(&1000)) {
        println!("GSTIFF time per step ratio N=1000 / N=100: {:.2}", b / a);
    }
}
