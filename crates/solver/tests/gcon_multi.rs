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
//! - a function on five moving parts is refused by name;
//! - velocity GCONs (`mech/src/gcon_velocity.rs`): a skate on an incline
//!   against its closed form on GSTIFF I3/SI2, WSTIFF, HHT and NEWMARK;
//!   the row's derivatives and the I3/SI2 matrices against differences;
//!   the velocity IC; what is still refused, by name.

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

// ------------------------------------------------------- velocity GCONs
//
// A GCON whose FUNCTION reads velocities is a non-holonomic row
// g(q, u, t) = A(q, t)u + b(q, t) = 0 (`mech/src/gcon_velocity.rs`).

/// A skate (knife edge) on the plane z = 0: PART/2 (2 kg, I_zz = 0.05)
/// held in the plane by a PLANAR joint, its blade along its x axis, and
/// GCON/1 VY(20, 10, 20) = 0 (no velocity of the contact point across the
/// blade). Gravity has 1.2 m/s² along global x in the plane (the plane is
/// an incline) and −9.81 across it. Starts at (0.1, −0.2), heading
/// θ₀ = 30°, 0.8 m/s along the blade, turning at ω = 1.5 rad/s.
const SKATE: &str = "PART/2, MASS = 2, CM = 20, IP = 0.1, 0.1, 0.05, QG = 0.1, -0.2, 0, \
     REULER = 30D, 0D, 0D, VX = 0.6928203230275509, VY = 0.4, WZ = 1.5
MARKER/20, PART = 2
MARKER/21, PART = 2
JOINT/1, PLANAR, I = 21, J = 10
GCON/1, I = 20, FUNCTION = VY(20, 10, 20)
";

fn skate(extra: &str) -> Model {
    let text = format!(
        "skate\nUNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
         PART/1, GROUND\nMARKER/10, PART = 1\nACCGRAV/IGRAV = 1.2, KGRAV = -9.81\n{SKATE}{extra}END\n"
    );
    mbsolve_adm::read_adm_str(&text, "skate.adm").unwrap_or_else(|e| panic!("{e}"))
}

/// The skate's closed form (contact at the CM, Neimark–Fufaev's knife
/// edge on an incline): no torque about z, so φ = θ₀ + ωt; along the
/// blade m v̇ = m g_s cos φ, so v = c + k sin φ with k = g_s/ω and
/// c = v₀ − k sin θ₀; and ẋ = v cos φ, ẏ = v sin φ integrate to
/// x = x₀ + [c sin φ + (k/2) sin²φ]/ω, y = y₀ + [−c cos φ + (k/2)(φ −
/// sin φ cos φ)]/ω (from θ₀ to φ). The lateral reaction supplies the
/// centripetal force against gravity's lateral part:
/// F_n = m v ω + m g_s sin φ along the body y axis (−sin φ, cos φ).
/// Returns (x, y, v, φ, F_n).
fn skate_exact(t: f64) -> (f64, f64, f64, f64, f64) {
    let (m, gs, w, v0) = (2.0, 1.2, 1.5, 0.8);
    let th0 = 30f64.to_radians();
    let k = gs / w;
    let c = v0 - k * th0.sin();
    let phi = th0 + w * t;
    let fx = |p: f64| c * p.sin() + 0.5 * k * p.sin() * p.sin();
    let fy = |p: f64| -c * p.cos() + 0.5 * k * (p - p.sin() * p.cos());
    let x = 0.1 + (fx(phi) - fx(th0)) / w;
    let y = -0.2 + (fy(phi) - fy(th0)) / w;
    let v = c + k * phi.sin();
    (x, y, v, phi, m * v * w + m * gs * phi.sin())
}

