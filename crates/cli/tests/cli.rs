//! Whole models run through the `mbsolve` binary and compared with their
//! analytic references.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mbsolve"))
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A fresh scratch directory per test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Header and numeric rows of a CSV file.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse::<f64>().unwrap()).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// Runs a bundled example into its own scratch directory `tag` (tests that
/// run the same example in parallel must not share one).
fn run_example(name: &str, tag: &str) -> (Output, PathBuf) {
    let out = scratch(&format!("{name}-{tag}"));
    let ex = examples();
    let o = bin()
        .arg("run")
        .arg(ex.join(format!("{name}.adm")))
        .arg("--acf")
        .arg(ex.join(format!("{name}.acf")))
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{name} failed: {}", stderr(&o));
    (o, out)
}

#[test]
fn slider_crank_matches_closed_form() {
    let (_, out) = run_example("slider_crank", "slider_crank_matches_closed_form");
    let (h, rows) = read_csv(&out.join("slider_crank.csv"));
    assert_eq!(rows.len(), 101);
    let (t, x, vx) = (
        column(&h, "time"),
        column(&h, "request_1.x"),
        column(&h, "request_2.vx"),
    );
    let (r, l) = (0.5f64, 1.5f64);
    let w = 2.0 * std::f64::consts::PI;
    for row in &rows {
        let th = w * row[t];
        let root = (l * l - r * r * th.sin().powi(2)).sqrt();
        let x_ref = r * th.cos() + root;
        // ẋ = −r ω sin θ − r² ω sin θ cos θ / root.
        let v_ref = -r * w * th.sin() - r * r * w * th.sin() * th.cos() / root;
        assert!(
            (row[x] - x_ref).abs() < 1e-6,
            "t = {}: x = {} vs {x_ref}",
            row[t],
            row[x]
        );
        assert!(
            (row[vx] - v_ref).abs() < 1e-6,
            "t = {}: vx = {} vs {v_ref}",
            row[t],
            row[vx]
        );
    }
    let msg = std::fs::read_to_string(out.join("slider_crank.msg")).unwrap();
    assert!(msg.contains("finished normally"), "{msg}");
}

#[test]
fn pendulum_keeps_its_length() {
    let (_, out) = run_example("pendulum", "pendulum_keeps_its_length");
    let (h, rows) = read_csv(&out.join("pendulum.csv"));
    assert_eq!(rows.len(), 251);
    let (x, y, z) = (
        column(&h, "request_1.x"),
        column(&h, "request_1.y"),
        column(&h, "request_1.z"),
    );
    for row in &rows {
        let d = (row[x].powi(2) + row[y].powi(2) + row[z].powi(2)).sqrt();
        assert!((d - 1.0).abs() < 1e-6, "t = {}: |CM| = {d}", row[0]);
    }
    // The bob swings: it passes below the pivot.
    let lowest = rows.iter().map(|r| r[y]).fold(f64::INFINITY, f64::min);
    assert!((lowest + 1.0).abs() < 1e-3, "lowest y = {lowest}");
    // Energy: ½ v² = g·(−y) for a point-like bob (IP = 1e-3 adds < 0.1 %).
    let vx = column(&h, "request_2.vx");
    let vy = column(&h, "request_2.vy");
    for row in &rows {
        let ke = 0.5 * (row[vx].powi(2) + row[vy].powi(2));
        let pe_drop = -9.81 * row[y];
        assert!((ke - pe_drop).abs() < 2e-3 * 9.81, "t = {}", row[0]);
    }
}

#[test]
fn pendulum_pivot_reaction_obeys_newtons_law() {
    let (_, out) = run_example("pendulum", "pendulum_pivot_reaction_obeys_newtons_law");
    let (h, rows) = read_csv(&out.join("pendulum.csv"));
    let c = |n: &str| column(&h, n);
    let (ax, ay) = (c("request_4.ax"), c("request_4.ay"));
    let (fx, fy, fz) = (c("request_3.fx"), c("request_3.fy"), c("request_3.fz"));
    let tz = c("request_3.tz");
    let mut fmax = 0.0f64;
    for row in &rows {
        // The pivot is the only force besides gravity on the 1 kg bob:
        // F = m a − m g.
        assert!((row[fx] - row[ax]).abs() < 1e-6, "t = {}", row[0]);
        assert!((row[fy] - (row[ay] + 9.81)).abs() < 1e-6, "t = {}", row[0]);
        assert!(row[fz].abs() < 1e-9);
        // A revolute about z carries no z torque about its own point.
        assert!(row[tz].abs() < 1e-9, "t = {}: tz = {}", row[0], row[tz]);
        fmax = fmax.max(row[fy].abs());
    }
    // At the bottom the rod carries about 3 m g.
    assert!(fmax > 2.9 * 9.81, "max |fy| = {fmax}");
}

