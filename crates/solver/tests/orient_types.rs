//! ORIENT(system, comp, i, j) for every orientation system 1…29 (Adams'
//! table; definitions and sources in mbsolve-mech `orient_systems.rs`):
//! (1) requests and force functions recover the angles a relative
//! orientation was composed from (body-fixed R = R_a R_b R_c, space-fixed
//! R = R_c R_b R_a), the Rodriguez parameters n·tan(φ/2) and the direction
//! cosines, and read the same value bit for bit (on turned markers with
//! unnormalised parameters too: orient_force_measure.rs); (2) space-fixed a-b-c
//! with (x, y, z) equals body-fixed c-b-a with (z, y, x); (3) systems 25,
//! 26, 11 and 6 agree with AX/AY/AZ, YAW/PITCH/ROLL, PSI/THETA/PHI and
//! YAW/−PITCH/ROLL (Adams' PITCH is the negative second 3-2-1 angle); (4) ∂R/∂q of forces reading
//! every component matches central differences; (5) torsion springs on new
//! components follow φ0 cos(√(k/I) t); (6) unknown systems and components
//! are refused with exact messages, by requests and force functions alike.

mod common;

use common::force_probe::*;
use mbsolve_expr::{Expr, ExprStateFunction};
use mbsolve_mech::rotation::params_from_matrix;
use mbsolve_mech::System;
use mbsolve_model::*;
use mbsolve_solver::functions::FrameContext;
use mbsolve_solver::Frame;
use nalgebra::{Matrix3, Rotation3, Vector3};

/// Body-fixed sequences of systems 1…12 (1-based axes, as the table names
/// them); 13…24 are the same sequences space-fixed.
const SEQUENCES: [[usize; 3]; 12] = [
    [1, 2, 3],
    [2, 3, 1],
    [3, 1, 2],
    [1, 3, 2],
    [2, 1, 3],
    [3, 2, 1],
    [1, 2, 1],
    [1, 3, 1],
    [2, 1, 2],
    [2, 3, 2],
    [3, 1, 3],
    [3, 2, 3],
];

fn elementary(axis: usize, angle: f64) -> Matrix3<f64> {
    Rotation3::from_axis_angle(&Vector3::ith_axis(axis - 1), angle).into_inner()
}

/// Ground (marker 10) and free parts 2 and 3 with markers 20 and 30 at
/// their origins with the parts' axes.
fn pair() -> Model {
    let mut m = Model::new("orient pair");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    marker(&mut m, 10, 1, [0.0; 3], [0.0; 3]);
    for id in [2, 3] {
        let mut p = Part::body(
            id,
            1.0,
            Inertia::diagonal(1.0, 2.0, 3.0),
            Placement::at(0.1 * id as f64, 0.0, 0.0),
        );
        p.cm = Some(id * 10);
        m.parts.push(p);
        marker(&mut m, id * 10, id, [0.0; 3], [0.0; 3]);
    }
    m
}

/// What a force and a request of ORIENT(system, comp, 20, 30) read when
/// marker 30 has the axes `rj` and marker 20 the axes `rj·r` (so R_Jᵀ R_I =
/// r); they must agree bit for bit.
fn read(system: usize, comp: usize, rj: &Matrix3<f64>, r: &Matrix3<f64>) -> f64 {
    read_text(&format!("ORIENT({system}, {comp}, 20, 30)"), rj, r)
}

/// What a force and a request of `text` (markers 20 relative to 30) read
/// with R_Jᵀ R_I = r; they must agree bit for bit.
fn read_text(text: &str, rj: &Matrix3<f64>, r: &Matrix3<f64>) -> f64 {
    let (pi, pj) = (params_from_matrix(&(rj * r)), params_from_matrix(rj));
    let (force, request) = force_and_request_at(pair(), text, 20, 30, &|q0| {
        let mut q = q0.to_vec();
        q[3..7].copy_from_slice(pi.as_slice());
        q[10..14].copy_from_slice(pj.as_slice());
        q
    });
    assert_eq!(
        force.to_bits(),
        request.to_bits(),
        "{text}: force reads {force}, request {request}"
    );
    request
}

