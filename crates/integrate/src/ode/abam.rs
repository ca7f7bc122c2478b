//! ABAM: Adams–Bashforth–Moulton in PECE mode, variable order 1..12 and
//! variable step, after Shampine & Gordon, *Computer Solution of Ordinary
//! Differential Equations: the Initial Value Problem* (Freeman 1975), ch.
//! 5–7 (their code STEP/DE). The history is the modified divided
//! differences φ_i(n); a step of order k predicts with the k-step
//! Adams–Bashforth formula, evaluates, corrects with the Adams–Moulton
//! formula of order k + 1 (local extrapolation), evaluates again:
//!
//!   ψ_i(n+1) = t_{n+1} − t_{n+1−i},  α_i = h/ψ_i,
//!   β_1 = 1,  β_i = β_{i−1}·ψ_{i−1}(n+1)/ψ_{i−1}(n),  φ*_i = β_i·φ_i(n),
//!   g_{1,q} = 1/q,  g_{i,q} = g_{i−1,q} − α_{i−1}·g_{i−1,q+1},  g_i = g_{i,1},
//!   p = y_n + h Σ_{i≤k} g_i φ*_i,   y_{n+1} = p + h g_{k+1} (f(p) − Σ_{i≤k} φ*_i).
//!
//! The local error is h|g_k − g_{k+1}|·‖f(p) − Σφ*‖; the estimates at
//! orders k−2, k−1, k (and k+1 after k+1 steps of one size) choose the
//! order, and the step doubles, stays, or shrinks to within [0.5, 0.9] as
//! in STEP. Norms are the weighted RMS norm of `OdeParams::weight` at the
//! step's start (STEP's wt). The g_{i,q} are recomputed each step (k ≤ 12,
//! O(k²)) instead of STEP's incremental V/W update; STEP's round-off
//! control (NORND, propagated-rounding compensation) is not done.
//!
//! Start (phase 1): order 1 from the first step of `OdeCore::first_step`
//! (≤ `h0_max`); the order rises by one and the step doubles on every
//! step until the first failure, an order lowering, or `max_order`.

use super::{lipschitz_estimate, ode_stepper, OdeCore, StiffnessMonitor};
use crate::error::IntegrationError;
use crate::events::{Event, Statistics};
use crate::params::OdeParams;
use crate::problem::{OdeProblem, VarClass};
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};

/// Highest order of Shampine–Gordon's STEP.
pub const ABAM_MAX_ORDER: usize = 12;
/// STEP doubles the step at most.
pub const ABAM_MAX_INCREASE: f64 = 2.0;
/// STEP's step ratio bounds when the order-k estimate asks for a cut.
pub const ABAM_MIN_DECREASE: f64 = 0.5;
pub const ABAM_MAX_DECREASE: f64 = 0.9;
/// STEP's test against half the tolerance (p5eps = eps/2).
pub const ABAM_HALF_TOLERANCE: f64 = 0.5;
/// STEP halves the step after a failed error test, drops to order 1 from
/// the third failure in a row, and from the fourth takes the step the
/// estimate asks for when that is below the half.
pub const ABAM_FAILURES_BEFORE_ORDER_ONE: usize = 3;
/// At order 1 the order rises only when the order-2 estimate is below half
/// of the order-1 one; at order 2 it drops when erkm1 ≤ erk/2 (STEP).
pub const ABAM_ORDER_ONE_MARGIN: f64 = 0.5;

/// Real stability boundary h·|λ| of the constant-step PECE pair of order k
/// (index k−1) on y′ = λy, λ < 0. Ours: computed by running this PECE
/// scheme (AB order k predictor, AM order k+1 corrector, one evaluation
/// each) at constant step and bisecting on growth, 5e-3 resolution.
pub const ABAM_STABILITY_BOUNDARY: [f64; 12] = [
    2.01, 2.40, 1.98, 1.45, 1.07, 0.80, 0.60, 0.46, 0.355, 0.28, 0.225, 0.18,
];

/// |γ*_i|, the constant-step Adams–Moulton backward-difference
/// coefficients (γ*_0 = 1, Σ_{j=0}^{i} γ*_j/(i+1−j) = 0): STEP's gstr.
fn moulton_coefficients() -> [f64; ABAM_MAX_ORDER + 2] {
    let mut g = [0.0; ABAM_MAX_ORDER + 2];
    g[0] = 1.0;
    for i in 1..g.len() {
        g[i] = -(0..i).map(|j| g[j] / (i + 1 - j) as f64).sum::<f64>();
    }
    g.map(f64::abs)
}

