//! The bad-input suite of issue 11 (command line and output path): each
//! hostile or mistaken input gets its exact message and exit status, and
//! whatever was computed before the failure is still in the CSV and the
//! `.msg`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::{bin, pendulum, run_cmd, stderr};

fn scratch(name: &str) -> PathBuf {
    common::scratch("bad", name)
}

fn run_acf(dir: &Path, acf: &str) -> Output {
    run_cmd(dir, acf).output().unwrap()
}

/// Run `cmd` with stderr piped. A hang (a blocked reader, a loop in
/// plotters) must not stall the suite, so a watchdog kills the child after
/// `HANG_WATCHDOG`; nothing is asserted about time: the caller's
/// assertions on the exit status and message fail for a killed child
/// (its status has no code), whatever the machine's speed.
fn run_guarded(mut cmd: Command) -> Output {
    let child = cmd.stderr(Stdio::piped()).spawn().unwrap();
    common::wait_bounded(child, HANG_WATCHDOG)
}

/// Far beyond any run of these inputs (they finish in milliseconds).
const HANG_WATCHDOG: Duration = Duration::from_secs(600);

/// Exit status 1 and `want` in the error line.
fn assert_error(o: &Output, want: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.starts_with("mbsolve: error: "), "{e}");
    assert!(e.contains(want), "expected {want:?} in {e}");
    assert!(!e.contains("panicked"), "{e}");
}

/// Times in the CSV's first column (the header excluded).
fn csv_times(path: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("time,"));
    lines
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

fn msg(dir: &Path, prefix: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{prefix}.msg"))).unwrap()
}

#[test]
fn output_counts_beyond_the_limit_are_refused_and_earlier_results_kept() {
    let d = scratch("dtout");
    // A good SIMULATE to 0.5 s, then one asking for 5e299 outputs.
    let o = run_acf(
        &d,
        "pendulum.adm\np\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 50\nSIMULATE/DYNAMIC, END = 1, DTOUT = 1e-300\nSTOP\n",
    );
    assert_error(
        &o,
        "SIMULATE: DTOUT = 1e-300 from t = 5e-1 to END = 1e0 gives 5.000e299 output steps; the limit is 1e7 output steps per SIMULATE (51 output frames up to t = 5e-1 written; see ",
    );
    let t = csv_times(&d.join("p.csv"));
    assert_eq!(t.len(), 51);
    assert!((t[50] - 0.5).abs() < 1e-12);
    let m = msg(&d, "p");
    assert!(m.contains("output frames: 51;"), "{m}");
    assert!(
        m.contains("stopped on error: SIMULATE: DTOUT = 1e-300"),
        "{m}"
    );
    assert!(
        m.ends_with("51 output frames up to t = 5e-1 written\n"),
        "{m}"
    );

    for (sim, want) in [
        (
            "SIMULATE/DYNAMIC, END = 1, STEPS = 4294967296",
            "SIMULATE: STEPS = 4294967296 is too many output steps; the limit is 1e7 output steps per SIMULATE",
        ),
        (
            "SIMULATE/DYNAMIC, END = 1, STEPS = 1000000000",
            "SIMULATE: STEPS = 1000000000 is too many output steps; the limit is 1e7 output steps per SIMULATE",
        ),
        (
            "SIMULATE/DYNAMIC, END = 1, DTOUT = 1e-20",
            "SIMULATE: DTOUT = 1e-20 from t = 0e0 to END = 1e0 gives 1.000e20 output steps; the limit is 1e7",
        ),
        (
            "SIMULATE/DYNAMIC, END = 1e300, DTOUT = 1",
            "SIMULATE: DTOUT = 1e0 from t = 0e0 to END = 1e300 gives 1.000e300 output steps; the limit is 1e7",
        ),
        (
            "SIMULATE/STATIC, END = 1, DTOUT = 1e-300",
            "gives 1.000e300 output steps; the limit is 1e7 output steps per SIMULATE",
        ),
        (
            "SIMULATE/TRANSIENT, END = 1, DTOUT = 1e-300",
            "gives 1.000e300 output steps; the limit is 1e7 output steps per SIMULATE",
        ),
    ] {
        let o = run_acf(&d, &format!("pendulum.adm\nq\n{sim}\nSTOP\n"));
        assert_error(&o, want);
    }
}