/// The skate on GSTIFF/I3, GSTIFF/SI2, WSTIFF/I3 at ERROR = 1e-7 and
/// HHT, NEWMARK/I3 at 1e-9, over 4 s (most of a turn), against the closed
/// form: CM position within 1e-5 m, heading within 1e-5 rad, the GCON's
/// reaction (FORCE request between its markers) within 5e-5 N of F_n
/// (about 2.4 N) and along the body y axis, |VY(20, 10, 20)| (read
/// as a request reads it, not through the GCON's row) ≤ 1e-9 m/s at every
/// output, and the energy ½m|v|² + ½I_zz ω² − m g_s x (the constraint does
/// no work; about 0.7 J) kept within 5e-6 J; NEWMARK, first order and
/// numerically damped, within 20 times each.
#[test]
fn a_skate_held_by_a_velocity_gcon_follows_the_closed_form() {
    let model = skate("");
    let request = Request {
        id: 1,
        kind: RequestKind::Force,
        i: 20,
        j: Some(10),
        rm: None,
        comment: String::new(),
    };
    // HHT and NEWMARK at ERROR 1e-9: the seeds scale the GSTIFF error by
    // 1e-2 for them.
    let runs = [
        (IntegratorKind::Gstiff, Formulation::I3, 1e-7, 1.0),
        (IntegratorKind::Gstiff, Formulation::Si2, 1e-7, 1.0),
        (IntegratorKind::Wstiff, Formulation::I3, 1e-7, 1.0),
        (IntegratorKind::Hht, Formulation::I3, 1e-9, 1.0),
        (IntegratorKind::Newmark, Formulation::I3, 1e-9, 20.0),
    ];
    // Tolerances (`loose` times these for NEWMARK, first order).
    for (kind, form, error, loose) in runs {
        let (pos_tol, head_tol, react_tol, energy_tol) =
            (1e-5 * loose, 1e-5 * loose, 5e-5 * loose, 5e-6 * loose);
        let settings = common::settings(kind, form, error);
        let label = name(&settings);
        let mut sim = Simulation::new(&model).unwrap();
        sim.dynamic(4.0, Some(200), None, &settings).unwrap();
        assert!(sim.frames.last().unwrap().t > 3.999, "{label}");
        let energy = |f: &Frame| {
            let w = sim.sys.body_angular_velocity(&f.q, &f.u, 0)[2];
            let v2 = f.u[0] * f.u[0] + f.u[1] * f.u[1] + f.u[2] * f.u[2];
            0.5 * 2.0 * v2 + 0.5 * 0.05 * w * w - 2.0 * 1.2 * f.q[0]
        };
        let e0 = energy(&sim.frames[0]);
        let (mut pos, mut head, mut react, mut across, mut held, mut drift) =
            (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for f in &sim.frames {
            let (x, y, _, phi, fnorm) = skate_exact(f.t);
            pos = pos.max((f.q[0] - x).hypot(f.q[1] - y));
            // Rotation about z: p = (cos φ/2, 0, 0, sin φ/2).
            let heading = 2.0 * f.q[6].atan2(f.q[3]);
            let dh = (heading - phi).rem_euclid(std::f64::consts::TAU);
            head = head.max(dh.min(std::f64::consts::TAU - dh));
            let fr = requests::evaluate(&sim.sys, &sim.model, f, &request);
            let n = (-phi.sin(), phi.cos());
            react = react.max((fr[0] * n.0 + fr[1] * n.1 - fnorm).abs());
            across = across.max((fr[0] * phi.cos() + fr[1] * phi.sin()).abs());
            held = held.max(common::eval_expr(&sim, f, "VY(20, 10, 20)").abs());
            drift = drift.max((energy(f) - e0).abs());
        }
        println!(
            "{label}: position {pos:.1e} m, heading {head:.1e} rad, lateral reaction {react:.1e} N \
             (along the blade {across:.1e} N), |VY| {held:.1e} m/s, energy {drift:.1e} J"
        );
        assert!(pos < pos_tol, "{label}: position error {pos}");
        assert!(head < head_tol, "{label}: heading error {head}");
        assert!(react < react_tol, "{label}: reaction error {react}");
        assert!(
            across < react_tol,
            "{label}: reaction along the blade {across}"
        );
        assert!(held < 1e-9, "{label}: |VY| {held}");
        assert!(drift < energy_tol, "{label}: energy drift {drift}");
    }
}

/// The skate's initial conditions: a part given 0.5 m/s across its blade
/// (VX, VY of the CM at 30° + 90°) and 0.8 along it starts with the
/// velocity nearest the input that satisfies the GCON (the lateral part
/// removed: 0.8 m/s along the blade), its position untouched (the GCON
/// constrains no position), and `mbsolve check`'s two counts: 3 position
/// DOF (x, y, θ in the plane), 2 velocity DOF.
#[test]
fn velocity_ic_satisfies_a_velocity_gcon_and_leaves_positions_alone() {
    let th = 30f64.to_radians();
    let (vx, vy) = (
        0.8 * th.cos() - 0.5 * th.sin(),
        0.8 * th.sin() + 0.5 * th.cos(),
    );
    let text = SKATE.replace(
        "VX = 0.6928203230275509, VY = 0.4",
        &format!("VX = {vx}, VY = {vy}"),
    );
    let model = mbsolve_adm::read_adm_str(
        &format!(
            "skate\nPART/1, GROUND\nMARKER/10, PART = 1\nACCGRAV/IGRAV = 1.2, KGRAV = -9.81\n{text}END\n"
        ),
        "skate.adm",
    )
    .unwrap();
    let mut sim = Simulation::new(&model).unwrap();
    let q_in = sim.sys.initial_state().0;
    sim.initial_conditions().unwrap();
    let s = &sim.state;
    let dq = (0..q_in.len()).fold(0.0f64, |a, i| a.max((s.q[i] - q_in[i]).abs()));
    assert!(dq < 1e-12, "positions moved by {dq}");
    assert!((s.u[0] - 0.8 * th.cos()).abs() < 1e-12, "vx {}", s.u[0]);
    assert!((s.u[1] - 0.8 * th.sin()).abs() < 1e-12, "vy {}", s.u[1]);
    assert_eq!(sim.sys.dof(&sim.data), 3);
    assert_eq!(sim.sys.velocity_dof(&sim.data), 2);
}

/// Two free parts, rotated, and a velocity GCON mixing VX VY VZ WX WY WZ
/// between them (resolved in a marker of the second), products with DX
/// DY DZ, TIME, and a term in positions alone: every block of the row is
/// non-zero. Checked against central differences at an off-manifold
/// state: g's ∂/∂q and ∂/∂u (`System::velocity_row`), the constraint
/// force's ∂(R + Aᵀλ)/∂q (its λ ∂A/∂q, not symmetric), and γ (g along
/// (q + su + s²a/2, u + sa, t + s) changes at the rate A·a − γ); then the
/// whole I3 and SI2 iteration matrices (`assert_jacobian_matches_differences`).
#[test]
fn velocity_gcon_rows_match_finite_differences() {
    let function = "VY(20, 30, 31) + 0.4*WZ(20, 30, 31)*DX(20, 30) - 0.3*WX(20)*TIME \
                    + 0.2*DY(20)*DZ(30) + 0.1*VZ(20) + 0.5*WY(30, 0, 31)*DZ(20, 30, 31) \
                    + 0.3*VX(30)*DY(20, 30) - 0.05";
    let function = function.replace("WY(30, 0, 31)", "WY(30, 10, 31)");
    let model = deck(&format!(
        "PART/2, MASS = 1, CM = 20, IP = 0.1, 0.2, 0.3, QG = 0.9, 0.2, -0.3, REULER = 20D, 35D, -15D\n\
         MARKER/20, PART = 2\n\
         PART/3, MASS = 1.5, CM = 30, IP = 0.2, 0.1, 0.15, QG = -0.4, 1.1, 0.5, REULER = -40D, 25D, 60D\n\
         MARKER/30, PART = 3\n\
         MARKER/31, PART = 3, QP = 0.1, 0.2, -0.1, REULER = 10D, 50D, 30D\n\
         GCON/1, I = 20, FUNCTION = {function}\n"
    ));
    let sys = mbsolve_mech::System::new(&model).unwrap();
    let k = (0..sys.neq())
        .find(|&k| sys.equations[k].is_velocity())
        .expect("a velocity row");
    let n = sys.nq();
    let (mut q, _) = sys.initial_state();
    for (i, x) in q.iter_mut().enumerate() {
        *x += 0.05 * (1.3 * i as f64).sin();
    }
    let u: Vec<f64> = (0..n).map(|i| 0.5 * (0.7 * i as f64).cos()).collect();
    let a: Vec<f64> = (0..n).map(|i| 0.3 * (1.9 * i as f64).sin()).collect();
    let t = 0.4;
    let bodies = sys.equations[k].bodies();
    let g = |q: &[f64], u: &[f64], t: f64| sys.velocity_row(k, q, u, t).unwrap().g;
    let row = sys.velocity_row(k, &q, &u, t).unwrap();
    let close = |what: String, x: f64, y: f64, tol: f64| {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}: analytic {x} vs finite difference {y}"
        )
    };
    let dq = common::derivatives::differences(&q, 1, |q| vec![g(q, &u, t)]);
    let du = common::derivatives::differences(&u, 1, |u| vec![g(&q, u, t)]);
    let (mut nq_big, mut nu_big) = (0.0f64, 0.0f64);
    for l in 0..14 {
        let Some(gi) = mbsolve_mech::system::global_index(&bodies, l) else {
            continue;
        };
        close(format!("∂g/∂q {gi}"), row.dq[l], dq[(0, gi)], 1e-6);
        close(format!("∂g/∂u {gi}"), row.du[l], du[(0, gi)], 1e-6);
        nq_big = nq_big.max(row.dq[l].abs());
        nu_big = nu_big.max(row.du[l].abs());
    }
    assert!(
        nq_big > 0.1 && nu_big > 0.1,
        "∂g/∂q {nq_big}, ∂g/∂u {nu_big}"
    );
    // The Pfaffian view reproduces g: ∇Φ·u + Φ_t.
    let v = sys.eval_equation(k, &q, t, false);
    let ul = mbsolve_mech::system::gather(&bodies, &u);
    close(
        "g = A·u + b".into(),
        v.s.grad.dot(&ul) + v.phi_t,
        row.g,
        1e-12,
    );
    // ∂(R + Aᵀλ)/∂q: the λ-weighted ∂A/∂q (and the bodies' own terms).
    let m = sys.neq();
    let lam: Vec<f64> = (0..m).map(|k| 0.6 + (0.37 * k as f64).cos()).collect();
    let resid = |q: &[f64]| {
        let mut r = vec![0.0; n];
        sys.body_residual(&mut sys.new_data(), q, &u, &a, &lam, t, &mut r);
        r
    };
    let r_q = common::derivatives::differences(&q, n, resid);
    let mut jq = common::derivatives::Dense(nalgebra::DMatrix::zeros(n, 2 * n));
    let mut data = sys.new_data();
    sys.body_jacobian(
        &mut data,
        &q,
        &u,
        &a,
        Some(&lam),
        t,
        &mut jq,
        0,
        Some(0),
        n,
        0.0,
        0.0,
    );
    for r in 0..n {
        for c in 0..n {
            close(format!("R_q ({r},{c})"), jq.0[(r, c)], r_q[(r, c)], 1e-6);
        }
    }
    // γ: d/ds g(q(s), u(s), t + s) = A·a − γ.
    let mut gamma = vec![0.0; m];
    sys.acceleration_rhs(&data, &q, &u, t, &mut gamma);
    let along = |s: f64| {
        let qs: Vec<f64> = (0..n)
            .map(|i| q[i] + s * u[i] + 0.5 * s * s * a[i])
            .collect();
        let us: Vec<f64> = (0..n).map(|i| u[i] + s * a[i]).collect();
        g(&qs, &us, t + s)
    };
    let hs = 1e-5;
    let rate = (along(hs) - along(-hs)) / (2.0 * hs);
    let al = mbsolve_mech::system::gather(&bodies, &a);
    close("γ".into(), row.du.dot(&al) - gamma[k], rate, 1e-7);
    // The iteration matrices.
    let mut sim = Simulation::new(&model).unwrap();
    sim.initial_conditions().unwrap();
    use mbsolve_integrate::DaeProblem;
    let (nq, neq) = (sim.sys.nq(), sim.sys.neq());
    let tc = (0.3, 40.0);
    let mut i3 = mbsolve_solver::formulation::I3Problem::new(&sim.sys, sim.data.clone());
    let (y, yp) = common::perturbed(&sim, 2 * nq + neq, 3);
    common::assert_jacobian_matches_differences("I3 + velocity GCON", &mut i3, tc, &y, &yp, 1e-6);
    let mut si2 = mbsolve_solver::si2::Si2Problem::new(&sim.sys, sim.data.clone());
    let (y, yp) = common::perturbed(&sim, si2.size(), 5);
    common::assert_jacobian_matches_differences("SI2 + velocity GCON", &mut si2, tc, &y, &yp, 1e-6);
}

