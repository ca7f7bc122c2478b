//! INTEGRATOR/HHT and INTEGRATOR/NEWMARK through the `mbsolve` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-cli-hht-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run the bundled pendulum with the given command file text.
fn run_pendulum(name: &str, acf_text: &str) -> (Output, PathBuf) {
    let d = scratch(name);
    let acf = d.join("p.acf");
    std::fs::write(&acf, acf_text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("run")
        .arg(examples().join("pendulum.adm"))
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d)
        .arg("--quiet")
        .output()
        .unwrap();
    (o, d)
}

/// INTEGRATOR/HHT, ALPHA = -0.2 from the command file: the message log
/// names HHT with its coefficients, and the bob stays at 1 m from the pivot
/// (1e-8) at all 251 outputs.
#[test]
fn hht_command_runs_the_pendulum() {
    let (o, d) = run_pendulum(
        "run",
        "pendulum.adm\nph\nINTEGRATOR/HHT, ALPHA = -0.2, ERROR = 1E-6\nSIMULATE/DYNAMIC, END = 2.5, STEPS = 250\nSTOP\n",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let msg = std::fs::read_to_string(d.join("ph.msg")).unwrap();
    assert!(
        msg.contains("dynamic analysis: HHT, I3, ALPHA = -0.2 (beta = 0.36"),
        "{msg}"
    );
    let text = std::fs::read_to_string(d.join("ph.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (x, y, z) = (col("request_1.x"), col("request_1.y"), col("request_1.z"));
    let mut rows = 0;
    for l in lines {
        let r: Vec<f64> = l.split(',').map(|v| v.parse().unwrap()).collect();
        let dist = (r[x].powi(2) + r[y].powi(2) + r[z].powi(2)).sqrt();
        assert!((dist - 1.0).abs() < 1e-8, "t = {}: |CM| = {dist}", r[0]);
        rows += 1;
    }
    assert_eq!(rows, 251);
}

/// NEWMARK with GAMMA below 1/2 stops with a message naming GAMMA.
#[test]
fn unstable_newmark_gamma_is_refused() {
    let (o, _) = run_pendulum(
        "gamma",
        "pendulum.adm\npn\nINTEGRATOR/NEWMARK, GAMMA = 0.4\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSTOP\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("GAMMA = 0.4 violates the Newmark stability condition"),
        "{e}"
    );
}

/// Fixed-step HHT (FIXIT, HRATIO): the Real Time Index report appears on
/// the terminal and in the message log in the seeds' layout; its figures
/// are consistent (min ≤ average ≤ max, each frequency = 1 / (RTI × step),
/// requested frequency = HRATIO / DTOUT).
#[test]
fn fixed_step_hht_prints_the_rti_report() {
    let d = scratch("rti");
    let acf = d.join("p.acf");
    std::fs::write(
        &acf,
        "pendulum.adm\nrti\nINTEGRATOR/HHT, FIXIT = 4, HRATIO = 4\nSIMULATE/DYNAMIC, END = 1, STEPS = 100\nSTOP\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("run")
        .arg(examples().join("pendulum.adm"))
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let msg = std::fs::read_to_string(d.join("rti.msg")).unwrap();
    for text in [&stdout, &msg] {
        let start = text
            .find("Real Time Index (RTI) statistics")
            .unwrap_or_else(|| panic!("no RTI report in:\n{text}"));
        let lines: Vec<&str> = text[start..].lines().collect();
        assert_eq!(lines[1], "--------------------------------");
        assert_eq!(lines[2], "Integrator name : Fixed Step HHT/I3");
        assert_eq!(lines[3], "Time units : s (seconds)");
        assert_eq!(lines[4], "HRATIO : 4");
        assert_eq!(lines[5], "Time step : 2.50000e-03 s");
        assert_eq!(lines[6], "Requested frequency : 400.00 Hz");
        let rti = |l: &str, label: &str| -> (f64, Option<f64>) {
            let rest = l.strip_prefix(label).unwrap_or_else(|| panic!("{l}"));
            let mut it = rest.split_whitespace();
            let v: f64 = it.next().unwrap().parse().unwrap();
            let hz = it.next().unwrap().trim_start_matches('(').parse().ok();
            (v, hz)
        };
        let (min, fmin) = rti(lines[7], "Minimum RTI index : ");
        let (avg, _) = rti(lines[8], "Average RTI index : ");
        let (max, fmax) = rti(lines[9], "Maximum RTI index : ");
        assert!(min <= avg && avg <= max && max > 0.0, "{min} {avg} {max}");
        let fmax = fmax.unwrap();
        // The index is printed to 5 decimals, the frequency to 1 Hz: on a
        // fast machine (small RTI) the printed index carries few digits, so
        // the frequency it implies is known only to ±(0.5e-5 / max).
        let expect = 1.0 / (max * 2.5e-3);
        let index_rounding = 0.5e-5 / max;
        assert!(
            (fmax - expect).abs() <= 0.5 + expect * (index_rounding + 1e-9),
            "{fmax} vs {expect}"
        );
        if let Some(f) = fmin {
            assert!(f >= fmax, "the fastest step has the highest frequency");
        }
        assert!(lines[7].contains("(at time ") && lines[9].contains("(at time "));
        assert_eq!(
            lines[11],
            "1. Minimum, Average and Maximum RTI are computed after the first integration step."
        );
    }
}
