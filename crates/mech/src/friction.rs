//! Joint friction (Adams FRICTION statement) on REVOLUTE, TRANSLATIONAL,
//! CYLINDRICAL, SPHERICAL, UNIVERSAL and HOOKE joints.
//!
//! **The law.** Each joint has one or more slip groups: a slip velocity
//! vector s on the contact surface (m/s, not rad/s: a rotation rate is
//! multiplied by its radius, as Adams defines STICTION_TRANSITION_VELOCITY
//! "on the surface of contact in the joint") and the friction output w
//! (forces and/or torques) resisting it:
//!
//! ```text
//!   w = −μ(|s|) · diag(L) · s/|s| = −ψ(|s|) · diag(L) · s,   ψ = μ(|s|)/|s|
//! ```
//!
//! with L the load of each component (the joint's reactions and preloads,
//! below) and μ the coefficient of Adams' Friction Regime Determination
//! (Adams/View help, "Friction Regime Determination"): dynamic (μd) above
//! 1.5·vs, a STEP from μs to μd between vs and 1.5·vs, stiction below vs.
//! In the stiction regime Adams uses a creep (deformation) state bounded by
//! MAX_STICTION_DEFORMATION: given (> 0), that state and its law replace
//! the one below (`stiction.rs`). Without it we use the
//! velocity-based stiction of Adams' contact friction (Adams/View help,
//! "Contact Friction Force Calculation"): μ = μs·STEP(s, −vs, −1, vs, 1),
//! which is 0 at s = 0 and μs at vs. Written out, for x = s/vs < 1,
//! μ = μs (1.5 x − 0.5 x³) and ψ = μs/vs (1.5 − 0.5 x²): smooth at s = 0,
//! so the law and its velocity Jacobian have no singularity. A joint held
//! below the breakaway load creeps at the slip speed where μ(s)·L equals
//! the applied load (a small fraction of vs), which is the "stick" of this
//! model. EFFECT = STICTION keeps the stiction branch and fades μ to 0
//! between vs and 1.5 vs; EFFECT = SLIDING uses μd at every speed (with the
//! same cubic through zero below vs). The EFFECT variants are ours: the
//! Adams text says only which effect each includes.
//!
//! **Loads** (Adams' joint block diagrams as their help text describes
//! them; the reaction wrench is the one the joint applies to I's part at
//! I's origin, in J's axes (fx, fy, fz, mx, my, mz); each term is switched
//! by INPUTS; the sum is scaled by μ, preload included):
//!
//! | joint | slip | load |
//! |---|---|---|
//! | REVOLUTE | Rp·ωz | Tpre + Rp·√(fx²+fy²) + Rn·\|fz\| + Rp·√(mx²+my²)/Rb |
//! | TRANSLATIONAL | vz | Fpre + √(fx²+fy²) + √(mx²+my²)/Xs + \|mz\|/Ra |
//! | CYLINDRICAL | (vz, Rp·ωz) | N = √(fx²+fy²) + √(mx²+my²)/Xs; force Fpre + N, torque Tpre + Rp·N |
//! | SPHERICAL | Rb·ω (3-D) | Tpre + Rb·\|f\| |
//! | UNIVERSAL, HOOKE | per cross arm e: Rp·ω·e | per arm, the revolute formula about e |
//!
//! Rp PIN_RADIUS, Rn FRICTION_ARM, Rb BENDING_REACTION_ARM (BALL_RADIUS for
//! the spherical joint), Xs INITIAL_OVERLAP, Ra REACTION_ARM. The
//! translational torsion arm is REACTION_ARM as in MotionSolve's
//! Force_JointFriction (Adams' translational help names "the friction arm
//! (Rn)"; we could not see the statement's argument list to confirm it).
//! The cylindrical split of N into force and torque and the universal/Hooke
//! per-arm treatment (the cross as two pins) are ours.
//!
//! **Coupling with the reactions.** L depends on the multipliers λ. The
//! residual reads λ of the current Newton iterate (`MechData::multipliers`,
//! set by each formulation before it evaluates forces), so a converged step
//! satisfies the coupled equations exactly. The Newton matrix holds ∂w/∂u
//! (the friction slope, analytic) and ∂w/∂q (forward differences of this
//! element at fixed u and λ) but not ∂w/∂λ: the corrector is a
//! quasi-Newton iteration in λ (tests/friction.rs shows it converging; the
//! coupling is weak, μ·(arm ratios) ≪ 1). The ODE form (coordinate
//! partitioning) computes λ after the forces, so it uses the λ of its
//! previous evaluation (lagged one evaluation).