/// Index bound of the 1-based coefficient arrays (orders up to 12, plus
/// the k+1 and k+2 entries).
const SLOTS: usize = ABAM_MAX_ORDER + 3;

/// ABAM's history and its per-step coefficients (1-based like STEP).
pub struct AbamMethod<'a, P: OdeProblem> {
    pub core: OdeCore<'a, P>,
    kmax: usize,
    /// Order of the next attempt and of the last accepted step.
    k: usize,
    kold: usize,
    /// Steps in a row at the present step size (capped at kold + 1).
    ns: usize,
    ns_attempt: usize,
    hold: f64,
    phase1: bool,
    /// Accepted times, latest first (ψ_i(n) = times[0] − times[i]).
    times: Vec<f64>,
    /// φ_1..φ_{k+2} (index 0 unused) and their copy before the attempt.
    phi: Vec<Vec<f64>>,
    phi_saved: Vec<Vec<f64>>,
    beta: [f64; SLOTS],
    sig: [f64; SLOTS],
    g: [f64; SLOTS],
    gstr: [f64; ABAM_MAX_ORDER + 2],
    /// The prediction p, f(p), and f(p) − Σφ*.
    p: Vec<f64>,
    fp: Vec<f64>,
    diff: Vec<f64>,
    /// Error weights at the step's start.
    wt: Vec<f64>,
    /// The local error of the last attempt (scratch).
    err: Vec<f64>,
    erk: f64,
    erkm1: f64,
    knew: usize,
    h_next: f64,
    monitor: StiffnessMonitor,
    pending: Vec<Event>,
}

/// ABAM under the one step loop.
pub type Abam<'a, P> = Stepper<AbamMethod<'a, P>>;

impl<'a, P: OdeProblem> Abam<'a, P> {
    /// Start at (t0, y0) at order 1. `params.max_order` must be in
    /// 1..=12 (the settings layer rejects others naming it).
    pub fn new(
        problem: &'a mut P,
        params: OdeParams,
        t0: f64,
        y0: &[f64],
    ) -> Result<Self, IntegrationError> {
        if !(1..=ABAM_MAX_ORDER).contains(&params.max_order) {
            return Err(IntegrationError::failure(
                t0,
                format!(
                    "ABAM max_order = {} is outside 1..={ABAM_MAX_ORDER}",
                    params.max_order
                ),
            ));
        }
        let kmax = params.max_order;
        let mut core = OdeCore::new(problem, params, t0, y0)?;
        let h0 = core.first_step(1)?;
        let n = core.size();
        let limits = core.limits(h0);
        let mut method = AbamMethod {
            kmax,
            k: 1,
            kold: 0,
            ns: 0,
            ns_attempt: 0,
            hold: 0.0,
            phase1: true,
            times: Vec::with_capacity(kmax + 2),
            phi: vec![vec![0.0; n]; kmax + 3],
            phi_saved: vec![vec![0.0; n]; kmax + 3],
            beta: [0.0; SLOTS],
            sig: [0.0; SLOTS],
            g: [0.0; SLOTS],
            gstr: moulton_coefficients(),
            p: vec![0.0; n],
            fp: vec![0.0; n],
            diff: vec![0.0; n],
            wt: vec![0.0; n],
            err: vec![0.0; n],
            erk: 0.0,
            erkm1: 0.0,
            knew: 1,
            h_next: h0,
            monitor: StiffnessMonitor::default(),
            pending: Vec::new(),
            core,
        };
        method.start_history(t0);
        Ok(ode_stepper(method, limits, t0))
    }
}

