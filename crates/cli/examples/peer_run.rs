//! One mbsolve run of a benchmark model for the peer benchmark
//! (`bench/peers/run.py`): builds `models::chain(N)` or
//! `models::free_slider_crank(0.5, 1.5, 2π)`, integrates it with the given
//! integrator, formulation and ERROR, and prints the wall times of REPEATS
//! runs (each from `Simulation::new` to the end of `dynamic`) and the probe
//! at every output time of the last run: the chain's tip (right end of the
//! last rod) or the slider's centre of mass.
//!
//! cargo run --release -p mbsolve --example peer_run -- MODEL INTEGRATOR[/FORMULATION] ERROR [REPEATS]
//!
//! MODEL: `chain:N` (1 s) or `slider` (2 s), 100 outputs either way.
//! INTEGRATOR: GSTIFF, WSTIFF, HHT, NEWMARK, CONSTANT_BDF; FORMULATION: I3,
//! SI2 or SI1. Output (stdout):
//!   wall T1 T2 ...        seconds per repeat
//!   steps S jac J
//!   t x y z               one line per output (t = 0 included)
//! A failed run prints `failed: MESSAGE` on stderr and exits 1.

use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::{models, Frame, Simulation};
use std::process::ExitCode;
use std::time::Instant;

/// The benchmark model, its end time and the index in `q` of the probed
/// body's coordinates (7 per moving part: position, then Euler parameters).
fn build(name: &str) -> Result<(Model, f64, usize, bool), String> {
    if name == "slider" {
        // Bodies in q: crank, rod, slider (ground has no coordinates).
        let m = models::free_slider_crank(0.5, 1.5, 2.0 * std::f64::consts::PI);
        return Ok((m, 2.0, 7 * 2, false));
    }
    let n: usize = name
        .strip_prefix("chain:")
        .and_then(|s| s.parse().ok())
        .filter(|&n| n >= 1)
        .ok_or_else(|| format!("MODEL must be chain:N (N ≥ 1) or slider, not {name:?}"))?;
    Ok((models::chain(n), 1.0, 7 * (n - 1), true))
}

/// Chain tip: the last rod's CM plus its body x axis × 0.5 m (its right end).
/// The x axis is the first column of the Euler-parameter rotation matrix.
fn probe(f: &Frame, o: usize, tip: bool) -> [f64; 3] {
    let r = [f.q[o], f.q[o + 1], f.q[o + 2]];
    if !tip {
        return r;
    }
    let (e0, e1, e2, e3) = (f.q[o + 3], f.q[o + 4], f.q[o + 5], f.q[o + 6]);
    let ax = [
        e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3,
        2.0 * (e1 * e2 + e0 * e3),
        2.0 * (e1 * e3 - e0 * e2),
    ];
    [r[0] + 0.5 * ax[0], r[1] + 0.5 * ax[1], r[2] + 0.5 * ax[2]]
}

fn settings(spec: &str, error: f64) -> Result<IntegratorSettings, String> {
    let (kind, form) = match spec.split_once('/') {
        Some((k, f)) => (k, Some(f)),
        None => (spec, None),
    };
    let kind = match kind.to_ascii_uppercase().as_str() {
        "GSTIFF" => IntegratorKind::Gstiff,
        "WSTIFF" => IntegratorKind::Wstiff,
        "HHT" => IntegratorKind::Hht,
        "NEWMARK" => IntegratorKind::Newmark,
        "CONSTANT_BDF" => IntegratorKind::ConstantBdf,
        other => return Err(format!("unknown INTEGRATOR {other:?}")),
    };
    let formulation = match form.map(|f| f.to_ascii_uppercase()) {
        None => None,
        Some(f) if f == "I3" => Some(Formulation::I3),
        Some(f) if f == "SI2" => Some(Formulation::Si2),
        Some(f) if f == "SI1" => Some(Formulation::Si1),
        Some(f) => return Err(format!("unknown FORMULATION {f:?}")),
    };
    Ok(IntegratorSettings {
        kind,
        formulation,
        error: Some(error),
        ..Default::default()
    })
}

fn run(args: &[String]) -> Result<(), String> {
    let [model, spec, error, rest @ ..] = args else {
        return Err("usage: peer_run MODEL INTEGRATOR[/FORMULATION] ERROR [REPEATS]".into());
    };
    let error: f64 = error
        .parse()
        .ok()
        .filter(|e: &f64| *e > 0.0)
        .ok_or_else(|| format!("ERROR must be a positive number, not {error:?}"))?;
    let repeats: usize = match rest {
        [] => 1,
        [r] => r
            .parse()
            .ok()
            .filter(|&r| r >= 1)
            .ok_or_else(|| format!("REPEATS must be a positive integer, not {r:?}"))?,
        _ => return Err("too many arguments".into()),
    };
    let (model, end, offset, tip) = build(model)?;
    let settings = settings(spec, error)?;
    let mut walls = Vec::with_capacity(repeats);
    let mut last = None;
    for _ in 0..repeats {
        let start = Instant::now();
        let mut sim = Simulation::new(&model).map_err(|e| e.to_string())?;
        let stats = sim
            .dynamic(end, Some(100), None, &settings)
            .map_err(|e| e.to_string())?;
        walls.push(start.elapsed().as_secs_f64());
        last = Some((sim, stats));
    }
    let (sim, stats) = last.expect("REPEATS ≥ 1");
    let walls: Vec<String> = walls.iter().map(|w| format!("{w:.6e}")).collect();
    println!("wall {}", walls.join(" "));
    println!("steps {} jac {}", stats.steps, stats.jacobian_evaluations);
    for f in &sim.frames {
        let p = probe(f, offset, tip);
        println!("{:.17e} {:.17e} {:.17e} {:.17e}", f.t, p[0], p[1], p[2]);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("failed: {e}");
            ExitCode::FAILURE
        }
    }
}
