//! `mbsolve sweep` on a MotionSolve deck: changes by element type/id and
//! attribute; the unchanged variant gives exactly the CSV of `mbsolve run`.

use std::path::Path;
use std::process::Command;

#[test]
fn sweep_of_an_xml_deck() {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = std::env::temp_dir().join(format!("mbsolve-sweep-xml-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("sweep")
        .arg(ex.join("pendulum.xml"))
        .args([
            "--set",
            "Body_Rigid/2.mass=1.,3.",
            "--workers",
            "1",
            "--out",
        ])
        .arg(out.join("sweep"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(out.join("sweep/summary.csv")).unwrap();
    let rows: Vec<Vec<&str>> = summary.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0][2], "Body_Rigid/2.mass");
    assert_eq!((rows[1][2], rows[1][3]), ("1.", "ok"));
    assert_eq!((rows[2][2], rows[2][3]), ("3.", "ok"));
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("run")
        .arg(ex.join("pendulum.xml"))
        .arg("--out")
        .arg(out.join("run"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success());
    let same = std::fs::read_to_string(out.join("sweep/pendulum_000.csv")).unwrap();
    let plain = std::fs::read_to_string(out.join("run/pendulum.csv")).unwrap();
    assert_eq!(same, plain, "mass = 1. is the deck as written");
    let heavy = std::fs::read_to_string(out.join("sweep/pendulum_001.csv")).unwrap();
    assert_ne!(heavy, plain);
}
