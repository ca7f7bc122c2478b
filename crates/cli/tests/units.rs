//! Issue 29 item 1: units end to end. One mechanism (a pendulum on a
//! REVOLUTE, a block on a TRANSLATIONAL pushed by a SPRINGDAMPER and an
//! SFORCE, the two tied by a BUSHING, a free ball bouncing on a box through
//! an IMPACT CONTACT with Coulomb friction, a rotor driven by a MOTION, all
//! under gravity) written in each unit system Adams documents. Adams solves
//! `Force · UCF = Mass · Acceleration` in the deck's own units and reports
//! in them; after converting each run's requests to SI with the unit sizes
//! written here (independently of the solver's table), every component of
//! every run equals the SI run's.
//!
//! The runs use the fixed-step option (HHT, FIXIT, HRATIO): the step
//! sequence does not depend on ERROR (whose weights are in model units),
//! and Newton's method is invariant under a change of units, so the runs
//! differ by rounding only. The bound is 1e-9 of each request's scale.

mod common;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    common::scratch("units", name)
}

/// A unit system as a deck states it, with the SI size of each unit:
/// (UNITS statement, force, mass, length) sizes; time is the second.
struct System {
    name: &'static str,
    units: &'static str,
    force: f64,
    mass: f64,
    length: f64,
}

const LBF: f64 = 4.448_221_615_260_5;
const LBM: f64 = 0.453_592_37;

const SYSTEMS: &[System] = &[
    System {
        name: "si",
        units: "UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND",
        force: 1.0,
        mass: 1.0,
        length: 1.0,
    },
    // Adams/View's MMKS default
    System {
        name: "mmks",
        units: "UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND",
        force: 1.0,
        mass: 1.0,
        length: 1e-3,
    },
    System {
        name: "cgs",
        units: "UNITS/SYSTEM = CGS",
        force: 1e-5,
        mass: 1e-3,
        length: 1e-2,
    },
    System {
        name: "ips",
        units: "UNITS/SYSTEM = IPS",
        force: LBF,
        mass: LBM,
        length: 0.0254,
    },
    System {
        name: "fps",
        units: "UNITS/FORCE = POUND_FORCE, MASS = POUND_MASS, LENGTH = FOOT, TIME = SECOND",
        force: LBF,
        mass: LBM,
        length: 0.3048,
    },
    System {
        name: "slug",
        units: "UNITS/FORCE = POUND_FORCE, MASS = SLUG, LENGTH = FOOT, TIME = SECOND",
        force: LBF,
        mass: LBF / 0.3048,
        length: 0.3048,
    },
    // FAST2ADAMS writes kN, kg, m (UCF = 1000)
    System {
        name: "kn",
        units: "UNITS/FORCE = KNEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND",
        force: 1e3,
        mass: 1.0,
        length: 1.0,
    },
    // the factor stated as such: the technical system (kilogram-force,
    // kg, m, s), UCF = 9.80665. UCF alone names no length unit, so the
    // velocity projections weigh translations in model units: this deck is
    // in metres to compare with the SI run to rounding.
    System {
        name: "ucf",
        units: "UNITS/UCF = 9.80665",
        force: 9.806_65,
        mass: 1.0,
        length: 1.0,
    },
];

