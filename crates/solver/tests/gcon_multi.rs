//! GCON whose function reads markers on three or four moving parts
//! (`mech/src/gcon_multi.rs`): the row is carried in two pieces of two
//! bodies, with the Hessian block between the pieces. Checks:
//! - Φ_q, ∂(R + Φ_qᵀλ)/∂q and γ against finite differences for nonlinear
//!   three- and four-part functions whose products of measures, a measure
//!   over three parts (DX(i, j, k)) and TIME make the cross-piece block and
//!   the extra piece's Φ_qt non-zero; and the whole I3, SI2 and SI1
//!   iteration matrices against differences of their residuals;
//! - dynamics, closed form: three sliders tied by DX(a, c) − 2·DX(b, c) = 0
//!   with a constant force on the first move with constant accelerations;
//! - dynamics with a pendulum as the third part: the constraint holds and
//!   the energy is kept on GSTIFF I3/SI2, HASTIFF SI1, HHT, NEWMARK, ABAM;
//! - a nonlinear product constraint (x_A·x_C + y_B = c) keeps its energy;
//! - kinematics over four parts driven by three motions, against the
//!   closed form of the fourth's position, velocity and acceleration;
//! - a function on five moving parts is refused by name.

mod common;

use common::derivatives::check_derivatives;
use mbsolve_model::{
    ElementRef, Formulation, IntegratorKind, IntegratorSettings, Model, Request, RequestKind,
};
use mbsolve_solver::{requests, Frame, Simulation};

/// The deck's head: SI units, ground PART/1 with marker 10 at the origin
/// and marker 11 (z along global x: the sliders' rail), gravity −y.
const HEAD: &str = "gcon-multi
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
PART/1, GROUND
MARKER/10, PART = 1
MARKER/11, PART = 1, REULER = 90D, 90D, 0D
ACCGRAV/JGRAV = -9.81
";

/// The model of [`HEAD`] with `body` appended.
fn deck(body: &str) -> Model {
    let text = [HEAD, body, "END\n"].concat();
    mbsolve_adm::read_adm_str(&text, "gcon_multi.adm").unwrap_or_else(|e| panic!("{e}"))
}

/// PART/p of mass `mass` (isotropic inertia 0.1) at `at`, with marker p0 at
/// its origin (its CM) and marker p1 there with z along global x.
fn part(p: u32, mass: f64, at: [f64; 3]) -> String {
    format!(
        "PART/{p}, MASS = {mass}, CM = {p}0, IP = 0.1, 0.1, 0.1, QG = {}, {}, {}\n\
         MARKER/{p}0, PART = {p}\n\
         MARKER/{p}1, PART = {p}, REULER = 90D, 90D, 0D\n",
        at[0], at[1], at[2]
    )
}

/// PART/p sliding along global x on JOINT/p, at x.
fn slider(p: u32, mass: f64, x: f64) -> String {
    format!(
        "{}JOINT/{p}, TRANSLATIONAL, I = {p}1, J = 11\n",
        part(p, mass, [x, 0.0, 0.0])
    )
}

/// The body index of PART/id.
fn body(sim: &Simulation, id: u32) -> usize {
    sim.sys
        .bodies
        .iter()
        .position(|b| b.part == id)
        .expect("a moving part")
}

// ---------------------------------------------------------------- derivatives

/// Four free parts (only the GCON and the Euler-parameter rows constrain
/// them) at generic places.
fn free_parts(function: &str) -> Model {
    deck(&format!(
        "{}{}{}{}GCON/1, I = 20, FUNCTION = {function}\n",
        part(2, 1.0, [0.9, 0.2, -0.3]),
        part(3, 1.5, [-0.4, 1.1, 0.5]),
        part(4, 0.7, [0.3, -0.6, 1.2]),
        part(5, 1.2, [1.3, 0.4, 0.8]),
    ))
}

/// Over three parts (A = 2, B = 3, C = 4; read in the order A, C, B, so
/// the pieces are [A, C] and [B]): a product within the first piece, a
/// square within the second, AZ(A, B)·DM(C, A) across both, and
/// DX(A, B, C) (three parts in one measure) times TIME.
const THREE_PARTS: &str = "DX(20)*DZ(40) - DY(30)*DY(30) + 0.3*AZ(21, 30)*DM(40, 20) \
     + 0.2*DX(20, 30, 41)*TIME - 0.5";

