//! Example models built through the Rust API (the `.adm` forms arrive with the
//! reader): pendulum, double pendulum, slider-crank, four-bar, the seeds'
//! stiff spring pair, and the N-link chain of the benchmark.

use mbsolve_model::*;
use nalgebra::Vector3;
use std::sync::Arc;

/// A marker frame whose z axis points along ground x (translational joints).
fn along_x(at: [f64; 3]) -> Placement {
    Placement::at(at[0], at[1], at[2]).with_euler313(
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::FRAC_PI_2,
        0.0,
    )
}

fn marker(m: &mut Model, id: Id, part: Id, at: [f64; 3]) {
    m.markers.push(Marker {
        id,
        part,
        placement: Placement::at(at[0], at[1], at[2]),
    });
}

fn rod(id: Id, mass: f64, length: f64, centre: [f64; 3]) -> Part {
    // Slender rod along x: I = mL²/12 about y and z, small about x.
    let i = mass * length * length / 12.0;
    Part::body(
        id,
        mass,
        Inertia::diagonal(1e-4 * i.max(1e-6), i, i),
        Placement::at(centre[0], centre[1], centre[2]),
    )
}

/// Point-like pendulum: 1 kg at distance `length` on a revolute about z at the
/// origin, released horizontally (CM at (length, 0, 0)), gravity −y.
pub fn pendulum(length: f64, g: f64) -> Model {
    let mut m = Model::new("pendulum");
    m.gravity = Vector3::new(0.0, -g, 0.0);
    m.parts.push(Part::ground(1));
    m.parts.push(Part::body(
        2,
        1.0,
        Inertia::diagonal(1e-3, 1e-3, 1e-3),
        Placement::at(length, 0.0, 0.0),
    ));
    marker(&mut m, 10, 1, [0.0; 3]);
    marker(&mut m, 20, 2, [-length, 0.0, 0.0]);
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Revolute,
        i: 20,
        j: 10,
    });
    m
}

/// Two 1 m, 1 kg rods hinged about z, initially horizontal.
pub fn double_pendulum() -> Model {
    chain(2)
}

/// N uniform rods (1 m, 1 kg) on revolute joints about z, initially
/// horizontal along +x, released from rest; gravity −y (benchmark model).
pub fn chain(n: usize) -> Model {
    let mut m = Model::new(&format!("{n}-link chain"));
    m.gravity = Vector3::new(0.0, -9.81, 0.0);
    m.parts.push(Part::ground(1));
    marker(&mut m, 1, 1, [0.0; 3]);
    for k in 0..n as u32 {
        let id = k + 2;
        let x0 = k as f64;
        m.parts.push(rod(id, 1.0, 1.0, [x0 + 0.5, 0.0, 0.0]));
        // Markers in the part frame (at the CM): left end −0.5, right end +0.5.
        marker(&mut m, 10 * id, id, [-0.5, 0.0, 0.0]);
        marker(&mut m, 10 * id + 1, id, [0.5, 0.0, 0.0]);
        let j = if k == 0 { 1 } else { 10 * (id - 1) + 1 };
        m.joints.push(Joint {
            id: k + 1,
            kind: JointKind::Revolute,
            i: 10 * id,
            j,
        });
    }
    m
}