/// The mechanism with every value in `s`'s units.
fn deck(s: &System) -> String {
    let l = |x: f64| format!("{:e}", x / s.length);
    let m = |x: f64| format!("{:e}", x / s.mass);
    let f = |x: f64| format!("{:e}", x / s.force);
    let inertia = |x: f64| format!("{:e}", x / (s.mass * s.length * s.length));
    let stiff = |x: f64| format!("{:e}", x * s.length / s.force); // F/L
    let damp = |x: f64| format!("{:e}", x * s.length / s.force); // F·T/L
    let torque = |x: f64| format!("{:e}", x / (s.force * s.length)); // F·L (per rad)
    let p3 = |x: f64, y: f64, z: f64| format!("{}, {}, {}", l(x), l(y), l(z));
    let impact = format!("{:e}", 1e5 * s.length.powf(1.5) / s.force); // F/L^1.5
    format!(
        "units conformance ({name})\n\
         {units}\n\
         ACCGRAV/JGRAV = {g}\n\
         PART/1, GROUND\n\
         MARKER/10, PART = 1\n\
         MARKER/11, PART = 1, QP = {q11}\n\
         MARKER/12, PART = 1, QP = {q12}\n\
         MARKER/13, PART = 1, QP = {q13}, ZP = {z13}, XP = {x13}\n\
         MARKER/14, PART = 1, QP = {q14}\n\
         GRAPHICS/1, BOX, CORNER = 14, X = {l1}, Y = {l05}, Z = {l1}\n\
         PART/2, MASS = {m2}, CM = 20, IP = {i2a}, {i2b}, {i2c}\n\
         MARKER/20, PART = 2, QP = {q20}\n\
         MARKER/21, PART = 2\n\
         MARKER/24, PART = 2, QP = {q24}\n\
         JOINT/1, REVOLUTE, I = 21, J = 10\n\
         PART/3, MASS = {m3}, CM = 30, IP = {i3}, {i3}, {i3}\n\
         MARKER/30, PART = 3, QP = {q30}\n\
         MARKER/31, PART = 3, QP = {q30}, ZP = {z13}, XP = {x13}\n\
         MARKER/32, PART = 3, QP = {q30}\n\
         MARKER/34, PART = 3, QP = {q24}\n\
         JOINT/2, TRANSLATIONAL, I = 31, J = 13\n\
         SPRINGDAMPER/1, TRANSLATION, I = 32, J = 11, K = {k1}, C = {c1}, LENGTH = {l12}, FORCE = {f5}\n\
         SFORCE/1, TRANSLATIONAL, I = 32, J = 11, FUNCTION = {f4}*SIN(3*TIME) - {c2}*VR(32, 11)\n\
         BUSHING/1, I = 24, J = 34, K = {kb1}, {kb2}, {kb3}, C = {cb}, {cb}, {cb}, KT = {kt}, {kt}, {kt}, CT = {ct}, {ct}, {ct}\n\
         PART/4, MASS = {m4}, CM = 40, IP = {i4}, {i4}, {i4}, VX = {vx4}\n\
         MARKER/40, PART = 4, QP = {q40}\n\
         GRAPHICS/4, ELLIPSOID, CM = 40, XSCALE = {l02}, YSCALE = {l02}, ZSCALE = {l02}\n\
         CONTACT/1, IGEOM = 4, JGEOM = 1, IMPACT, STIFFNESS = {impact}, DAMPING = {cc}, DMAX = {dmax}, EXPONENT = 1.5\n\
         , COULOMB_FRICTION = ON, MU_STATIC = 0.3, MU_DYNAMIC = 0.2\n\
         , STICTION_TRANSITION_VELOCITY = {vs}, FRICTION_TRANSITION_VELOCITY = {vf}\n\
         PART/5, MASS = {m5}, CM = 50, IP = {i5}, {i5}, {i5}\n\
         MARKER/50, PART = 5, QP = {q50}\n\
         MARKER/51, PART = 5, QP = {q12}\n\
         JOINT/3, REVOLUTE, I = 51, J = 12\n\
         MOTION/1, ROTATIONAL, JOINT = 3, FUNCTION = 2*TIME\n\
         REQUEST/1, DISPLACEMENT, I = 20, J = 10\n\
         REQUEST/2, VELOCITY, I = 30\n\
         REQUEST/3, ACCELERATION, I = 40\n\
         REQUEST/4, FORCE, I = 21, J = 10\n\
         REQUEST/5, FORCE, I = 32, J = 11\n\
         REQUEST/6, FORCE, I = 51, J = 12\n\
         REQUEST/7, DISPLACEMENT, I = 40\n\
         REQUEST/8, FORCE, I = 24, J = 34\n\
         REQUEST/9, ACCELERATION, I = 20\n\
         END\n",
        name = s.name,
        units = s.units,
        g = l(-9.80665),
        q11 = p3(-1.0, -1.5, 0.0),
        q12 = p3(3.0, 0.0, 0.0),
        q13 = p3(0.0, -1.5, 0.0),
        z13 = p3(1.0, -1.5, 0.0),
        x13 = p3(0.0, -0.5, 0.0),
        q14 = p3(1.0, -2.5, -0.5),
        l1 = l(1.0),
        l05 = l(0.5),
        l02 = l(0.2),
        l12 = l(1.2),
        m2 = m(2.0),
        i2a = inertia(0.3),
        i2b = inertia(0.4),
        i2c = inertia(0.5),
        q20 = p3(0.8, 0.0, 0.0),
        q24 = p3(0.8, -0.3, 0.0),
        m3 = m(1.5),
        i3 = inertia(0.01),
        q30 = p3(0.0, -1.5, 0.0),
        k1 = stiff(200.0),
        c1 = damp(3.0),
        f5 = f(5.0),
        f4 = f(4.0),
        c2 = damp(2.0),
        kb1 = stiff(50.0),
        kb2 = stiff(60.0),
        kb3 = stiff(70.0),
        cb = damp(1.0),
        kt = torque(5.0),
        ct = torque(0.1),
        m4 = m(0.5),
        i4 = inertia(0.002),
        vx4 = l(0.3),
        q40 = p3(1.5, -1.85, 0.0),
        cc = damp(10.0),
        dmax = l(1e-3),
        vs = l(0.1),
        vf = l(0.2),
        m5 = m(1.0),
        i5 = inertia(0.05),
        q50 = p3(3.2, 0.0, 0.0),
    )
}