/// Over four parts (A = 2, D = 5, B = 3, C = 4 read in that order: pieces
/// [A, D] and [B, C]): products within each piece, AZ(D, C)·DM(A, B)
/// across, and DX(A, D, B) (spanning both pieces) times SIN(TIME).
const FOUR_PARTS: &str = "DX(20)*DY(50) + DZ(30)*DX(40) - 0.5*AZ(51, 41)*DM(20, 30) \
     + 0.1*SIN(TIME)*DX(20, 50, 31) - 0.2";

/// Φ_q, ∂(R + Φ_qᵀλ)/∂q and γ (with the time terms) at a state off the
/// initial one (Euler parameters not normalized, all velocities and
/// accelerations non-zero), after checking that the cross-piece block and
/// the extra piece's Φ_qt are really there (without them, the R_q and γ
/// checks fail).
#[test]
fn three_and_four_part_gcon_rows_match_finite_differences() {
    // More than eight measures: evaluated in heap buffers, not on the stack.
    let many = format!(
        "{THREE_PARTS} + 0.1*DY(20)*DZ(30) + 0.05*DX(30)*DY(40) + 0.02*DZ(20) + 0.3*DX(40)"
    );
    let cases = [
        ("three", THREE_PARTS, 3),
        ("four", FOUR_PARTS, 4),
        ("ten measures on three", many.as_str(), 3),
    ];
    for (label, function, parts) in cases {
        let sys = mbsolve_mech::System::new(&free_parts(function)).unwrap();
        let k = (0..sys.neq())
            .find(|&k| sys.equations[k].extra_bodies().is_some())
            .expect("the GCON spans two pieces");
        let extra = sys.equations[k].extra_bodies().unwrap();
        let spanned = sys.equations[k]
            .bodies()
            .iter()
            .chain(&extra)
            .flatten()
            .count();
        assert_eq!(spanned, parts, "{label}");
        let (mut q, _) = sys.initial_state();
        let n = sys.nq();
        for (i, x) in q.iter_mut().enumerate() {
            *x += 0.05 * (1.3 * i as f64).sin();
        }
        let u: Vec<f64> = (0..n).map(|i| 0.5 * (0.7 * i as f64).cos()).collect();
        let a: Vec<f64> = (0..n).map(|i| 0.3 * (1.9 * i as f64).sin()).collect();
        let t = 0.4;
        let cross = sys.cross_terms(k, &q, t).expect("a GCON has cross terms");
        println!(
            "{label} parts: |H01| {:.3}, |Φ_qt over the extra piece| {:.3}",
            cross.h01.norm(),
            cross.phi_qt.norm()
        );
        assert!(cross.h01.norm() > 0.1, "{label}: no cross block");
        assert!(cross.phi_qt.norm() > 0.01, "{label}: no extra Φ_qt");
        check_derivatives(&sys, &q, &u, &a, t);
    }
}

/// The I3, SI2 and SI1 iteration matrices, cross-piece blocks included,
/// against central differences of their residuals (each formulation at
/// its own off-manifold point).
#[test]
fn iteration_matrices_with_a_four_part_gcon_match_differences() {
    for function in [THREE_PARTS, FOUR_PARTS] {
        let mut sim = Simulation::new(&free_parts(function)).unwrap();
        sim.initial_conditions().unwrap();
        common::assert_formulation_jacobians("multi-part GCON", &sim);
    }
}

// ---------------------------------------------------------------- dynamics

/// The integrators of the dynamic checks, at ERROR 1e-7 (VSTIFF: the ODE
/// form's reduced Jacobian by differences, as for any row over more than
/// two bodies).
fn runs() -> Vec<IntegratorSettings> {
    [
        (IntegratorKind::Gstiff, Formulation::I3),
        (IntegratorKind::Gstiff, Formulation::Si2),
        (IntegratorKind::Hastiff, Formulation::Si1),
        (IntegratorKind::Hht, Formulation::I3),
        (IntegratorKind::Newmark, Formulation::I3),
        (IntegratorKind::Abam, Formulation::Ode),
        (IntegratorKind::Vstiff, Formulation::Ode),
    ]
    .into_iter()
    .map(|(k, f)| common::settings(k, f, 1e-7))
    .collect()
}