#[test]
fn a_failing_request_says_truthfully_that_nothing_was_written() {
    let d = scratch("jflag");
    let adm = d.join("bad.adm");
    let text = std::fs::read_to_string(pendulum())
        .unwrap()
        .replace("\nEND", "\nREQUEST/9, F2 = JOINT(1, 5, 2, 0)\nEND");
    std::fs::write(&adm, text).unwrap();
    let o = bin().args(["run", "--quiet"]).arg(&adm).output().unwrap();
    assert_error(
        &o,
        "output failed: REQUEST/9: F2 = JOINT(1, 5, 2, 0) at t = 0: JOINT: jflag must be 0 (I marker) or 1 (J marker), got 5 (no output frame was written; see ",
    );
    // The request fails on the very first frame: the CSV holds the header
    // only, and the log says so instead of "results up to the failure".
    assert!(csv_times(&d.join("bad.csv")).is_empty());
    let m = msg(&d, "bad");
    assert!(m.contains("output frames: 0;"), "{m}");
    assert!(m.ends_with("no output frame was written\n"), "{m}");
}

#[test]
fn readers_refuse_what_is_not_a_regular_file() {
    let d = scratch("fifo");
    let fifo = d.join("model.adm");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // A reader that opened the FIFO would block: the watchdog kills it and
    // the status assertion fails.
    for sub in ["check", "run"] {
        let mut cmd = bin();
        cmd.arg(sub).arg(&fifo);
        let o = run_guarded(cmd);
        assert_error(
            &o,
            &format!(
                "cannot read the model file {}: it is a FIFO (named pipe), not a regular file",
                fifo.display()
            ),
        );
    }
    let o = bin().arg("check").arg(&d).output().unwrap();
    assert_error(
        &o,
        &format!(
            "cannot read the model file {}: it is a directory, not a regular file",
            d.display()
        ),
    );
    let o = bin()
        .arg("run")
        .arg(pendulum())
        .args(["--acf", "/dev/null"])
        .output()
        .unwrap();
    assert_error(
        &o,
        "cannot read the command file /dev/null: it is a character device, not a regular file",
    );
    let o = bin()
        .arg("run")
        .arg(d.join("missing.adm"))
        .output()
        .unwrap();
    assert_error(&o, "missing.adm: no such file");
}

#[test]
fn plot_refuses_undrawable_ranges() {
    let d = scratch("plot-range");
    let huge = d.join("huge.csv");
    std::fs::write(
        &huge,
        "time,request_1.x\n0,0\n1,1.7976931348623157e308\n2,1\n",
    )
    .unwrap();
    let wide = d.join("wide.csv");
    std::fs::write(&wide, "time,request_1.x\n-1e308,0\n1e308,1\n").unwrap();
    for (csv, want) in [
        (
            &huge,
            "cannot plot: the value axis would span -8.988465674311579e306 to inf; values beyond ±1e300 cannot be drawn",
        ),
        (
            &wide,
            "cannot plot: the time axis would span -1e308 to 1e308; values beyond ±1e300 cannot be drawn",
        ),
    ] {
        let mut cmd = bin();
        cmd.arg("plot").arg(csv);
        let o = run_guarded(cmd);
        assert_error(&o, want);
    }
    // A near-constant column (a range below 1e-12 of its size) is drawn
    // as a constant, not refused.
    let flat = d.join("flat.csv");
    std::fs::write(&flat, "time,a\n0,1\n1,1.0000000000000002\n").unwrap();
    let o = bin().arg("plot").arg(&flat).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn plot_never_overwrites_its_input() {
    let d = scratch("plot-self");
    let csv = d.join("r.svg");
    let text = "time,a\n0,1\n1,2\n";
    std::fs::write(&csv, text).unwrap();
    let o = bin()
        .arg("plot")
        .arg(&csv)
        .arg("-o")
        .arg(&csv)
        .output()
        .unwrap();
    assert_error(
        &o,
        &format!(
            "refusing to write {}: it is the input results file",
            csv.display()
        ),
    );
    // The default output (the CSV's path with .svg) is the input here too.
    let o = bin().arg("plot").arg(&csv).output().unwrap();
    assert_error(&o, "it is the input results file");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), text);
}

