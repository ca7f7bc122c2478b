//! A short fixed-seed run of the mutation fuzzer (`examples/fuzz_reader.rs`
//! runs it for longer): a few thousand mutated datasets and command files
//! through the reader, none of which may panic.

mod fuzz_support;

use fuzz_support::{default_seed_dirs, input, iteration_rng, load_seeds, prefer_readable, run};

#[test]
fn mutated_inputs_never_panic_the_reader() {
    let seeds = prefer_readable(load_seeds(&default_seed_dirs()));
    assert!(seeds.len() >= 4, "no seeds: examples/ missing?");
    let report = run(20_240_601, 0, 10_000, &seeds, |_| false);
    println!("{}", report.outcome_summary());
    for f in &report.findings {
        println!(
            "PANIC {} ({} times), replay with --seed 20240601 --replay {}:\n{}\n",
            f.message, f.count, f.iteration, f.input
        );
    }
    assert_eq!(report.inputs, 10_000);
    assert!(
        report.findings.is_empty(),
        "{} panics",
        report.findings.len()
    );
    // The run reaches every layer: models that build and validate, models
    // the validation rejects, reader errors, and command files both ways.
    let o = report.outcomes;
    assert!(o[0] > 1000, "{}", report.outcome_summary());
    assert!(o.iter().all(|&n| n > 0), "{}", report.outcome_summary());
}

#[test]
fn an_iteration_is_reproducible_from_seed_and_index() {
    let seeds = load_seeds(&default_seed_dirs());
    let a = input(&mut iteration_rng(7, 123), &seeds);
    let b = input(&mut iteration_rng(7, 123), &seeds);
    let c = input(&mut iteration_rng(7, 124), &seeds);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn a_panic_is_caught_with_its_location() {
    let e = fuzz_support::catch(|| -> u8 { panic!("boom {}", 7) }).unwrap_err();
    assert!(e.contains("tests/fuzz_reader.rs:"), "{e}");
    assert!(e.ends_with(": boom 7"), "{e}");
}
