//! The integration step loop allocates nothing (issue 13, lean path): after
//! a warm-up that sizes every buffer, the residuals, Jacobians (constraint
//! and GCON evaluations included), factorizations and corrector iterations
//! of a few hundred steps run on preallocated memory. A counting global
//! allocator (this test binary only) counts the allocations a thread makes
//! while it is measured; output frames and log lines are made by the
//! analysis driver, which the measured window leaves out: the integrator is
//! driven directly between two `advance_to` calls. The parallel element
//! path (`MechData::parallel`) is measured on a dedicated rayon pool whose
//! workers are all counted while the window is open.

use mbsolve_expr::{Expr, ExprConstraintFunction};
use mbsolve_model::{
    Contact, ContactFriction, Formulation, Gcon, Geometry, Inertia, IntegratorKind,
    IntegratorSettings, Marker, Model, NormalForce, Part, Placement, Sensor, SensorAction,
    SensorCompare, Shape,
};
use mbsolve_solver::formulation::constraint_tolerance;
use mbsolve_solver::{models, settings, Simulation};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts the allocations (alloc, alloc_zeroed, realloc) of a thread while
/// its `MEASURING` flag is set; other test threads are not counted.
struct Counting;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    /// A worker of the parallel test's own pool.
    static IN_POOL: Cell<bool> = const { Cell::new(false) };
}

/// Allocations on any worker of the parallel test's pool while its window
/// is open (the measuring thread itself counts in COUNT).
static POOL_WINDOW: AtomicBool = AtomicBool::new(false);
static POOL_COUNT: AtomicUsize = AtomicUsize::new(0);

