//! Issue 38 (reliability, third round): a run stops when asked inside a
//! long output interval, stalls end with a diagnosis and a bounded `.msg`,
//! sweeps are bounded before they start, deep XML is refused with its
//! position, and a closed or full stdout is handled as Unix programs do.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{bin, pendulum, run_cmd, stderr, wait_bounded};

fn scratch(name: &str) -> PathBuf {
    common::scratch("rel", name)
}

/// Rows in the CSV so far (0 while it does not exist).
fn rows_now(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// A run inside its one long output interval (STEPS = 1 over END = 1000
/// with HMAX = 1e-5: 1e8 steps before the first output) gets `signal`:
/// it ends within a generous 10 s of the signal with status 128 + signal,
/// the initial-conditions frame kept, and the `.msg` and stderr say it
/// was stopped by that signal.
fn stopped_inside_an_interval(signal: &str, code: i32) {
    let d = scratch(&format!("stop-{signal}"));
    let csv = d.join("stuck.csv");
    let mut child = run_cmd(
        &d,
        "pendulum.adm\nstuck\nINTEGRATOR/GSTIFF, HMAX = 1E-5\nSIMULATE/DYNAMIC, END = 1000, STEPS = 1\nSTOP\n",
    )
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // The IC frame is written before the integration starts.
    while rows_now(&csv) < 1 {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    let sent = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success());
    // The run left alone would take 1e8 steps; it ends through its own
    // signal handling (the status and the stopped lines below), or the
    // watchdog kills it and the status has no code: no clock is read.
    let o = wait_bounded(child, Duration::from_secs(60));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    let kept = "1 output frames up to t = 0e0 written";
    let m = std::fs::read_to_string(d.join("stuck.msg")).unwrap();
    assert!(
        m.ends_with(&format!("stopped by SIG{signal}; {kept}\n")),
        "{m}"
    );
    assert!(
        m.contains(&format!("stopped by SIG{signal}: {kept}\n")),
        "{m}"
    );
    assert!(
        e.starts_with(&format!("mbsolve: stopped by SIG{signal} ({kept}; see ")),
        "{e}"
    );
    assert_eq!(rows_now(&csv), 1);
}

#[test]
fn sigterm_stops_a_run_inside_one_long_output_interval() {
    stopped_inside_an_interval("TERM", 143);
}

#[test]
fn sighup_stops_a_run_with_a_stopped_line() {
    stopped_inside_an_interval("HUP", 129);
}

#[test]
fn sigint_stops_a_run_inside_one_long_output_interval() {
    stopped_inside_an_interval("INT", 130);
}

/// A MotionSolve deck with 20,000 nested elements is refused before it is
/// parsed, naming the file, line and column of the first element beyond
/// 256 levels, by `check`, `run` and `sweep` alike: status 1, no abort.
#[test]
fn deeply_nested_xml_is_refused_with_its_position() {
    let d = scratch("deep");
    let deck = d.join("deep.xml");
    let text = format!(
        "<?xml version=\"1.0\"?>\n<MultiBodySystem><Model>\n{}{}\n</Model></MultiBodySystem>\n",
        "<Group>".repeat(20_000),
        "</Group>".repeat(20_000)
    );
    std::fs::write(&deck, text).unwrap();
    // MultiBodySystem and Model are levels 1 and 2: the 255th <Group> is
    // level 257, at column 254·7 + 1.
    let want = format!(
        "{}:3:1779: elements are nested more than 256 levels deep here; a MotionSolve deck nests a few levels",
        deck.display()
    );
    let runs: [&[&str]; 3] = [
        &["check"],
        &["run", "--quiet"],
        &["sweep", "--set", "Body_Rigid/2.mass=1,2"],
    ];
    for args in runs {
        let mut c = bin();
        c.arg(args[0])
            .arg(&deck)
            .args(&args[1..])
            .arg("--out")
            .arg(&d);
        if args[0] == "check" {
            c = bin();
            c.arg("check").arg(&deck);
        }
        let o = wait_bounded(
            c.stderr(Stdio::piped()).spawn().unwrap(),
            Duration::from_secs(120),
        );
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        // A sweep's study error names the line without the column.
        let want = if args[0] == "sweep" {
            want.replacen(":3:1779:", ":3:", 1)
        } else {
            want.clone()
        };
        assert!(e.contains(&want), "{args:?}: {e}");
    }
}

/// HHT with ALPHA = 0 and ERROR = 1e-4 on the bundled pendulum stalls near
/// t = 5.68 (the step collapses to ~1e-9 with a corrector failure every
/// third step). The run ends by itself with the stall diagnosis (status 1),
/// keeps its frames, and the `.msg` stays under 64 KB: 20 corrector
/// failures in full, then one count with its time range.
#[test]
fn an_hht_stall_ends_with_a_diagnosis_and_a_bounded_log() {
    let d = scratch("stall");
    let child = run_cmd(
        &d,
        "pendulum.adm\nstall\nINTEGRATOR/HHT, ALPHA = 0, ERROR = 1E-4\nSIMULATE/DYNAMIC, END = 10, STEPS = 1000\nSTOP\n",
    )
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let o = wait_bounded(child, Duration::from_secs(300));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(": the integration stalled: its last 10000 steps advanced t by only "),
        "{e}"
    );
    let m = std::fs::read_to_string(d.join("stall.msg")).unwrap();
    assert!(m.len() < 64 * 1024, "{} bytes", m.len());
    let full = m
        .lines()
        .filter(|l| l.starts_with("corrector failure at t = "))
        .count();
    assert_eq!(full, 20, "{m}");
    let counted = m
        .lines()
        .find(|l| l.contains(" more corrector failures from t = "))
        .unwrap_or_else(|| panic!("{m}"));
    let more: u64 = counted.split(' ').next().unwrap().parse().unwrap();
    assert!(more >= 1000, "{counted}");
    let rows = rows_now(&d.join("stall.csv"));
    assert!((500..1000).contains(&rows), "{rows} rows");
}