const COMMANDS: &str =
    "INTEGRATOR/HHT, FIXIT = 8, HRATIO = 10\nSIMULATE/DYNAMICS, END = 0.6, DTOUT = 0.005\n";

/// SI size of a request column by its name: displacement, velocity and
/// acceleration components, forces and torques; angles are radians.
fn column_si(name: &str, s: &System) -> f64 {
    let comp = name.rsplit('.').next().unwrap();
    match comp {
        "x" | "y" | "z" | "vx" | "vy" | "vz" | "ax" | "ay" | "az" => s.length,
        "fx" | "fy" | "fz" => s.force,
        "tx" | "ty" | "tz" => s.force * s.length,
        "psi" | "theta" | "phi" | "wx" | "wy" | "wz" | "wdx" | "wdy" | "wdz" => 1.0,
        other => panic!("column {name}: unknown component {other}"),
    }
}

/// The deck of `s` run in its own scratch folder (`tag` keeps the tests,
/// which run in parallel, apart).
fn run(s: &System, tag: &str) -> (Vec<String>, Vec<Vec<f64>>, String) {
    common::run_deck(
        &scratch(&format!("{tag}-{}", s.name)),
        s.name,
        &deck(s),
        &format!("{COMMANDS}STOP\n"),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", s.name))
}

/// Each column's scale: the largest SI magnitude of the same kind
/// (translational or rotational) in its request, over the run; for a kind
/// that stays zero (the planar pendulum's joint torques), the request's
/// largest magnitude (the mechanism's lengths are about 1 m).
fn scales(header: &[String], rows: &[Vec<f64>]) -> Vec<f64> {
    let kind = |h: &str| {
        let c = h.rsplit('.').next().unwrap();
        let rot = matches!(c, "psi" | "theta" | "phi") || c.starts_with('w') || c.starts_with('t');
        (h.split('.').next().unwrap().to_string(), rot)
    };
    let largest = |keep: &dyn Fn(usize) -> bool| {
        (1..header.len())
            .filter(|&d| keep(d))
            .flat_map(|d| rows.iter().map(move |r| r[d].abs()))
            .fold(0.0, f64::max)
    };
    (0..header.len())
        .map(|c| {
            let k = kind(&header[c]);
            let same = largest(&|d| kind(&header[d]) == k);
            let request = largest(&|d| kind(&header[d]).0 == k.0);
            if same > 1e-9 * request {
                same
            } else {
                request
            }
        })
        .collect()
}

#[test]
fn every_unit_system_gives_the_si_answer() {
    let (header, si, log) = run(&SYSTEMS[0], "all");
    assert!(log.contains("UCF = 1\n"), "{log}");
    assert_eq!(si.len(), 121);
    let scale = scales(&header, &si);
    // the mechanism moves: the ball bounces and the pendulum swings
    let ay = header.iter().position(|h| h == "request_3.ay").unwrap();
    assert!(
        si.iter().any(|r| r[ay] > 20.0),
        "the ball never hit the box"
    );
    let mut failures = Vec::new();
    for s in &SYSTEMS[1..] {
        let (h, rows, log) = run(s, "all");
        assert_eq!(h, header, "{}", s.name);
        assert_eq!(rows.len(), si.len(), "{}", s.name);
        let mut worst = (0.0, String::new());
        for (r, (a, b)) in rows.iter().zip(&si).enumerate() {
            assert!((a[0] - b[0]).abs() < 1e-12, "{}: time", s.name);
            for c in 1..h.len() {
                let v = a[c] * column_si(&h[c], s);
                let e = (v - b[c]).abs() / scale[c].max(1e-300);
                if e > worst.0 {
                    worst = (e, format!("{} at t = {} ({v} vs {})", h[c], b[0], b[c]));
                }
                let _ = r;
            }
        }
        println!(
            "{:<5} worst relative difference {:.2e}: {}",
            s.name, worst.0, worst.1
        );
        if worst.0 >= 1e-9 {
            failures.push(format!("{}: {:.3e} at {}\n{log}", s.name, worst.0, worst.1));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A 1 N force on a 1 kg part in a MILLIMETER deck accelerates it at
/// 1000 mm/s² (Adams: F · UCF = m · a, UCF = 1000), and the weight of a
/// 1 kg part held by a joint reads 9.80665 N, not 9806.65.
#[test]
fn millimeter_deck_moves_a_kilogram_a_metre_per_second_squared_per_newton() {
    let adm = "mm\n\
         UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND\n\
         ACCGRAV/JGRAV = -9806.65\n\
         PART/1, GROUND\n\
         MARKER/10, PART = 1\n\
         PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
         MARKER/20, PART = 2, QP = 0, 0, 0\n\
         MARKER/21, PART = 2, QP = 0, 0, 0, ZP = 1, 0, 0, XP = 0, 1, 0\n\
         MARKER/11, PART = 1, QP = 0, 0, 0, ZP = 1, 0, 0, XP = 0, 1, 0\n\
         JOINT/1, TRANSLATIONAL, I = 21, J = 11\n\
         SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 20, J = 11, FUNCTION = 1\n\
         REQUEST/1, DISPLACEMENT, I = 20\n\
         REQUEST/2, ACCELERATION, I = 20\n\
         REQUEST/3, FORCE, I = 21, J = 11\n\
         END\n";
    let (h, rows, log) = common::run_deck(
        &scratch("mm"),
        "mm",
        adm,
        "INTEGRATOR/GSTIFF, ERROR = 1E-6\nSIMULATE/DYNAMICS, END = 1, DTOUT = 0.5\nSTOP\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        log.contains("units: force NEWTON (N), mass KILOGRAM (kg), length MILLIMETER (mm), time SECOND (s), angle RADIAN; UCF = 1000\n"),
        "{log}"
    );
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let last = rows.last().unwrap();
    assert!(
        (last[col("request_2.ax")] - 1000.0).abs() < 1e-9,
        "{last:?}"
    );
    // x = ½ a t² = 500 mm at t = 1 s
    assert!((last[col("request_1.x")] - 500.0).abs() < 1e-6, "{last:?}");
    // the joint holds the weight against gravity: 9.80665 N
    assert!(
        (last[col("request_3.fy")].abs() - 9.80665).abs() < 1e-9,
        "{last:?}"
    );
}

/// Through the MotionSolve writer and reader: each deck converted to
/// `.xml` (Param_Unit with the deck's units, or mass_mult_factor = 1/UCF)
/// and back to `.adm` keeps its units and runs to the same results as the
/// deck itself, to rounding.
#[test]
fn units_survive_convert_both_ways() {
    for s in SYSTEMS {
        let d = scratch(&format!("convert-{}", s.name));
        let adm = d.join("deck.adm");
        std::fs::write(&adm, deck(s)).unwrap();
        let xml = d.join("deck.xml");
        let back = d.join("back.adm");
        for (from, to) in [(&adm, &xml), (&xml, &back)] {
            let o = common::mbsolve(&[
                "convert",
                from.to_str().unwrap(),
                "-o",
                to.to_str().unwrap(),
            ]);
            assert!(
                o.status.success(),
                "{}: {}",
                s.name,
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let x = std::fs::read_to_string(&xml).unwrap();
        let unit_line = x
            .lines()
            .find(|l| l.contains("<Param_Unit"))
            .unwrap()
            .trim()
            .to_string();
        if s.name == "ucf" {
            assert_eq!(
                unit_line,
                "<Param_Unit mass_mult_factor=\"1.0197162129779283e-1\"/>"
            );
        } else {
            assert!(
                unit_line.starts_with("<Param_Unit force_unit="),
                "{unit_line}"
            );
        }
        let (h0, r0, _) = run(s, "direct");
        let back_text = std::fs::read_to_string(&back).unwrap();
        let (h1, r1, log) = common::run_deck(&d, "back", &back_text, &format!("{COMMANDS}STOP\n"))
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(h0, h1, "{}", s.name);
        let scale = scales(&h0, &r0);
        for (a, b) in r0.iter().zip(&r1) {
            for c in 1..h0.len() {
                assert!(
                    (a[c] - b[c]).abs() <= 1e-12 * scale[c].max(1e-300),
                    "{}: {} at t = {}: {} vs {}\n{log}",
                    s.name,
                    h0[c],
                    a[0],
                    a[c],
                    b[c]
                );
            }
        }
    }
}
