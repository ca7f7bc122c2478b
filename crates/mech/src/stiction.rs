//! Stiction deformation of joint FRICTION (Adams MAX_STICTION_DEFORMATION).
//!
//! MAX_STICTION_DEFORMATION is "the maximum creep that can occur in a
//! joint during the stiction regime" (MotionSolve's joint-friction
//! reference, which follows Adams' FRICTION): while the joint sticks, the
//! friction acts like a stiff spring on a small deformation of the
//! contact, bounded by that value; past it the joint slides. We carry that deformation as a state
//! per slip component (a surface displacement, like the slip speed: a
//! rotation times its radius), z_k, of class UserState (error-controlled,
//! converged by every corrector like a DIFF).
//!
//! **The law** (a bristle model in the form of Dahl/LuGre; the exact Adams
//! equations are not published, so the form is ours). Per slip group with
//! slip s (surface speed), σ = |s|, load L_k:
//!
//! ```text
//!   ż_k = f_k = s_k − (σ/δ)·(|z|/δ)^N·z_k,     δ(σ) = δmax·μ̂(σ)/μs
//!   w_k = −L_k·μs·(z_k/δmax + ż_k/vs)
//! ```
//!
//! δmax MAX_STICTION_DEFORMATION, vs STICTION_TRANSITION_VELOCITY, μ̂ the
//! coefficient of Adams' Friction Regime Determination without the
//! zero-speed regularization: μs below vs, a STEP to μd between vs and
//! 1.5·vs, μd above; N = [`SHARPNESS`]. Consequences:
//! - sticking under a growing load (z and s of one sign, one component):
//!   ż = s·(1 − (|z|/δ)^(N+1)) ≈ s while |z| is below δ, so the
//!   friction is a spring of stiffness L·μs/δmax on the joint's travel
//!   with a damper L·μs/vs; a load F below μs·L holds the joint, without
//!   drift, at the deformation z = δmax·F/(μs·L) and, loaded monotonically
//!   from rest, at the travel x = δmax·∫₀^(F/μs·L) dζ/(1 − ζ^(N+1))
//!   (unloading creeps at s·(1 + (|z|/δ)^(N+1)): the travel depends on
//!   the loading path);
//! - |z| never exceeds δ ≤ δmax (d|z|²/dt ≤ 0 there), and the spring force
//!   reaches μs·L exactly at |z| = δmax: breakaway at μs·L;
//! - steady sliding (ż = 0): |z| = δ, z ∥ s, so w = −L·μ̂(σ)·s/σ: Coulomb
//!   friction with Adams' regimes.
//!
//! N = 0 is the Dahl/LuGre form, whose creep runs ahead of the deformation
//! long before breakaway (x = δmax·ln 2 at z = δmax/2); N = 8 keeps the
//! travel within 0.02 % of the deformation up to half the breakaway load,
//! closer to the spring Adams describes. The exponent is ours.
//!
//! The damper (coefficient L·μs/vs, which makes the stiction force reach
//! μs·L at the transition velocity) is ours: Adams gives no damping
//! argument, and an undamped creep spring would ring for the whole run.
//! EFFECT = STICTION (μ̂ = 0 when sliding) and EFFECT = SLIDING (no
//! stiction) have no deformation state in this law and are refused with
//! MAX_STICTION_DEFORMATION, as are μs = 0 and μd = 0 (σ/δ would be
//! unbounded). I3, SI2, SI1, the ODE form, HHT and NEWMARK carry the
//! state like any user state.
//!
//! **Jacobians.** ∂f/∂s, ∂f/∂z, ∂w/∂s and ∂w/∂z are analytic; the q
//! dependence (through the slip rows b(q)) is by forward differences of
//! this element at fixed u and z, as for the friction force itself.

use super::{step, FrictionElement, SlipGroup, DYNAMIC_SPEED_RATIO, FD_STEP, MAX_SLIP};
use crate::local::{Grad, NL};
use crate::scratch::copy_into;
use crate::system::{gather, global_index, Sink, System};
use mbsolve_model::{ElementRef, Friction, JointKind};