/// How closely a run holds the constraint: 1e-10, and 1e-9 for VSTIFF,
/// whose ODE form solves the dependent coordinates to its projection
/// tolerance (measured up to 9.4e-11; ABAM 8.4e-11, the DAE forms 4e-13).
fn hold_tolerance(s: &IntegratorSettings) -> f64 {
    if s.kind == IntegratorKind::Vstiff {
        1e-9
    } else {
        1e-10
    }
}

/// The run's name.
fn name(s: &IntegratorSettings) -> String {
    format!("{:?}/{:?}", s.kind, s.formulation.unwrap())
}

/// Sliders A (1 kg, x = 0.6), B (2 kg, x = 0.8), C (1 kg, x = 1.0) on x
/// rails, tied by GCON DX(A, C) − 2·DX(B, C) = 0, i.e.
/// x_A − 2x_B + x_C = 0; a constant 6 N along x pushes A. With λ the
/// GCON's reaction, m_A a_A = F + λ, m_B a_B = −2λ, m_C a_C = λ and
/// a_A − 2a_B + a_C = 0 give λ = −F/(m_A(1/m_A + 4/m_B + 1/m_C)) = −1.5 N:
/// a = (4.5, 1.5, −1.5) m/s², so x(t) = x₀ + a t²/2 from rest.
fn three_sliders(function: &str, more: &str) -> Model {
    deck(&format!(
        "{}{}{}GCON/1, I = 20, FUNCTION = {function}\n{more}\
             SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = 6\n",
        slider(2, 1.0, 0.6),
        slider(3, 2.0, 0.8),
        slider(4, 1.0, 1.0),
    ))
}

/// The three sliders' closed form on every integrator; the GCON's FORCE
/// request at its I marker (on A) is the reaction on A, −1.5 N along x.
/// The function reads B before A, so A's part is put first by the I
/// marker, not by the reading order.
#[test]
fn three_sliders_tied_by_a_gcon_move_with_the_closed_form_accelerations() {
    let model = three_sliders("-2*DX(30, 40) + DX(20, 40)", "");
    let request = Request {
        id: 1,
        kind: RequestKind::Force,
        i: 20,
        j: Some(40),
        rm: None,
        comment: String::new(),
    };
    let (x0, acc) = ([0.6, 0.8, 1.0], [4.5, 1.5, -1.5]);
    for settings in runs() {
        let mut sim = Simulation::new(&model).unwrap();
        sim.dynamic(1.0, Some(100), None, &settings).unwrap();
        assert!(sim.frames.last().unwrap().t > 0.999);
        let (mut worst, mut held, mut reaction) = (0.0f64, 0.0f64, 0.0f64);
        for f in &sim.frames {
            for b in 0..3 {
                let exact = x0[b] + 0.5 * acc[b] * f.t * f.t;
                worst = worst.max((f.q[7 * b] - exact).abs());
            }
            held = held.max((f.q[0] - 2.0 * f.q[7] + f.q[14]).abs());
            let fr = requests::evaluate(&sim.sys, &sim.model, f, &request);
            reaction = reaction.max((fr[0] + 1.5).abs());
        }
        println!(
            "{}: largest position error {worst:.1e} m, largest |x_A − 2x_B + x_C| {held:.1e} m, reaction on A off by {reaction:.1e} N",
            name(&settings)
        );
        assert!(
            held < hold_tolerance(&settings),
            "{}: constraint {held}",
            name(&settings)
        );
        assert!(worst < 1e-6, "{}: position error {worst}", name(&settings));
        assert!(reaction < 1e-6, "{}: reaction {reaction}", name(&settings));
    }
}

