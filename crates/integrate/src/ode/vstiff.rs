//! VSTIFF: VODE-style variable-coefficient BDF of orders 1..=5 in Nordsieck
//! form on an explicit ODE y′ = f(t, y) (Brown, Byrne & Hindmarsh, "VODE: a
//! variable-coefficient ODE solver", SIAM J. Sci. Stat. Comput. 10, 1989;
//! "BBH" below). MotionSolve's default stiff integrator of the ODE form
//! (seeds: `Param_Transient`, `integrator_type = VSTIFF`, `max_order` 5).
//!
//! What makes it VODE rather than GSTIFF (gstiff.rs, LSODE lineage):
//! - **Variable coefficients.** The corrected Nordsieck polynomial is the
//!   predicted one plus Δ·L(x), x = (t − t_n)/h, with
//!   L(x) = Π_{j=1}^{q−1} (1 + x/ξ_j) · (1 + c*·x), ξ_j = (t_n − t_{n−j})/h
//!   from the *actual* past steps, so the polynomial interpolates the past
//!   solution values on the real grid after a step change (GSTIFF's fixed
//!   l-vector assumes equal past steps). The last factor is chosen so that
//!   L′(0) = l₁ = Σ_{j=1}^{q} 1/j, the constant-step value: the fixed-leading-
//!   coefficient form of BBH §2, which keeps the Newton matrix I − γJ,
//!   γ = h/l₁, independent of the step history.
//! - **Jacobian kept apart from its LU** (BBH §3): the saved J is re-used to
//!   re-form and refactor I − γJ when only γ moved, so a step change costs a
//!   factorization, not a Jacobian. The reuse rules are the named constants
//!   below (VODE's CCMAX, MSBP, MSBJ).
//!
//! The local-error test constants are the constant-step ones (LSODE's
//! TESCO: error = ‖Δ‖/(q+1), order q−1 from z_q, order q+1 from the change
//! in Δ); VODE's TQ(1..3) generalize them to unequal steps, which matters
//! only within q steps of a step change, where our estimate is approximate.
//!
//! The step loop is the one of stepper.rs with VODE's step and order
//! rules (stiff.rs); the corrector and its Jacobian/LU reuse are shared
//! with MSTIFF (stiff_core.rs).

use super::stiff::{StiffMethod, StiffStepper};
use super::stiff_core::{Solve, StiffCore, CONIT_NUMERATOR};
pub use super::stiff_core::{CCMAX, MSBJ, MSBP};
use crate::error::IntegrationError;
use crate::nordsieck::{factorial, Nordsieck};
use crate::problem::OdeProblem;

/// VSTIFF's highest order (VODE's BDF maximum; seeds: max_order 5).
pub const VSTIFF_MAX_ORDER: usize = 5;

/// VSTIFF's history: the Nordsieck array with the FLC l-vector.
pub struct NordsieckBdf {
    nord: Nordsieck,
    qmax: usize,
    /// Accepted steps, most recent first (VODE's TAU).
    tau: Vec<f64>,
    /// The FLC l-vector of the present attempt (l₀ = 1).
    l: Vec<f64>,
    /// Δ = y_n − y_pred of the attempt, and of the last accepted step.
    acor: Vec<f64>,
    acor_prev: Vec<f64>,
    /// Step and order of `acor_prev` (order 0: none).
    acor_prev_h: f64,
    acor_prev_order: usize,
    r: Vec<f64>,
    ynew: Vec<f64>,
    h: f64,
}

/// VSTIFF: VODE-style variable-coefficient BDF on an explicit ODE.
pub type Vstiff<P> = StiffStepper<P, NordsieckBdf>;

impl<P: OdeProblem> Vstiff<P> {
    /// Start from exact derivatives `derivs[j] = y^(j)(t0)` at `order` with
    /// the step h and all past steps equal to h (order measurements free
    /// of start-up error).
    pub fn set_exact_history(&mut self, derivs: &[Vec<f64>], order: usize, h: f64) {
        let s = &mut self.method;
        let order = order.clamp(1, s.qmax);
        let m = &mut s.method;
        m.nord.h = h;
        m.nord.set_exact(derivs, order);
        m.tau = vec![h; m.qmax];
        s.h = h;
        s.qwait = order + 1;
        s.started = true;
        self.h = h;
    }
}

impl NordsieckBdf {
    /// The FLC l-vector of order q for the step h and the past steps `tau`
    /// (missing past steps taken equal to h): coefficients of
    /// Π_{j=1}^{q−1}(1 + x/ξ_j)·(1 + c*·x), c* = Σ_{j≤q} 1/j − Σ_{j<q} 1/ξ_j.
    pub fn flc_l(q: usize, h: f64, tau: &[f64], l: &mut Vec<f64>) {
        l.clear();
        l.resize(q + 1, 0.0);
        l[0] = 1.0;
        let mut deg = 0;
        let mul = |l: &mut Vec<f64>, deg: &mut usize, c: f64| {
            for i in (1..=*deg + 1).rev() {
                l[i] += c * l[i - 1];
            }
            *deg += 1;
        };
        let mut hsum = h;
        let mut inv_sum = 0.0;
        for j in 1..q {
            let xi = hsum / h;
            mul(l, &mut deg, 1.0 / xi);
            inv_sum += 1.0 / xi;
            hsum += tau.get(j - 1).copied().unwrap_or(h);
        }
        let harmonic: f64 = (1..=q).map(|j| 1.0 / j as f64).sum();
        mul(l, &mut deg, harmonic - inv_sum);
    }
}