/// The exponent N of the deformation law (module text): even, so that
/// (|z|/δ)^N = (|z|²/δ²)^(N/2) is smooth at z = 0.
pub const SHARPNESS: i32 = 8;

/// μ̂(σ) and dμ̂/dσ: Adams' friction regimes (module text), σ ≥ 0.
pub fn regime_coefficient(mu_s: f64, mu_d: f64, vs: f64, sigma: f64) -> (f64, f64) {
    let vt = DYNAMIC_SPEED_RATIO * vs;
    if sigma <= vs {
        (mu_s, 0.0)
    } else if sigma < vt {
        step(sigma, vs, mu_s, vt, mu_d)
    } else {
        (mu_d, 0.0)
    }
}

/// Whether a FRICTION has a stiction-deformation state.
pub fn has_deformation(fr: &Friction) -> bool {
    fr.max_stiction_deformation > 0.0
}

/// The range and combination rules of MAX_STICTION_DEFORMATION (module
/// text; `Friction::check_deformation`).
pub fn check_deformation(fr: &Friction) -> Result<(), String> {
    fr.check_deformation()
}

/// Number of slip components (deformation states) of a joint type: the
/// components of its slip groups (`FrictionElement::groups`).
pub fn components(kind: JointKind) -> usize {
    match kind {
        JointKind::Revolute | JointKind::Translational => 1,
        JointKind::Cylindrical | JointKind::Universal | JointKind::Hooke => 2,
        JointKind::Spherical => 3,
        _ => 0,
    }
}

/// The deformation states of the model's frictions, in friction order:
/// (friction element, component count).
pub(crate) fn state_layout(sys: &System) -> Vec<(ElementRef, usize)> {
    sys.frictions
        .iter()
        .filter(|fr| has_deformation(&fr.params))
        .map(|fr| (fr.element, components(fr.kind)))
        .collect()
}

/// Points each friction with a deformation state at its first state
/// (after `System::states` is built).
pub(crate) fn link(sys: &mut System) {
    for k in 0..sys.frictions.len() {
        let key = (sys.frictions[k].element, 0);
        let at = has_deformation(&sys.frictions[k].params)
            .then(|| sys.states.keys.iter().position(|&x| x == key))
            .flatten();
        sys.frictions[k].stiction_at = at;
    }
}

/// Where the state rows' Jacobian entries go (`System::state_jacobian`'s
/// arguments): rows from `row0`, ∂/∂q columns from `col_q` (None = not
/// wanted), cu·∂/∂u from `col_u`, ∂/∂w + cw·∂/∂w' from `col_w`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StatePlace {
    pub row0: usize,
    pub col_q: Option<usize>,
    pub col_u: usize,
    pub cu: f64,
    pub col_w: usize,
    pub cw: f64,
}

/// One group's deformation law at (s, z): f, the friction outputs and
/// their derivatives.
pub(super) struct GroupLaw {
    pub slip: [f64; MAX_SLIP],
    /// ż_k = f_k.
    pub rate: [f64; MAX_SLIP],
    pub output: [f64; MAX_SLIP],
    /// ∂f_k/∂s_l.
    pub df_ds: [[f64; MAX_SLIP]; MAX_SLIP],
    /// ∂f_k/∂z_l.
    pub df_dz: [[f64; MAX_SLIP]; MAX_SLIP],
    /// ∂w_k/∂s_l and ∂w_k/∂z_l.
    pub dw_ds: [[f64; MAX_SLIP]; MAX_SLIP],
    pub dw_dz: [[f64; MAX_SLIP]; MAX_SLIP],
    pub mu: f64,
}