/// The FORCE request between two markers the three-part GCON reads, on
/// each slider (A: 20 to 40, B: 30 to 40, C: 40 to 20): the GCON is the
/// only element between them, so the request is its reaction on the
/// request's part, including the second piece's (B and C lie in the piece
/// that does not hold the I marker). Each must equal m·a − F_applied on
/// that slider along x, with a of the same frame (a and λ are solved
/// together at the output), to 1e-9 N; the other components are 0 (the
/// measures DX read the CM markers: no torque). The frames' reactions are
/// also the closed form (−1.5, 3, −1.5 N) to 1e-6. Before the second piece
/// was added, B and C read 0. GSTIFF I3 and SI2, HHT.
#[test]
fn force_requests_on_every_slider_include_both_pieces_of_the_gcon() {
    let model = three_sliders("-2*DX(30, 40) + DX(20, 40)", "");
    // (I, J, body, mass, applied force along x, the closed-form reaction).
    let sliders = [
        (20, 40, 0, 1.0, 6.0, -1.5),
        (30, 40, 1, 2.0, 0.0, 3.0),
        (40, 20, 2, 1.0, 0.0, -1.5),
    ];
    for settings in [
        common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Gstiff, Formulation::Si2, 1e-7),
        common::settings(IntegratorKind::Hht, Formulation::I3, 1e-7),
    ] {
        let mut sim = Simulation::new(&model).unwrap();
        sim.dynamic(1.0, Some(20), None, &settings).unwrap();
        let (mut newton, mut closed) = (0.0f64, 0.0f64);
        for f in &sim.frames {
            for &(i, j, b, mass, applied, exact) in &sliders {
                let request = Request {
                    id: 1,
                    kind: RequestKind::Force,
                    i,
                    j: Some(j),
                    rm: None,
                    comment: String::new(),
                };
                let fr = requests::evaluate(&sim.sys, &sim.model, f, &request);
                let expected = [mass * f.a[7 * b] - applied, 0.0, 0.0, 0.0, 0.0, 0.0];
                for (got, want) in fr.iter().zip(expected) {
                    newton = newton.max((got - want).abs());
                }
                closed = closed.max((fr[0] - exact).abs());
            }
        }
        println!(
            "{}: FORCE requests against m·a − F {newton:.1e} N, against the closed form {closed:.1e} N",
            name(&settings)
        );
        assert!(
            newton < 1e-9,
            "{}: m·a − F off by {newton:e}",
            name(&settings)
        );
        assert!(
            closed < 1e-6,
            "{}: closed form off by {closed:e}",
            name(&settings)
        );
    }
}

/// A second GCON stating the same law over the three parts is redundant:
/// found and deactivated by name (one equation), and the run keeps the
/// closed form of the first.
#[test]
fn a_repeated_three_part_gcon_is_deactivated_by_name() {
    let model = three_sliders(
        "DX(20, 40) - 2*DX(30, 40)",
        "GCON/2, I = 30, FUNCTION = 2*DX(30, 20) - DX(40, 20)\n",
    );
    let mut sim = Simulation::new(&model).unwrap();
    sim.initial_conditions().unwrap();
    let off: Vec<ElementRef> = (0..sim.sys.neq())
        .filter(|&k| !sim.data.active[k])
        .map(|k| sim.sys.equations[k].element)
        .collect();
    assert_eq!(off, [ElementRef::Gcon(2)]);
    assert!(
        sim.log
            .iter()
            .any(|l| l.starts_with("deactivating constraint equation") && l.contains("GCON/2")),
        "{:?}",
        sim.log
    );
    assert_eq!(sim.sys.dof(&sim.data), 2);
    let settings = common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7);
    sim.dynamic(1.0, Some(10), None, &settings).unwrap();
    let f = sim.frames.last().unwrap();
    assert!((f.q[7] - (0.8 + 0.75)).abs() < 1e-6, "x_B(1) = {}", f.q[7]);
}

/// Kinetic plus potential energy of the frame (isotropic inertia 0.1,
/// gravity −9.81 along y) with the masses of the bodies.
fn energy(sim: &Simulation, f: &Frame, masses: &[f64]) -> f64 {
    masses
        .iter()
        .enumerate()
        .map(|(b, m)| {
            let o = 7 * b;
            let w = sim.sys.body_angular_velocity(&f.q, &f.u, b);
            let v2 = f.u[o].powi(2) + f.u[o + 1].powi(2) + f.u[o + 2].powi(2);
            0.5 * m * v2 + 0.05 * w.norm_squared() + m * 9.81 * f.q[o + 1]
        })
        .sum()
}

