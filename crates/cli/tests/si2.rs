//! The stabilized formulations through the `mbsolve` binary:
//! INTEGRATOR/GSTIFF, SI2 and INTEGRATOR/HASTIFF with SI1 (its default) and
//! SI2 on the bundled examples.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-cli-si2-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run `adm` with the given command file text in a fresh directory.
fn run(name: &str, adm: &Path, acf_text: &str) -> (Output, PathBuf) {
    let d = scratch(name);
    let acf = d.join("p.acf");
    std::fs::write(&acf, acf_text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("run")
        .arg(adm)
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d)
        .arg("--quiet")
        .output()
        .unwrap();
    (o, d)
}

/// INTEGRATOR/GSTIFF, SI2 from the command file runs the bundled pendulum:
/// the message log names SI2 with HMIN at machine precision, and at all 251
/// outputs the bob stays at 1 m from the pivot and moves perpendicular to
/// the arm (|r| − 1 and r·v/|v| below 1e-10: position and velocity
/// constraints at round-off).
#[test]
fn gstiff_si2_runs_the_pendulum() {
    let (o, d) = run(
        "run",
        &examples().join("pendulum.adm"),
        "pendulum.adm\nps\nINTEGRATOR/GSTIFF, SI2, ERROR = 1E-5\nSIMULATE/DYNAMIC, END = 2.5, STEPS = 250\nSTOP\n",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let msg = std::fs::read_to_string(d.join("ps.msg")).unwrap();
    assert!(
        msg.contains("dynamic analysis: GSTIFF, SI2, ERROR = 1e-5, HMAX = 1e-2, HMIN = 2.220446049250313e-16"),
        "{msg}"
    );
    let text = std::fs::read_to_string(d.join("ps.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (x, y, z) = (col("request_1.x"), col("request_1.y"), col("request_1.z"));
    let (vx, vy, vz) = (
        col("request_2.vx"),
        col("request_2.vy"),
        col("request_2.vz"),
    );
    let (mut rows, mut worst) = (0, (0.0f64, 0.0f64));
    for l in lines {
        let r: Vec<f64> = l.split(',').map(|v| v.parse().unwrap()).collect();
        let dist = (r[x].powi(2) + r[y].powi(2) + r[z].powi(2)).sqrt();
        let speed = (r[vx].powi(2) + r[vy].powi(2) + r[vz].powi(2)).sqrt();
        let radial = (r[x] * r[vx] + r[y] * r[vy] + r[z] * r[vz]) / speed.max(1.0);
        worst = (worst.0.max((dist - 1.0).abs()), worst.1.max(radial.abs()));
        rows += 1;
    }
    println!(
        "SI2 pendulum via the CLI: max ||r| − 1| {:.2e}, max radial velocity {:.2e}",
        worst.0, worst.1
    );
    assert_eq!(rows, 251);
    assert!(worst.0 < 1e-10 && worst.1 < 1e-10, "{worst:?}");
}

/// The pendulum driven by MOTION/1 = MAX(TIME, 3·TIME − 0.5074) (its
/// velocity jumps from 1 to 3 rad/s at t = 0.2537): with I3 the run
/// completes; with SI2 it stops with an error that names MOTION/1 and says
/// SI2 needs smooth motions.
#[test]
fn si2_names_a_non_smooth_motion() {
    let d = scratch("kink");
    let adm = d.join("driven.adm");
    let base = std::fs::read_to_string(examples().join("pendulum.adm")).unwrap();
    let driven = base.replace(
        "\nEND",
        "\nMOTION/1, JOINT = 1, ROTATION, FUNCTION = MAX(TIME, 3*TIME - 0.5074)\nEND",
    );
    assert_ne!(base, driven);
    std::fs::write(&adm, driven).unwrap();
    let acf = |formulation: &str| {
        format!("driven.adm\nk\nINTEGRATOR/GSTIFF, {formulation}, ERROR = 1E-4\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 50\nSTOP\n")
    };
    let (o, _) = run("kink-i3", &adm, &acf("I3"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (o, _) = run("kink-si2", &adm, &acf("SI2"));
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    println!("{e}");
    assert!(e.contains("MOTION/1: its velocity jumps"), "{e}");
    assert!(
        e.contains("the SI2 formulation requires MOTIONs that are smooth"),
        "{e}"
    );
}

/// An output CSV: its header and its rows as numbers.
type Table = (Vec<String>, Vec<Vec<f64>>);

/// The CSV's rows as numbers and its header.
fn table(path: &Path) -> Table {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// Run `example`.adm with its bundled command file, `edit`ed to select
/// INTEGRATOR/HASTIFF with each formulation; per run, the formulation, the
/// message log and the output table.
fn hastiff_runs(
    example: &str,
    edit: impl Fn(&str, &str) -> String,
) -> Vec<(&'static str, String, Table)> {
    let adm = examples().join(format!("{example}.adm"));
    let bundled = std::fs::read_to_string(examples().join(format!("{example}.acf"))).unwrap();
    let mut out = Vec::new();
    for form in ["SI1", "SI2"] {
        let text = edit(&bundled, form);
        assert!(text.contains("INTEGRATOR/HASTIFF"), "{text}");
        let (o, d) = run(&format!("{example}-hastiff-{form}"), &adm, &text);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let msg = std::fs::read_to_string(d.join(format!("{example}.msg"))).unwrap();
        out.push((form, msg, table(&d.join(format!("{example}.csv")))));
    }
    out
}

/// examples/pendulum.acf with INTEGRATOR/HASTIFF (SI1 by default, then
/// SI2) for its GSTIFF: the log names the pair with the seeds' defaults
/// (KMAX 6, HMIN machine precision), and at all 251 outputs the bob stays
/// 1 m from the pivot and moves perpendicular to the arm (|r| − 1 and the
/// radial velocity below 1e-10; measured ≤ 2.8e-16).
#[test]
fn hastiff_runs_the_pendulum_with_si1_and_si2() {
    let runs = hastiff_runs("pendulum", |acf, form| {
        // SI1 is HASTIFF's default: the first run names no formulation.
        let with = if form == "SI1" { "" } else { " SI2," };
        acf.replace("INTEGRATOR/GSTIFF,", &format!("INTEGRATOR/HASTIFF,{with}"))
    });
    for (form, msg, (header, rows)) in runs {
        let want = format!(
            "dynamic analysis: HASTIFF, {form}, ERROR = 1e-6, HMAX = 1e-2, HMIN = 2.220446049250313e-16, HINIT = 5e-4, KMAX = 6"
        );
        assert!(msg.contains(&want), "{msg}");
        let col = |n: &str| header.iter().position(|h| h == n).unwrap();
        let r_at = [col("request_1.x"), col("request_1.y"), col("request_1.z")];
        let v_at = [
            col("request_2.vx"),
            col("request_2.vy"),
            col("request_2.vz"),
        ];
        let mut worst = (0.0f64, 0.0f64);
        for row in &rows {
            let (r, v) = (r_at.map(|i| row[i]), v_at.map(|i| row[i]));
            let dist = r.iter().map(|x| x * x).sum::<f64>().sqrt();
            let speed = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            let radial = r.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>() / speed.max(1.0);
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

/// examples/slider_crank.acf with its kinematic run made a dynamic one
/// under INTEGRATOR/HASTIFF, SI1 and SI2 (the crank driven by its MOTION
/// at 1 rev/s; 1 s, 101 outputs),
/// and the slider's x follows the closed form r cos θ + √(l² − r² sin² θ)
/// (r = 0.5, l = 1.5, θ = 2πt) within 1e-9 (measured 4.4e-16).
#[test]
fn hastiff_runs_the_driven_slider_crank_with_si1_and_si2() {
    let runs = hastiff_runs("slider_crank", |acf, form| {
        acf.replace(
            "SIMULATE/KINEMATIC",
            &format!("INTEGRATOR/HASTIFF, {form}, ERROR = 1E-5\nSIMULATE/DYNAMIC"),
        )
    });
    for (form, msg, (header, rows)) in runs {
        assert!(
            msg.contains(&format!("dynamic analysis: HASTIFF, {form}, ERROR = 1e-5")),
            "{msg}"
        );
        let x = header.iter().position(|h| h == "request_1.x").unwrap();
        let worst = rows.iter().fold(0.0f64, |w, row| {
            let th = 2.0 * std::f64::consts::PI * row[0];
            let exact = 0.5 * th.cos() + (1.5f64.powi(2) - (0.5 * th.sin()).powi(2)).sqrt();
            w.max((row[x] - exact).abs())
        });
        println!("HASTIFF/{form} slider-crank via the CLI: max slider x error {worst:.2e}");
        assert_eq!(rows.len(), 101);
        assert!(worst < 1e-9, "{worst}");
    }
}

/// INTEGRATOR/GSTIFF, SI1 stops with Adams' own verdict (seeds'
/// error-control table: "Not Supported in the Adams Solver (C++)").
#[test]
fn si1_with_gstiff_is_refused() {
    let (o, _) = run(
        "si1-gstiff",
        &examples().join("pendulum.adm"),
        "pendulum.adm\np\nINTEGRATOR/GSTIFF, SI1\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 10\nSTOP\n",
    );
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("INTEGRATOR: SI1 with GSTIFF is not supported in the Adams Solver (C++) (SI1 runs with HASTIFF, DSTIFF only)"),
        "{e}"
    );
}