/// Six `--set` lists of 20 values (64 million combinations) are refused
/// before any variant is built or any file written, with the count and the
/// limit; the same key twice is refused by name.
#[test]
fn sweeps_are_bounded_before_they_start() {
    let d = scratch("sweep-cap");
    let out = d.join("out");
    let twenty: Vec<String> = (1..=20).map(|i| format!("{i}")).collect();
    let mut c = bin();
    c.arg("sweep").arg(pendulum()).arg("--out").arg(&out);
    for k in 0..6 {
        // Six distinct keys of the pendulum's integrator and part.
        let key = [
            "PART/2.MASS",
            "INTEGRATOR.ERROR",
            "INTEGRATOR.HMAX",
            "INTEGRATOR.MAXIT",
            "INTEGRATOR.KMAX",
            "INTEGRATOR.HINIT",
        ][k];
        c.arg("--set").arg(format!("{key}={}", twenty.join(",")));
    }
    let o = wait_bounded(
        c.stderr(Stdio::piped()).spawn().unwrap(),
        Duration::from_secs(120),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "mbsolve: error: the sweep has 64000000 variants (20 × 20 × 20 × 20 × 20 × 20 values); the limit is 100000 variants per sweep\n"
    );
    assert!(!out.exists());
    let o = bin()
        .arg("sweep")
        .arg(pendulum())
        .args(["--set", "PART/2.MASS=1,2", "--set", "part/2.mass=3"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "mbsolve: error: PART/2.MASS is set twice ('PART/2.MASS' and 'part/2.mass'): give all its values in one list\n"
    );
}

/// The commands that print to stdout.
fn printing_commands(d: &Path) -> Vec<Command> {
    let mut check = bin();
    check.arg("check").arg(pendulum());
    let mut completions = bin();
    completions.args(["completions", "bash"]);
    let mut run = bin();
    run.arg("run").arg(pendulum()).arg("--out").arg(d);
    vec![check, completions, run]
}

/// A full disk at stdout (`> /dev/full`) is an error naming the output,
/// status 1, not an internal error.
#[test]
fn a_full_stdout_is_an_error_naming_it() {
    let d = scratch("enospc");
    for mut c in printing_commands(&d) {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = c.stdout(full).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{c:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "mbsolve: error: cannot write to standard output: No space left on device (os error 28)\n",
            "{c:?}"
        );
    }
}

/// `refusing to write PATH: it is KIND; outputs are written only to
/// regular files`, status 1, with the command ended (not blocked on a
/// FIFO: the watchdog would kill it and the status would not be 1).
fn assert_refused_output(mut c: Command, path: &Path, kind: &str) {
    let o = wait_bounded(
        c.stderr(Stdio::piped()).spawn().unwrap(),
        Duration::from_secs(120),
    );
    assert_eq!(o.status.code(), Some(1), "{c:?}: {}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "mbsolve: error: refusing to write {}: it is {kind}; outputs are written only to regular files\n",
            path.display()
        ),
        "{c:?}"
    );
}