/// The largest energy change over the run and the largest value of
/// `held` over its frames.
fn drift_and_hold(sim: &Simulation, masses: &[f64], held: impl Fn(&Frame) -> f64) -> (f64, f64) {
    let e0 = energy(sim, &sim.frames[0], masses);
    sim.frames.iter().fold((0.0f64, 0.0f64), |(d, h), f| {
        (
            d.max((energy(sim, f, masses) - e0).abs()),
            h.max(held(f).abs()),
        )
    })
}

/// The integrator's own energy accuracy at ERROR 1e-7 (as in
/// coupler_three_parts.rs): HHT (α = −0.3) and NEWMARK damp numerically.
fn energy_tolerance(s: &IntegratorSettings) -> f64 {
    match s.kind {
        IntegratorKind::Hht => 1e-3,
        IntegratorKind::Newmark => 0.1,
        _ => 1e-5,
    }
}

/// A scalar of a frame.
type OfFrame<'a> = &'a dyn Fn(&Simulation, &Frame) -> f64;
/// A scalar of a frame, named.
type Measured<'a> = (&'a str, OfFrame<'a>);

/// Runs `model` for (end, steps) on every integrator of [`runs`]: the
/// constraint `held` (its largest |value| over the frames) within
/// [`hold_tolerance`], the energy within [`energy_tolerance`], and the
/// system moved: the largest `moved` exceeds its bound.
fn keeps_constraint_and_energy(
    model: &Model,
    (end, steps): (f64, u64),
    masses: &[f64],
    (what, held): Measured,
    (how, moved, least): (&str, OfFrame, f64),
) {
    for settings in runs() {
        let mut sim = Simulation::new(model).unwrap();
        sim.dynamic(end, Some(steps), None, &settings).unwrap();
        assert!(sim.frames.last().unwrap().t > end - 1e-3);
        let (drift, worst) = drift_and_hold(&sim, masses, |f| held(&sim, f));
        let reach = sim
            .frames
            .iter()
            .map(|f| moved(&sim, f))
            .fold(0.0, f64::max);
        let run = name(&settings);
        println!("{run}: largest |{what}| {worst:.1e}, |ΔE| {drift:.1e} J, {how} {reach:.3} m");
        assert!(reach > least, "{run}: {how} only {reach}");
        assert!(
            worst < hold_tolerance(&settings),
            "{run}: |{what}| = {worst}"
        );
        assert!(
            drift < energy_tolerance(&settings),
            "{run}: |ΔE| = {drift} J"
        );
    }
}

/// Sliders A (2 kg, x = 0.6) and B (1 kg, x = 0.8) on x rails and a
/// pendulum P (1 kg, CM 1 m from its hinge at the origin, released
/// horizontal), tied by DX(A, P) − 2·DX(B, P) = 0 (x_A − 2x_B + x_P = 0):
/// the third part turns, so the row reads its orientation. The reactions
/// do no work (the constraint is scleronomic): energy is kept.
#[test]
fn sliders_tied_to_a_pendulum_keep_the_constraint_and_the_energy() {
    let model = deck(&format!(
        "{}{}{}MARKER/42, PART = 4, QP = -1, 0, 0\n\
             JOINT/4, REVOLUTE, I = 42, J = 10\n\
             GCON/1, I = 20, FUNCTION = DX(20, 40) - 2*DX(30, 40)\n",
        slider(2, 2.0, 0.6),
        slider(3, 1.0, 0.8),
        part(4, 1.0, [1.0, 0.0, 0.0]),
    ));
    // The bob's lowest point: it swings through the bottom (y = −1).
    keeps_constraint_and_energy(
        &model,
        (2.0, 400),
        &[2.0, 1.0, 1.0],
        ("x_A − 2x_B + x_P", &|_, f| {
            f.q[0] - 2.0 * f.q[7] + f.q[14]
        }),
        ("the bob's drop", &|_, f| -f.q[15], 0.5),
    );
}

/// Sliders A (x = 1) and C (x = 1.2) on x rails and B (1 kg) on a vertical
/// rail at y = −0.2, tied by the GCON x_A·x_C + y_B = 1, plus `extra`.
fn product_deck(extra: &str) -> Model {
    deck(&format!(
        "{}{}PART/3, MASS = 1, CM = 30, IP = 0.1, 0.1, 0.1, QG = 0, -0.2, 0\n\
         MARKER/30, PART = 3\n\
         MARKER/31, PART = 3, REULER = 0D, -90D, 0D\n\
         MARKER/12, PART = 1, REULER = 0D, -90D, 0D\n\
         JOINT/3, TRANSLATIONAL, I = 31, J = 12\n\
         GCON/1, I = 20, FUNCTION = DX(20)*DX(40) + DY(30) - 1\n{extra}",
        slider(2, 1.0, 1.0),
        slider(4, 1.0, 1.2),
    ))
}

