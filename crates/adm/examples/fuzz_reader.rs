//! Mutation fuzzer for the `.adm`/`.acf` reader on stable Rust.
//!
//! ```sh
//! cargo run --release -p mbsolve-adm --example fuzz_reader -- --seconds 600
//! cargo run --release -p mbsolve-adm --example fuzz_reader -- --seed 7 --replay 12345
//! ```
//!
//! Options: `--seconds N` (default 60), `--seed S` (default: from the
//! clock, printed), `--from K` (first iteration, default 0), `--out DIR`
//! (where panicking inputs are saved, default `fuzz-findings`), `--replay K`
//! (write iteration K's input to DIR and check it). Seeds: every .adm/.acf
//! in `examples/` and `../shared/corpus`. Exit status 1 if anything
//! panicked, 2 on a hang (one input running for over 10 s).

#[path = "../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::{
    check, default_seed_dirs, input, iteration_rng, load_seeds, prefer_readable, run, Kind,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Options {
    seconds: f64,
    seed: u64,
    from: u64,
    out: PathBuf,
    replay: Option<u64>,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        seconds: 60.0,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1),
        from: 0,
        out: PathBuf::from("fuzz-findings"),
        replay: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut v = || it.next().ok_or(format!("{a} needs a value"));
        let num = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| format!("{a}: '{s}' is not a number"))
        };
        match a.as_str() {
            "--seconds" => {
                let s = v()?;
                o.seconds = s
                    .parse()
                    .map_err(|_| format!("--seconds: '{s}' is not a number"))?
            }
            "--seed" => o.seed = num(v()?)?,
            "--from" => o.from = num(v()?)?,
            "--out" => o.out = PathBuf::from(v()?),
            "--replay" => o.replay = Some(num(v()?)?),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn ext(kind: Kind) -> &'static str {
    match kind {
        Kind::Adm => "adm",
        Kind::Acf => "acf",
    }
}

fn save(out: &Path, name: &str, text: &str) -> PathBuf {
    let _ = std::fs::create_dir_all(out);
    let p = out.join(name);
    if let Err(e) = std::fs::write(&p, text) {
        eprintln!("cannot write {}: {e}", p.display());
    }
    p
}

fn main() {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fuzz_reader: {e}");
            std::process::exit(2);
        }
    };
    let seeds = prefer_readable(load_seeds(&default_seed_dirs()));
    if seeds.is_empty() {
        eprintln!("fuzz_reader: no .adm/.acf seeds found");
        std::process::exit(2);
    }
    if let Some(k) = o.replay {
        let (kind, text) = input(&mut iteration_rng(o.seed, k), &seeds);
        let p = save(
            &o.out,
            &format!("replay-{}-{k}.{}", o.seed, ext(kind)),
            &text,
        );
        match check(kind, &text) {
            Ok(outcome) => println!("{}: no panic ({outcome:?})", p.display()),
            Err(m) => println!("{}: panicked at {m}", p.display()),
        }
        return;
    }
    println!(
        "fuzz_reader: {} seeds (readable ones 4 times), seed {}, from iteration {}, {} s (on an abort, rerun with --seed {} --from <last iteration printed>)",
        seeds.len(),
        o.seed,
        o.from,
        o.seconds,
        o.seed
    );
    // Watchdog: an iteration that runs for 10 s is a hang.
    let current = Arc::new(AtomicU64::new(o.from));
    {
        let current = current.clone();
        let (seed, out, seeds) = (o.seed, o.out.clone(), seeds.clone());
        std::thread::spawn(move || {
            let mut last = u64::MAX;
            let mut since = Instant::now();
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let k = current.load(Ordering::Relaxed);
                if k != last {
                    (last, since) = (k, Instant::now());
                } else if since.elapsed() > Duration::from_secs(10) {
                    let (kind, text) = input(&mut iteration_rng(seed, k), &seeds);
                    let p = save(&out, &format!("hang-{seed}-{k}.{}", ext(kind)), &text);
                    eprintln!(
                        "fuzz_reader: iteration {k} has run for 10 s: hang? input saved to {}",
                        p.display()
                    );
                    std::process::exit(2);
                }
            }
        });
    }
    let start = Instant::now();
    let limit = Duration::from_secs_f64(o.seconds);
    let mut next_report = Duration::from_secs(30);
    let report = run(o.seed, o.from, u64::MAX, &seeds, |k| {
        current.store(k, Ordering::Relaxed);
        if k % 256 != 0 {
            return false;
        }
        let el = start.elapsed();
        if el >= next_report {
            println!("  {:.0} s: iteration {k}", el.as_secs_f64());
            next_report += Duration::from_secs(30);
        }
        el >= limit
    });
    let secs = start.elapsed().as_secs_f64();
    let findings = &report.findings;
    println!(
        "fuzz_reader: {} inputs in {secs:.1} s ({:.0}/s), {} distinct panics\n  {}",
        report.inputs,
        report.inputs as f64 / secs,
        findings.len(),
        report.outcome_summary()
    );
    for f in findings {
        let p = save(
            &o.out,
            &format!("panic-{}-{}.{}", o.seed, f.iteration, ext(f.kind)),
            &f.input,
        );
        println!(
            "  {} ({} times; smallest input {} bytes, iteration {}, saved to {})",
            f.message,
            f.count,
            f.input.len(),
            f.iteration,
            p.display()
        );
    }
    if !findings.is_empty() {
        std::process::exit(1);
    }
}
