//! The Chrono joint-validation decks run as given (`.adm` + `.acf`: GSTIFF,
//! ERROR = 1e-4, HMAX = 1e-5, END = 5, DTOUT = 0.01) through `mbsolve run`,
//! compared with Adams' own published results (`*_ADAMS_<quantity>.txt`,
//! from REQUESTs 1–5 of each deck).
//!
//! Measure: for each quantity and component, the RMS over the 501 output
//! times of (mbsolve − Adams); the worst component must be within the
//! issue's tolerance: 1e-3 position, 1e-4 velocity, angular velocity and
//! Euler parameters, 2e-2 accelerations, reaction forces and torques.
//! Reads the corpus from `../shared/corpus` beside the repository.
//!
//! Four decks start the pendulum body with its CM marker aligned with ground
//! (spherical case 1, universal cases 1–3). There Adams' own velocities are
//! off: spherical case 1 and case 2 are the same physical motion (case 2 is
//! only shifted by (1, 2, 3) and has a rotated joint), yet Adams' two result
//! sets differ by RMS 9.6e-4 in velocity, and Adams' case-1 energy drifts by
//! 8e-3 J over 5 s (ours stays within 1e-8 J). mbsolve matches Adams' case 2
//! to 2.6e-6 in both decks. For those four decks velocities are checked
//! against Chrono's published tolerance for them (1e-3, utest_JOINT_spherical)
//! and `spherical_case01` asserts the twin evidence itself.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    mbsolve_adm::corpus::locate(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// (file suffix, CSV columns, tolerance)
const QUANTITIES: &[(&str, &[&str], f64)] = &[
    ("Pos", &["request_1.x", "request_1.y", "request_1.z"], 1e-3),
    (
        "Vel",
        &["request_2.vx", "request_2.vy", "request_2.vz"],
        1e-4,
    ),
    (
        "Quat",
        &[
            "request_4.f2",
            "request_4.f3",
            "request_4.f4",
            "request_4.f6",
        ],
        1e-4,
    ),
    (
        "Avel",
        &["request_2.wx", "request_2.wy", "request_2.wz"],
        1e-4,
    ),
    (
        "Acc",
        &["request_3.ax", "request_3.ay", "request_3.az"],
        2e-2,
    ),
    (
        "Aacc",
        &["request_3.wdx", "request_3.wdy", "request_3.wdz"],
        2e-2,
    ),
    (
        "Rforce",
        &["request_5.f2", "request_5.f3", "request_5.f4"],
        2e-2,
    ),
    (
        "Rtorque",
        &["request_5.f6", "request_5.f7", "request_5.f8"],
        2e-2,
    ),
];

/// Column of `name`; REQUEST/5 is a function request (F2…F8 = JOINT(…)) in
/// most decks and a FORCE request in the distance decks.
fn column(header: &[String], name: &str) -> Option<usize> {
    let alias = [
        ("request_5.f2", "request_5.fx"),
        ("request_5.f3", "request_5.fy"),
        ("request_5.f4", "request_5.fz"),
        ("request_5.f6", "request_5.tx"),
        ("request_5.f7", "request_5.ty"),
        ("request_5.f8", "request_5.tz"),
    ];
    header.iter().position(|h| h == name).or_else(|| {
        let (_, other) = alias.iter().find(|(a, _)| *a == name)?;
        header.iter().position(|h| h == other)
    })
}

/// Rows of whitespace-separated numbers after the `#` header and the column
/// title line.
fn read_reference(path: &Path) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            l.split_whitespace()
                .map(|v| v.parse::<f64>().ok())
                .collect::<Option<Vec<f64>>>()
        })
        .collect()
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// Per-quantity tolerance overrides: (quantity, tolerance).
type Overrides = &'static [(&'static str, f64)];

/// Adams' velocities for decks whose body starts aligned with ground.
const ALIGNED: Overrides = &[("Vel", 1e-3), ("Avel", 1e-3)];