/// Slider-crank: crank radius r about z at the origin driven at ω (rad/s),
/// connecting rod length l, slider on a translational joint along x.
/// Returns the model and the marker id at the slider's centre.
pub fn slider_crank(r: f64, l: f64, omega: f64) -> Model {
    let mut m = Model::new("slider-crank");
    m.gravity = Vector3::new(0.0, -9.81, 0.0);
    m.parts.push(Part::ground(1));
    marker(&mut m, 10, 1, [0.0; 3]);
    // Crank along +x at t = 0, centre at r/2.
    m.parts.push(rod(2, 1.0, r, [r / 2.0, 0.0, 0.0]));
    marker(&mut m, 20, 2, [-r / 2.0, 0.0, 0.0]);
    marker(&mut m, 21, 2, [r / 2.0, 0.0, 0.0]);
    // Rod from (r,0) to (r+l,0).
    m.parts.push(rod(3, 1.0, l, [r + l / 2.0, 0.0, 0.0]));
    marker(&mut m, 30, 3, [-l / 2.0, 0.0, 0.0]);
    marker(&mut m, 31, 3, [l / 2.0, 0.0, 0.0]);
    // Slider at (r+l, 0).
    m.parts.push(Part::body(
        4,
        1.0,
        Inertia::diagonal(0.01, 0.01, 0.01),
        Placement::at(r + l, 0.0, 0.0),
    ));
    marker(&mut m, 40, 4, [0.0; 3]);
    // Translational joint along global x: marker z axes along x.
    m.markers.push(Marker {
        id: 41,
        part: 4,
        placement: along_x([0.0; 3]),
    });
    m.markers.push(Marker {
        id: 11,
        part: 1,
        placement: along_x([0.0; 3]),
    });
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Revolute,
        i: 20,
        j: 10,
    });
    m.joints.push(Joint {
        id: 2,
        kind: JointKind::Revolute,
        i: 30,
        j: 21,
    });
    m.joints.push(Joint {
        id: 3,
        kind: JointKind::Revolute,
        i: 40,
        j: 31,
    });
    m.joints.push(Joint {
        id: 4,
        kind: JointKind::Translational,
        i: 41,
        j: 11,
    });
    m.motions.push(Motion::on_joint(
        1,
        1,
        MotionDof::Rotation,
        Arc::new(TimeFn(move |t: f64| [omega * t, omega, 0.0])),
    ));
    m
}

/// The slider-crank of `slider_crank` without its motion or gravity: the
/// crank starts at ω about the pivot and the linkage spins freely
/// (benchmark and convergence model; 1 DOF).
pub fn free_slider_crank(r: f64, l: f64, omega: f64) -> Model {
    let mut m = slider_crank(r, l, 0.0);
    m.title = "free slider-crank".into();
    m.motions.clear();
    m.gravity = Vector3::zeros();
    if let Some(crank) = m.parts.iter_mut().find(|p| p.id == 2) {
        crank.angular_velocity = Vector3::new(0.0, 0.0, omega);
        crank.velocity = Vector3::new(0.0, 0.5 * r * omega, 0.0);
    }
    m
}

/// Closed-form slider position, velocity, acceleration for `slider_crank`.
pub fn slider_crank_exact(r: f64, l: f64, omega: f64, t: f64) -> [f64; 3] {
    let th = omega * t;
    let (s, c) = th.sin_cos();
    let w = (l * l - r * r * s * s).sqrt();
    let x = r * c + w;
    let dw = -r * r * s * c * omega / w; // d/dt w
    let v = -r * s * omega + dw;
    // d²w/dt² = −r²ω² (cos²−sin²)/w − (r² s c ω)² / w³
    let ddw = -r * r * omega * omega * (c * c - s * s) / w
        - (r * r * s * c * omega).powi(2) / (w * w * w);
    let a = -r * c * omega * omega + ddw;
    [x, v, a]
}

/// Planar four-bar built from four 3-D revolute joints (three redundant
/// equations), under gravity. Ground pivots at (0,0) and (d,0); crank a,
/// coupler b, rocker c. Crank starts at angle θ0.
pub fn four_bar() -> Model {
    let (a, b, c, d) = (1.0, 2.0, 2.0, 2.0);
    let th = 1.0f64; // crank angle
    let pa = [a * th.cos(), a * th.sin()];
    // Rocker end P_b: |P_b − P_a| = b, |P_b − (d,0)| = c; take the upper solution.
    let (dx, dy) = (d - pa[0], -pa[1]);
    let dist = (dx * dx + dy * dy).sqrt();
    let along = (b * b - c * c + dist * dist) / (2.0 * dist);
    let h = (b * b - along * along).sqrt();
    let pb = [
        pa[0] + along * dx / dist - h * dy / dist,
        pa[1] + along * dy / dist + h * dx / dist,
    ];
    linkage("four-bar", d, pa, pb)
}