impl<P: OdeProblem> AbamMethod<'_, P> {
    /// Order 1 from the accepted state (start and restart).
    fn start_history(&mut self, t: f64) {
        self.k = 1;
        self.kold = 0;
        self.ns = 0;
        self.hold = 0.0;
        self.phase1 = true;
        self.times.clear();
        self.times.push(t);
        for col in &mut self.phi {
            col.iter_mut().for_each(|v| *v = 0.0);
        }
        self.phi[1].copy_from_slice(&self.core.f_acc);
    }

    /// RMS of v/wt.
    fn rms(&self, v: impl Fn(usize) -> f64) -> f64 {
        let n = self.wt.len().max(1);
        let s: f64 = (0..self.wt.len())
            .map(|i| (v(i) / self.wt[i]).powi(2))
            .sum();
        (s / n as f64).sqrt()
    }

    /// ψ, α, β, σ and g for a step of size h at order k (block 1 of STEP).
    fn coefficients(&mut self, h: f64) {
        let k = self.k;
        let tn = self.times[0];
        let psi_new = |i: usize| h + (tn - self.times[i - 1]);
        let psi_old = |i: usize| tn - self.times[i];
        let mut alpha = [0.0; SLOTS];
        for i in 1..=k {
            alpha[i] = h / psi_new(i);
        }
        self.beta[1] = 1.0;
        for i in 2..=k {
            self.beta[i] = self.beta[i - 1] * psi_new(i - 1) / psi_old(i - 1);
        }
        self.sig[1] = 1.0;
        for i in 1..=k {
            self.sig[i + 1] = i as f64 * alpha[i] * self.sig[i];
        }
        // g_{i,q} for i = 1..k+1, q = 1..k+2−i, updated in place over q.
        let mut gq = [0.0; SLOTS];
        for q in 1..=k + 1 {
            gq[q] = 1.0 / q as f64;
        }
        self.g[1] = gq[1];
        for i in 2..=k + 1 {
            for q in 1..=k + 2 - i {
                gq[q] -= alpha[i - 1] * gq[q + 1];
            }
            self.g[i] = gq[1];
        }
    }

    /// Order and step after an accepted step of size h (block 4 of STEP).
    fn choose_order_and_step(&mut self, h: f64) {
        let k = self.k;
        let mut erk = self.erk;
        if self.knew + 1 == k || k == self.kmax {
            self.phase1 = false;
        }
        let raise = |s: &mut Self, e: f64| {
            if s.k < s.kmax {
                s.k += 1;
                e
            } else {
                erk
            }
        };
        if self.phase1 {
            erk = raise(self, 0.0);
        } else if self.knew + 1 == k {
            self.k -= 1;
            erk = self.erkm1;
        } else if k < self.ns {
            let erkp1 = h * self.gstr[k + 1] * self.rms(|i| self.phi[k + 2][i]);
            if k > 1 {
                if self.erkm1 <= erk.min(erkp1) {
                    self.k -= 1;
                    erk = self.erkm1;
                } else if erkp1 < erk {
                    erk = raise(self, erkp1);
                }
            } else if erkp1 < ABAM_ORDER_ONE_MARGIN * erk {
                erk = raise(self, erkp1);
            }
        }
        let k = self.k;
        self.h_next = if self.phase1 || ABAM_HALF_TOLERANCE >= erk * 2f64.powi(k as i32 + 1) {
            ABAM_MAX_INCREASE * h
        } else if ABAM_HALF_TOLERANCE >= erk {
            h
        } else {
            let r = (ABAM_HALF_TOLERANCE / erk).powf(1.0 / (k as f64 + 1.0));
            h * r.clamp(ABAM_MIN_DECREASE, ABAM_MAX_DECREASE)
        };
    }
}