use crate::local::{Grad, Hess, NL};
use crate::rotation::{e_mat, rot};
use crate::scratch::{copy_into, Scratch};
use crate::system::{global_index, pose, scatter_hess, MarkerFrame, Sink, System};
use mbsolve_model::{ElementRef, Friction, FrictionEffect, Id, JointKind, Model, ModelError};
use nalgebra::Vector3;

#[path = "stiction.rs"]
pub mod stiction;

/// Adams' Friction Regime Determination: dynamic friction above this
/// multiple of STICTION_TRANSITION_VELOCITY, a STEP between 1 and it.
pub const DYNAMIC_SPEED_RATIO: f64 = 1.5;

/// Relative step of the forward differences of ∂w/∂q.
const FD_STEP: f64 = 1e-7;

/// At most three slip components per group (the spherical joint).
const MAX_SLIP: usize = 3;

/// One slip group: rows b_k (∂(relative velocity component)/∂u over the two
/// bodies), surface radius ρ_k (1 for a translation) and load L_k.
#[derive(Clone, Copy, Debug)]
struct SlipGroup {
    n: usize,
    rows: [Grad; MAX_SLIP],
    radius: [f64; MAX_SLIP],
    load: [f64; MAX_SLIP],
}

impl SlipGroup {
    fn none() -> Self {
        SlipGroup {
            n: 0,
            rows: [Grad::zeros(); MAX_SLIP],
            radius: [0.0; MAX_SLIP],
            load: [0.0; MAX_SLIP],
        }
    }
}

/// At most two slip groups per joint (one per cross arm of UNIVERSAL and
/// HOOKE).
const MAX_GROUPS: usize = 2;

/// A joint's slip groups, held inline (built at every evaluation, so no
/// allocation in the step loop); derefs to the groups in use.
#[derive(Clone, Copy, Debug)]
struct SlipGroups {
    len: usize,
    groups: [SlipGroup; MAX_GROUPS],
}

impl SlipGroups {
    fn of(groups: &[SlipGroup]) -> Self {
        let mut out = SlipGroups {
            len: groups.len(),
            groups: [SlipGroup::none(); MAX_GROUPS],
        };
        out.groups[..groups.len()].copy_from_slice(groups);
        out
    }
}

impl std::ops::Deref for SlipGroups {
    type Target = [SlipGroup];
    fn deref(&self) -> &[SlipGroup] {
        &self.groups[..self.len]
    }
}

/// What the law gives for one group at one state (for reports and tests).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlipState {
    /// Slip velocity components on the contact surface.
    pub slip: [f64; MAX_SLIP],
    /// Number of components used.
    pub n: usize,
    /// μ(|s|).
    pub mu: f64,
    /// Load of each component (force or torque units).
    pub load: [f64; MAX_SLIP],
    /// Friction output of each component (force along / torque about the
    /// slip direction, on I's part).
    pub output: [f64; MAX_SLIP],
}

/// A FRICTION element resolved against its joint.
#[derive(Clone, Debug)]
pub struct FrictionElement {
    pub element: ElementRef,
    pub joint: Id,
    kind: JointKind,
    pub i: MarkerFrame,
    pub j: MarkerFrame,
    /// Indices of the joint's constraint equations (their λ are the
    /// reactions).
    equations: Vec<usize>,
    params: Friction,
    /// Index of the first stiction-deformation state (MAX_STICTION_DEFORMATION
    /// given; set once the user states are laid out, `stiction::link`).
    stiction_at: Option<usize>,
    /// The perturbed coordinates of the ∂/∂q forward differences (here
    /// and in `stiction.rs`), kept so the Jacobian allocates nothing.
    fd_q: Scratch<Vec<f64>>,
}