fn note() {
    // try_with: the allocator may run while thread-locals are torn down.
    let measuring = MEASURING.try_with(|m| m.get()).unwrap_or(false);
    if measuring {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    } else if POOL_WINDOW.load(Ordering::SeqCst) && IN_POOL.try_with(|p| p.get()).unwrap_or(false) {
        POOL_COUNT.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations `f` makes on this thread and, when this thread is a worker
/// of the parallel test's pool, on that pool's other workers.
fn allocations_in(f: impl FnOnce()) -> usize {
    let in_pool = IN_POOL.with(|p| p.get());
    COUNT.with(|c| c.set(0));
    if in_pool {
        POOL_COUNT.store(0, Ordering::SeqCst);
        POOL_WINDOW.store(true, Ordering::SeqCst);
    }
    MEASURING.with(|m| m.set(true));
    f();
    MEASURING.with(|m| m.set(false));
    POOL_WINDOW.store(false, Ordering::SeqCst);
    let others = if in_pool {
        POOL_COUNT.load(Ordering::SeqCst)
    } else {
        0
    };
    COUNT.with(|c| c.get()) + others
}

/// A 1 kg point-like bob held 1 m from the origin by a GCON on DM and in
/// the x-y plane by a GCON on DZ, released from rest on the x axis under
/// gravity −y: a pendulum written as general constraints.
fn gcon_pendulum() -> Model {
    let mut m = models::pendulum(1.0, 9.81);
    m.joints.clear();
    // Marker 21 at the bob's centre (the part frame is at (1, 0, 0)).
    m.markers.push(Marker {
        id: 21,
        part: 2,
        placement: Placement::at(0.0, 0.0, 0.0),
    });
    for (id, text) in [(1, "DM(21, 10) - 1"), (2, "DZ(21, 10)")] {
        let expr = Expr::parse(text).expect("a valid GCON expression");
        m.gcons.push(Gcon {
            id,
            i: 21,
            function: Arc::new(ExprConstraintFunction::new(expr).expect("a GCON function")),
        });
    }
    m
}

/// Integrates `model` with `settings` from consistent initial conditions:
/// warm-up to t = 0.2, then counts the allocations of the advance to
/// t = 2.0 and returns them with the number of steps that advance took.
fn step_loop_allocations(
    model: &Model,
    settings: &IntegratorSettings,
    parallel: bool,
) -> (usize, u64) {
    step_loop_allocations_then(model, settings, parallel, |_, _| {})
}

/// [`step_loop_allocations`], then `at_end` sees the simulation and the
/// coordinates q at t = 2.0 (every layout starts with q).
fn step_loop_allocations_then(
    model: &Model,
    settings: &IntegratorSettings,
    parallel: bool,
    at_end: impl FnOnce(&Simulation, &[f64]),
) -> (usize, u64) {
    let mut sim = Simulation::new(model).expect("a valid model");
    sim.data.parallel = parallel;
    sim.initial_conditions()
        .expect("consistent initial conditions");
    let state = sim.state.clone();
    let plan = settings::validate(settings, 0.01).expect("valid settings");
    let mut segment = plan.formulation().segment(
        &sim.sys,
        &sim.data,
        &state,
        constraint_tolerance(plan.error()),
    );
    let mut integrator = segment
        .integrator(&plan, &state)
        .expect("an integrator for the plan");
    integrator.advance_to(0.2).expect("the warm-up integrates");
    let before = integrator.statistics().steps;
    let count = allocations_in(|| integrator.advance_to(2.0).expect("the run integrates"));
    let steps = integrator.statistics().steps - before;
    at_end(&sim, &integrator.solution().0[..sim.sys.nq()]);
    (count, steps)
}

fn runs() -> Vec<(&'static str, IntegratorSettings)> {
    let with = |kind, formulation, error| IntegratorSettings {
        kind,
        formulation,
        error: Some(error),
        // Small steps so that the window holds a few hundred of them.
        hmax: Some(2e-3),
        ..Default::default()
    };
    vec![
        (
            "GSTIFF I3",
            with(IntegratorKind::Gstiff, Some(Formulation::I3), 1e-4),
        ),
        (
            "GSTIFF SI2",
            with(IntegratorKind::Gstiff, Some(Formulation::Si2), 1e-4),
        ),
        ("HHT I3", with(IntegratorKind::Hht, None, 1e-5)),
    ]
}

fn assert_no_allocation(name: &str, model: &Model) {
    for (run, settings) in runs() {
        let (count, steps) = step_loop_allocations(model, &settings, false);
        assert!(
            steps >= 300,
            "{name}, {run}: only {steps} steps in the measured window"
        );
        assert_eq!(
            count, 0,
            "{name}, {run}: {count} allocations in {steps} steps after warm-up"
        );
    }
}

/// Two CONTACTs on a long ground box (top face z = 0) under gravity
/// tilted 30° towards +x: a 0.2 × 0.2 × 0.1 block sliding down the face
/// with Coulomb friction (box–box, four points; tan 30° > μ_d, so it keeps
/// sliding and the friction stays in its dynamic range) and a frictionless
/// ball (IMPACT k = 1e6, e = 1.5) started at its static penetration
/// (m g cos 30° / k)^(1/1.5) = 4.16e-4 m, sliding along (ball–box, one
/// point). Steady contact keeps the window free of error-test rejections,
/// whose diagnostics name variables and so allocate by design; every step
/// runs the narrow phase (parry's manifolds), the contact forces and their
/// Jacobians with points in contact.
fn contact_pair() -> Model {
    let (g, tilt) = (9.81, 30f64.to_radians());
    let mut m = Model::new("contact no-alloc");
    m.gravity = nalgebra::Vector3::new(g * tilt.sin(), 0.0, -g * tilt.cos());
    m.parts.push(Part::ground(1));
    let mut marker = |id, part, placement| {
        m.markers.push(Marker {
            id,
            part,
            placement,
        })
    };
    marker(10, 1, Placement::at(-1.0, -1.0, -0.5));
    marker(20, 2, Placement::default());
    marker(21, 2, Placement::at(-0.1, -0.1, -0.05));
    marker(30, 3, Placement::default());
    m.geometries.push(Geometry::cuboid(1, 10, [15.0, 2.0, 0.5]));
    m.geometries.push(Geometry {
        id: 2,
        marker: 21,
        shape: Shape::Box {
            x: 0.2,
            y: 0.2,
            z: 0.1,
        },
    });
    m.geometries.push(Geometry::sphere(3, 30, 0.05));
    let mut block = Part::body(
        2,
        2.0,
        Inertia::diagonal(0.0083, 0.0083, 0.0133),
        Placement::at(-0.5, 0.5, 0.05),
    );
    block.cm = Some(20);
    block.velocity = nalgebra::Vector3::new(1.0, 0.0, 0.0);
    m.parts.push(block);
    let mut ball = Part::body(
        3,
        1.0,
        Inertia::diagonal(1e-3, 1e-3, 1e-3),
        Placement::at(-0.5, -0.5, 0.05 - 4.16e-4),
    );
    ball.cm = Some(30);
    m.parts.push(ball);
    let impact = NormalForce::Impact {
        stiffness: 1.0e6,
        exponent: 1.5,
        damping: 2.0e3,
        dmax: 1e-4,
    };
    m.contacts.push(Contact {
        id: 1,
        igeom: vec![2],
        jgeom: vec![1],
        normal: impact,
        friction: Some(ContactFriction {
            dynamics_only: false,
            mu_static: 0.6,
            mu_dynamic: 0.5,
            stiction_transition_velocity: 0.005,
            friction_transition_velocity: 0.01,
        }),
    });
    m.contacts.push(Contact {
        id: 2,
        igeom: vec![3],
        jgeom: vec![1],
        normal: impact,
        friction: None,
    });
    m
}

#[test]
fn contact_step_loop_does_not_allocate() {
    let model = contact_pair();
    for (run, settings) in runs() {
        let mut points = Vec::new();
        let (count, steps) = step_loop_allocations_then(&model, &settings, false, |sim, q| {
            let mut found = Vec::new();
            for c in &sim.sys.contacts {
                c.points(q, &mut found);
                points.push(found.len());
            }
        });
        // The window ends with the block on its face (four corners) and
        // the ball on the box (one point): the contacts were live in it.
        assert_eq!(points, [4, 1], "{run}: contact points at t = 2");
        assert!(steps >= 300, "{run}: only {steps} steps in the window");
        assert_eq!(count, 0, "{run}: {count} allocations in {steps} steps");
    }
}

#[test]
fn chain_step_loop_does_not_allocate() {
    assert_no_allocation("8-link chain", &models::chain(8));
}

#[test]
fn gcon_step_loop_does_not_allocate() {
    assert_no_allocation("GCON pendulum", &gcon_pendulum());
}

/// A skate on an incline held by a velocity GCON (VY of its contact point
/// across its blade = 0, plus a WZ·DX term so that the row's ∂A/∂q is not
/// zero): the velocity-level row's values, gradients and λ ∂A/∂q in every
/// residual and Jacobian of the step loop.
#[test]
fn velocity_gcon_step_loop_does_not_allocate() {
    let text = "skate\nPART/1, GROUND\nMARKER/10, PART = 1\nACCGRAV/IGRAV = 1.2, KGRAV = -9.81\n\
        PART/2, MASS = 2, CM = 20, IP = 0.1, 0.1, 0.05, REULER = 30D, 0D, 0D, VX = 0.69, VY = 0.4, WZ = 1.5\n\
        MARKER/20, PART = 2\nMARKER/21, PART = 2\nJOINT/1, PLANAR, I = 21, J = 10\n\
        GCON/1, I = 20, FUNCTION = VY(20, 10, 20) + 0.1*WZ(20)*DX(20)\nEND\n";
    let model = mbsolve_adm::read_adm_str(text, "skate.adm").unwrap();
    assert_no_allocation("velocity GCON skate", &model);
}

/// The parallel element path (forced on a small chain: the path is the
/// same above `PARALLEL_MIN_BODIES`) on a dedicated 2-thread pool: neither
/// the driving worker nor the other worker allocates in the window.
#[test]
fn parallel_step_loop_does_not_allocate() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .start_handler(|_| IN_POOL.with(|p| p.set(true)))
        .build()
        .expect("a thread pool");
    // The counter sees allocations on whichever worker runs them.
    let seen = pool.install(|| {
        allocations_in(|| {
            let (a, b) = rayon::join(|| vec![1u8; 8], || vec![2u8; 8]);
            assert_eq!(a.len() + b.len(), 16);
        })
    });
    assert!(seen >= 2, "the pool's allocations are counted: {seen}");
    let model = models::chain(8);
    for (run, settings) in runs() {
        let (count, steps) = pool.install(|| step_loop_allocations(&model, &settings, true));
        assert!(steps >= 300, "parallel, {run}: only {steps} steps");
        assert_eq!(
            count, 0,
            "parallel, {run}: {count} allocations on the pool's workers in {steps} steps"
        );
    }
}

/// The ODE form's right-hand side (coordinate partitioning: the chord
/// Newton iteration on the dependent positions, the Φ_D velocity solve and
/// the sparse [M Φ_qᵀ; Φ_q 0] solve) allocates nothing after its first
/// evaluation: 40 evaluations at the states of a 4-link chain's ABAM run,
/// each after the accepted state before it (its Newton starting point).
#[test]
fn ode_form_rhs_allocates_nothing() {
    use mbsolve_integrate::OdeProblem;
    use mbsolve_solver::partition::PartitionProblem;
    let mut sim = Simulation::new(&models::chain(4)).unwrap();
    let abam = IntegratorSettings {
        kind: IntegratorKind::Abam,
        kind_given: true,
        error: Some(1e-6),
        ..Default::default()
    };
    sim.dynamic(0.4, Some(40), None, &abam).unwrap();
    let frames = sim.frames.clone();
    let mut p = PartitionProblem::new(&sim.sys, sim.data.clone(), &frames[0], 1e-10, 10).unwrap();
    let independent = p.partition().independent.clone();
    let reduced = |f: &mbsolve_solver::Frame| -> Vec<f64> {
        let q = independent.iter().map(|&c| f.q[c]);
        q.chain(independent.iter().map(|&c| f.u[c])).collect()
    };
    let states: Vec<(f64, Vec<f64>)> = frames.iter().map(|f| (f.t, reduced(f))).collect();
    let mut f = vec![0.0; p.size()];
    let mut y = states[0].1.clone();
    p.rhs(states[0].0, &states[0].1, &mut f).unwrap();
    let mut count = 0;
    for (t, s) in &states[1..] {
        count += allocations_in(|| p.rhs(*t, s, &mut f).unwrap());
        y.copy_from_slice(s);
        // A repartition (allocating, rare) would change the state layout.
        let after = p.after_step(*t, &mut y).unwrap();
        assert_eq!(after, mbsolve_integrate::AfterStep::Continue, "t = {t}");
    }
    assert_eq!(count, 0, "allocations in 40 ODE-form evaluations");
}

/// The GCON-free pendulum with marker 21 at the bob's centre and
/// SENSOR/1 (PRINT) on DX(21, 10) ≤ 0: the bob, released on the +x axis,
/// reaches the vertical once in [0.2, 2] s (quarter period ≈ 0.59 s), so
/// the watch evaluates a measure after every step and trips once.
fn sensor_pendulum() -> Model {
    let mut m = models::pendulum(1.0, 9.81);
    m.markers.push(Marker {
        id: 21,
        part: 2,
        placement: Placement::at(0.0, 0.0, 0.0),
    });
    let mut s = Sensor::new(1, "DX(21, 10)", 0.0, SensorAction::Continue);
    s.compare = SensorCompare::Le;
    s.print = true;
    m.sensors.push(s);
    m
}

/// Allocations and steps of one SIMULATE from t = 0.2 to 2.0 (one output
/// step) after a warm-up SIMULATE to 0.2, run through the analysis driver
/// (the sensor watch lives there), with HMAX = `hmax`.
fn driver_allocations(model: &Model, settings: &IntegratorSettings, hmax: f64) -> (usize, u64) {
    let settings = IntegratorSettings {
        hmax: Some(hmax),
        ..settings.clone()
    };
    let mut sim = Simulation::new(model).expect("a valid model");
    let (count, steps) = warm_then_measure(&mut sim, &settings);
    assert!(
        sim.log.iter().any(|l| l.contains("SENSOR/1 tripped")),
        "the sensor trips in the window"
    );
    (count, steps)
}

/// One SIMULATE to t = 0.2 (one output step), then the allocations and
/// steps of one from there to 2.0, which may not reject a step (a rejected
/// step's diagnostic names a variable and so allocates by design: the
/// comparisons need windows without rejections).
fn warm_then_measure(sim: &mut Simulation, settings: &IntegratorSettings) -> (usize, u64) {
    sim.dynamic(0.2, Some(1), None, settings)
        .expect("the warm-up integrates");
    let mut stats = None;
    let count = allocations_in(|| {
        stats = Some(
            sim.dynamic(2.0, Some(1), None, settings)
                .expect("the run integrates"),
        );
    });
    let stats = stats.expect("the run returned its statistics");
    let hmax = settings.hmax.unwrap_or(f64::NAN);
    assert_eq!(stats.rejected_steps, 0, "HMAX = {hmax}: no rejected step");
    (count, stats.steps)
}

/// With a SENSOR, the driver's step loop allocates nothing per step: a
/// SIMULATE has a fixed number of allocations (the segment, the integrator,
/// the output and trip frames, log lines) whatever its step count, so two
/// runs of the same window whose HMAX differs by 2× (≥ 300 more steps)
/// allocate exactly as often. (Each check used to build a `Frame` and a
/// margins `Vec`.)
#[test]
fn sensor_checks_do_not_allocate_per_step() {
    let model = sensor_pendulum();
    for (run, settings) in runs().into_iter().filter(|(r, _)| *r != "HHT I3") {
        let (coarse, coarse_steps) = driver_allocations(&model, &settings, 1e-3);
        let (fine, fine_steps) = driver_allocations(&model, &settings, 5e-4);
        assert!(
            fine_steps >= coarse_steps + 300,
            "{run}: {coarse_steps} and {fine_steps} steps"
        );
        assert_eq!(
            fine, coarse,
            "{run}: {coarse} allocations in {coarse_steps} steps, {fine} in {fine_steps}"
        );
    }
}

/// An `.adm` deck (SI units, ground PART/1 with marker 10 at the origin
/// and marker 11 whose z axis is global x) with `body` appended.
fn deck(body: &str) -> Model {
    let text = format!(
        "no-alloc\n\
         UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
         PART/1, GROUND\n\
         MARKER/10, PART = 1\n\
         MARKER/11, PART = 1, REULER = 90D, 90D, 0D\n\
         ACCGRAV/JGRAV = -9.81\n\
         {body}END\n"
    );
    mbsolve_adm::read_adm_str(&text, "no_alloc.adm").unwrap_or_else(|e| panic!("{e}"))
}

/// A 2 kg block in a translational joint along global x (friction load
/// m g = 19.6 N), pushed by 8 N > μs m g = 5.9 N: it breaks away during
/// the warm-up and slides in the window, its FRICTION carrying the
/// MAX_STICTION_DEFORMATION state (the ∂/∂q columns of the state rows and
/// of the friction force are forward differences).
const STICTION_BLOCK: &str = "PART/2, MASS = 2, CM = 20, IP = 1, 1, 1\n\
     MARKER/20, PART = 2\n\
     MARKER/21, PART = 2, REULER = 90D, 90D, 0D\n\
     JOINT/1, TRANSLATIONAL, I = 21, J = 11\n\
     FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.25\n\
     , STICTION_TRANSITION_VELOCITY = 0.01, MAX_STICTION_DEFORMATION = 1e-4\n\
     SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = 8\n";

/// A 1 kg pendulum on a UNIVERSAL joint at the origin (cross arms along
/// global x and z), its CM off both arms at (0.4, −0.8, 0.3), released
/// from rest: it swings about both arms, and the FRICTION has two slip
/// groups (one per arm).
const UNIVERSAL_PENDULUM: &str = "PART/2, MASS = 1, CM = 20, IP = 0.02, 0.02, 0.02\n\
     MARKER/20, PART = 2, QP = 0.4, -0.8, 0.3\n\
     MARKER/21, PART = 2, REULER = 90D, 90D, 0D\n\
     JOINT/1, UNIVERSAL, I = 21, J = 10\n\
     FRICTION/1, JOINT = 1, MU_STATIC = 0.1, MU_DYNAMIC = 0.08, PIN_RADIUS = 0.01\n\
     , STICTION_TRANSITION_VELOCITY = 0.01\n";

/// `deck` without its FRICTION statement (and its continuation line).
fn frictionless(deck: &str) -> String {
    deck.lines()
        .filter(|l| !l.starts_with("FRICTION") && !l.starts_with(", STICTION"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn stiction_deformation_step_loop_does_not_allocate() {
    let model = deck(STICTION_BLOCK);
    assert_eq!(model.frictions[0].max_stiction_deformation, 1e-4);
    assert_no_allocation("stiction block", &model);
}

#[test]
fn two_group_joint_friction_step_loop_does_not_allocate() {
    let model = deck(UNIVERSAL_PENDULUM);
    assert_no_allocation("universal-joint friction", &model);
}

/// The universal pendulum and the pushed block (its part renumbered 3),
/// both without their FRICTION, a free-falling part 4 and a DIFF reading
/// one marker on each of them, DX(20, 10) + DY(30, 10) · DZ(40, 10): three
/// moving parts, so the DIFF's row takes the per-measure path
/// (`multi_law.rs`).
#[test]
fn diff_over_three_parts_step_loop_does_not_allocate() {
    let pendulum = frictionless(UNIVERSAL_PENDULUM);
    let block = frictionless(STICTION_BLOCK)
        .replace("PART/2", "PART/3")
        .replace("PART = 2", "PART = 3")
        .replace("CM = 20", "CM = 30")
        .replace("MARKER/20", "MARKER/30")
        .replace("I = 21", "I = 31")
        .replace("MARKER/21", "MARKER/31")
        .replace("JOINT/1", "JOINT/2")
        .replace("SFORCE/1", "SFORCE/2");
    let text = format!(
        "{pendulum}{block}MARKER/40, PART = 4\n\
         PART/4, MASS = 1, CM = 40, IP = 1, 1, 1, QG = 0, 2, 0, VX = 1\n\
         DIFF/1, IC = 0, FUNCTION = DX(20, 10) + DY(30, 10) * DZ(40, 10)\n"
    );
    let model = deck(&text);
    assert_eq!(model.diffs.len(), 1);
    assert!(model.frictions.is_empty());
    assert_no_allocation("DIFF over three parts", &model);
}

/// The pushed block without its FRICTION, plus a drag reading the joint
/// reaction and a second force reading the first: JOINT() and SFORCE() in
/// force functions are solved quantities (`reaction_fn.rs`), evaluated
/// through the request evaluator on a kept frame every residual and
/// Jacobian.
#[test]
fn solved_quantities_step_loop_does_not_allocate() {
    assert_no_allocation("solved quantities", &deck(&solved_block()));
}

/// The pushed block of [`STICTION_BLOCK`] without its FRICTION, plus a
/// drag reading the joint reaction (JOINT(), a solved quantity) and a
/// force reading that drag (SFORCE(), another).
fn solved_block() -> String {
    let body = frictionless(STICTION_BLOCK);
    format!(
        "{body}SFORCE/2, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = -0.1*JOINT(1,0,1,0)\n\
         SFORCE/3, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = -0.5*SFORCE(2,0,4,0)\n"
    )
}

/// Net forces between two markers (FX…TM, the request evaluator's
/// `wrench`) read in force functions of models with GCONs: the wrench
/// decides whether each GCON acts between the two markers by the markers
/// its function reads (it collected them into a new Vec per GCON per
/// call), and adds a three-part GCON's second piece. The pushed block of
/// [`STICTION_BLOCK`] (frictionless) with a drag −0.1·FX(21, 11) reading
/// its joint, next to a free part 3 held at height 1 by GCON/1 on DY; and
/// three sliders (parts 4, 5, 6 along global x) tied by GCON/2,
/// DX(40, 60) − 2·DX(50, 60) = 0, pushed by 6 N on the first, with a drag
/// −0.1·FX(50, 60) on the second reading the reaction of GCON/2's second
/// piece. No allocation over the window on GSTIFF I3, SI2 and HHT.
#[test]
fn net_forces_with_gcons_step_loop_does_not_allocate() {
    let mut body = frictionless(STICTION_BLOCK);
    body += "SFORCE/2, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = -0.1*FX(21,11)
             PART/3, MASS = 1, CM = 30, IP = 1, 1, 1, QG = 0, 1, 0, VX = 0.5
             MARKER/30, PART = 3
             GCON/1, I = 30, FUNCTION = DY(30, 10) - 1
";
    for (p, mass, x) in [(4, 1.0, 0.6), (5, 2.0, 0.8), (6, 1.0, 1.0)] {
        body += &format!(
            "PART/{p}, MASS = {mass}, CM = {p}0, IP = 1, 1, 1, QG = {x}, 0, 0
             MARKER/{p}0, PART = {p}
             MARKER/{p}1, PART = {p}, REULER = 90D, 90D, 0D
             JOINT/{p}, TRANSLATIONAL, I = {p}1, J = 11
"
        );
    }
    body += "GCON/2, I = 40, FUNCTION = DX(40, 60) - 2*DX(50, 60)
             SFORCE/4, TRANSLATIONAL, ACTIONONLY, I = 41, J = 11, FUNCTION = 6
             SFORCE/5, TRANSLATIONAL, ACTIONONLY, I = 51, J = 11, FUNCTION = -0.1*FX(50,60)
";
    let model = deck(&body);
    assert_eq!(model.gcons.len(), 2);
    assert_no_allocation("net forces with GCONs", &model);
}

/// [`solved_block`] in a model with CONTACTs: a ground box (top face
/// y = 0, gravity −y) and a frictionless 1 kg ball (IMPACT k = 1e6,
/// e = 1.5) started at its static penetration (m g / k)^(1/1.5) =
/// 4.58e-4 m, sliding along x at 1 m/s, pushed by a force reading its own
/// CONTACT() (0.01 · the normal force, along x). The solved quantities'
/// evaluation (the request evaluator's `wrench`) runs with the model's
/// contacts (it used to collect their switches into a new Vec per call).
fn solved_with_contact() -> Model {
    let ball = "MARKER/12, PART = 1, QP = -1, -0.5, -1\n\
         GRAPHICS/1, BOX, CORNER = 12, X = 15, Y = 0.5, Z = 2\n\
         PART/5, MASS = 1, CM = 50, IP = 1E-3, 1E-3, 1E-3, QG = 0, 0.049542, 0, VX = 1\n\
         MARKER/50, PART = 5\n\
         GRAPHICS/5, ELLIPSOID, CM = 50, XSCALE = 0.1, YSCALE = 0.1, ZSCALE = 0.1\n\
         CONTACT/1, IGEOM = 5, JGEOM = 1, IMPACT, STIFFNESS = 1E6, DAMPING = 2E3, DMAX = 1E-4, EXPONENT = 1.5\n\
         SFORCE/5, TRANSLATIONAL, ACTIONONLY, I = 50, J = 11, FUNCTION = 0.01*CONTACT(1,0,4,0)\n";
    deck(&format!("{}{ball}", solved_block()))
}

/// Solved quantities (JOINT(), SFORCE()) in a model with a CONTACT, and a
/// force reading CONTACT(), on GSTIFF I3 and HHT: no allocation over the
/// window, with the ball on the box at its end.
#[test]
fn solved_quantities_with_contacts_step_loop_does_not_allocate() {
    let model = solved_with_contact();
    assert_eq!(model.contacts.len(), 1);
    for (run, settings) in runs().into_iter().filter(|(r, _)| *r != "GSTIFF SI2") {
        let mut points = 0;
        let (count, steps) = step_loop_allocations_then(&model, &settings, false, |sim, q| {
            let mut found = Vec::new();
            sim.sys.contacts[0].points(q, &mut found);
            points = found.len();
        });
        assert_eq!(points, 1, "{run}: the ball is on the box at t = 2");
        assert!(steps >= 500, "{run}: only {steps} steps in the window");
        assert_eq!(count, 0, "{run}: {count} allocations in {steps} steps");
    }
}

/// The ODE form (coordinate partitioning: ABAM, RKF45, VSTIFF) with forces
/// reading JOINT() and SFORCE() and a DIFF: each evaluation of
/// y' = f(t, y) solves the DIFF's rate by Newton (`solve_state_rates`, one
/// iteration) and makes the solved quantities consistent by Newton on z
/// (`reaction_fn::ode_consistent`), both on kept buffers. No allocation
/// over ≥ 500 steps.
#[test]
fn ode_form_with_solved_quantities_does_not_allocate() {
    let model = deck(&format!(
        "{}DIFF/1, IC = 0, FUNCTION = DX(21, 11) - 0.1*DIF(1)\n",
        solved_block()
    ));
    assert_eq!(model.diffs.len(), 1);
    for kind in [
        IntegratorKind::Abam,
        IntegratorKind::Rkf45,
        IntegratorKind::Vstiff,
    ] {
        let settings = IntegratorSettings {
            kind,
            kind_given: true,
            error: Some(1e-6),
            hmax: Some(2e-3),
            ..Default::default()
        };
        let (count, steps) = step_loop_allocations(&model, &settings, false);
        assert!(steps >= 500, "{kind:?}: only {steps} steps in the window");
        assert_eq!(count, 0, "{kind:?}: {count} allocations in {steps} steps");
    }
}

/// Keeps the requests of a run and evaluates them on every output frame
/// (a row per frame, allocated: a fixed number per SIMULATE) and, when a
/// request reads DELAY, on every accepted step (`Outputs::record_step`).
struct RequestSink {
    outputs: mbsolve_solver::requests::Outputs,
    initial_q: Vec<f64>,
}

impl mbsolve_solver::FrameSink for RequestSink {
    fn write(
        &mut self,
        sys: &mbsolve_mech::System,
        model: &Model,
        _log: &[String],
        frame: &mbsolve_solver::Frame,
    ) -> Result<(), String> {
        self.outputs
            .row(sys, model, frame, &self.initial_q)
            .map(|_| ())
    }
    fn wants_steps(&self) -> bool {
        self.outputs.records_steps()
    }
    fn step(&mut self, sys: &mbsolve_mech::System, model: &Model, frame: &mbsolve_solver::Frame) {
        self.outputs.record_step(sys, model, frame, &self.initial_q);
    }
}

/// Allocations and steps of one SIMULATE from t = 0.2 to 2.0 (one output
/// step, HMAX = `hmax`, GSTIFF I3) after a warm-up to 0.2, with `model`'s
/// requests written by a [`RequestSink`].
fn request_sink_allocations(model: &Model, hmax: f64) -> (usize, u64) {
    let settings = IntegratorSettings {
        kind: IntegratorKind::Gstiff,
        formulation: Some(Formulation::I3),
        error: Some(1e-4),
        hmax: Some(hmax),
        ..Default::default()
    };
    let mut sim = Simulation::new(model).expect("a valid model");
    let outputs = mbsolve_solver::requests::Outputs::new(model)
        .expect("the requests compile")
        .bind_run(&sim.model);
    assert!(outputs.records_steps(), "a request reads DELAY");
    let initial_q = sim.sys.initial_state().0;
    sim.output.sink = Some(Box::new(RequestSink { outputs, initial_q }));
    warm_then_measure(&mut sim, &settings)
}

/// A REQUEST reading DELAY is evaluated at every accepted step (its
/// history records the step) on a kept frame: a SIMULATE allocates as
/// often with HMAX 5e-4 as with 1e-3 (≥ 300 more steps).
#[test]
fn request_delay_steps_do_not_allocate() {
    let body = frictionless(STICTION_BLOCK);
    let model = deck(&format!(
        "{body}REQUEST/1, F2 = DELAY(DX(20, 10), 0.05, 0)\\F3 = DX(20, 10)\n"
    ));
    let (coarse, coarse_steps) = request_sink_allocations(&model, 1e-3);
    let (fine, fine_steps) = request_sink_allocations(&model, 5e-4);
    assert!(
        fine_steps >= coarse_steps + 300,
        "{coarse_steps} and {fine_steps} steps"
    );
    assert_eq!(
        fine, coarse,
        "{coarse} allocations in {coarse_steps} steps, {fine} in {fine_steps}"
    );
}
