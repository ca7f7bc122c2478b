//! CONTACT from `.adm` decks (issue 17): GRAPHICS primitives, Adams shell
//! and STL meshes beside the deck, and the clear error for the corpus deck
//! whose Parasolid file is not there.

use mbsolve_adm::read_adm;
use mbsolve_model::IntegratorSettings;
use mbsolve_solver::Simulation;
use std::path::{Path, PathBuf};

const G: f64 = 9.81;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/contact")
        .join(name)
}

fn corpus() -> PathBuf {
    mbsolve_adm::corpus::locate(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn aview_hpc_contact_names_the_missing_parasolid_file() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let deck = corpus().join("aview-hpc-contact/test_2.adm");
    let e = read_adm(&deck).expect_err("its Parasolid file is not available");
    let file = deck.with_file_name("test_2.x_t");
    assert_eq!(
        e.to_string(),
        format!(
            "{}:41:3: GRAPHICS/1: GRAPHICS/1 (used by CONTACT/1): geometry file not found: {}; it would be Parasolid geometry, which mbsolve cannot read either (supported: Adams shell .shl and STL .stl meshes, or GRAPHICS primitives (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS))",
            deck.display(),
            file.display()
        )
    );
}

/// Impact and rebound speeds of a body's y motion: the first frame where
/// the velocity turns from falling to rising, and the frames around it.
fn bounce(sim: &Simulation, vy: usize) -> (f64, f64) {
    let f = &sim.frames;
    let k = (1..f.len())
        .find(|&k| f[k - 1].u[vy] < 0.0 && f[k].u[vy] >= 0.0)
        .expect("the ball bounces");
    let impact = (0..k).map(|j| -f[j].u[vy]).fold(0.0, f64::max);
    let rebound = (k..f.len())
        .take_while(|&j| f[j].u[vy] >= 0.0)
        .map(|j| f[j].u[vy])
        .fold(0.0, f64::max);
    (impact, rebound)
}

fn run(deck: &Path, end: f64, steps: u64) -> Simulation {
    let model = read_adm(deck).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&model).unwrap_or_else(|e| panic!("{e}"));
    let s = IntegratorSettings {
        error: Some(1e-6),
        hmax: Some(1e-3),
        ..Default::default()
    };
    sim.dynamic(end, Some(steps), None, &s)
        .unwrap_or_else(|e| panic!("{e}"));
    sim
}

#[test]
fn primitive_version_of_the_aview_contact_deck_runs() {
    let sim = run(&data("ball_on_axle.adm"), 0.25, 2500);
    assert!(sim.frames.last().unwrap().t > 0.2499);
    // body 0 = the axle (fixed), body 1 = the ball: y velocity at u[7 + 1]
    let (impact, rebound) = bounce(&sim, 8);
    let v0 = (2.0 * G * 0.0875).sqrt();
    println!("ball on axle: impact {impact:.4} m/s (free fall {v0:.4}), rebound {rebound:.4} m/s");
    // the ball hits the axle's top at the free-fall speed (within the
    // sampling of 1 ms frames before contact) and comes back slower
    assert!((impact - v0).abs() < 0.01 * v0, "impact {impact} vs {v0}");
    assert!(
        rebound > 0.3 * impact && rebound < impact,
        "rebound {rebound}"
    );
    let switch = "CORRECTOR switched from ORIGINAL to MODIFIED: the model has 1 CONTACT element(s) (ORIG_CONSTANT prevents the switch)";
    assert!(sim.log.iter().any(|l| l == switch), "{:?}", sim.log);
    // CONTACT(1, 1, 3, 0) in the REQUEST: the contact force on the ball is
    // all that acts on it besides gravity, so it equals m (a_y + g); and
    // the magnitude (component 1) equals |y| (the axle is below the ball)
    let outputs = mbsolve_solver::requests::Outputs::new(&sim.model).unwrap();
    let (rows, err) = outputs.table(&sim.sys, &sim.model, &sim.frames);
    assert!(err.is_none(), "{err:?}");
    let mass = 4.085;
    let mut peak = 0.0f64;
    for (row, f) in rows.iter().zip(&sim.frames) {
        let newton = mass * (f.a[8] + G);
        assert!(
            (row[1] - newton).abs() < 1e-6 * (1.0 + newton.abs()),
            "t = {}: {} vs {newton}",
            f.t,
            row[1]
        );
        assert!((row[2] - row[1].abs()).abs() < 1e-9 * (1.0 + row[1].abs()));
        peak = peak.max(row[1]);
    }
    assert!(peak > 10.0 * mass * G, "the impact force peaks at {peak} N");
}

/// An ASCII STL of the same unit cube as cube.shl.
fn cube_stl() -> String {
    let quads = [
        (
            [0., 0., -1.],
            [[0., 0., 0.], [0., 1., 0.], [1., 1., 0.], [1., 0., 0.]],
        ),
        (
            [0., 0., 1.],
            [[0., 0., 1.], [1., 0., 1.], [1., 1., 1.], [0., 1., 1.]],
        ),
        (
            [0., -1., 0.],
            [[0., 0., 0.], [1., 0., 0.], [1., 0., 1.], [0., 0., 1.]],
        ),
        (
            [1., 0., 0.],
            [[1., 0., 0.], [1., 1., 0.], [1., 1., 1.], [1., 0., 1.]],
        ),
        (
            [0., 1., 0.],
            [[1., 1., 0.], [0., 1., 0.], [0., 1., 1.], [1., 1., 1.]],
        ),
        (
            [-1., 0., 0.],
            [[0., 1., 0.], [0., 0., 0.], [0., 0., 1.], [0., 1., 1.]],
        ),
    ];
    let mut s = String::from("solid cube\n");
    for (n, q) in quads {
        for tri in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            s += &format!("facet normal {} {} {}\nouter loop\n", n[0], n[1], n[2]);
            for v in tri {
                s += &format!("vertex {} {} {}\n", v[0], v[1], v[2]);
            }
            s += "endloop\nendfacet\n";
        }
    }
    s + "endsolid cube\n"
}

