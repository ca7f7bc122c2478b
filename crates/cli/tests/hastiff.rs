//! INTEGRATOR/HASTIFF (SI1, its default, and SI2) through the `mbsolve`
//! binary on the bundled examples, and SI1 refused with GSTIFF.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-cli-hastiff-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run `adm` with the command file `acf` into a fresh directory.
fn run(name: &str, adm: &Path, acf: &Path) -> (Output, PathBuf) {
    let d = scratch(name);
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("run")
        .arg(adm)
        .arg("--acf")
        .arg(acf)
        .arg("--out")
        .arg(&d)
        .arg("--quiet")
        .output()
        .unwrap();
    (o, d)
}

/// The CSV's rows as numbers, with a column lookup.
fn table(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// The bundled examples/pendulum_hastiff.acf (INTEGRATOR/HASTIFF, SI1 by
/// default) and the same with SI2: the log names the pair with the seeds'
/// defaults (KMAX 6, HMIN machine precision), and at all 251 outputs the
/// bob stays 1 m from the pivot and moves perpendicular to the arm
/// (|r| − 1 and the radial velocity below 1e-10).
#[test]
fn hastiff_runs_the_pendulum_with_si1_and_si2() {
    let bundled = examples().join("pendulum_hastiff.acf");
    let si2_text = std::fs::read_to_string(&bundled)
        .unwrap()
        .replace("INTEGRATOR/HASTIFF,", "INTEGRATOR/HASTIFF, SI2,");
    let d = scratch("acf");
    let si2_acf = d.join("pendulum_hastiff_si2.acf");
    std::fs::write(&si2_acf, si2_text).unwrap();
    for (form, acf) in [("SI1", bundled), ("SI2", si2_acf)] {
        let (o, d) = run(
            &format!("pendulum-{form}"),
            &examples().join("pendulum.adm"),
            &acf,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let msg = std::fs::read_to_string(d.join("pendulum_hastiff.msg")).unwrap();
        let want = format!(
            "dynamic analysis: HASTIFF, {form}, ERROR = 1e-6, HMAX = 1e-2, HMIN = 2.220446049250313e-16, HINIT = 5e-4, KMAX = 6"
        );
        assert!(msg.contains(&want), "{msg}");
        let (header, rows) = table(&d.join("pendulum_hastiff.csv"));
        let col = |n: &str| header.iter().position(|h| h == n).unwrap();
        let (x, y, z) = (col("request_1.x"), col("request_1.y"), col("request_1.z"));
        let (vx, vy, vz) = (
            col("request_2.vx"),
            col("request_2.vy"),
            col("request_2.vz"),
        );
        let mut worst = (0.0f64, 0.0f64);
        for r in &rows {
            let dist = (r[x].powi(2) + r[y].powi(2) + r[z].powi(2)).sqrt();
            let speed = (r[vx].powi(2) + r[vy].powi(2) + r[vz].powi(2)).sqrt();
            let radial = (r[x] * r[vx] + r[y] * r[vy] + r[z] * r[vz]) / speed.max(1.0);
            worst = (worst.0.max((dist - 1.0).abs()), worst.1.max(radial.abs()));
        }
        println!(
            "HASTIFF/{form} pendulum via the CLI: max ||r| − 1| {:.2e}, max radial velocity {:.2e}",
            worst.0, worst.1
        );
        assert_eq!(rows.len(), 251);
        assert!(worst.0 < 1e-10 && worst.1 < 1e-10, "{worst:?}");
    }
}

/// The bundled examples/slider_crank_hastiff.acf (HASTIFF, SI2, the crank
/// driven by its MOTION at 1 rev/s) runs 1 s to 101 outputs, and the same
/// with SI1: the slider's x follows the closed form of the slider-crank,
/// r cos θ + √(l² − r² sin² θ) with r = 0.5, l = 1.5, θ = 2πt, within 1e-9.
#[test]
fn hastiff_runs_the_driven_slider_crank_with_si2_and_si1() {
    let bundled = examples().join("slider_crank_hastiff.acf");
    let si1_text = std::fs::read_to_string(&bundled)
        .unwrap()
        .replace("HASTIFF, SI2,", "HASTIFF, SI1,");
    let d = scratch("acf-slider");
    let si1_acf = d.join("slider_crank_hastiff_si1.acf");
    std::fs::write(&si1_acf, si1_text).unwrap();
    for (form, acf) in [("SI2", bundled), ("SI1", si1_acf)] {
        let (o, d) = run(
            &format!("slider-{form}"),
            &examples().join("slider_crank.adm"),
            &acf,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let msg = std::fs::read_to_string(d.join("slider_crank_hastiff.msg")).unwrap();
        assert!(
            msg.contains(&format!("dynamic analysis: HASTIFF, {form}, ERROR = 1e-5")),
            "{msg}"
        );
        let (header, rows) = table(&d.join("slider_crank_hastiff.csv"));
        let (t, x) = (0, header.iter().position(|h| h == "request_1.x").unwrap());
        let mut worst = 0.0f64;
        for r in &rows {
            let th = 2.0 * std::f64::consts::PI * r[t];
            let exact = 0.5 * th.cos() + (1.5f64.powi(2) - (0.5 * th.sin()).powi(2)).sqrt();
            worst = worst.max((r[x] - exact).abs());
        }
        println!("HASTIFF/{form} slider-crank via the CLI: max slider x error {worst:.2e}");
        assert_eq!(rows.len(), 101);
        assert!(worst < 1e-9, "{worst}");
    }
}

/// INTEGRATOR/GSTIFF, SI1 stops with Adams' own verdict (seeds'
/// error-control table: "Not Supported in the Adams Solver (C++)").
#[test]
fn si1_with_gstiff_is_refused() {
    let d = scratch("refused");
    let acf = d.join("p.acf");
    std::fs::write(
        &acf,
        "pendulum.adm\np\nINTEGRATOR/GSTIFF, SI1\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 10\nSTOP\n",
    )
    .unwrap();
    let (o, _) = run("refused-run", &examples().join("pendulum.adm"), &acf);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("INTEGRATOR: SI1 with GSTIFF is not supported in the Adams Solver (C++) (SI1 runs with HASTIFF only)"),
        "{e}"
    );
}