/// What velocity GCONs are still refused, with the exact messages: SI1,
/// the ODE form, statics, quasi-statics, kinematics; VM (not linear in
/// the velocities) and a FUNCTION not affine in them; a velocity GCON over
/// three moving parts; VX with a reference frame.
#[test]
fn what_velocity_gcons_still_refuse_is_named() {
    let model = skate("");
    let dynamic = |kind, form| {
        let mut sim = Simulation::new(&model).unwrap();
        sim.dynamic(0.1, Some(2), None, &common::settings(kind, form, 1e-6))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        dynamic(IntegratorKind::Hastiff, Formulation::Si1),
        "GCON/1 (skate.adm:10): its FUNCTION reads velocities (a non-holonomic constraint), which the SI1 formulation does not take: SI1 differentiates every constraint once more (g = 0 and ġ = 0), and its Jacobian of ġ needs the second derivatives of velocity measures, which mbsolve does not have yet; use I3 or SI2"
    );
    assert_eq!(
        dynamic(IntegratorKind::Abam, Formulation::Ode),
        "GCON/1 (skate.adm:10): its FUNCTION reads velocities (a non-holonomic constraint), which the ODE formulation (coordinate partitioning) does not take: its partition takes the independent velocities from the position constraints' Jacobian, and a velocity constraint would need a velocity partition of its own, which mbsolve does not have yet; use the DAE form (DSTIFF) or an Adams integrator with I3 or SI2"
    );
    let statics = {
        let mut sim = Simulation::new(&model).unwrap();
        sim.static_equilibrium(&common::fim_s(1e-8))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        statics,
        "GCON/1 (skate.adm:10): its FUNCTION reads velocities (a non-holonomic constraint), which a static analysis does not take: at rest (u = 0) g(q, 0, t) = 0 is no condition on the positions when g is homogeneous in the velocities (and an impossible one otherwise), while the constraint still restricts the motions that equilibrium balances; mbsolve defines no static equilibrium for it (run a dynamic analysis)"
    );
    let quasi = {
        let mut sim = Simulation::new(&model).unwrap();
        sim.quasi_static(
            1.0,
            Some(2),
            None,
            &common::fim_s(1e-8),
            &Default::default(),
        )
        .unwrap_err()
        .to_string()
    };
    assert!(
        quasi.starts_with("GCON/1 (skate.adm:10): its FUNCTION reads velocities (a non-holonomic constraint), which a quasi-static analysis does not take: at rest"),
        "{quasi}"
    );
    let kinematic = {
        let mut sim = Simulation::new(&model).unwrap();
        sim.kinematic(1.0, Some(2), None).unwrap_err().to_string()
    };
    assert_eq!(
        kinematic,
        "GCON/1 (skate.adm:10): its FUNCTION reads velocities (a non-holonomic constraint), which a kinematic analysis does not take: kinematics finds the positions from the position constraints, and a velocity constraint leaves them undetermined; run a dynamic analysis"
    );
    let build = |gcon: &str| {
        let text = format!(
            "skate\nPART/1, GROUND\nMARKER/10, PART = 1\n{}{gcon}END\n",
            SKATE.replace("GCON/1, I = 20, FUNCTION = VY(20, 10, 20)\n", "")
                + "PART/3, MASS = 1, CM = 30, IP = 1, 1, 1\nMARKER/30, PART = 3\n\
                   PART/4, MASS = 1, CM = 40, IP = 1, 1, 1\nMARKER/40, PART = 4\n"
        );
        match mbsolve_adm::read_adm_str(&text, "v.adm") {
            Err(e) => e.to_string(),
            Ok(m) => Simulation::new(&m)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
        }
    };
    assert_eq!(
        build("GCON/2, I = 20, FUNCTION = VM(20)\n"),
        "v.adm:12:28: GCON/2: VM is not linear in the velocities, and a GCON that reads velocities must be in Pfaffian form (affine in VX VY VZ WX WY WZ)"
    );
    assert_eq!(
        build("GCON/2, I = 20, FUNCTION = VX(20)*VX(20) - 1\n"),
        "GCON/2 (v.adm:12): its FUNCTION is not in Pfaffian form (affine in the velocity measures VX VY VZ WX WY WZ), which a velocity GCON must be: it has a second derivative in velocity measures 1 and 1"
    );
    assert_eq!(
        build("GCON/2, I = 20, FUNCTION = VX(20, 30) + VY(40)\n"),
        "GCON/2 (v.adm:12): a GCON whose function reads velocities may read markers on at most two moving parts (MARKER/40 on PART/4 is the third)"
    );
    assert_eq!(
        build("GCON/2, I = 20, FUNCTION = VX(20, 10, 10, 30)\n"),
        "GCON/2 (v.adm:12): a GCON may not read VX, VY or VZ with a reference frame (the fourth argument) yet: only the velocity in ground"
    );
}
