//! MotionSolve XML decks through the binary: the reader is chosen by
//! content, the deck's own commands run, results match the Adams twin.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-msxml-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&Path], out: &Path) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mbsolve"));
    c.arg("run");
    for a in args {
        c.arg(a);
    }
    c.arg("--out").arg(out).arg("--quiet").output().unwrap()
}

fn csv(path: &Path) -> (String, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// slider_crank.xml (its own Simulate: 1 s, 100 steps, kinematic) writes
/// the CSV of slider_crank.adm + .acf: same columns, values within 1e-9
/// (the twins' marker axes differ by cos 90° ≈ 6e-17).
#[test]
fn slider_crank_xml_gives_the_adams_twins_results() {
    let ex = examples();
    let (dx, da) = (scratch("x"), scratch("a"));
    let o = run(&[&ex.join("slider_crank.xml")], &dx);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let acf = ex.join("slider_crank.acf");
    let o = run(
        &[&ex.join("slider_crank.adm"), Path::new("--acf"), &acf],
        &da,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (hx, rx) = csv(&dx.join("slider_crank.csv"));
    let (ha, ra) = csv(&da.join("slider_crank.csv"));
    assert_eq!(hx, ha);
    assert_eq!(rx.len(), 101);
    assert_eq!(rx.len(), ra.len());
    let mut worst = 0.0f64;
    for (a, b) in rx.iter().zip(&ra) {
        for (u, v) in a.iter().zip(b) {
            worst = worst.max((u - v).abs() / v.abs().max(1.0));
        }
    }
    assert!(worst < 1e-9, "largest difference {worst}");
}

#[test]
fn a_command_file_is_refused_with_a_deck() {
    let ex = examples();
    let d = scratch("acf");
    let acf = ex.join("pendulum.acf");
    let o = run(&[&ex.join("pendulum.xml"), Path::new("--acf"), &acf], &d);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("pendulum.xml: a MotionSolve deck carries its own <Command> section;"),
        "{err}"
    );
}

/// The reader is chosen by content: a deck saved as .adm is still read as
/// XML, and `check` reads it too.
#[test]
fn the_reader_is_chosen_by_content() {
    let d = scratch("content");
    let copy = d.join("deck.adm");
    std::fs::copy(examples().join("pendulum.xml"), &copy).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("check")
        .arg(&copy)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("degrees of freedom: 1"), "{out}");
}