/// At pitch ±90° (R = Rz(ψ) Ry(±π/2) Rx(φ)) yaw and roll are not
/// separable: YAW carries the whole turn (ψ − φ at +90°, ψ + φ at −90°),
/// ROLL reads 0 and PITCH ∓π/2, as ORIENT(6, …) reads them; forces and
/// requests agree bit for bit. (YAW and ROLL read 0 before.)
#[test]
fn yaw_and_roll_in_gimbal_lock_keep_the_turn_in_yaw() {
    let mut seed = 23u64;
    for _ in 0..8 {
        let rj = elementary(3, rand(&mut seed)) * elementary(1, rand(&mut seed));
        let (psi, phi) = (rand(&mut seed) / 2.0, rand(&mut seed) / 2.0);
        for (theta, turn) in [
            (std::f64::consts::FRAC_PI_2, psi - phi),
            (-std::f64::consts::FRAC_PI_2, psi + phi),
        ] {
            let r = elementary(3, psi) * elementary(2, theta) * elementary(1, phi);
            let yaw = read_text("YAW(20, 30)", &rj, &r);
            let pitch = read_text("PITCH(20, 30)", &rj, &r);
            let roll = read_text("ROLL(20, 30)", &rj, &r);
            assert!(
                (yaw - turn).abs() < 1e-9,
                "YAW {yaw} vs {turn} at θ = {theta}"
            );
            assert!((pitch + theta).abs() < 1e-7, "PITCH {pitch} vs {}", -theta);
            assert_eq!(roll, 0.0, "ROLL at θ = {theta}");
            let (o1, o3) = (read(6, 1, &rj, &r), read(6, 3, &rj, &r));
            assert!((yaw - o1).abs() < 1e-9, "YAW {yaw} vs ORIENT(6,1) {o1}");
            assert_eq!(o3, 0.0, "ORIENT(6,3) at θ = {theta}");
        }
    }
}

/// A random J orientation and angles (θ2 inside the principal range
/// of Tait-Bryan [−π/2, π/2] or proper Euler [0, π] sequences).
fn case(seed: &mut u64, proper: bool) -> (Matrix3<f64>, [f64; 3]) {
    let rj = elementary(3, rand(seed)) * elementary(1, rand(seed)) * elementary(3, rand(seed));
    let t2 = if proper {
        0.05 + (rand(seed) / std::f64::consts::TAU + 0.5) * 3.0
    } else {
        rand(seed) / 2.1
    };
    (rj, [rand(seed), t2, rand(seed)])
}

#[test]
fn euler_sequences_recover_the_angles_they_were_composed_from() {
    let mut seed = 11u64;
    let mut worst = 0.0f64;
    for (n, [a, b, c]) in SEQUENCES.into_iter().enumerate() {
        for _ in 0..4 {
            let (rj, t) = case(&mut seed, a == c);
            let body = elementary(a, t[0]) * elementary(b, t[1]) * elementary(c, t[2]);
            let space = elementary(c, t[2]) * elementary(b, t[1]) * elementary(a, t[0]);
            for k in 1..=3 {
                for (system, r) in [(n + 1, &body), (n + 13, &space)] {
                    let got = read(system, k, &rj, r);
                    let err = (got - t[k - 1]).abs();
                    assert!(
                        err < 1e-12,
                        "ORIENT({system}, {k}) of {a}-{b}-{c}: {got} vs {}",
                        t[k - 1]
                    );
                    worst = worst.max(err);
                }
            }
        }
    }
    println!("largest angle error {worst:.1e} rad");
}

/// Space-fixed a-b-c with (x, y, z) is body-fixed c-b-a with (z, y, x):
/// on the same frames ORIENT(12 + n, k) = ORIENT(m, 4 − k), m the system
/// of the reversed sequence.
#[test]
fn space_fixed_sequences_are_the_reversed_body_fixed_ones() {
    let mut seed = 5u64;
    for (n, [a, b, c]) in SEQUENCES.into_iter().enumerate() {
        let reversed = SEQUENCES.iter().position(|s| *s == [c, b, a]).unwrap() + 1;
        for _ in 0..3 {
            let rj = elementary(1, rand(&mut seed)) * elementary(2, rand(&mut seed));
            let r = elementary(3, rand(&mut seed))
                * elementary(2, rand(&mut seed) / 2.5)
                * elementary(1, rand(&mut seed));
            for k in 1..=3 {
                let (space, body) = (read(n + 13, k, &rj, &r), read(reversed, 4 - k, &rj, &r));
                assert_eq!(
                    space,
                    body,
                    "ORIENT({}, {k}) vs ORIENT({reversed}, {})",
                    n + 13,
                    4 - k
                );
            }
        }
    }
}