#[test]
fn output_stays_inside_the_output_directory() {
    let d = scratch("prefix");
    let outside = d.join("outside");
    for (prefix, name) in [
        (format!("{}/abs", outside.display()), "abs"),
        ("../up".to_string(), "up"),
        ("sub/dir/deep".to_string(), "deep"),
    ] {
        let out = d.join(format!("out-{name}"));
        let acf = d.join(format!("{name}.acf"));
        std::fs::write(
            &acf,
            format!("pendulum.adm\n{prefix}\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 2\nSTOP\n"),
        )
        .unwrap();
        let o = bin()
            .arg("run")
            .arg(pendulum())
            .arg("--acf")
            .arg(&acf)
            .arg(format!("--out={}", out.display()))
            .arg("--quiet")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(csv_times(&out.join(format!("{name}.csv"))).len(), 3);
        let m = msg(&out, name);
        assert!(
            m.contains(&format!("output prefix '{prefix}' has directory parts: reduced to '{name}' (output goes only into the output directory)")),
            "{m}"
        );
        let mut files: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        assert_eq!(files, [format!("{name}.csv"), format!("{name}.msg")]);
    }
    assert!(!outside.exists());
    assert!(!d.join("up.csv").exists());
}

#[test]
fn output_never_replaces_the_model_or_command_file() {
    let d = scratch("self");
    // A dataset named like the output: p.msg beside a command file whose
    // prefix is p. Without --out the files go beside the model.
    let model = d.join("p.msg");
    std::fs::copy(pendulum(), &model).unwrap();
    let acf = d.join("p.acf");
    std::fs::write(
        &acf,
        "p.msg\np\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 2\nSTOP\n",
    )
    .unwrap();
    let o = bin()
        .arg("run")
        .arg(&model)
        .arg("--acf")
        .arg(&acf)
        .output()
        .unwrap();
    assert_error(
        &o,
        &format!(
            "refusing to write {}: it is the model file (choose another output prefix or --out)",
            model.display()
        ),
    );
    assert_eq!(
        std::fs::read_to_string(&model).unwrap(),
        std::fs::read_to_string(pendulum()).unwrap()
    );
}

#[test]
fn command_files_without_analysis_commands_are_errors() {
    let d = scratch("acf");
    let name = d.join("cmd.acf").display().to_string();
    for (acf, want) in [
        ("", format!("{name}: no analysis command (SIMULATE, INTEGRATOR or EQUILIBRIUM)")),
        (
            "pendulum.adm\np\n",
            format!("{name}: no analysis command (SIMULATE, INTEGRATOR or EQUILIBRIUM)"),
        ),
        (
            "pendulum.adm\np\nSTOP\n",
            format!("{name}: no analysis command (SIMULATE, INTEGRATOR or EQUILIBRIUM)"),
        ),
        (
            "SIMULTAE/DYNAMIC, END = 1, STEPS = 10\n\nSTOP\n",
            format!("{name}: no analysis command (SIMULATE, INTEGRATOR or EQUILIBRIUM); line 1 ('SIMULTAE/DYNAMIC, END = 1, STEPS = 10') was read as the dataset name: is the command misspelled?"),
        ),
        // The prefix line forgotten: the only command became the prefix.
        (
            "pendulum.adm\nSIMULATE/DYNAMIC, END = 1, STEPS = 100\nSTOP\n",
            format!("{name}: no analysis command (SIMULATE, INTEGRATOR or EQUILIBRIUM); line 2 ('SIMULATE/DYNAMIC, END = 1, STEPS = 100') was read as the output prefix: is the prefix line missing? (in a command file whose line 1 names the dataset, line 2 is the output prefix)"),
        ),
        (
            "pendulum.adm\nINTEGRATOR/GSTIFF, ERROR = 1e-5\nSIMULATE/DYNAMIC, END = 1, STEPS = 100\nSTOP\n",
            format!("{name}:2: 'INTEGRATOR/GSTIFF, ERROR = 1e-5' was read as the output prefix but looks like a command: is the prefix line missing?"),
        ),
    ] {
        let o = run_acf(&d, acf);
        assert_error(&o, &want);
        assert!(!stderr(&o).contains("cannot write"), "{}", stderr(&o));
    }
}

#[test]
fn equilibrium_limits_from_the_command_file_take_effect() {
    let d = scratch("tlimit");
    let o = run_acf(
        &d,
        "pendulum.adm\np\nEQUILIBRIUM/TLIMIT = -1\nSIMULATE/STATIC\nSTOP\n",
    );
    assert_error(&o, "TLIMIT = -1 is out of range (TLIMIT > 0)");
    // A valid TLIMIT is used: the Newton steps are cut to it.
    let o = run_acf(
        &d,
        "pendulum.adm\np\nEQUILIBRIUM/TLIMIT = 0.01\nSIMULATE/STATIC\nSTOP\n",
    );
    let m = msg(&d, "p");
    assert!(
        m.contains("step limited by TLIMIT/ALIMIT"),
        "{}\n{m}",
        stderr(&o)
    );
}