#[test]
fn slider_forces_balance_its_inertia() {
    let (_, out) = run_example("slider_crank", "slider_forces_balance_its_inertia");
    let (h, rows) = read_csv(&out.join("slider_crank.csv"));
    let c = |n: &str| column(&h, n);
    for row in &rows {
        // Guide (REQUEST/4) + rod (REQUEST/5, joint written I=rod, J=slider)
        // + gravity = m a for the 1 kg slider.
        let fx = row[c("request_4.fx")] + row[c("request_5.fx")];
        let fy = row[c("request_4.fy")] + row[c("request_5.fy")];
        assert!((fx - row[c("request_3.ax")]).abs() < 1e-6, "t = {}", row[0]);
        assert!(
            (fy - 9.81 - row[c("request_3.ay")]).abs() < 1e-6,
            "t = {}",
            row[0]
        );
        // The guide is frictionless along x.
        assert!(row[c("request_4.fx")].abs() < 1e-8, "t = {}", row[0]);
    }
}

#[test]
fn missing_model_file_is_an_error_naming_it() {
    let o = bin().args(["run", "no/such/model.adm"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no/such/model.adm"), "{}", stderr(&o));
}

#[test]
fn malformed_dataset_reports_file_line_column() {
    let d = scratch("malformed");
    let f = d.join("bad.adm");
    std::fs::write(&f, "title\nPART/1, GROUND\nFROBNICATE/1, X = 1\nEND\n").unwrap();
    let o = bin().arg("run").arg(&f).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains(&format!("{}:3:1:", f.display())), "{e}");
    assert!(e.contains("FROBNICATE"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn check_prints_the_dof_count() {
    let o = bin()
        .arg("check")
        .arg(examples().join("pendulum.adm"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(s.lines().any(|l| l == "degrees of freedom: 1"), "{s}");
    let o = bin()
        .arg("check")
        .arg(examples().join("slider_crank.adm"))
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(s.lines().any(|l| l == "degrees of freedom: 0"), "{s}");
}

/// A part held to ground by a SPHERICAL and a PLANAR joint, its input
/// tilted 1e-3 rad out of the plane (REULER 0, 1E-3, 0): `check` reports
/// the one redundant equation and DOF 1 — before, "redundant constraints:
/// none" and DOF 0 (the rank was taken at the tilted input) — and the run's
/// message file removes the same equation and reports DOF 1.
#[test]
fn check_and_run_agree_on_redundancy_decided_after_assembly() {
    let d = scratch("tilted-planar");
    let adm = d.join("tilted.adm");
    std::fs::write(
        &adm,
        "part on a PLANAR and a SPHERICAL joint, input tilted 1e-3 rad
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0
MARKER/11, PART = 1, QP = 0, 0, 0
PART/2, MASS = 1, CM = 20, IP = 0.1, 0.1, 0.1, REULER = 0, 1E-3, 0
MARKER/20, PART = 2, QP = 1, 0, 0
MARKER/21, PART = 2, QP = 0, 0, 0
MARKER/22, PART = 2, QP = 1, 0.5, 0
JOINT/1, SPHERICAL, I = 21, J = 10
JOINT/2, PLANAR, I = 22, J = 11
END
",
    )
    .unwrap();
    let removed = format!(
        "deactivating constraint equation Zi.Yj in JOINT/2 ({}:12) (redundant)",
        adm.display()
    );
    let o = bin().arg("check").arg(&adm).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let s = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines.contains(&"redundant constraints: 1"), "{s}");
    assert!(lines.contains(&format!("  {removed}").as_str()), "{s}");
    assert!(lines.contains(&"degrees of freedom: 1"), "{s}");
    let acf = d.join("tilted.acf");
    std::fs::write(
        &acf,
        "tilted.adm\ntilted\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 10\nSTOP\n",
    )
    .unwrap();
    let o = bin()
        .args([
            "run",
            adm.to_str().unwrap(),
            "--acf",
            acf.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let msg = std::fs::read_to_string(d.join("tilted.msg")).unwrap();
    let deactivated: Vec<&str> = msg.lines().filter(|l| l.contains("deactivating")).collect();
    assert_eq!(deactivated, [removed.as_str()], "{msg}");
    assert!(
        msg.contains("degrees of freedom after redundancy removal: 1"),
        "{msg}"
    );
}

#[test]
fn run_without_command_file_uses_the_default_simulation() {
    let d = scratch("default");
    let src = std::fs::read_to_string(examples().join("pendulum.adm")).unwrap();
    let f = d.join("pend.adm");
    std::fs::write(&f, src).unwrap();
    let o = bin().arg("run").arg(&f).arg("--quiet").output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let (_, rows) = read_csv(&d.join("pend.csv"));
    assert_eq!(rows.len(), 101);
    assert!((rows[100][0] - 1.0).abs() < 1e-12);
    let msg = std::fs::read_to_string(d.join("pend.msg")).unwrap();
    assert!(msg.contains("SIMULATE/DYNAMIC, END=1, STEPS=100"), "{msg}");
}

#[test]
fn help_lists_the_commands() {
    let o = bin().arg("--help").output().unwrap();
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    for w in ["mbsolve run", "mbsolve check", "--acf", "--out", "--quiet"] {
        assert!(s.contains(w), "{w} missing from help");
    }
}

#[test]
fn transient_runs_a_zero_dof_model_kinematically() {
    let d = scratch("transient");
    let acf = d.join("sc.acf");
    std::fs::write(
        &acf,
        "slider_crank.adm\nsct\nSIMULATE/TRANSIENT, END = 0.5, STEPS = 50\nSTOP\n",
    )
    .unwrap();
    let o = bin()
        .arg("run")
        .arg(examples().join("slider_crank.adm"))
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let msg = std::fs::read_to_string(d.join("sct.msg")).unwrap();
    assert!(msg.contains("kinematic analysis to t = 0.5"), "{msg}");
    assert!(!msg.contains("dynamic analysis"), "{msg}");
    let (_, rows) = read_csv(&d.join("sct.csv"));
    assert_eq!(rows.len(), 51);
}

/// A mass (2 kg) on a vertical translational joint hanging from a spring
/// (K = 100, LENGTH = 1) from the ground origin; the model starts at the
/// free length, so the static deflection is mg/k = 0.1962.
const HANGING_ADM: &str = "hanging spring-mass
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0, REULER = 0, -90D, 0
PART/2, MASS = 2, CM = 20, IP = 0.1, 0.1, 0.1
MARKER/20, PART = 2, QP = 0, -1, 0, REULER = 0, -90D, 0
JOINT/1, TRANSLATIONAL, I = 20, J = 10
SPRINGDAMPER/1, TRANSLATIONAL, I = 20, J = 10, K = 100, C = 5, LENGTH = 1
REQUEST/1, DISPLACEMENT, I = 20, COMMENT = mass position
EQUILIBRIUM/, IMBALANCE = 1E-8
END
";

/// SIMULATE/STATIC then SIMULATE/DYNAMIC: the static frame is at
/// y = −(1 + mg/k) to 1e-9 and the mass released there stays within 1e-6
/// (ERROR = 1e-3); the message log shows the FIM_S iterations.
#[test]
fn static_then_dynamic_from_the_equilibrium() {
    let d = scratch("static");
    let adm = d.join("hang.adm");
    std::fs::write(&adm, HANGING_ADM).unwrap();
    let acf = d.join("hang.acf");
    std::fs::write(
        &acf,
        "hang.adm\nhang\nEQUILIBRIUM/MAXIT = 20\nSIMULATE/STATIC\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 10\nSTOP\n",
    )
    .unwrap();
    let o = bin()
        .arg("run")
        .arg(&adm)
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&d.join("hang.csv"));
    let y = column(&header, "request_1.y");
    assert_eq!(rows.len(), 11);
    let exact = -(1.0 + 2.0 * 9.81 / 100.0);
    assert!(
        (rows[0][y] - exact).abs() < 1e-9,
        "static y = {}",
        rows[0][y]
    );
    for r in &rows {
        assert!((r[y] - exact).abs() < 1e-6, "t = {}: y = {}", r[0], r[y]);
    }
    let msg = std::fs::read_to_string(d.join("hang.msg")).unwrap();
    assert!(msg.contains("static equilibrium: method = FIM_S (FIM_D falls back to FIM_S for a pure static solution), max_imbalance = 1e-8, max_error = 1e-4, stability = 1e-10, max_num_iter = 20"), "{msg}");
    assert!(msg.contains("FIM_S iteration 1: imbalance"), "{msg}");
}

/// SIMULATE/STATIC with END and STEPS is a quasi-static sweep; an
/// out-of-range EQUILIBRIUM value stops the run naming the attribute.
#[test]
fn quasi_static_and_equilibrium_errors() {
    let d = scratch("quasistatic");
    let adm = d.join("hang.adm");
    std::fs::write(&adm, HANGING_ADM).unwrap();
    let acf = d.join("q.acf");
    std::fs::write(
        &acf,
        "hang.adm\nq\nSIMULATE/STATIC, END = 1, STEPS = 4\nSTOP\n",
    )
    .unwrap();
    let o = bin()
        .arg("run")
        .arg(&adm)
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&d.join("q.csv"));
    let y = column(&header, "request_1.y");
    assert_eq!(rows.len(), 5);
    for r in &rows {
        assert!((r[y] + 1.1962).abs() < 1e-9, "t = {}: y = {}", r[0], r[y]);
    }
    let msg = std::fs::read_to_string(d.join("q.msg")).unwrap();
    assert!(
        msg.contains("quasi-static analysis: method = FIM_D"),
        "{msg}"
    );

    let acf = d.join("bad.acf");
    std::fs::write(
        &acf,
        "hang.adm\nbad\nEQUILIBRIUM/STABILITY = -1\nSIMULATE/STATIC\nSTOP\n",
    )
    .unwrap();
    let o = bin()
        .arg("run")
        .arg(&adm)
        .arg("--acf")
        .arg(&acf)
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        // An Adams EQUILIBRIUM command: its own argument name and origin.
        stderr(&o)
            .contains("bad.acf:3:1: EQUILIBRIUM: STABILITY = -1 is out of range (STABILITY >= 0)"),
        "{}",
        stderr(&o)
    );
}

/// `mbsolve run FILE.acf`, as Adams is started: the command file names its
/// dataset on line 1 (`pendulum.adm`), found beside it; the results equal
/// those of `run pendulum.adm --acf pendulum.acf` exactly. A named dataset
/// that does not exist is an error naming the command file's line 1.
#[test]
fn a_command_file_given_as_the_model_runs_the_dataset_it_names() {
    let ex = examples();
    let (a, b) = (scratch("acf-as-model"), scratch("acf-with-model"));
    let o = bin()
        .args(["run", ex.join("pendulum.acf").to_str().unwrap(), "--out"])
        .arg(&a)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bin()
        .arg("run")
        .arg(ex.join("pendulum.adm"))
        .arg("--acf")
        .arg(ex.join("pendulum.acf"))
        .arg("--out")
        .arg(&b)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (ha, ra) = read_csv(&a.join("pendulum.csv"));
    let (hb, rb) = read_csv(&b.join("pendulum.csv"));
    assert_eq!(ha, hb);
    assert_eq!(ra, rb);
    assert_eq!(ra.len(), 251);
    let d = scratch("acf-missing-model");
    let acf = d.join("lonely.acf");
    std::fs::write(
        &acf,
        "nothere\nout\nSIMULATE/DYNAMICS, END = 1, STEPS = 10\nSTOP\n",
    )
    .unwrap();
    let o = bin().arg("run").arg(&acf).output().unwrap();
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("lonely.acf:1: the command file names the dataset 'nothere', but neither"),
        "{e}"
    );
}