/// Rodriguez parameters n·tan(φ/2) of a turn φ about a unit axis n, and
/// the nine direction cosines e_I,b · e_J,a (comp 3b + a + 1).
#[test]
fn rodriguez_parameters_and_direction_cosines_match_their_definitions() {
    let mut seed = 23u64;
    for _ in 0..10 {
        let n = Vector3::new(rand(&mut seed), rand(&mut seed), rand(&mut seed)).normalize();
        let phi = rand(&mut seed) * 0.95;
        let r = Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(n), phi).into_inner();
        let rj = elementary(2, rand(&mut seed)) * elementary(3, rand(&mut seed));
        for k in 1..=3 {
            let want = n[k - 1] * (phi / 2.0).tan();
            let got = read(28, k, &rj, &r);
            assert!(
                (got - want).abs() < 1e-12 * (1.0 + want.abs()),
                "ORIENT(28, {k}): {got} vs {want}"
            );
        }
        let ri = rj * r;
        for comp in 1..=9 {
            let (a, b) = ((comp - 1) % 3, (comp - 1) / 3);
            let want = ri.column(b).dot(&rj.column(a));
            let got = read(29, comp, &rj, &r);
            // Through the Euler parameters and back: a few ulps.
            assert!(
                (got - want).abs() < 1e-14,
                "ORIENT(29, {comp}): {got} vs {want}"
            );
        }
    }
    // A half turn about x: e0 = 0, ρ1 is unbounded (the IEEE quotient).
    let half = elementary(1, std::f64::consts::PI);
    assert!(read(28, 1, &Matrix3::identity(), &half).abs() > 1e15);
}

/// A frame at coordinates `q` (velocities of the initial state, no
/// accelerations or reactions).
fn frame_at(sys: &System, q: &[f64]) -> Frame {
    let (_, u) = sys.initial_state();
    Frame {
        t: 0.0,
        q: q.to_vec(),
        a: vec![0.0; u.len()],
        u,
        lambda: vec![0.0; sys.neq()],
        w: vec![],
        wp: vec![],
        non_dynamic: false,
        mode: 0.0,
    }
}

/// The request reading of `text` in model `m` at coordinates `q`.
fn request(m: &Model, sys: &System, q: &[f64], text: &str) -> Result<f64, String> {
    Expr::parse(text)
        .unwrap()
        .eval_in(&FrameContext {
            sys,
            model: m,
            frame: &frame_at(sys, q),
            initial_q: &sys.initial_state().0,
        })
        .map_err(|e| e.message)
}

/// Systems 25, 26, 11 and 6 against the angle functions the requests
/// already had: AX/AY/AZ, YAW/PITCH/ROLL, PSI/THETA/PHI and YAW/−PITCH/ROLL
/// (Adams' PITCH, like system 26, is the negative of the second 3-2-1
/// angle, which system 6 reads).
#[test]
fn systems_25_26_11_and_6_agree_with_the_angle_functions() {
    let mut seed = 9u64;
    for _ in 0..20 {
        let e2 = [rand(&mut seed), rand(&mut seed) / 2.0, rand(&mut seed)];
        let e3 = [rand(&mut seed), rand(&mut seed) / 2.0, rand(&mut seed)];
        let m = two_bodies(e2, e3);
        let sys = System::new(&m).unwrap();
        let q = sys.initial_state().0;
        for args in ["21, 31", "31, 11", "21"] {
            for (system, names, signs) in [
                (25, ["AX", "AY", "AZ"], [1.0, 1.0, 1.0]),
                (26, ["YAW", "PITCH", "ROLL"], [1.0, 1.0, 1.0]),
                (11, ["PSI", "THETA", "PHI"], [1.0, 1.0, 1.0]),
                (6, ["YAW", "PITCH", "ROLL"], [1.0, -1.0, 1.0]),
            ] {
                for k in 0..3 {
                    let orient = request(
                        &m,
                        &sys,
                        &q,
                        &format!("ORIENT({system}, {}, {args})", k + 1),
                    )
                    .unwrap();
                    let named =
                        signs[k] * request(&m, &sys, &q, &format!("{}({args})", names[k])).unwrap();
                    assert!(
                        (orient - named).abs() < 1e-13,
                        "ORIENT({system}, {}, {args}) = {orient}, {}({args}) = {named}",
                        k + 1,
                        names[k]
                    );
                }
            }
        }
    }
}