/// A FIFO or a symbolic link at an output path of `run`, `convert -o` and
/// `plot -o` is refused by name without being opened; the link's target
/// is left as it was.
#[test]
fn fifos_and_links_at_output_paths_are_refused() {
    let d = scratch("special-out");
    let fifo = |p: &Path| assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
    let target = d.join("target.txt");
    std::fs::write(&target, "keep me\n").unwrap();
    // run: the .msg is a FIFO; then the .csv is a link.
    let run_dir = d.join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    let msg = run_dir.join("pendulum.msg");
    fifo(&msg);
    let mut run = bin();
    run.arg("run")
        .arg(pendulum())
        .arg("--out")
        .arg(&run_dir)
        .arg("--quiet");
    assert_refused_output(run, &msg, "a FIFO (named pipe)");
    std::fs::remove_file(&msg).unwrap();
    let csv = run_dir.join("pendulum.csv");
    std::os::unix::fs::symlink(&target, &csv).unwrap();
    let mut run = bin();
    run.arg("run")
        .arg(pendulum())
        .arg("--out")
        .arg(&run_dir)
        .arg("--quiet");
    assert_refused_output(run, &csv, "a symbolic link");
    // convert -o: a link, then a FIFO.
    let link = d.join("out.adm");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let mut convert = bin();
    convert.arg("convert").arg(pendulum()).arg("-o").arg(&link);
    assert_refused_output(convert, &link, "a symbolic link");
    let pipe = d.join("out.xml");
    fifo(&pipe);
    let mut convert = bin();
    convert.arg("convert").arg(pendulum()).arg("-o").arg(&pipe);
    assert_refused_output(convert, &pipe, "a FIFO (named pipe)");
    // plot -o: a FIFO, on the results of a run.
    let ok = bin()
        .arg("run")
        .arg(pendulum())
        .arg("--out")
        .arg(&d)
        .arg("--quiet")
        .status()
        .unwrap();
    assert!(ok.success());
    let svg = d.join("plot.svg");
    fifo(&svg);
    let mut plot = bin();
    plot.arg("plot")
        .arg(d.join("pendulum.csv"))
        .arg("-o")
        .arg(&svg);
    assert_refused_output(plot, &svg, "a FIFO (named pipe)");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me\n");
}

/// SIGTERM during a sweep of two long variants on one worker: the running
/// variant stops at its next step with its frames written ("stopped"),
/// the other is not started ("skipped"), summary.csv is written, and the
/// sweep exits 143 within a generous 10 s of the signal.
#[test]
fn sigterm_stops_a_sweep_and_keeps_its_summary() {
    let d = scratch("sweep-stop");
    let acf = d.join("long.acf");
    std::fs::write(
        &acf,
        "pendulum.adm\nlong\nINTEGRATOR/GSTIFF, HMAX = 1E-5\nSIMULATE/DYNAMIC, END = 1000, STEPS = 1\nSTOP\n",
    )
    .unwrap();
    let out = d.join("out");
    let mut child = bin()
        .arg("sweep")
        .arg(pendulum())
        .arg("--acf")
        .arg(&acf)
        .args(["--set", "PART/2.MASS=1,2", "--workers", "1", "--out"])
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    assert!(child.try_wait().unwrap().is_none(), "the sweep ended early");
    assert!(Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap()
        .success());
    let o = wait_bounded(child, Duration::from_secs(60));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(143), "{e}");
    let summary = out.join("summary.csv");
    assert_eq!(
        e,
        format!(
            "mbsolve: stopped by SIGTERM: 2 of 2 variants did not finish; see {}\n",
            summary.display()
        )
    );
    let s = std::fs::read_to_string(&summary).unwrap();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 3, "{s}");
    assert!(
        lines[1].starts_with("0,long_000.csv,1,stopped,1,0e0,"),
        "{s}"
    );
    assert!(lines[1].contains(",interrupted at t = "), "{s}");
    assert_eq!(
        lines[2],
        "1,long_001.csv,2,skipped,0,,0,0,0,not run: the sweep was stopped by a signal"
    );
    assert_eq!(rows_now(&out.join("long_000.csv")), 1);
}