/// A product across the pieces: A (x = 1) and C (x = 1.2) on x rails, B
/// on a vertical rail (y = −0.2), x_A·x_C + y_B = 1 (GCON read in the
/// order A, B, C: pieces [A, B] and [C], so ∂²Φ/∂x_A∂x_C = 1 is the
/// cross block). B falls and pushes A and C apart; the energy is kept.
#[test]
fn a_product_across_the_pieces_keeps_the_constraint_and_the_energy() {
    let model = product_deck("");
    keeps_constraint_and_energy(
        &model,
        (1.0, 200),
        &[1.0, 1.0, 1.0],
        ("x_A x_C + y_B − 1", &|sim, f| {
            let (a, b, c) = (body(sim, 2), body(sim, 3), body(sim, 4));
            f.q[7 * a] * f.q[7 * c] + f.q[7 * b + 1] - 1.0
        }),
        ("B's drop", &|sim, f| -0.2 - f.q[7 * body(sim, 3) + 1], 0.3),
    );
}

// ---------------------------------------------------------------- kinematics

/// Four sliders on x rails; MOTIONs drive A, B, C (x_A = 1 + 0.2t,
/// x_B = 0.5 + 0.3 sin t, x_C = 0.8 − 0.1t²) and the GCON
/// DX(A)·(DX(B) + DX(C)) − DX(D) = 0 (pieces [A, B] and [C, D]; x_A·x_C
/// is a cross-piece product) sets D: x_D = x_A·s with s = x_B + x_C, so
/// ẋ_D = ẋ_A s + x_A ṡ and ẍ_D = 2ẋ_A ṡ + x_A s̈ (ẍ_A = 0), checked over
/// 4 s on position, velocity and acceleration (the last reads γ with the
/// cross term).
#[test]
fn four_parts_driven_by_three_motions_give_the_fourth_its_closed_form() {
    let model = deck(&format!(
        "{}{}{}{}MOTION/1, JOINT = 2, TRANSLATION, FUNCTION = 1 + 0.2*TIME\n\
             MOTION/2, JOINT = 3, TRANSLATION, FUNCTION = 0.5 + 0.3*SIN(TIME)\n\
             MOTION/3, JOINT = 4, TRANSLATION, FUNCTION = 0.8 - 0.1*TIME*TIME\n\
             GCON/1, I = 20, FUNCTION = DX(20)*(DX(30) + DX(40)) - DX(50)\n",
        slider(2, 1.0, 1.0),
        slider(3, 1.0, 0.5),
        slider(4, 1.0, 0.8),
        slider(5, 1.0, 1.3),
    ));
    let mut sim = Simulation::new(&model).unwrap();
    sim.kinematic(4.0, Some(80), None).unwrap();
    assert!(sim.frames.last().unwrap().t > 3.999);
    let (mut dx, mut dv, mut da) = (0.0f64, 0.0f64, 0.0f64);
    for f in &sim.frames {
        let t = f.t;
        let (xa, va) = (1.0 + 0.2 * t, 0.2);
        let s = 0.5 + 0.3 * t.sin() + 0.8 - 0.1 * t * t;
        let sd = 0.3 * t.cos() - 0.2 * t;
        let sdd = -0.3 * t.sin() - 0.2;
        dx = dx.max((f.q[21] - xa * s).abs());
        dv = dv.max((f.u[21] - (va * s + xa * sd)).abs());
        da = da.max((f.a[21] - (2.0 * va * sd + xa * sdd)).abs());
    }
    println!("kinematic four-part GCON: largest error x {dx:.1e}, v {dv:.1e}, a {da:.1e}");
    assert!(dx < 1e-10, "x_D off by {dx}");
    assert!(dv < 1e-10, "ẋ_D off by {dv}");
    assert!(da < 1e-9, "ẍ_D off by {da}");
}