/// Builds the friction elements; refuses a joint type without friction.
pub(crate) fn build(sys: &System, model: &Model) -> Result<Vec<FrictionElement>, ModelError> {
    let mut out = Vec::new();
    for fr in &model.frictions {
        let e = ElementRef::Friction(fr.id);
        let err = |message: String| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        };
        let Some(jt) = model.joints.iter().find(|j| j.id == fr.joint) else {
            return Err(err(format!("JOINT/{} does not exist", fr.joint)));
        };
        match jt.kind {
            JointKind::Revolute
            | JointKind::Translational
            | JointKind::Cylindrical
            | JointKind::Spherical
            | JointKind::Universal
            | JointKind::Hooke => {}
            other => {
                return Err(err(format!(
                    "JOINT/{} is {}: Adams defines FRICTION on REVOLUTE, TRANSLATIONAL, CYLINDRICAL, SPHERICAL, UNIVERSAL and HOOKE joints only",
                    jt.id,
                    other.name()
                )))
            }
        }
        check_parameters(fr).map_err(err)?;
        let equations = sys
            .equations
            .iter()
            .enumerate()
            .filter(|(_, eq)| eq.element == ElementRef::Joint(jt.id))
            .map(|(k, _)| k)
            .collect();
        out.push(FrictionElement {
            element: e,
            joint: jt.id,
            kind: jt.kind,
            i: *sys.marker(jt.i),
            j: *sys.marker(jt.j),
            equations,
            params: fr.clone(),
            stiction_at: None,
            fd_q: Scratch::default(),
        });
    }
    Ok(out)
}

/// Ranges of the Adams FRICTION arguments (for models built through the
/// API; the reader checks them with positions).
pub fn check_parameters(fr: &Friction) -> Result<(), String> {
    let positive = [
        (
            "STICTION_TRANSITION_VELOCITY",
            fr.stiction_transition_velocity,
        ),
        ("PIN_RADIUS", fr.pin_radius),
        ("BALL_RADIUS", fr.ball_radius),
        ("FRICTION_ARM", fr.friction_arm),
        ("BENDING_REACTION_ARM", fr.bending_reaction_arm),
        ("REACTION_ARM", fr.reaction_arm),
        ("INITIAL_OVERLAP", fr.initial_overlap),
    ];
    for (name, v) in positive {
        if !(v > 0.0 && v.is_finite()) {
            return Err(format!(
                "{name} must be positive, found {}",
                mbsolve_model::readable(v)
            ));
        }
    }
    for (name, v) in [
        ("MU_STATIC", fr.mu_static),
        ("MU_DYNAMIC", fr.mu_dynamic),
        ("FRICTION_FORCE_PRELOAD", fr.force_preload),
        ("FRICTION_TORQUE_PRELOAD", fr.torque_preload),
    ] {
        if !(v >= 0.0 && v.is_finite()) {
            return Err(format!(
                "{name} must not be negative, found {}",
                mbsolve_model::readable(v)
            ));
        }
    }
    stiction::check_deformation(fr)
}

/// μ(s) and dμ/ds for slip speed s ≥ 0 (see the module text).
pub fn coefficient(effect: FrictionEffect, mu_s: f64, mu_d: f64, vs: f64, s: f64) -> (f64, f64) {
    let vt = DYNAMIC_SPEED_RATIO * vs;
    let (mu_low, mu_mid_end, mu_high) = match effect {
        FrictionEffect::All => (mu_s, mu_d, mu_d),
        FrictionEffect::Stiction => (mu_s, 0.0, 0.0),
        FrictionEffect::Sliding => (mu_d, mu_d, mu_d),
    };
    if s < vs {
        // μ_low · STEP(s, −vs, −1, vs, 1) = μ_low (1.5 x − 0.5 x³).
        let x = s / vs;
        (
            mu_low * (1.5 * x - 0.5 * x * x * x),
            mu_low * (1.5 - 1.5 * x * x) / vs,
        )
    } else if s < vt {
        step(s, vs, mu_low, vt, mu_mid_end)
    } else {
        (mu_high, 0.0)
    }
}