impl<P: OdeProblem> Method for AbamMethod<'_, P> {
    fn order(&self) -> usize {
        self.k
    }
    fn unknown_classes(&self) -> &[VarClass] {
        &self.core.classes
    }
    /// Block 1–2 of STEP: coefficients, φ → φ*, the Adams–Bashforth
    /// prediction (φ_i becomes Σ_{j≥i} φ*_j).
    fn predict(&mut self, _t: f64, h: f64) {
        let k = self.k;
        self.ns_attempt = if h != self.hold { 0 } else { self.ns };
        if self.ns_attempt <= self.kold {
            self.ns_attempt += 1;
        }
        for i in 1..=k + 2 {
            self.phi_saved[i].copy_from_slice(&self.phi[i]);
        }
        self.coefficients(h);
        let n = self.core.size();
        for i in 1..=k {
            let b = self.beta[i];
            self.phi[i].iter_mut().for_each(|v| *v *= b);
        }
        for l in 0..n {
            self.phi[k + 2][l] = self.phi[k + 1][l];
            self.phi[k + 1][l] = 0.0;
            let mut p = 0.0;
            for i in (1..=k).rev() {
                p += self.g[i] * self.phi[i][l];
                self.phi[i][l] += self.phi[i + 1][l];
            }
            self.p[l] = self.core.y_acc[l] + h * p;
            self.wt[l] = self
                .core
                .params
                .weight(self.core.classes[l], self.core.y_acc[l]);
        }
    }
    /// Evaluate f(p), estimate the errors at orders k−2, k−1, k and correct.
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        work.events.append(&mut self.pending);
        let p = std::mem::take(&mut self.p);
        let mut fp = std::mem::take(&mut self.fp);
        let ok = self.core.rhs_in_attempt(t + h, h, &p, &mut fp, work);
        self.p = p;
        self.fp = fp;
        if !ok {
            self.core.flush_evaluations(work.stats);
            return Ok(false);
        }
        let k = self.k;
        let n = self.core.size();
        for l in 0..n {
            self.diff[l] = self.fp[l] - self.phi[1][l];
        }
        let erkm2 = if k >= 3 {
            h * self.sig[k - 1] * self.gstr[k - 2] * self.rms(|l| self.phi[k - 1][l] + self.diff[l])
        } else {
            0.0
        };
        self.erkm1 = if k >= 2 {
            h * self.sig[k] * self.gstr[k - 1] * self.rms(|l| self.phi[k][l] + self.diff[l])
        } else {
            0.0
        };
        let size = h * self.rms(|l| self.diff[l]);
        self.erk = size * self.sig[k + 1] * self.gstr[k];
        self.knew = k;
        if k >= 3 && self.erkm1.max(erkm2) <= self.erk {
            self.knew = k - 1;
        }
        if k == 2 && self.erkm1 <= ABAM_ORDER_ONE_MARGIN * self.erk {
            self.knew = k - 1;
        }
        let gk1 = h * self.g[k + 1];
        for l in 0..n {
            self.core.y[l] = self.p[l] + gk1 * self.diff[l];
        }
        // The final E of PECE here rather than on acceptance, so that a
        // failed evaluation is a failed attempt (costs one evaluation per
        // rejected step).
        let y = std::mem::take(&mut self.core.y);
        let mut f = std::mem::take(&mut self.core.f);
        let ok = self.core.rhs_in_attempt(t + h, h, &y, &mut f, work);
        self.core.y = y;
        self.core.f = f;
        self.core.flush_evaluations(work.stats);
        Ok(ok)
    }
    fn estimate(&mut self, h: f64, _tol: &Tolerance) -> Estimate {
        let k = self.k;
        let c = h * (self.g[k] - self.g[k + 1]).abs();
        for (e, d) in self.err.iter_mut().zip(&self.diff) {
            *e = c * d;
        }
        self.core.error_norm(&self.err, &self.core.y)
    }
    fn restore(&mut self) {
        let k = self.k;
        for i in 1..=k + 2 {
            std::mem::swap(&mut self.phi[i], &mut self.phi_saved[i]);
        }
        self.core.restore();
    }
    /// Update the differences with f(y) (block 3 of STEP), choose the
    /// next order and step.
    fn accept(
        &mut self,
        t_new: f64,
        h: f64,
        stats: &mut Statistics,
    ) -> Result<(), IntegrationError> {
        let k = self.k;
        let n = self.core.size();
        for l in 0..n {
            self.phi[k + 1][l] = self.core.f[l] - self.phi[1][l];
            self.phi[k + 2][l] = self.phi[k + 1][l] - self.phi[k + 2][l];
            for i in 1..=k {
                self.phi[i][l] += self.phi[k + 1][l];
            }
        }
        let rho = lipschitz_estimate(&self.core.y, &self.core.f, &self.p, &self.fp);
        let boundary = ABAM_STABILITY_BOUNDARY[k - 1];
        if let Some(e) = self
            .monitor
            .record(t_new, h, self.core.params.hmax, rho, boundary, "ABAM")
        {
            self.pending.push(e);
        }
        self.times.insert(0, t_new);
        self.times.truncate(self.kmax + 2);
        self.kold = k;
        self.hold = h;
        self.ns = self.ns_attempt;
        self.choose_order_and_step(h);
        if self.core.accept_state(t_new)? {
            self.start_history(t_new);
            self.h_next = self.core.first_step(1)?;
        }
        self.core.flush_evaluations(stats);
        Ok(())
    }
    fn next_step(&mut self, step: &Accepted, _tol: &Tolerance, _limits: &Limits) -> f64 {
        // A step shortened to land on an output time says nothing against
        // the step the method wanted (unless its estimate asks for less).
        if step.shortened && self.h_next >= step.h {
            self.h_next.max(step.natural)
        } else {
            self.h_next
        }
    }
    /// Block 5 of STEP: halve; order 1 from the third failure in a row;
    /// from the fourth, the step the estimate asks for if smaller.
    fn after_error_failure(&mut self, h: f64, _est: &Estimate, failures: &Failures) -> f64 {
        self.phase1 = false;
        let mut ratio = 0.5;
        if failures.error > ABAM_FAILURES_BEFORE_ORDER_ONE && ABAM_HALF_TOLERANCE < 0.25 * self.erk
        {
            ratio = (ABAM_HALF_TOLERANCE / self.erk).sqrt();
        }
        if failures.error >= ABAM_FAILURES_BEFORE_ORDER_ONE {
            self.knew = 1;
        }
        self.k = self.knew;
        h * ratio
    }
    /// Shampine–Gordon's INTRP: the Adams polynomial of the last step
    /// (order kold + 1, from the updated differences φ_i(n+1) and
    /// ψ_i(n+1) = t_{n+1} − t_{n+1−i}) at t, and its derivative:
    ///   w_{1,q} = 1/q;  γ_j = (t − t_{n+1} + ψ_{j−2})/ψ_{j−1},  η_j = (t − t_{n+1})/ψ_{j−1},
    ///   w_{j,q} = γ_j w_{j−1,q} − η_j w_{j−1,q+1},  g_j = w_{j,1},  ρ_j = γ_j ρ_{j−1},
    ///   y(t) = y_{n+1} + (t − t_{n+1}) Σ g_j φ_j,  y′(t) = Σ ρ_j φ_j.
    /// None within a step that ended in a restart (the history is in
    /// the new coordinates).
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let ki = self.kold + 1;
        if self.kold == 0 || self.times.len() < ki || y.len() != self.core.size() {
            return false;
        }
        let t_start = self.times[1];
        if t < t_start || t > t_last {
            return false;
        }
        let psi = |i: usize| self.times[0] - self.times[i];
        let hi = t - self.times[0];
        let (mut w, mut g, mut rho) = ([0.0; SLOTS], [0.0; SLOTS], [0.0; SLOTS]);
        for (i, wi) in w.iter_mut().enumerate().take(ki + 1).skip(1) {
            *wi = 1.0 / i as f64;
        }
        g[1] = 1.0;
        rho[1] = 1.0;
        let mut term = 0.0;
        for j in 2..=ki {
            let psi_jm1 = psi(j - 1);
            let gamma = (hi + term) / psi_jm1;
            let eta = hi / psi_jm1;
            for i in 1..=ki + 1 - j {
                w[i] = gamma * w[i] - eta * w[i + 1];
            }
            g[j] = w[1];
            rho[j] = gamma * rho[j - 1];
            term = psi_jm1;
        }
        for l in 0..y.len() {
            let (mut v, mut dv) = (0.0, 0.0);
            for i in (1..=ki).rev() {
                v += g[i] * self.phi[i][l];
                dv += rho[i] * self.phi[i][l];
            }
            y[l] = self.core.y_acc[l] + hi * v;
            yp[l] = dv;
        }
        true
    }
    ode_method_state!(own_interpolation);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// γ*: 1, 1/2, 1/12, 1/24, 19/720, 3/160, 863/60480 (HNW I, III.1).
    #[test]
    fn moulton_coefficients_match_the_published_values() {
        let g = moulton_coefficients();
        let published = [
            1.0,
            0.5,
            1.0 / 12.0,
            1.0 / 24.0,
            19.0 / 720.0,
            3.0 / 160.0,
            863.0 / 60480.0,
        ];
        for (i, v) in published.iter().enumerate() {
            assert!((g[i] - v).abs() < 1e-15, "γ*_{i}");
        }
    }
}
