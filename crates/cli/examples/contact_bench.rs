//! Benchmark: N spheres (default 100, radius 0.05 m, 0.5 kg) dropped into
//! an open box (floor and four walls, one CONTACT per sphere against the
//! box's five solids, one CONTACT per sphere pair: N + N(N−1)/2 contact
//! elements), IMPACT k = 1e5, e = 1.5, c = 10, dmax = 1 mm, 0.5 s with
//! GSTIFF at ERROR = 1e-3. Prints steps, residual and Jacobian
//! evaluations, wall time per step, and the share of the time spent in
//! collision detection (the bounding-box broad phase and parry's
//! manifolds): the detection of one evaluation is timed on the output
//! frames and multiplied by the evaluations the run made (each residual
//! and each Jacobian evaluation detects once per contact element).
//!
//! cargo run --release --example contact_bench [N]

use mbsolve_model::*;
use mbsolve_solver::Simulation;

use std::time::Instant;

const R: f64 = 0.05;

fn model(n: usize) -> Model {
    let mut m = Model::new("spheres in a box");
    m.gravity = [0.0, 0.0, -9.81].into();
    m.parts.push(Part::ground(1));
    // box: inner 0.6 × 0.6, floor top at z = 0, walls 0.1 thick, 1 m high
    let (w, t, h) = (0.6, 0.1, 1.0);
    let solids = [
        (
            [-w / 2.0 - t, -w / 2.0 - t, -t],
            [w + 2.0 * t, w + 2.0 * t, t],
        ),
        ([-w / 2.0 - t, -w / 2.0 - t, 0.0], [t, w + 2.0 * t, h]),
        ([w / 2.0, -w / 2.0 - t, 0.0], [t, w + 2.0 * t, h]),
        ([-w / 2.0, -w / 2.0 - t, 0.0], [w, t, h]),
        ([-w / 2.0, w / 2.0, 0.0], [w, t, h]),
    ];
    for (k, (c, s)) in solids.iter().enumerate() {
        let id = 10 + k as Id;
        m.markers.push(Marker {
            id,
            part: 1,
            placement: Placement::at(c[0], c[1], c[2]),
        });
        m.geometries.push(Geometry {
            id,
            marker: id,
            shape: Shape::Box {
                x: s[0],
                y: s[1],
                z: s[2],
            },
        });
    }
    let impact = NormalForce::Impact {
        stiffness: 1.0e5,
        exponent: 1.5,
        damping: 10.0,
        dmax: 1e-3,
    };
    // a 5 × 5 grid per layer, 0.11 m apart, layers 0.12 m apart, slightly
    // staggered so the pile is not symmetric
    let mass = 0.5;
    let i = 0.4 * mass * R * R;
    for b in 0..n {
        let (layer, cell) = (b / 25, b % 25);
        let x = -0.22 + 0.11 * (cell % 5) as f64 + 0.01 * (layer % 2) as f64;
        let y = -0.22 + 0.11 * (cell / 5) as f64 + 0.007 * (layer % 3) as f64;
        let z = R + 0.02 + 0.12 * layer as f64;
        let id = 100 + b as Id;
        let mut p = Part::body(id, mass, Inertia::diagonal(i, i, i), Placement::at(x, y, z));
        p.cm = Some(id);
        m.parts.push(p);
        m.markers.push(Marker {
            id,
            part: id,
            placement: Placement::default(),
        });
        m.geometries.push(Geometry::sphere(id, id, R));
    }
    let mut cid = 1;
    for b in 0..n {
        let gb = 100 + b as Id;
        m.contacts.push(Contact {
            id: cid,
            igeom: vec![gb],
            jgeom: (10..15).collect(),
            normal: impact,
            friction: None,
        });
        cid += 1;
        for o in b + 1..n {
            m.contacts.push(Contact {
                id: cid,
                igeom: vec![gb],
                jgeom: vec![100 + o as Id],
                normal: impact,
                friction: None,
            });
            cid += 1;
        }
    }
    m
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let m = model(n);
    let mut sim = Simulation::new(&m).expect("model");
    let settings = IntegratorSettings {
        error: Some(1e-3),
        ..Default::default()
    };
    let start = Instant::now();
    let stats = sim.dynamic(0.5, Some(50), None, &settings).expect("run");
    let wall = start.elapsed().as_secs_f64();
    // detection cost of one evaluation, averaged over the output frames
    let mut points = Vec::new();
    let mut touching = 0usize;
    let t0 = Instant::now();
    for f in &sim.frames {
        for c in &sim.sys.contacts {
            c.points(&f.q, &mut points);
            touching += points.len();
        }
    }
    let per_eval = t0.elapsed().as_secs_f64() / sim.frames.len() as f64;
    let evals = stats.residual_evaluations + stats.jacobian_evaluations;
    let detection = per_eval * evals as f64;
    println!(
        "{n} spheres, {} contact elements, 0.5 s GSTIFF ERROR 1e-3: {} steps ({} rejected), {} residual + {} Jacobian evaluations, {} symbolic factorizations",
        sim.sys.contacts.len(),
        stats.steps,
        stats.rejected_steps,
        stats.residual_evaluations,
        stats.jacobian_evaluations,
        stats.symbolic_factorizations
    );
    println!(
        "wall {wall:.2} s, {:.3} ms per step; collision detection {:.3} ms per evaluation, ≈ {:.0} % of the run; {:.1} contact points per frame",
        1e3 * wall / stats.steps.max(1) as f64,
        1e3 * per_eval,
        100.0 * detection / wall,
        touching as f64 / sim.frames.len() as f64
    );
}