/// ψ(s) = μ(s)/s and ψ'(s)/s, both finite at s = 0.
fn psi(effect: FrictionEffect, mu_s: f64, mu_d: f64, vs: f64, s: f64) -> (f64, f64) {
    let mu_low = if effect == FrictionEffect::Sliding {
        mu_d
    } else {
        mu_s
    };
    if s < vs {
        // ψ = μ_low/vs (1.5 − 0.5 x²), ψ' = −μ_low s/vs³.
        let x = s / vs;
        (mu_low / vs * (1.5 - 0.5 * x * x), -mu_low / (vs * vs * vs))
    } else {
        let (m, dm) = coefficient(effect, mu_s, mu_d, vs, s);
        (m / s, (dm * s - m) / (s * s * s))
    }
}

/// Adams STEP(x, x0, h0, x1, h1) (cubic) and its derivative, x0 ≤ x ≤ x1.
fn step(x: f64, x0: f64, h0: f64, x1: f64, h1: f64) -> (f64, f64) {
    let d = (x - x0) / (x1 - x0);
    (
        h0 + (h1 - h0) * d * d * (3.0 - 2.0 * d),
        (h1 - h0) * 6.0 * d * (1.0 - d) / (x1 - x0),
    )
}

impl FrictionElement {
    fn bodies(&self) -> [Option<usize>; 2] {
        [self.i.body, self.j.body]
    }

    /// Origin of marker I and the axes of I and J in ground.
    fn frames(&self, q: &[f64]) -> (Vector3<f64>, nalgebra::Matrix3<f64>, nalgebra::Matrix3<f64>) {
        let place = |m: &MarkerFrame| match m.body {
            Some(b) => {
                let p = pose(q, b);
                let a = rot(&p.p);
                (p.r + a * m.s, a * m.axes)
            }
            None => (m.s, m.axes),
        };
        let (x, ai) = place(&self.i);
        let (_, aj) = place(&self.j);
        (x, ai, aj)
    }

    /// Reaction (force, torque about x) that the joint applies to I's part,
    /// in ground, from the multipliers: generalized force −Σ λ_k ∇Φ_k; its
    /// Euler-parameter part maps to the torque about the CM by ½ E(p) Q_p.
    fn reaction(
        &self,
        sys: &System,
        q: &[f64],
        lam: &[f64],
        t: f64,
        x: &Vector3<f64>,
    ) -> (Vector3<f64>, Vector3<f64>) {
        let mut gen = Grad::zeros();
        if lam.len() == sys.neq() {
            for &k in &self.equations {
                if lam[k] != 0.0 {
                    gen -= sys.equation::<crate::local::NoHess>(k, q, t).s.grad * lam[k];
                }
            }
        }
        let wrench_on = |slot: usize, b: usize| {
            let o = 7 * slot;
            let f = Vector3::new(gen[o], gen[o + 1], gen[o + 2]);
            let qp = nalgebra::Vector4::new(gen[o + 3], gen[o + 4], gen[o + 5], gen[o + 6]);
            let ps = pose(q, b);
            let n_cm = 0.5 * e_mat(&ps.p) * qp;
            (f, n_cm + (ps.r - x).cross(&f))
        };
        match (self.i.body, self.j.body) {
            (Some(b), _) => wrench_on(0, b),
            // I on ground: the reaction on I is minus the one on J.
            (None, Some(b)) => {
                let (f, n) = wrench_on(1, b);
                (-f, -n)
            }
            (None, None) => (Vector3::zeros(), Vector3::zeros()),
        }
    }