impl FrictionElement {
    /// The deformation law of group `g` with velocities `ul` (local) and
    /// deformations `z` (the group's components).
    pub(super) fn group_law(&self, g: &SlipGroup, ul: &Grad, z: &[f64]) -> GroupLaw {
        let p = &self.params;
        let (mu_s, dmax, vs) = (
            p.mu_static,
            p.max_stiction_deformation,
            p.stiction_transition_velocity,
        );
        let mut slip = [0.0; MAX_SLIP];
        for k in 0..g.n {
            slip[k] = g.radius[k] * g.rows[k].dot(ul);
        }
        let sigma = slip.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (mu, dmu) = regime_coefficient(mu_s, p.mu_dynamic, vs, sigma);
        // δ = δmax μ̂/μs; A = σ/δ; B = (|z|²/δ²)^m, m = N/2; f = s − A B z.
        let m = SHARPNESS / 2;
        let delta = dmax * mu / mu_s;
        let ddelta = dmax * dmu / mu_s;
        let a = sigma / delta;
        let da = (delta - sigma * ddelta) / (delta * delta);
        let z2: f64 = z[..g.n].iter().map(|v| v * v).sum();
        let rho2 = z2 / (delta * delta);
        let b = rho2.powi(m);
        let db_dsigma = -2.0 * f64::from(m) * b * ddelta / delta;
        // ∂B/∂z_l = 2m ρ^(2m−2) z_l/δ².
        let db_coef = 2.0 * f64::from(m) * rho2.powi(m - 1) / (delta * delta);
        let dab = da * b + a * db_dsigma;
        let mut law = GroupLaw {
            slip,
            rate: [0.0; MAX_SLIP],
            output: [0.0; MAX_SLIP],
            df_ds: [[0.0; MAX_SLIP]; MAX_SLIP],
            df_dz: [[0.0; MAX_SLIP]; MAX_SLIP],
            dw_ds: [[0.0; MAX_SLIP]; MAX_SLIP],
            dw_dz: [[0.0; MAX_SLIP]; MAX_SLIP],
            mu,
        };
        for k in 0..g.n {
            law.rate[k] = slip[k] - a * b * z[k];
            law.output[k] = -g.load[k] * mu_s * (z[k] / dmax + law.rate[k] / vs);
            for l in 0..g.n {
                // ∂σ/∂s_l = s_l/σ; at σ = 0 the term has no limit and is
                // taken as 0 (its factor d(AB)/dσ is finite).
                let dsigma = if sigma > 0.0 { slip[l] / sigma } else { 0.0 };
                let kl = if k == l { 1.0 } else { 0.0 };
                law.df_ds[k][l] = kl - z[k] * dab * dsigma;
                law.df_dz[k][l] = -a * (b * kl + db_coef * z[l] * z[k]);
                law.dw_ds[k][l] = -g.load[k] * mu_s / vs * law.df_ds[k][l];
                law.dw_dz[k][l] = -g.load[k] * mu_s * (kl / dmax + law.df_dz[k][l] / vs);
            }
        }
        law
    }

    /// The deformations of the element's components from the state values
    /// `w` (zeros when `w` holds no states, as for a caller without them).
    pub(super) fn deformations(&self, w: &[f64]) -> [f64; 2 * MAX_SLIP] {
        let mut z = [0.0; 2 * MAX_SLIP];
        if let Some(at) = self.stiction_at {
            let n = components(self.kind);
            if w.len() >= at + n {
                z[..n].copy_from_slice(&w[at..at + n]);
            }
        }
        z
    }

    /// The rates f of the element's deformation states at (q, u, z), by
    /// component (the element's states in order).
    fn component_rates(
        &self,
        sys: &System,
        q: &[f64],
        u: &[f64],
        w: &[f64],
    ) -> [f64; 2 * MAX_SLIP] {
        let mut out = [0.0; 2 * MAX_SLIP];
        let ul = gather(&self.bodies(), u);
        let z = self.deformations(w);
        let mut c = 0;
        for g in self.groups(sys, q, &[], 0.0).iter() {
            let law = self.group_law(g, &ul, &z[c..]);
            out[c..c + g.n].copy_from_slice(&law.rate[..g.n]);
            c += g.n;
        }
        out
    }

    /// The rates f of the element's deformation states at (q, u, z),
    /// written to `out[k]` for its states k (indices in the state vector).
    fn rates(&self, sys: &System, q: &[f64], u: &[f64], w: &[f64], out: &mut [f64]) {
        let Some(at) = self.stiction_at else {
            return;
        };
        let n = components(self.kind);
        out[at..at + n].copy_from_slice(&self.component_rates(sys, q, u, w)[..n]);
    }
}