#[test]
fn command_line_conventions() {
    // No arguments: usage on stderr, exit 2.
    let o = bin().output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("mbsolve run MODEL.adm [--acf FILE.acf] [--out DIR] [--quiet]"));
    // A single-valued option given twice.
    let o = bin()
        .arg("run")
        .arg(pendulum())
        .args(["--out", "a", "--out", "b"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the argument '--out <DIR>' cannot be used multiple times"),
        "{}",
        stderr(&o)
    );
    // Unknown option and unknown command: usage errors, exit 2.
    let o = bin().args(["plot", "r.csv", "--quiet"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unexpected argument '--quiet'"));
    let o = bin().args(["frobnicate", "x"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unrecognized subcommand 'frobnicate'"));
    let o = bin().arg("--version").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("mbsolve {}\n", env!("CARGO_PKG_VERSION"))
    );
    let o = bin().args(["run", "--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let s = String::from_utf8_lossy(&o.stdout);
    for w in ["--acf <FILE>", "--out <DIR>", "--quiet"] {
        assert!(s.contains(w), "{w} missing from {s}");
    }
    for shell in ["bash", "zsh", "fish"] {
        let o = bin().args(["completions", shell]).output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        let s = String::from_utf8_lossy(&o.stdout);
        assert!(
            s.contains("mbsolve") && s.contains("acf") && s.contains("quiet"),
            "{shell}: {s}"
        );
    }
}

#[test]
fn a_panic_keeps_the_results_and_exits_2() {
    let d = scratch("panic");
    let o = run_cmd(
        &d,
        "pendulum.adm\np\nSIMULATE/DYNAMIC, END = 1, STEPS = 100\nSTOP\n",
    )
    .env("MBSOLVE_PANIC_AFTER_FRAMES", "20")
    .output()
    .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.starts_with("mbsolve: internal error: fault injected by MBSOLVE_PANIC_AFTER_FRAMES after 20 frames at crates/cli/src/run.rs:"),
        "{e}"
    );
    assert!(
        !e.contains("panicked at"),
        "the default hook is replaced: {e}"
    );
    let t = csv_times(&d.join("p.csv"));
    assert_eq!(t.len(), 20);
    assert!((t[19] - 0.19).abs() < 1e-12);
    let m = msg(&d, "p");
    assert!(m.contains("internal error: fault injected"), "{m}");
    assert!(
        m.ends_with("20 output frames up to t = 1.9e-1 written\n"),
        "{m}"
    );
}

/// Rows in the CSV so far (0 while it does not exist).
fn rows_now(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// A long run stopped by `signal` once its first rows are in the CSV: exit
/// 128 + signal, and the CSV and the `.msg` hold every frame computed.
fn interrupted(signal: &str, code: i32) {
    let d = scratch(signal);
    let csv = d.join("long.csv");
    // 1e7 outputs: the most one SIMULATE may ask for.
    let child = run_cmd(
        &d,
        "pendulum.adm\nlong\nSIMULATE/DYNAMIC, END = 10000, DTOUT = 0.001\nSTOP\n",
    )
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut child = child;
    // Wait for the first rows (the run takes far longer than they do); a
    // run that ends before writing them fails here, not on a clock.
    while rows_now(&csv) < 10 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before writing 10 rows"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    let t = csv_times(&csv);
    assert!(t.len() >= 10);
    let m = msg(&d, "long");
    let last = format!("{:e}", t.last().unwrap());
    let kept = format!("{} output frames up to t = {last} written", t.len());
    assert!(
        m.ends_with(&format!("stopped by SIG{signal}; {kept}\n")),
        "{kept}\n{m}"
    );
    assert!(m.contains(&format!("output frames: {};", t.len())), "{m}");
    assert!(
        e.starts_with(&format!("mbsolve: stopped by SIG{signal} ({kept}; see ")),
        "{e}"
    );
    // Consecutive outputs, none lost or repeated: t_k = k·DTOUT.
    for (k, tk) in t.iter().enumerate() {
        assert!((tk - 1e-3 * k as f64).abs() < 1e-9, "row {k}: t = {tk}");
    }
}

#[test]
fn sigint_keeps_every_frame_computed() {
    interrupted("INT", 130);
}

#[test]
fn sigterm_keeps_every_frame_computed() {
    interrupted("TERM", 143);
}