/// One 1 kg part held to ground by a SPHERICAL joint (JOINT/1, at ground
/// marker 10, (0.3, 0.2, 0.1)) and a PLANAR joint (JOINT/2: part marker 22
/// in the ground plane z = 0.1 of marker 11): one rotational degree of
/// freedom about ground z through the sphere's centre, and one redundant
/// equation wherever the joints hold (the planar's translation follows
/// from the sphere and its two rotation rows). `tilt` turns the part's
/// input placement out of the plane about the ground axis
/// (cos a, sin a, 0) through the sphere's centre, a = `tilt_axis`: the
/// input then violates the planar's rotation rows by about `tilt`.
pub fn planar_spherical(tilt: f64, tilt_axis: f64) -> Model {
    let mut m = Model::new("planar and spherical");
    m.gravity = Vector3::new(0.0, -9.81, 0.0);
    m.parts.push(Part::ground(1));
    marker(&mut m, 10, 1, [0.3, 0.2, 0.1]);
    marker(&mut m, 11, 1, [0.5, -0.4, 0.1]);
    // Euler 3-1-3 (a, tilt, −a) = Rz(a) Rx(tilt) Rz(−a): a turn by
    // `tilt` about Rz(a) x.
    let placement = Placement::at(0.3, 0.2, 0.1).with_euler313(tilt_axis, tilt, -tilt_axis);
    let mut part = Part::body(2, 1.0, Inertia::diagonal(0.1, 0.1, 0.1), placement);
    part.cm = Some(20);
    m.parts.push(part);
    marker(&mut m, 20, 2, [1.0, 0.0, 0.0]);
    marker(&mut m, 21, 2, [0.0, 0.0, 0.0]);
    marker(&mut m, 22, 2, [1.0, 0.5, 0.0]);
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Spherical,
        i: 21,
        j: 10,
    });
    m.joints.push(Joint {
        id: 2,
        kind: JointKind::Planar,
        i: 22,
        j: 11,
    });
    m
}

/// Parallelogram four-bar (cranks r, coupler and ground link l) starting
/// flat: both cranks along +x, every link on the x axis. That is a singular
/// configuration — the in-plane constraint rank drops by one, so assembly
/// finds a fourth redundant equation that becomes independent again as soon
/// as the linkage moves.
pub fn flat_parallelogram(r: f64, l: f64) -> Model {
    linkage("flat parallelogram", l, [r, 0.0], [l + r, 0.0])
}

/// Four-bar of uniform 1 kg rods from four 3-D revolute joints about z under
/// gravity −y: ground pivots (0,0) and (d,0), crank to `pa`, coupler to
/// `pb`, rocker back to (d,0).
fn linkage(title: &str, d: f64, pa: [f64; 2], pb: [f64; 2]) -> Model {
    let mut m = Model::new(title);
    m.gravity = Vector3::new(0.0, -9.81, 0.0);
    m.parts.push(Part::ground(1));
    marker(&mut m, 10, 1, [0.0; 3]);
    marker(&mut m, 11, 1, [d, 0.0, 0.0]);
    let mut link = |id: Id, p0: [f64; 2], p1: [f64; 2]| {
        let len = ((p1[0] - p0[0]).powi(2) + (p1[1] - p0[1]).powi(2)).sqrt();
        let ang = (p1[1] - p0[1]).atan2(p1[0] - p0[0]);
        let centre = [(p0[0] + p1[0]) / 2.0, (p0[1] + p1[1]) / 2.0, 0.0];
        let mut part = rod(id, 1.0, len, centre);
        part.placement = part.placement.with_euler313(ang, 0.0, 0.0);
        m.parts.push(part);
        // Ends in the part frame; marker axes parallel to ground (z out of plane).
        let rot = euler313(-ang, 0.0, 0.0);
        for (k, s) in [-0.5, 0.5].iter().enumerate() {
            m.markers.push(Marker {
                id: 10 * id + k as Id,
                part: id,
                placement: Placement::new(Vector3::new(s * len, 0.0, 0.0), rot),
            });
        }
    };
    link(2, [0.0, 0.0], pa);
    link(3, pa, pb);
    link(4, [d, 0.0], pb);
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Revolute,
        i: 20,
        j: 10,
    });
    m.joints.push(Joint {
        id: 2,
        kind: JointKind::Revolute,
        i: 30,
        j: 21,
    });
    m.joints.push(Joint {
        id: 3,
        kind: JointKind::Revolute,
        i: 40,
        j: 11,
    });
    m.joints.push(Joint {
        id: 4,
        kind: JointKind::Revolute,
        i: 31,
        j: 41,
    });
    m
}