/// ∂R/∂q and ∂R/∂u of forces reading every component of every system
/// nonlinearly (between two moving parts and against ground), by central
/// differences at perturbed, unnormalised coordinates.
#[test]
fn orient_jacobians_match_finite_differences_for_every_system() {
    for system in (1..=29).filter(|s| *s != 27) {
        let comps = match system {
            29 => 9,
            _ => 3,
        };
        let text = |args: &str| {
            (1..=comps)
                .map(|k| format!("SIN({k}*ORIENT({system},{k},{args}) + 0.{k})"))
                .collect::<Vec<_>>()
                .join(" + ")
        };
        let nonzero =
            three_forces_jacobian_matches(two_bodies([0.4, 1.1, -2.0], [2.6, 0.9, 1.7]), &text);
        assert!(nonzero > 20, "ORIENT({system}): {nonzero} nonzero entries");
    }
}

/// Torsion springs T = −k·φ about ground z with φ read as the third angle of
/// body 1-2-3, the first of space-fixed 3-2-1, 2·atan(ρ3) and
/// atan2(cos(x_I, y_J), cos(x_I, x_J)): φ0 cos(√(k/I) t) over two periods.
#[test]
fn torsion_springs_on_new_orient_components_oscillate_with_the_closed_form_period() {
    for angle in [
        "ORIENT(1,3,{m})",
        "ORIENT(18,1,{m})",
        "2*ATAN(ORIENT(28,3,{m}))",
        "ATAN2(ORIENT(29,2,{m}), ORIENT(29,1,{m}))",
    ] {
        let err = torsion_spring_error(&|markers| angle.replace("{m}", markers));
        println!("{angle}: largest angle error over two periods {err:.1e} rad");
        // Same bound as the ORIENT(27) and YAW/PSI springs.
        assert!(err < 1e-6, "{angle}: {err}");
    }
}

#[test]
fn unknown_systems_and_components_are_refused_by_name() {
    let m = pair();
    let sys = System::new(&m).unwrap();
    let q = sys.initial_state().0;
    let cases = [
        ("ORIENT(0, 1, 20, 30)", "ORIENT type 0 is not an orientation system (they are 1…29)"),
        ("ORIENT(30, 1, 20, 30)", "ORIENT type 30 is not an orientation system (they are 1…29)"),
        (
            "ORIENT(4, 4, 20, 30)",
            "ORIENT(4, …): component must be 1…3 (first, second, third angle of the body-fixed sequence), got 4",
        ),
        (
            "ORIENT(13, 0, 20, 30)",
            "ORIENT(13, …): component must be 1…3 (first, second, third angle of the space-fixed sequence), got 0",
        ),
        ("ORIENT(25, 4, 20, 30)", "ORIENT(25, …): component must be 1…3 (AX, AY, AZ), got 4"),
        ("ORIENT(26, 4, 20, 30)", "ORIENT(26, …): component must be 1…3 (YAW, PITCH, ROLL), got 4"),
        ("ORIENT(27, 5, 20, 30)", "ORIENT(27, …): component must be 1…4 (e0, e1, e2, e3), got 5"),
        (
            "ORIENT(28, 4, 20, 30)",
            "ORIENT(28, …): component must be 1…3 (Rodriguez parameters), got 4",
        ),
        (
            "ORIENT(29, 10, 20, 30)",
            "ORIENT(29, …): component must be 1…9 (direction cosines of I's x, y, z axes on J's x, y, z axes), got 10",
        ),
    ];
    for (text, message) in cases {
        let force = ExprStateFunction::new(Expr::parse(text).unwrap()).unwrap_err();
        assert_eq!(force.message, message, "force function {text}");
        assert_eq!(
            request(&m, &sys, &q, text).unwrap_err(),
            message,
            "request {text}"
        );
    }
}