// ---------------------------------------------------------------- refusal

/// A function on five moving parts does not fit two pieces: refused,
/// naming the GCON and the first marker on the fifth part.
#[test]
fn a_gcon_on_five_moving_parts_is_refused_by_name() {
    let model = deck(&format!(
        "{}{}{}{}{}GCON/7, I = 20, FUNCTION = DX(20) + DX(30) + DX(40) - DX(50) - DX(60)\n",
        part(2, 1.0, [1.0, 0.0, 0.0]),
        part(3, 1.0, [2.0, 0.0, 0.0]),
        part(4, 1.0, [3.0, 0.0, 0.0]),
        part(5, 1.0, [4.0, 0.0, 0.0]),
        part(6, 1.0, [2.0, 0.0, 0.0]),
    ));
    let err = Simulation::new(&model).err().expect("refused").to_string();
    assert!(
        err.contains("GCON/7")
            && err.contains(
                "a GCON whose function reads markers on more than four moving parts is not supported (MARKER/60 on PART/6 is the fifth)"
            ),
        "{err}"
    );
}

/// A non-finite value of a multi-part GCON's function is named at the
/// element, with its function and the time (issue 11's diagnosis).
#[test]
fn a_failing_multi_part_gcon_is_named_with_its_function_and_time() {
    let model = free_parts("DX(20) + DX(30) + DX(40) + DX(50) - LOG(TIME)");
    let sys = mbsolve_mech::System::new(&model).unwrap();
    let (q, u) = sys.initial_state();
    let got = sys.diagnose_non_finite(&q, &u, 0.0).expect("diagnosed");
    assert!(
        got.starts_with("GCON/1 (gcon_multi.adm:")
            && got.ends_with(
                "FUNCTION = DX(20) + DX(30) + DX(40) + DX(50) - LOG(TIME): LOG of a non-positive number (0), at t = 0"
            ),
        "{got}"
    );
    assert_eq!(sys.diagnose_non_finite(&q, &u, 0.5), None);
}

// ---------------------------------------------------------------- statics

/// Statics across the pieces: A (x = 1) and C (x = 1.2) on x rails held by
/// springs k = 50 N/m to their free places a₀ = 1, c₀ = 1.2, B (1 kg) on
/// the vertical rail, x_A·x_C + y_B = 1. Stationarity of
/// V = ½k(x_A − a₀)² + ½k(x_C − c₀)² + m g y_B with multiplier λ:
/// m g + λ = 0, k(x_A − a₀) + λ x_C = 0, k(x_C − c₀) + λ x_A = 0, so with
/// r = m g/k, x_A = (a₀ + r c₀)/(1 − r²) and x_C = (c₀ + r a₀)/(1 − r²)
/// (a minimum: k > m g). FIM_S's Newton matrix carries λ·H₀₁, the
/// cross-piece block of x_A·x_C.
#[test]
fn statics_with_a_product_across_the_pieces_reach_the_closed_form() {
    let model = product_deck(
        "SFORCE/2, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = -50*(DX(20) - 1)\n\
         SFORCE/4, TRANSLATIONAL, ACTIONONLY, I = 41, J = 11, FUNCTION = -50*(DX(40) - 1.2)\n",
    );
    let mut sim = Simulation::new(&model).unwrap();
    sim.static_equilibrium(&common::fim_s(1e-10)).unwrap();
    let f = sim.frames.last().unwrap();
    let r: f64 = 9.81 / 50.0;
    let xa = (1.0 + r * 1.2) / (1.0 - r * r);
    let xc = (1.2 + r * 1.0) / (1.0 - r * r);
    let (a, b, c) = (body(&sim, 2), body(&sim, 3), body(&sim, 4));
    let (ea, ec) = (f.q[7 * a] - xa, f.q[7 * c] - xc);
    let eb = f.q[7 * b + 1] - (1.0 - xa * xc);
    println!(
        "statics: x_A {:.9}, x_C {:.9}; errors {ea:.1e}, {ec:.1e}, y_B {eb:.1e}",
        f.q[7 * a],
        f.q[7 * c]
    );
    assert!(
        ea.abs() < 1e-9 && ec.abs() < 1e-9 && eb.abs() < 1e-9,
        "{ea} {ec} {eb}"
    );
}
