//! Running the `mbsolve` binary on decks written by a test, shared by the
//! CLI test files (each uses what it needs).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh scratch directory for one test: `<tmp>/mbsolve-<group>-<pid>-<name>`.
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-{group}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The binary run with `args`.
pub fn mbsolve(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .args(args)
        .output()
        .unwrap()
}

/// A CSV result file: its header and rows.
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// The CSV header, rows and message log of a run.
pub type RunResult = (Vec<String>, Vec<Vec<f64>>, String);

/// Writes `name.adm` and `name.acf` (model file, output name, then
/// `commands`) in `d` and runs them; the CSV and message log, or stderr.
pub fn run_deck(d: &Path, name: &str, adm: &str, commands: &str) -> Result<RunResult, String> {
    let adm_path = d.join(format!("{name}.adm"));
    let acf_path = d.join(format!("{name}.acf"));
    std::fs::write(&adm_path, adm).unwrap();
    std::fs::write(&acf_path, format!("{name}.adm\n{name}\n{commands}")).unwrap();
    let o = mbsolve(&[
        "run",
        adm_path.to_str().unwrap(),
        "--acf",
        acf_path.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
        "--quiet",
    ]);
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let (header, rows) = read_csv(&d.join(format!("{name}.csv")));
    let log = std::fs::read_to_string(d.join(format!("{name}.msg"))).unwrap_or_default();
    Ok((header, rows, log))
}

/// Run the commands of `acf` on `adm` in-process (no CSV): the simulation
/// (frames kept) and the first command error, if any.
pub fn run_in_process(
    adm: &str,
    acf: &str,
) -> (mbsolve_solver::analysis::Simulation, Result<(), String>) {
    let mut acf = mbsolve_adm::read_acf_str(acf, "t.acf").unwrap();
    let model = mbsolve_adm::resolve_redefinitions(adm, "t.adm", &mut acf, "t.acf").unwrap();
    let mut sim = mbsolve_solver::analysis::Simulation::new(&model).unwrap();
    let mut runner = mbsolve_solver::commands::CommandRunner::new(&sim);
    let mut result = Ok(());
    for c in &acf.commands {
        if let Err(e) = runner.execute(&mut sim, c, &mut |_, _, _, _| {}) {
            result = Err(e.to_string());
            break;
        }
    }
    (sim, result)
}

/// The last frame at time `t` (to 1e-9); panics naming `t` if none.
pub fn at(frames: &[mbsolve_solver::analysis::Frame], t: f64) -> &mbsolve_solver::analysis::Frame {
    frames
        .iter()
        .rev()
        .find(|f| (f.t - t).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no frame at t = {t}"))
}

/// The binary with the environment variables that change its behaviour
/// (progress display, the test-only panic switch) removed.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mbsolve"));
    c.env_remove("MBSOLVE_PROGRESS")
        .env_remove("MBSOLVE_PANIC_AFTER_FRAMES");
    c
}

/// The bundled pendulum dataset.
pub fn pendulum() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pendulum.adm")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `mbsolve run` of the pendulum with a command file holding `acf`, into
/// `dir`, quiet.
pub fn run_cmd(dir: &Path, acf: &str) -> Command {
    let f = dir.join("cmd.acf");
    std::fs::write(&f, acf).unwrap();
    let mut c = bin();
    c.arg("run")
        .arg(pendulum())
        .arg("--acf")
        .arg(&f)
        .arg("--out")
        .arg(dir)
        .arg("--quiet");
    c
}

/// Wait for `child`, killing it if it outlives `bound` (the caller's
/// assertions on its status then fail: a killed child has no exit code);
/// nothing is asserted about time. Returns its output.
pub fn wait_bounded(child: std::process::Child, bound: std::time::Duration) -> Output {
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        std::thread::sleep(bound);
        if !flag.load(std::sync::atomic::Ordering::SeqCst) {
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(pid.to_string())
                .status();
        }
    });
    let out = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    out
}
