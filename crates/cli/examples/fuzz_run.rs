//! The reader fuzzer one step deeper: mutated datasets that read and
//! validate are also simulated the way `mbsolve run` would — system set-up,
//! initial conditions, a short dynamic analysis (END = 0.01, 2 outputs)
//! with the dataset's INTEGRATOR settings, and the request table (function
//! expressions evaluated) — all under `catch_unwind`.
//!
//! ```sh
//! cargo run --release -p mbsolve --example fuzz_run -- --seconds 300 --seed 1
//! ```
//!
//! Panicking inputs are saved to `--out DIR` (default `fuzz-findings`);
//! exit status 1 if anything panicked, 2 on a hang (over 20 s).

#[path = "../../adm/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::{catch, default_seed_dirs, input, iteration_rng, load_seeds, Kind, Seed};
use mbsolve_solver::{requests::Outputs, Simulation};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
enum Stage {
    Rejected,
    SystemError,
    IcError,
    DynamicError,
    Ran,
}

/// Read, validate and simulate one input; the furthest stage reached.
fn simulate(text: &str) -> Stage {
    let Ok(model) = mbsolve_adm::read_adm_str(text, "fuzz.adm") else {
        return Stage::Rejected;
    };
    if mbsolve_model::validate(&model).is_err() {
        return Stage::Rejected;
    }
    let Ok(outputs) = Outputs::new(&model) else {
        return Stage::SystemError;
    };
    let mut sim = match Simulation::new(&model) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return Stage::SystemError;
        }
    };
    if let Err(e) = sim.initial_conditions() {
        let _ = e.to_string();
        return Stage::IcError;
    }
    let stage = match sim.dynamic(0.01, Some(2), None, &model.integrator) {
        Ok(_) => Stage::Ran,
        Err(e) => {
            let _ = e.to_string();
            Stage::DynamicError
        }
    };
    let _ = outputs.table(&sim.sys, &sim.model, &sim.frames);
    stage
}

fn usage(msg: &str) -> ! {
    eprintln!("fuzz_run: {msg}");
    std::process::exit(2)
}

fn main() {
    let mut seconds = 60.0;
    let mut seed = 1u64;
    let mut out = PathBuf::from("fuzz-findings");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it
            .next()
            .unwrap_or_else(|| usage(&format!("{a} needs a value")));
        match a.as_str() {
            "--seconds" => {
                seconds = v
                    .parse()
                    .unwrap_or_else(|_| usage("--seconds takes a number"))
            }
            "--seed" => {
                seed = v
                    .parse()
                    .unwrap_or_else(|_| usage("--seed takes an integer"))
            }
            "--out" => out = PathBuf::from(v),
            other => usage(&format!("unknown option {other}")),
        }
    }
    // Datasets that simulate as given.
    let seeds: Vec<Seed> = load_seeds(&default_seed_dirs())
        .into_iter()
        .filter(|s| s.kind == Kind::Adm && matches!(catch(|| simulate(&s.text)), Ok(Stage::Ran)))
        .collect();
    println!(
        "fuzz_run: {} seeds that simulate, seed {seed}, {seconds} s",
        seeds.len()
    );
    let current = Arc::new(AtomicU64::new(0));
    {
        let (current, seeds, out) = (current.clone(), seeds.clone(), out.clone());
        std::thread::spawn(move || {
            let (mut last, mut since) = (u64::MAX, Instant::now());
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let k = current.load(Ordering::Relaxed);
                if k != last {
                    (last, since) = (k, Instant::now());
                } else if since.elapsed() > Duration::from_secs(20) {
                    let (_, text) = input(&mut iteration_rng(seed, k), &seeds);
                    let _ = std::fs::create_dir_all(&out);
                    let p = out.join(format!("run-hang-{seed}-{k}.adm"));
                    let _ = std::fs::write(&p, text);
                    eprintln!(
                        "fuzz_run: iteration {k} ran for 20 s; saved {}",
                        p.display()
                    );
                    std::process::exit(2);
                }
            }
        });
    }
    let start = Instant::now();
    let mut counts = [0u64; 5];
    let mut panics: Vec<(String, u64, String)> = Vec::new();
    let mut k = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        current.store(k, Ordering::Relaxed);
        let (_, text) = input(&mut iteration_rng(seed, k), &seeds);
        match catch(|| simulate(&text)) {
            Ok(stage) => counts[stage as usize] += 1,
            Err(msg) => {
                let loc = msg.split(": ").next().unwrap_or("").to_string();
                match panics.iter_mut().find(|p| p.0.starts_with(&loc)) {
                    Some(p) if text.len() < p.2.len() => (p.1, p.2) = (k, text),
                    Some(_) => {}
                    None => panics.push((msg, k, text)),
                }
            }
        }
        k += 1;
    }
    println!(
        "fuzz_run: {k} inputs in {:.0} s: {} rejected by reader/validation, {} by system set-up, {} failed initial conditions, {} failed the dynamic run, {} ran; {} distinct panics",
        start.elapsed().as_secs_f64(),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        panics.len()
    );
    for (msg, iteration, text) in &panics {
        let _ = std::fs::create_dir_all(&out);
        let p = out.join(format!("run-panic-{seed}-{iteration}.adm"));
        let _ = std::fs::write(&p, text);
        println!(
            "  {msg} (smallest input {} bytes, saved to {})",
            text.len(),
            p.display()
        );
    }
    if !panics.is_empty() {
        std::process::exit(1);
    }
}