/// Runs one deck; returns the CSV header and rows.
fn check_deck(folder: &str, stem: &str, overrides: Overrides) -> (Vec<String>, Vec<Vec<f64>>) {
    let dir = corpus().join(folder);
    let adm = dir.join(format!("test_{stem}.adm"));
    let acf = dir.join(format!("test_{stem}.acf"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("chrono-{folder}"));
    let status = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .args(["run", adm.to_str().unwrap(), "--acf", acf.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap(), "--quiet"])
        .status()
        .expect("mbsolve runs");
    assert!(status.success(), "{folder}: mbsolve run failed");
    let (header, rows) = read_csv(&out.join(format!("test_{stem}_ADAMS.csv")));
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for &(quantity, columns, tol) in QUANTITIES {
        let tol = overrides
            .iter()
            .find(|(q, _)| *q == quantity)
            .map_or(tol, |(_, t)| *t);
        let reference = read_reference(&dir.join(format!("{stem}_ADAMS_{quantity}.txt")));
        assert_eq!(
            reference.len(),
            rows.len(),
            "{folder} {quantity}: row count"
        );
        let mut worst = (0.0f64, "");
        for (c, name) in columns.iter().enumerate() {
            let col = column(&header, name).unwrap_or_else(|| panic!("{folder}: no column {name}"));
            let mut sum = 0.0;
            for (ours, theirs) in rows.iter().zip(&reference) {
                assert!(
                    (ours[0] - theirs[0]).abs() < 1e-9,
                    "{folder}: output times differ"
                );
                sum += (ours[col] - theirs[c + 1]).powi(2);
            }
            let rms = (sum / rows.len() as f64).sqrt();
            if rms > worst.0 || worst.1.is_empty() {
                worst = (rms, name);
            }
        }
        report.push(format!("{quantity} {:.2e} ({})", worst.0, worst.1));
        if worst.0.is_nan() || worst.0 > tol {
            failures.push(format!(
                "{quantity}: RMS {:.3e} in {} exceeds {tol:e}",
                worst.0, worst.1
            ));
        }
    }
    println!("{folder}: {}", report.join(", "));
    assert!(failures.is_empty(), "{folder}: {}", failures.join("; "));
    (header, rows)
}

/// RMS over rows of the difference between columns `a` of `x` and `b` of `y`
/// (after subtracting `offset` from `y`).
fn rms(x: &[Vec<f64>], a: usize, y: &[Vec<f64>], b: usize, offset: f64) -> f64 {
    let s: f64 = x
        .iter()
        .zip(y)
        .map(|(p, r)| (p[a] - (r[b] - offset)).powi(2))
        .sum();
    (s / x.len() as f64).sqrt()
}

/// Spherical case 1 against its twin, Adams' case 2 (same motion shifted by
/// (1, 2, 3)): ours agrees with the twin; Adams' case 1 does not.
#[test]
fn spherical_case01() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let (header, rows) = check_deck("chrono-spherical-case01", "Spherical_Case01", ALIGNED);
    let twin_dir = corpus().join("chrono-spherical-case02");
    let own_dir = corpus().join("chrono-spherical-case01");
    for (quantity, cols, offset, ours_tol) in [
        (
            "Pos",
            ["request_1.x", "request_1.y", "request_1.z"],
            [1.0, 2.0, 3.0],
            1e-5,
        ),
        (
            "Vel",
            ["request_2.vx", "request_2.vy", "request_2.vz"],
            [0.0; 3],
            1e-5,
        ),
    ] {
        let twin = read_reference(&twin_dir.join(format!("Spherical_Case02_ADAMS_{quantity}.txt")));
        let adams1 =
            read_reference(&own_dir.join(format!("Spherical_Case01_ADAMS_{quantity}.txt")));
        let (mut ours, mut theirs) = (0.0f64, 0.0f64);
        for (c, name) in cols.iter().enumerate() {
            let col = header.iter().position(|h| h == name).unwrap();
            ours = ours.max(rms(&rows, col, &twin, c + 1, offset[c]));
            theirs = theirs.max(rms(&adams1, c + 1, &twin, c + 1, offset[c]));
        }
        println!("{quantity}: mbsolve case 1 vs Adams case 2 RMS {ours:.2e}; Adams case 1 vs Adams case 2 RMS {theirs:.2e}");
        assert!(ours <= ours_tol, "{quantity}: mbsolve vs the twin {ours:e}");
        assert!(
            theirs > 10.0 * ours,
            "{quantity}: Adams' twins agree ({theirs:e}); the override is not needed"
        );
    }
}

macro_rules! decks {
    ($($name:ident: $folder:literal, $stem:literal, $over:expr;)*) => {
        $(
            #[test]
            fn $name() {
                if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
                    return;
                }
                check_deck($folder, $stem, $over);
            }
        )*
    };
}

decks! {
    revolute_case01: "chrono-revolute-case01", "Revolute_Case01", &[];
    revolute_case02: "chrono-revolute-case02", "Revolute_Case02", &[];
    spherical_case02: "chrono-spherical-case02", "Spherical_Case02", &[];
    universal_case01: "chrono-universal-case01", "Universal_Case01", ALIGNED;
    universal_case02: "chrono-universal-case02", "Universal_Case02", ALIGNED;
    universal_case03: "chrono-universal-case03", "Universal_Case03", ALIGNED;
    prismatic_case01: "chrono-prismatic-case01", "Prismatic_Case01", &[];
    prismatic_case02: "chrono-prismatic-case02", "Prismatic_Case02", &[];
    prismatic_case03: "chrono-prismatic-case03", "Prismatic_Case03", &[];
    cylindrical_case01: "chrono-cylindrical-case01", "Cylindrical_Case01", &[];
    cylindrical_case02: "chrono-cylindrical-case02", "Cylindrical_Case02", &[];
    cylindrical_case03: "chrono-cylindrical-case03", "Cylindrical_Case03", &[];
    distance_case01: "chrono-distance-case01", "Distance_Case01", &[];
    distance_case02: "chrono-distance-case02", "Distance_Case02", &[];
    distance_case03: "chrono-distance-case03", "Distance_Case03", &[];
}