    /// Row of e·(v_I(x) − v_J(x)): the relative velocity at x along e of
    /// the material points of I's and J's parts.
    fn linear_row(&self, q: &[f64], x: &Vector3<f64>, e: &Vector3<f64>) -> Grad {
        let mut g = Grad::zeros();
        for (slot, sign) in [(0usize, 1.0), (1, -1.0)] {
            let Some(b) = self.bodies()[slot] else {
                continue;
            };
            let ps = pose(q, b);
            let o = 7 * slot;
            let rp = 2.0 * e_mat(&ps.p).transpose() * (x - ps.r).cross(e);
            for k in 0..3 {
                g[o + k] = sign * e[k];
            }
            for k in 0..4 {
                g[o + 3 + k] = sign * rp[k];
            }
        }
        g
    }

    /// Row of e·(ω_I − ω_J).
    fn angular_row(&self, q: &[f64], e: &Vector3<f64>) -> Grad {
        let mut g = Grad::zeros();
        for (slot, sign) in [(0usize, 1.0), (1, -1.0)] {
            let Some(b) = self.bodies()[slot] else {
                continue;
            };
            let ps = pose(q, b);
            let rp = 2.0 * e_mat(&ps.p).transpose() * e;
            for k in 0..4 {
                g[7 * slot + 3 + k] = sign * rp[k];
            }
        }
        g
    }

    /// The slip groups at (q, λ): rows, radii and loads.
    fn groups(&self, sys: &System, q: &[f64], lam: &[f64], t: f64) -> SlipGroups {
        let p = &self.params;
        let sw = p.inputs;
        let on = |b: bool| if b { 1.0 } else { 0.0 };
        let (x, ai, aj) = self.frames(q);
        let (f_g, n_g) = self.reaction(sys, q, lam, t, &x);
        let (f, m) = (aj.transpose() * f_g, aj.transpose() * n_g);
        let radial = f[0].hypot(f[1]);
        let bending = m[0].hypot(m[1]);
        let z = aj.column(2).into_owned();
        let single = |row: Grad, radius: f64, load: f64| SlipGroup {
            n: 1,
            rows: [row, Grad::zeros(), Grad::zeros()],
            radius: [radius, 0.0, 0.0],
            load: [load, 0.0, 0.0],
        };
        // The revolute formula about a pin axis e (REVOLUTE; each cross arm
        // of UNIVERSAL and HOOKE) from the reaction in ground.
        let pin = |e: &Vector3<f64>| {
            let fa = f_g.dot(e);
            let fr = (f_g - e * fa).norm();
            let tb = (n_g - e * n_g.dot(e)).norm();
            let load = on(sw.preload) * p.torque_preload
                + on(sw.reaction_force) * (p.pin_radius * fr + p.friction_arm * fa.abs())
                + on(sw.bending_moment) * p.pin_radius * tb / p.bending_reaction_arm;
            single(self.angular_row(q, e), p.pin_radius, load)
        };
        match self.kind {
            JointKind::Revolute => SlipGroups::of(&[pin(&z)]),
            JointKind::Universal | JointKind::Hooke => {
                let (a1, a2) = if self.kind == JointKind::Universal {
                    (ai.column(2).into_owned(), aj.column(2).into_owned())
                } else {
                    (ai.column(0).into_owned(), aj.column(1).into_owned())
                };
                SlipGroups::of(&[pin(&a1), pin(&a2)])
            }
            JointKind::Translational => {
                let load = on(sw.preload) * p.force_preload
                    + on(sw.reaction_force) * radial
                    + on(sw.bending_moment) * bending / p.initial_overlap
                    + on(sw.torsional_moment) * m[2].abs() / p.reaction_arm;
                SlipGroups::of(&[single(self.linear_row(q, &x, &z), 1.0, load)])
            }
            JointKind::Cylindrical => {
                let normal = on(sw.reaction_force) * radial
                    + on(sw.bending_moment) * bending / p.initial_overlap;
                SlipGroups::of(&[SlipGroup {
                    n: 2,
                    rows: [
                        self.linear_row(q, &x, &z),
                        self.angular_row(q, &z),
                        Grad::zeros(),
                    ],
                    radius: [1.0, p.pin_radius, 0.0],
                    load: [
                        on(sw.preload) * p.force_preload + normal,
                        on(sw.preload) * p.torque_preload + p.pin_radius * normal,
                        0.0,
                    ],
                }])
            }
            JointKind::Spherical => {
                let load = on(sw.preload) * p.torque_preload
                    + on(sw.reaction_force) * p.ball_radius * f_g.norm();
                let rows = [0, 1, 2].map(|k| self.angular_row(q, &Vector3::ith(k, 1.0)));
                SlipGroups::of(&[SlipGroup {
                    n: 3,
                    rows,
                    radius: [p.ball_radius; 3],
                    load: [load; 3],
                }])
            }
            _ => SlipGroups::of(&[]),
        }
    }