impl System {
    /// The deformation-state rows G = ż − f of every friction (rows
    /// indexed like the states, `out` holds all user-state rows).
    pub(crate) fn stiction_residual(
        &self,
        q: &[f64],
        u: &[f64],
        w: &[f64],
        wp: &[f64],
        out: &mut [f64],
    ) {
        for fr in self.frictions.iter().filter(|f| f.stiction_at.is_some()) {
            fr.rates(self, q, u, w, out);
            let at = fr.stiction_at.unwrap_or(0);
            for k in at..at + components(fr.kind) {
                out[k] = wp[k] - out[k];
            }
        }
    }

    /// Entries of the deformation-state rows (at `at.row0` + state index):
    /// ∂G/∂q (forward differences, at `at.col_q`), cu·∂G/∂u (at
    /// `at.col_u`) and ∂G/∂z + cw·∂G/∂ż (at `at.col_w`). The same entries
    /// on every call.
    pub(crate) fn stiction_jacobian(
        &self,
        q: &[f64],
        u: &[f64],
        w: &[f64],
        sink: &mut dyn Sink,
        place: StatePlace,
    ) {
        for fr in self.frictions.iter() {
            let Some(at) = fr.stiction_at else {
                continue;
            };
            let bodies = fr.bodies();
            let n = components(fr.kind);
            let ul = gather(&bodies, u);
            let z = fr.deformations(w);
            let mut c = 0;
            for g in fr.groups(self, q, &[], 0.0).iter() {
                let law = fr.group_law(g, &ul, &z[c..]);
                for k in 0..g.n {
                    let row = place.row0 + at + c + k;
                    // G = ż − f: ∂G/∂u = −Σ_l ∂f_k/∂s_l ρ_l b_l.
                    let mut gu = Grad::zeros();
                    for l in 0..g.n {
                        gu -= g.rows[l] * (law.df_ds[k][l] * g.radius[l]);
                    }
                    for l in 0..NL {
                        if let Some(gi) = global_index(&bodies, l) {
                            sink.add(row, place.col_u + gi, place.cu * gu[l]);
                        }
                    }
                    for l in 0..g.n {
                        let kl = if k == l { place.cw } else { 0.0 };
                        sink.add(row, place.col_w + at + c + l, kl - law.df_dz[k][l]);
                    }
                }
                c += g.n;
            }
            if let Some(cq) = place.col_q {
                let base = fr.component_rates(self, q, u, w);
                let mut qh = fr.fd_q.lock();
                copy_into(&mut qh, q);
                for l in 0..NL {
                    let Some(gi) = global_index(&bodies, l) else {
                        continue;
                    };
                    let h = FD_STEP * q[gi].abs().max(1.0);
                    qh[gi] = q[gi] + h;
                    let shifted = fr.component_rates(self, &qh, u, w);
                    qh[gi] = q[gi];
                    for k in 0..n {
                        sink.add(place.row0 + at + k, cq + gi, -(shifted[k] - base[k]) / h);
                    }
                }
            }
        }
    }

    /// Entries of the body rows (at `row0`, residual convention −Q) in the
    /// deformation-state columns (at `col_w`): −∂Q/∂z (the friction
    /// output reads z, not ż, so cw does not enter).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn stiction_force_jacobian(
        &self,
        q: &[f64],
        u: &[f64],
        lam: &[f64],
        w: &[f64],
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col_w: usize,
    ) {
        for fr in self.frictions.iter() {
            let Some(at) = fr.stiction_at else {
                continue;
            };
            let bodies = fr.bodies();
            let ul = gather(&bodies, u);
            let z = fr.deformations(w);
            let mut c = 0;
            for g in fr.groups(self, q, lam, t).iter() {
                let law = fr.group_law(g, &ul, &z[c..]);
                for j in 0..g.n {
                    // ∂Q/∂z_j = Σ_k b_k ∂w_k/∂z_j.
                    let mut dq = Grad::zeros();
                    for k in 0..g.n {
                        dq += g.rows[k] * law.dw_dz[k][j];
                    }
                    for l in 0..NL {
                        if let Some(gi) = global_index(&bodies, l) {
                            sink.add(row0 + gi, col_w + at + c + j, -dq[l]);
                        }
                    }
                }
                c += g.n;
            }
        }
    }
}