/// The seeds' spring pair: a mass M on a translational joint along x with a
/// spring-damper (K, C) to ground, displaced x0 from its free length, no gravity.
pub fn spring_mass(mass: f64, k: f64, c: f64, x0: f64) -> Model {
    let mut m = Model::new("spring-mass");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    let free = 1.0;
    m.parts.push(Part::body(
        2,
        mass,
        Inertia::diagonal(1.0, 1.0, 1.0),
        Placement::at(free + x0, 0.0, 0.0),
    ));
    m.markers.push(Marker {
        id: 10,
        part: 1,
        placement: along_x([0.0; 3]),
    });
    m.markers.push(Marker {
        id: 20,
        part: 2,
        placement: along_x([0.0; 3]),
    });
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Translational,
        i: 20,
        j: 10,
    });
    m.forces.push(Force {
        id: 1,
        i: 20,
        j: 10,
        kind: ForceKind::TranslationalSpringDamper {
            stiffness: k,
            damping: c,
            free_length: free,
            preload: 0.0,
        },
    });
    m
}

/// Closed-form displacement from the free length of the damped oscillator
/// x'' + (C/M) x' + (K/M) x = 0 with x(0) = x0, x'(0) = 0.
pub fn spring_mass_exact(mass: f64, k: f64, c: f64, x0: f64, t: f64) -> f64 {
    let zeta = c / (2.0 * (k * mass).sqrt());
    let wn = (k / mass).sqrt();
    if zeta < 1.0 {
        let wd = wn * (1.0 - zeta * zeta).sqrt();
        x0 * (-zeta * wn * t).exp() * ((wd * t).cos() + zeta * wn / wd * (wd * t).sin())
    } else if zeta == 1.0 {
        x0 * (-wn * t).exp() * (1.0 + wn * t)
    } else {
        let s = (zeta * zeta - 1.0).sqrt();
        let (r1, r2) = (-wn * (zeta - s), -wn * (zeta + s));
        x0 * (r2 * (r1 * t).exp() - r1 * (r2 * t).exp()) / (r2 - r1)
    }
}

/// A row of `loops` parallelogram four-bars sharing their cranks: n + 1
/// cranks of length r hinged to ground at (i·l, 0), joined tip to tip by n
/// couplers of length l (uniform 1 kg rods, revolute joints about z,
/// gravity −y), all starting flat along +x — the singular configuration of
/// every loop at once. All cranks keep one angle θ and the couplers
/// translate, so the chain is the 1-DOF pendulum
/// ((n+1)/3 + n)·r²·θ'' = −((n+1)/2 + n)·g·r·cos θ (`parallelogram_chain_rhs`).
pub fn parallelogram_chain(loops: usize, r: f64, l: f64) -> Model {
    let mut m = Model::new("parallelogram chain");
    m.gravity = Vector3::new(0.0, -9.81, 0.0);
    m.parts.push(Part::ground(1));
    let crank = |i: usize| 2 + i as Id;
    let coupler = |i: usize| 2 + (loops + 1 + i) as Id;
    for i in 0..=loops {
        let x = i as f64 * l;
        marker(&mut m, 1000 + i as Id, 1, [x, 0.0, 0.0]);
        let id = crank(i);
        m.parts.push(rod(id, 1.0, r, [x + r / 2.0, 0.0, 0.0]));
        marker(&mut m, 10 * id, id, [-r / 2.0, 0.0, 0.0]);
        marker(&mut m, 10 * id + 1, id, [r / 2.0, 0.0, 0.0]);
        m.joints.push(Joint {
            id,
            kind: JointKind::Revolute,
            i: 10 * id,
            j: 1000 + i as Id,
        });
    }
    for i in 0..loops {
        let x = i as f64 * l + r;
        let id = coupler(i);
        m.parts.push(rod(id, 1.0, l, [x + l / 2.0, 0.0, 0.0]));
        marker(&mut m, 10 * id, id, [-l / 2.0, 0.0, 0.0]);
        marker(&mut m, 10 * id + 1, id, [l / 2.0, 0.0, 0.0]);
        m.joints.push(Joint {
            id: 10 * id,
            kind: JointKind::Revolute,
            i: 10 * id,
            j: 10 * crank(i) + 1,
        });
        m.joints.push(Joint {
            id: 10 * id + 1,
            kind: JointKind::Revolute,
            i: 10 * id + 1,
            j: 10 * crank(i + 1) + 1,
        });
    }
    m
}

/// θ'' of `parallelogram_chain` at crank angle θ (from +x).
pub fn parallelogram_chain_rhs(loops: usize, r: f64, g: f64, theta: f64) -> f64 {
    let n = loops as f64;
    let inertia = ((n + 1.0) / 3.0 + n) * r * r;
    let moment = ((n + 1.0) / 2.0 + n) * g * r;
    -moment * theta.cos() / inertia
}