    /// Slip state of a group at velocities `ul` (local).
    fn slip_state(&self, g: &SlipGroup, ul: &Grad) -> (SlipState, f64, f64) {
        let p = &self.params;
        let mut slip = [0.0; MAX_SLIP];
        for k in 0..g.n {
            slip[k] = g.radius[k] * g.rows[k].dot(ul);
        }
        let s = slip.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (mu, _) = coefficient(
            p.effect,
            p.mu_static,
            p.mu_dynamic,
            p.stiction_transition_velocity,
            s,
        );
        let (ps, dps) = psi(
            p.effect,
            p.mu_static,
            p.mu_dynamic,
            p.stiction_transition_velocity,
            s,
        );
        let mut output = [0.0; MAX_SLIP];
        for k in 0..g.n {
            output[k] = -ps * g.load[k] * slip[k];
        }
        (
            SlipState {
                slip,
                n: g.n,
                mu,
                load: g.load,
                output,
            },
            ps,
            dps,
        )
    }

    /// Generalized friction force Q on the local coordinates and, with
    /// `jac`, ∂Q/∂u (analytic, at fixed λ).
    fn local(&self, sys: &System, at: &FrictionAt, jac: bool) -> (Grad, Hess) {
        let ul = crate::system::gather(&self.bodies(), at.u);
        let mut force = Grad::zeros();
        let mut ju = Hess::zeros();
        if self.stiction_at.is_some() {
            // The deformation-state law (stiction.rs): w_k(s, z).
            let z = self.deformations(at.w);
            let mut c = 0;
            for g in self.groups(sys, at.q, at.lam, at.t).iter() {
                let law = self.group_law(g, &ul, &z[c..]);
                for k in 0..g.n {
                    force += g.rows[k] * law.output[k];
                    if jac {
                        for l in 0..g.n {
                            let dw = law.dw_ds[k][l] * g.radius[l];
                            ju += g.rows[k] * g.rows[l].transpose() * dw;
                        }
                    }
                }
                c += g.n;
            }
            return (force, ju);
        }
        for g in self.groups(sys, at.q, at.lam, at.t).iter() {
            let (st, ps, dps) = self.slip_state(g, &ul);
            for k in 0..g.n {
                force += g.rows[k] * st.output[k];
            }
            if jac {
                // ∂w_k/∂s_l = −L_k (ψ δ_kl + (ψ'/|s|) s_k s_l); s_l = ρ_l b_l·u.
                for k in 0..g.n {
                    for l in 0..g.n {
                        let delta = if k == l { ps } else { 0.0 };
                        let dw = -g.load[k] * (delta + dps * st.slip[k] * st.slip[l]);
                        if dw != 0.0 {
                            ju += g.rows[k] * g.rows[l].transpose() * (dw * g.radius[l]);
                        }
                    }
                }
            }
        }
        (force, ju)
    }

