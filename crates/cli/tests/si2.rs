//! INTEGRATOR/GSTIFF, SI2 through the `mbsolve` binary.

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
