//! INTEGRATOR/DSTIFF from an .acf through the `mbsolve` binary (issue 14,
//! item 3): the bundled examples run, the message log names DSTIFF with
//! every effective value, and refused arguments name themselves.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one `mbsolve run` of a bundled model under `commands` left:
/// (exit code, stderr, message log, CSV lines).
fn dstiff_run(model: &str, commands: &str) -> (Option<i32>, String, String, Vec<String>) {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("mbsolve-dstiff-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let acf = out.join("run.acf");
    std::fs::write(&acf, format!("{model}.adm\nds\n{commands}\nSTOP\n")).unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{model}.adm"));
    let done = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .args([
            "run".as_ref(),
            model.as_os_str(),
            "--acf".as_ref(),
            acf.as_os_str(),
        ])
        .args(["--out".as_ref(), out.as_os_str(), "--quiet".as_ref()])
        .output()
        .unwrap();
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap_or_default();
    let csv = read("ds.csv").lines().map(String::from).collect();
    let (stderr, msg) = (String::from_utf8_lossy(&done.stderr), read("ds.msg"));
    let _ = std::fs::remove_dir_all(&out);
    (done.status.code(), stderr.into_owned(), msg, csv)
}

/// INTEGRATOR/DSTIFF, I3 with every mapped argument: the log shows them
/// under their Param_Transient names; all 251 outputs are written and the
/// bob's distance to the pivot stays 1 m within 1e-8.
#[test]
fn integrator_dstiff_runs_the_pendulum() {
    let (code, err, msg, csv) = dstiff_run(
        "pendulum",
        "INTEGRATOR/DSTIFF, I3, ERROR = 1E-6, HMAX = 5E-3, HMIN = 1E-12, HINIT = 1E-7, KMAX = 4, MAXIT = 8\nSIMULATE/DYNAMIC, END = 2.5, STEPS = 250",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        msg.contains("dynamic analysis: DSTIFF, I3, integr_tol = 1e-6, h_max = 5e-3, h_min = 1e-12, h0_max = 1e-7, max_order = 4, vel_tol_factor = 1000, dae_alg_tol_factor = 1000, dae_constr_tol = 1e-10, dae_corrector_maxit = 8"),
        "{msg}"
    );
    let names: Vec<&str> = csv[0].split(',').collect();
    let bob: Vec<usize> = ["request_1.x", "request_1.y", "request_1.z"]
        .iter()
        .map(|n| names.iter().position(|h| h == n).unwrap())
        .collect();
    for row in &csv[1..] {
        let v: Vec<f64> = row.split(',').map(|x| x.parse().unwrap()).collect();
        let r = bob.iter().map(|&c| v[c] * v[c]).sum::<f64>().sqrt();
        assert!((r - 1.0).abs() < 1e-8, "{row}: |CM| = {r}");
    }
    assert_eq!(csv.len(), 252, "header and 251 outputs");
}

/// The bundled slider-crank runs with INTEGRATOR/DSTIFF's defaults.
#[test]
fn integrator_dstiff_runs_the_slider_crank() {
    let (code, err, msg, csv) = dstiff_run(
        "slider_crank",
        "INTEGRATOR/DSTIFF\nSIMULATE/DYNAMIC, END = 1, STEPS = 100",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(msg.contains("dynamic analysis: DSTIFF, I3"), "{msg}");
    assert_eq!(csv.len(), 102, "header and 101 outputs");
}

/// INTEGRATOR/DSTIFF, SI1 runs (the log names the pair); PATTERN is
/// refused with a message that names it.
#[test]
fn integrator_dstiff_runs_si1_and_refuses_pattern() {
    let (code, err, msg, csv) = dstiff_run(
        "pendulum",
        "INTEGRATOR/DSTIFF, SI1\nSIMULATE/DYNAMIC, END = 1, STEPS = 10",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(msg.contains("dynamic analysis: DSTIFF, SI1"), "{msg}");
    assert_eq!(csv.len(), 12, "header and 11 outputs");
    let want = "INTEGRATOR: PATTERN applies only to GSTIFF and WSTIFF and CONSTANT_BDF and HHT and NEWMARK and HASTIFF, not to DSTIFF";
    let commands = "INTEGRATOR/DSTIFF, PATTERN = T:F\nSIMULATE/DYNAMIC, END = 1, STEPS = 10";
    let (code, err, _, _) = dstiff_run("pendulum", commands);
    assert_eq!(code, Some(1));
    assert!(err.contains(want), "{err}");
}