    /// The friction groups' states, for reports and tests.
    pub fn state(&self, sys: &System, at: &FrictionAt) -> Vec<SlipState> {
        let ul = crate::system::gather(&self.bodies(), at.u);
        if self.stiction_at.is_some() {
            let z = self.deformations(at.w);
            let mut c = 0;
            return self
                .groups(sys, at.q, at.lam, at.t)
                .iter()
                .map(|g| {
                    let law = self.group_law(g, &ul, &z[c..]);
                    c += g.n;
                    SlipState {
                        slip: law.slip,
                        n: g.n,
                        mu: law.mu,
                        load: g.load,
                        output: law.output,
                    }
                })
                .collect();
        }
        self.groups(sys, at.q, at.lam, at.t)
            .iter()
            .map(|g| self.slip_state(g, &ul).0)
            .collect()
    }

    /// Whether this friction carries stiction-deformation states.
    pub fn has_stiction_states(&self) -> bool {
        self.stiction_at.is_some()
    }

    /// Generalized friction force on the local coordinates (slot 0 = I's
    /// part, slot 1 = J's part).
    pub fn local_force(&self, sys: &System, at: &FrictionAt) -> Grad {
        self.local(sys, at, false).0
    }

    /// out −= Q (residual convention R = M a − Q + Φ_qᵀλ).
    pub fn add_residual(&self, sys: &System, at: &FrictionAt, out: &mut [f64]) {
        let bodies = self.bodies();
        let force = self.local_force(sys, at);
        for l in 0..NL {
            if let Some(g) = global_index(&bodies, l) {
                out[g] -= force[l];
            }
        }
    }

    /// The local blocks of the residual's Jacobian: −∂Q/∂q (forward
    /// differences at fixed u and λ; None unless `with_q`) and −∂Q/∂u
    /// (analytic). ∂Q/∂λ is left out (quasi-Newton, see the module text).
    pub fn jacobians(&self, sys: &System, at: &FrictionAt, with_q: bool) -> (Option<Hess>, Hess) {
        let bodies = self.bodies();
        let (force, ju) = self.local(sys, at, true);
        let jq = with_q.then(|| {
            let mut jq = Hess::zeros();
            let mut qh = self.fd_q.lock();
            copy_into(&mut qh, at.q);
            for l in 0..NL {
                let Some(gi) = global_index(&bodies, l) else {
                    continue;
                };
                let h = FD_STEP * at.q[gi].abs().max(1.0);
                qh[gi] = at.q[gi] + h;
                let shifted = FrictionAt { q: &qh, ..*at };
                let fh = self.local_force(sys, &shifted);
                qh[gi] = at.q[gi];
                jq.set_column(l, &((force - fh) / h));
            }
            jq
        });
        (jq, -ju)
    }

    /// Scatters [`FrictionElement::jacobians`] (∂R/∂q at `col_q`, cu·∂R/∂u
    /// at `col_u`, rows at `row0`), always the full 14×14 pattern.
    pub fn add_jacobian(&self, sys: &System, at: &FrictionAt, sink: &mut dyn Sink, place: Place) {
        let bodies = self.bodies();
        let (jq, ju) = self.jacobians(sys, at, place.col_q.is_some());
        if let (Some(cq), Some(jq)) = (place.col_q, jq) {
            scatter_hess(&bodies, &jq, sink, place.row0, cq);
        }
        scatter_hess(&bodies, &(ju * place.cu), sink, place.row0, place.col_u);
    }
}

/// Where a Jacobian block goes: rows from `row0`, ∂/∂q columns from
/// `col_q` (None = not wanted), ∂/∂u columns from `col_u` scaled by `cu`.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    pub row0: usize,
    pub col_q: Option<usize>,
    pub col_u: usize,
    pub cu: f64,
}

/// The state friction is evaluated at: positions, velocities, the
/// multipliers of the iterate (reactions), time and the user-state values
/// (the stiction deformations; empty reads them as 0).
#[derive(Clone, Copy, Debug)]
pub struct FrictionAt<'a> {
    pub q: &'a [f64],
    pub u: &'a [f64],
    pub lam: &'a [f64],
    pub t: f64,
    pub w: &'a [f64],
}