#[test]
fn ball_bounces_elastically_on_shell_and_stl_meshes() {
    let dir = std::env::temp_dir().join(format!("mbsolve-contact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let deck = std::fs::read_to_string(data("ball_on_shell.adm")).unwrap();
    std::fs::write(dir.join("cube.stl"), cube_stl()).unwrap();
    let stl_deck = dir.join("ball_on_stl.adm");
    std::fs::write(
        &stl_deck,
        deck.replace("FILE = cube.shl", "FILE = cube.stl"),
    )
    .unwrap();
    let v0 = (2.0 * G * 0.05).sqrt();
    for path in [data("ball_on_shell.adm"), stl_deck.clone()] {
        let sim = run(&path, 0.2, 2000);
        let (impact, rebound) = bounce(&sim, 1);
        println!(
            "{}: impact {impact:.4} m/s, rebound {rebound:.4} m/s",
            path.display()
        );
        assert!((impact - v0).abs() < 0.01 * v0, "impact {impact} vs {v0}");
        // DAMPING = 0: the rebound speed equals the impact speed (1 %)
        assert!(
            (rebound - impact).abs() < 0.01 * impact,
            "rebound {rebound} vs {impact}"
        );
    }
    // a missing mesh file names the element and the file
    let missing = dir.join("ball_on_missing.adm");
    std::fs::write(
        &missing,
        deck.replace("FILE = cube.shl", "FILE = nowhere.stl"),
    )
    .unwrap();
    let e = read_adm(&missing).unwrap_err().to_string();
    assert!(
        e.contains("GRAPHICS/1 (used by CONTACT/1): geometry file not found:")
            && e.contains("nowhere.stl"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// BISTOP() as the end stops of a slider on a TRANSLATIONAL joint: a 2 kg
/// slider moving at 1 m/s between stops at ±0.1 m with a linear, undamped
/// law (k = 2e5 N/m, e = 1) rebounds at its impact speed after half a
/// period π√(m/k) in contact, overshooting by v0 √(m/k).
#[test]
fn bistop_end_stops_on_a_translational_joint() {
    let deck = "bistop slider\n\
UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n\
PART/1, GROUND\n\
MARKER/1, PART=1\n\
MARKER/10, PART=1, QP=0,0,-10\n\
PART/2, MASS=2, CM=21, IP=0.1,0.1,0.1, VZ=1\n\
MARKER/21, PART=2\n\
JOINT/1, TRANSLATIONAL, I=21, J=1\n\
SFORCE/1, TRANSLATIONAL, I=21, J=10, FUNCTION=BISTOP(DZ(21,10,10), VZ(21,10,10), 9.9, 10.1, 2.0E5, 1.0, 0, 0.001)\n\
END\n";
    let model = mbsolve_adm::read_adm_str(deck, "bistop.adm").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&model).unwrap();
    let s = IntegratorSettings {
        error: Some(1e-7),
        hmax: Some(1e-3),
        ..Default::default()
    };
    // 0.5 s: to the upper stop (0.1 s), back across to the lower stop and back
    sim.dynamic(0.5, Some(50_000), None, &s)
        .unwrap_or_else(|e| panic!("{e}"));
    let (m, k, v0) = (2.0f64, 2.0e5f64, 1.0f64);
    let overshoot = v0 * (m / k).sqrt();
    let z: Vec<f64> = sim.frames.iter().map(|f| f.q[2]).collect();
    let vz: Vec<f64> = sim.frames.iter().map(|f| f.u[2]).collect();
    let zmax = z.iter().cloned().fold(f64::MIN, f64::max);
    let zmin = z.iter().cloned().fold(f64::MAX, f64::min);
    println!("BISTOP slider: z in [{zmin:.6}, {zmax:.6}] m, overshoot by the law {overshoot:.6} m");
    assert!(
        (zmax - (0.1 + overshoot)).abs() < 1e-3 * overshoot,
        "zmax {zmax}"
    );
    assert!(
        (zmin + (0.1 + overshoot)).abs() < 1e-3 * overshoot,
        "zmin {zmin}"
    );
    // between the stops the speed is the impact speed (no damping)
    for (zk, vk) in z.iter().zip(&vz) {
        if zk.abs() < 0.09 {
            assert!((vk.abs() - v0).abs() < 1e-4, "speed {vk} at z = {zk}");
        }
    }
    // time in the upper stop: half a period of √(k/m)
    let t_in: Vec<f64> = sim
        .frames
        .iter()
        .filter(|f| f.q[2] > 0.1)
        .map(|f| f.t)
        .collect();
    let dwell = t_in.last().unwrap() - t_in.first().unwrap();
    let half_period = std::f64::consts::PI * (m / k).sqrt();
    assert!(
        (dwell - half_period).abs() < 2e-5 + 1e-3 * half_period,
        "{dwell} vs {half_period}"
    );
}
