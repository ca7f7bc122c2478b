//! Mutation fuzzer for the `mbsolve` binary on stable Rust: mutated
//! command lines (`--target args`), command files run on the pendulum
//! (`--target acf`) and results files for `plot` (`--target plot`).
//!
//! ```sh
//! cargo build --release -p mbsolve
//! cargo run --release -p mbsolve --example fuzz_cli -- --target plot --seconds 600
//! ```
//!
//! Options: `--target args|acf|plot`, `--seconds N` (default 60), `--seed
//! S` (default: from the clock, printed), `--from K`, `--limit SECONDS`
//! (per input, default 20), `--bin PATH` (default: the `mbsolve` beside
//! this example's directory). Exit status 1 if anything was found.

#[path = "../tests/fuzz_cli_support/mod.rs"]
mod fuzz_cli_support;

use fuzz_cli_support::{run, Target, Workspace};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let mut target = Target::Args;
    let mut seconds = 60.0;
    let mut limit = 20.0;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut from = 0;
    let mut bin = std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("mbsolve")))
        .unwrap_or_else(|| PathBuf::from("target/release/mbsolve"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    let fail = |m: String| -> ! {
        eprintln!("fuzz_cli: {m}");
        std::process::exit(2)
    };
    while let Some(a) = it.next() {
        let v = it
            .next()
            .unwrap_or_else(|| fail(format!("{a} needs a value")));
        let num = |s: &str| {
            s.parse::<f64>()
                .unwrap_or_else(|_| fail(format!("{a}: '{s}' is not a number")))
        };
        match a.as_str() {
            "--target" => {
                target = Target::parse(v).unwrap_or_else(|| fail(format!("unknown target {v}")))
            }
            "--seconds" => seconds = num(v),
            "--limit" => limit = num(v),
            "--seed" => seed = num(v) as u64,
            "--from" => from = num(v) as u64,
            "--bin" => bin = PathBuf::from(v),
            other => fail(format!("unknown option {other}")),
        }
    }
    if !bin.is_file() {
        fail(format!(
            "no binary at {} (cargo build --release -p mbsolve, or --bin)",
            bin.display()
        ));
    }
    let ws = Workspace::new(
        std::env::temp_dir().join(format!("mbsolve-fuzz-cli-{}", std::process::id())),
    );
    println!("fuzz_cli: target {target:?}, seed {seed}, from {from}, {seconds} s, {limit} s per input, {}", bin.display());
    let start = Instant::now();
    let mut next_report = Duration::from_secs(60);
    let report = run(
        &bin,
        &ws,
        target,
        seed,
        from,
        Duration::from_secs_f64(limit),
        |k| {
            let el = start.elapsed();
            if el >= next_report {
                println!("  {:.0} s: iteration {k}", el.as_secs_f64());
                next_report += Duration::from_secs(60);
            }
            el.as_secs_f64() >= seconds
        },
    );
    let secs = start.elapsed().as_secs_f64();
    println!(
        "fuzz_cli: {} in {secs:.0} s ({:.0}/s)",
        report.summary(),
        report.inputs as f64 / secs
    );
    for (k, inp) in &report.slow {
        println!(
            "  over the time limit: iteration {k} (replay with --seed {seed} --from {k}): {:?}",
            inp.args
        );
        for (p, text) in &inp.files {
            println!("    {}:\n{text}", p.display());
        }
    }
    for (k, what, inp) in &report.findings {
        println!(
            "  FINDING at iteration {k}: {what}\n    args: {:?}",
            inp.args
        );
        for (p, text) in &inp.files {
            println!("    {}:\n{text}", p.display());
        }
    }
    let _ = std::fs::remove_dir_all(&ws.dir);
    if !report.findings.is_empty() {
        std::process::exit(1);
    }
}