impl<P: OdeProblem> StiffMethod<P> for NordsieckBdf {
    const NAME: &'static str = "VSTIFF";
    /// VODE's BDF stops at order 5: BDF 6 has a stability angle of only
    /// ≈ 18° and BDF 7+ are not zero-stable.
    const MAX_ORDER: usize = VSTIFF_MAX_ORDER;
    const MAX_ORDER_REASON: &'static str =
        "VODE's BDF formulas stop at order 5 (Brown, Byrne & Hindmarsh 1989)";
    fn build(core: &StiffCore<P>) -> Self {
        let n = core.n;
        let params = &core.params;
        let h = params.h0_max.min(params.hmax);
        NordsieckBdf {
            nord: Nordsieck::new(&core.y, &core.yp, h, params.max_order),
            qmax: params.max_order,
            tau: Vec::new(),
            l: vec![1.0, 1.0],
            acor: vec![0.0; n],
            acor_prev: vec![0.0; n],
            acor_prev_h: 0.0,
            acor_prev_order: 0,
            r: vec![0.0; n],
            ynew: vec![0.0; n],
            h,
        }
    }
    fn order(&self) -> usize {
        self.nord.order
    }
    fn set_step(&mut self, _core: &mut StiffCore<P>, h: f64) {
        if h != self.nord.h {
            self.nord.rescale(h / self.nord.h);
        }
        self.h = h;
    }
    fn attempt(
        &mut self,
        core: &mut StiffCore<P>,
        h: f64,
        t_new: f64,
    ) -> Result<Option<f64>, IntegrationError> {
        let q = self.nord.order;
        Self::flc_l(q, h, &self.tau, &mut self.l);
        let l1 = self.l[1];
        self.nord.predict();
        for i in 0..core.n {
            self.r[i] = self.nord.z[0][i] - self.nord.z[1][i] / l1;
            self.ynew[i] = self.nord.z[0][i];
        }
        // Converged when the corrections' share of the error estimate
        // ‖Δ‖/(q+1) is below CONIT = 0.5/(q+2).
        let conv_scale = (q as f64 + 2.0) / (CONIT_NUMERATOR * (q as f64 + 1.0));
        if core.newton(t_new, h, &mut self.ynew, h / l1, &self.r, conv_scale)? == Solve::Failed {
            return Ok(None);
        }
        for i in 0..core.n {
            self.acor[i] = self.ynew[i] - self.nord.z[0][i];
        }
        Ok(Some(core.norm(|i| self.acor[i]) / (q as f64 + 1.0)))
    }
    fn worst(&self, core: &StiffCore<P>) -> usize {
        core.worst(|i| self.acor[i])
    }
    /// Order q−1 from z_q (unchanged by the prediction), q+1 from the
    /// change in Δ since the last step at this order (LSODE's TESCO(1), (3)).
    fn neighbours(&self, core: &StiffCore<P>, up: bool) -> (Option<f64>, Option<f64>) {
        let q = self.nord.order;
        let down = (q > 1).then(|| core.norm(|i| self.nord.z[q][i]) * factorial(q - 1));
        let up = (up && self.acor_prev_order == q).then(|| {
            let ratio = (self.h / self.acor_prev_h).powi(q as i32 + 1);
            core.norm(|i| self.acor[i] - ratio * self.acor_prev[i]) / (q as f64 + 2.0)
        });
        (down, up)
    }
    fn restore(&mut self) {
        self.nord.restore();
    }
    /// z_j += l_j·Δ; y = z_0, y′ = z_1/h.
    fn accept(&mut self, core: &mut StiffCore<P>, h: f64) {
        let q = self.nord.order;
        for j in 0..=q {
            let lj = self.l[j];
            for i in 0..core.n {
                self.nord.z[j][i] += lj * self.acor[i];
            }
        }
        self.tau.insert(0, h);
        self.tau.truncate(self.qmax + 1);
        for i in 0..core.n {
            core.y[i] = self.nord.z[0][i];
            core.yp[i] = self.nord.z[1][i] / h;
        }
        std::mem::swap(&mut self.acor, &mut self.acor_prev);
        self.acor_prev_h = h;
        self.acor_prev_order = q;
    }
    /// Raise: z_{q+1} = l_q·Δ/(q+1) from the last accepted Δ; lower: drop z_q.
    fn set_order(&mut self, core: &StiffCore<P>, q_new: usize) {
        let q = self.nord.order;
        if q_new > q {
            let c = self.l[q] / (q as f64 + 1.0);
            for i in 0..core.n {
                self.nord.z[q + 1][i] = c * self.acor_prev[i];
            }
            self.nord.order = q + 1;
        } else {
            while self.nord.order > q_new.max(1) {
                self.nord.lower_order();
            }
        }
    }
    fn restart(&mut self, core: &StiffCore<P>, h: f64) {
        self.nord = Nordsieck::new(&core.y, &core.yp, h, self.qmax);
        self.h = h;
        self.tau.clear();
        self.acor_prev_order = 0;
    }
    /// The Nordsieck polynomial at t (VODE's DVINDY).
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        self.nord.interpolate(t_last, t, y, yp);
        true
    }
}
