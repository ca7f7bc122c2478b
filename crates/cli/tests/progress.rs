//! The progress bar of `mbsolve run` on stderr: drawn when forced, never
//! with `--quiet`, never when stderr is not a terminal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-progress-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run the bundled pendulum to `end` (10 outputs per second) with stderr
/// piped; `env` = the MBSOLVE_PROGRESS value, if any.
fn run_pendulum(name: &str, end: u32, env: Option<&str>, quiet: bool) -> Output {
    let d = scratch(name);
    let acf = d.join("p.acf");
    std::fs::write(
        &acf,
        format!(
            "pendulum.adm\np\nINTEGRATOR/GSTIFF, ERROR = 1E-6\nSIMULATE/DYNAMIC, END = {end}, STEPS = {}\nSTOP\n",
            10 * end
        ),
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mbsolve"));
    cmd.arg("run")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pendulum.adm"))
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d);
    if quiet {
        cmd.arg("--quiet");
    }
    cmd.env_remove("MBSOLVE_PROGRESS");
    if let Some(v) = env {
        cmd.env("MBSOLVE_PROGRESS", v);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn has_progress(stderr: &[u8]) -> bool {
    stderr.contains(&b'\r') || String::from_utf8_lossy(stderr).contains("SIMULATE/")
}

#[test]
fn forced_bar_shows_simulated_time_and_clears_its_line() {
    let o = run_pendulum("forced", 3, Some("always"), false);
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(e.starts_with("\rSIMULATE/DYNAMIC ["), "{e:?}");
    assert!(
        e.contains("] 100%  t = 3 / 3  ("),
        "no final 100% line in {e:?}"
    );
    assert!(e.ends_with("\r\x1b[2K"), "{e:?}");
    // The summary is still on stdout.
    let s = String::from_utf8(o.stdout).unwrap();
    assert!(s.contains("31 frames to t = 3,"), "{s}");
}

#[test]
fn quiet_silences_the_bar_even_when_forced() {
    let o = run_pendulum("quiet", 3, Some("always"), true);
    assert!(!has_progress(&o.stderr), "{:?}", o.stderr);
    assert!(o.stderr.is_empty() && o.stdout.is_empty());
}

/// Without MBSOLVE_PROGRESS a piped stderr gets no bar whatever the run's
/// length (the choice is `Show::decide(false, None, false) == Never`, unit
/// tested in progress.rs; the delay itself is tested on a fake clock).
#[test]
fn no_bar_when_stderr_is_piped() {
    let o = run_pendulum("piped", 30, None, false);
    assert!(
        o.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!o.stdout.is_empty());
}
