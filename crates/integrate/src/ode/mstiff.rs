//! MSTIFF: Cash's Modified Extended Backward Differentiation Formulae
//! (MEBDF) of orders 1..=9 on an explicit ODE y′ = f(t, y) (J. R. Cash,
//! "The integration of stiff initial value problems in ODEs using modified
//! extended backward differentiation formulae", Comp. & Maths. with Appls.
//! 9, 1983; code: Cash & Considine, "An MEBDF code for stiff initial value
//! problems", ACM TOMS 18, 1992). Seeds: `Param_Transient`,
//! `integrator_type = MSTIFF`, `max_order` 9.
//!
//! Order p = k + 1 (k ≥ 1) takes three stages on a uniform grid, all with
//! the one iteration matrix I − h b̂ J (the "modification" of Cash 1983):
//! 1. ȳ_{n+1} by the k-step BDF: ȳ_{n+1} + Σ_{j=1}^{k} â_j y_{n+1−j} = h b̂ f(ȳ_{n+1});
//! 2. ȳ_{n+2} by the same BDF one step further, ȳ_{n+1} among its values;
//! 3. y_{n+1} + Σ_{j=1}^{k} α_j y_{n+1−j}
//!    = h[b̂ f(y_{n+1}) + (β₀ − b̂) f(ȳ_{n+1}) + β₁ f(ȳ_{n+2})],
//!    (α, β₀, β₁) the extended BDF of order k + 1 (exact for degree ≤ k+1).
//!
//! Cash (1983) shows these are A-stable up to order 4 and A(α)-stable up to
//! order 9, which is the seeds' MSTIFF maximum: `max_order` 1..=9 is
//! accepted, more is rejected naming it. Order 1 is backward Euler (k = 0
//! has no extended formula), the start-up order.
//!
//! Coefficients are computed, not tabulated: the moment conditions give
//! (â, b̂) and (α, β₀, β₁), and the error constant C_p of the whole
//! three-stage scheme comes from the power series of one step on
//! y′ = λy with exact past values e^{−jz}, z = hλ (y_{n+1} − 1 = C_p z^{p+1} + …; the stage errors
//! enter through the f(ȳ) terms, so C_p is not the extended formula's own
//! constant). The unit tests check that the series vanishes to order p.
//!
//! Local error: C_p·∇^{p+1}y_{n+1} (backward differences on the uniform
//! grid estimate h^{p+1}y^{(p+1)}), in the weighted RMS norm of
//! `OdeParams::weight`. A step change re-samples the history from its
//! interpolating polynomial of degree p+1 (equivalent to rescaling a
//! Nordsieck array). Step and order choice and the Jacobian/LU reuse are
//! VSTIFF's (vstiff.rs: VODE's rules and constants).

use super::stiff::{StiffMethod, StiffStepper};
use super::stiff_core::{DenseLu, Solve, StiffCore, CONIT_NUMERATOR};
use crate::error::IntegrationError;
use crate::problem::OdeProblem;

/// MSTIFF's highest order (Cash 1983: A(α)-stable up to order 9; seeds).
pub const MSTIFF_MAX_ORDER: usize = 9;

/// One order's formulas.
#[derive(Clone, Debug)]
pub struct MebdfFormula {
    /// Order p of the scheme.
    pub order: usize,
    /// The k-step BDF of stages 1 and 2: y_0 + Σ a[j−1] y_{−j} = h b f_0.
    pub a: Vec<f64>,
    pub b: f64,
    /// The extended BDF of stage 3 (empty at order 1):
    /// y_0 + Σ alpha[j−1] y_{−j} = h(beta0 f_0 + beta1 f_{+1}).
    pub alpha: Vec<f64>,
    pub beta0: f64,
    pub beta1: f64,
    /// Leading error constant C_p of the whole scheme on y′ = λy.
    pub error_constant: f64,
    /// Series coefficients of y_{n+1} − 1 (exact past values e^{−jz}) for z^0..=z^{p+1} (the first
    /// p+1 vanish for a scheme of order p).
    pub defect: Vec<f64>,
}

/// Solve the moment conditions Σ_c coef_c·s_c^m = Σ_d deriv_d·m·s_d^(m−1),
/// m = 0..N−1, for the unknown coefficients: `nodes` are the value
/// abscissae with unknown coefficients (the value at 0 has coefficient 1),
/// `dnodes` the derivative abscissae.
fn moments(nodes: &[f64], dnodes: &[f64]) -> Vec<f64> {
    let n = nodes.len() + dnodes.len();
    let mut a = vec![0.0; n * n];
    let mut rhs = vec![0.0; n];
    for m in 0..n {
        for (c, &s) in nodes.iter().enumerate() {
            a[m * n + c] = s.powi(m as i32);
        }
        for (d, &s) in dnodes.iter().enumerate() {
            a[m * n + nodes.len() + d] = if m == 0 {
                0.0
            } else {
                -(m as f64) * s.powi(m as i32 - 1)
            };
        }
        rhs[m] = if m == 0 { -1.0 } else { 0.0 };
    }
    DenseLu::solve_small(&a, &mut rhs).expect("the moment matrix of distinct nodes is regular");
    rhs
}

/// Truncated power series in z.
fn series_mul(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; a.len()];
    for i in 0..a.len() {
        for j in 0..a.len() - i {
            c[i + j] += a[i] * b[j];
        }
    }
    c
}
fn series_exp(c: f64, len: usize) -> Vec<f64> {
    let mut s = vec![1.0; len];
    for i in 1..len {
        s[i] = s[i - 1] * c / i as f64;
    }
    s
}

impl MebdfFormula {
    pub fn new(p: usize) -> Self {
        let k = p.saturating_sub(1).max(1);
        let back: Vec<f64> = (1..=k).map(|j| -(j as f64)).collect();
        let bdf = moments(&back, &[0.0]);
        let (a, b) = (bdf[..k].to_vec(), bdf[k]);
        let (alpha, beta0, beta1) = if p >= 2 {
            let e = moments(&back, &[0.0, 1.0]);
            (e[..k].to_vec(), e[k], e[k + 1])
        } else {
            (Vec::new(), 0.0, 0.0)
        };
        // One step on y′ = λy with exact past values e^{−jz}.
        let len = p + 2;
        let z = {
            let mut z = vec![0.0; len];
            z[1] = 1.0;
            z
        };
        // 1/(1 − b z) = Σ (b z)^i.
        let inv: Vec<f64> = (0..len).map(|i| b.powi(i as i32)).collect();
        let combine = |terms: &[(f64, Vec<f64>)]| {
            let mut s = vec![0.0; len];
            for (c, v) in terms {
                for i in 0..len {
                    s[i] -= c * v[i];
                }
            }
            s
        };
        let y1: Vec<f64> = {
            let terms: Vec<(f64, Vec<f64>)> = (1..=k)
                .map(|j| (a[j - 1], series_exp(-(j as f64), len)))
                .collect();
            series_mul(&combine(&terms), &inv)
        };
        let y = if p == 1 {
            y1
        } else {
            let mut terms = vec![(a[0], y1.clone())];
            terms.extend((2..=k).map(|j| (a[j - 1], series_exp(-(j as f64 - 1.0), len))));
            let y2 = series_mul(&combine(&terms), &inv);
            let terms: Vec<(f64, Vec<f64>)> = (1..=k)
                .map(|j| (alpha[j - 1], series_exp(-(j as f64), len)))
                .collect();
            let mut r = combine(&terms);
            let stage: Vec<f64> = (0..len)
                .map(|i| (beta0 - b) * y1[i] + beta1 * y2[i])
                .collect();
            let zs = series_mul(&z, &stage);
            for i in 0..len {
                r[i] += zs[i];
            }
            series_mul(&r, &inv)
        };
        // The exact value at the new point (s = 0) is e^0 = 1.
        let defect: Vec<f64> = (0..len)
            .map(|i| y[i] - if i == 0 { 1.0 } else { 0.0 })
            .collect();
        MebdfFormula {
            order: p,
            a,
            b,
            alpha,
            beta0,
            beta1,
            error_constant: defect[p + 1],
            defect,
        }
    }
}

/// Lagrange weights at x of the nodes 0, −1, …, −d.
fn lagrange(d: usize, x: f64, w: &mut Vec<f64>) {
    w.clear();
    for i in 0..=d {
        let xi = -(i as f64);
        let mut v = 1.0;
        for m in 0..=d {
            if m != i {
                let xm = -(m as f64);
                v *= (x - xm) / (xi - xm);
            }
        }
        w.push(v);
    }
}

fn binomial(m: usize, i: usize) -> f64 {
    (0..i).fold(1.0, |acc, j| acc * (m - j) as f64 / (j + 1) as f64)
}

/// MSTIFF's history: past values on a uniform grid and the stage vectors.
pub struct MebdfHistory {
    formulas: Vec<MebdfFormula>,
    p: usize,
    /// back[j] = y at t − j·h_hist (back[0] the accepted y).
    back: Vec<Vec<f64>>,
    h_hist: f64,
    ybar1: Vec<f64>,
    ybar2: Vec<f64>,
    ynew: Vec<f64>,
    pred1: Vec<f64>,
    r1: Vec<f64>,
    r2: Vec<f64>,
    r3: Vec<f64>,
    lw: Vec<f64>,
    /// γ = h·b̂ of the attempt (y′ of the accepted y is (y − r3)/γ).
    gamma: f64,
}

/// MSTIFF: Cash's MEBDF on an explicit ODE.
pub type Mstiff<P> = StiffStepper<P, MebdfHistory>;

impl<P: OdeProblem> Mstiff<P> {
    /// Start from exact past values `back[j] = y(t0 − j·h)` at `order` with
    /// the step h (order measurements free of start-up error).
    pub fn set_exact_history(&mut self, back: &[Vec<f64>], order: usize, h: f64) {
        let s = &mut self.method;
        let m = &mut s.method;
        for (slot, v) in m.back.iter_mut().zip(back) {
            slot.copy_from_slice(v);
        }
        m.p = order.clamp(1, s.qmax);
        m.h_hist = h;
        s.h = h;
        s.qwait = m.p + 1;
        s.started = true;
        self.h = h;
    }
}

impl MebdfHistory {
    /// ∇^m at the new point: y_new + Σ_{i=1}^{m} (−1)^i C(m, i) back[i−1].
    fn nabla<P: OdeProblem>(&self, core: &StiffCore<P>, m: usize) -> f64 {
        core.norm(|c| {
            let mut s = self.ynew[c];
            for i in 1..=m {
                let sign = if i % 2 == 1 { -1.0 } else { 1.0 };
                s += sign * binomial(m, i) * self.back[i - 1][c];
            }
            s
        })
    }

    /// |C_p|·‖∇^{p+1} y_new‖ for the order p.
    fn estimate<P: OdeProblem>(&self, core: &StiffCore<P>, p: usize) -> f64 {
        self.formulas[p].error_constant.abs() * self.nabla(core, p + 1)
    }

    /// The history polynomial of degree d through back[0..=d] at t + x·h
    /// into out.
    fn polynomial(back: &[Vec<f64>], d: usize, x: f64, lw: &mut Vec<f64>, out: &mut [f64]) {
        lagrange(d, x, lw);
        out.iter_mut().for_each(|v| *v = 0.0);
        for (w, b) in lw.iter().zip(back) {
            for i in 0..out.len() {
                out[i] += w * b[i];
            }
        }
    }

    /// The three stages at step h; false: a corrector failure.
    fn stages<P: OdeProblem>(
        &mut self,
        core: &mut StiffCore<P>,
        h: f64,
        t_new: f64,
    ) -> Result<bool, IntegrationError> {
        let n = core.n;
        let f = &self.formulas[self.p];
        let k = f.a.len();
        let d = self.p.min(self.back.len() - 1);
        self.gamma = h * f.b;
        let gamma = self.gamma;
        // Converged when the corrections' share of the error estimate is
        // below CONIT = 0.5/(p+2), the share at least VSTIFF's 1/(p+1).
        let conv_scale = {
            let p = self.p as f64;
            f.error_constant.abs().max(1.0 / (p + 1.0)) * (p + 2.0) / CONIT_NUMERATOR
        };
        // Stage 1: the k-step BDF from the history's extrapolation.
        for i in 0..n {
            self.r1[i] = -(0..k).map(|j| f.a[j] * self.back[j][i]).sum::<f64>();
        }
        Self::polynomial(&self.back, d, 1.0, &mut self.lw, &mut self.pred1);
        self.ybar1.copy_from_slice(&self.pred1);
        if core.newton(t_new, h, &mut self.ybar1, gamma, &self.r1, conv_scale)? == Solve::Failed {
            return Ok(false);
        }
        if self.p == 1 {
            self.ynew.copy_from_slice(&self.ybar1);
            self.r3.copy_from_slice(&self.r1);
            return Ok(true);
        }
        let f = &self.formulas[self.p];
        // Stage 2, one step further, ȳ_{n+1} among the values; the guess is
        // the extrapolation shifted by stage 1's correction.
        for i in 0..n {
            self.r2[i] = -(f.a[0] * self.ybar1[i]
                + (1..k).map(|j| f.a[j] * self.back[j - 1][i]).sum::<f64>());
        }
        Self::polynomial(&self.back, d, 2.0, &mut self.lw, &mut self.ybar2);
        for i in 0..n {
            self.ybar2[i] += self.ybar1[i] - self.pred1[i];
        }
        if core.newton(t_new + h, h, &mut self.ybar2, gamma, &self.r2, conv_scale)? == Solve::Failed
        {
            return Ok(false);
        }
        // Stage 3 with f(ȳ) = (ȳ − r)/γ from the converged stage equations.
        let f = &self.formulas[self.p];
        for i in 0..n {
            let f1 = (self.ybar1[i] - self.r1[i]) / gamma;
            let f2 = (self.ybar2[i] - self.r2[i]) / gamma;
            self.r3[i] = -(0..k).map(|j| f.alpha[j] * self.back[j][i]).sum::<f64>()
                + h * ((f.beta0 - f.b) * f1 + f.beta1 * f2);
        }
        self.ynew.copy_from_slice(&self.ybar1);
        Ok(core.newton(t_new, h, &mut self.ynew, gamma, &self.r3, conv_scale)? == Solve::Converged)
    }
}

impl<P: OdeProblem> StiffMethod<P> for MebdfHistory {
    fn order(&self) -> usize {
        self.p
    }
    const NAME: &'static str = "MSTIFF";
    /// Cash (1983): the MEBDF are A(α)-stable only up to order 9.
    const MAX_ORDER: usize = MSTIFF_MAX_ORDER;
    const MAX_ORDER_REASON: &'static str =
        "Cash's MEBDF are A(alpha)-stable only up to order 9 (Cash 1983)";
    fn build(core: &StiffCore<P>) -> Self {
        let n = core.n;
        let pmax = core.params.max_order;
        let mut method = MebdfHistory {
            formulas: (0..=pmax + 1)
                .map(|p| MebdfFormula::new(p.max(1)))
                .collect(),
            p: 1,
            back: vec![vec![0.0; n]; pmax + 3],
            h_hist: 0.0,
            ybar1: vec![0.0; n],
            ybar2: vec![0.0; n],
            ynew: vec![0.0; n],
            pred1: vec![0.0; n],
            r1: vec![0.0; n],
            r2: vec![0.0; n],
            r3: vec![0.0; n],
            lw: Vec::new(),
            gamma: 1.0,
        };
        let h = core.params.h0_max.min(core.params.hmax);
        StiffMethod::<P>::restart(&mut method, core, h);
        method
    }
    /// Re-sample the history on the grid of step h from its interpolating
    /// polynomial of degree p+1 through back[0..=p+1].
    fn set_step(&mut self, _core: &mut StiffCore<P>, h: f64) {
        if h == self.h_hist {
            return;
        }
        let d = (self.p + 1).min(self.back.len() - 1);
        let ratio = h / self.h_hist;
        let old: Vec<Vec<f64>> = self.back[..=d].to_vec();
        for j in 1..self.back.len() {
            Self::polynomial(
                &old,
                d,
                -(j as f64) * ratio,
                &mut self.lw,
                &mut self.back[j],
            );
        }
        self.h_hist = h;
    }
    fn attempt(
        &mut self,
        core: &mut StiffCore<P>,
        h: f64,
        t_new: f64,
    ) -> Result<Option<f64>, IntegrationError> {
        if !self.stages(core, h, t_new)? {
            return Ok(None);
        }
        Ok(Some(self.estimate(core, self.p)))
    }
    fn worst(&self, core: &StiffCore<P>) -> usize {
        core.worst(|i| self.ynew[i] - self.back[0][i])
    }
    /// |C_{p∓1}|·‖∇^{p+1∓1} y_new‖ (the history holds p + 3 values).
    fn neighbours(&self, core: &StiffCore<P>, up: bool) -> (Option<f64>, Option<f64>) {
        let p = self.p;
        let down = (p > 1).then(|| self.estimate(core, p - 1));
        let up = (up && p + 1 < self.formulas.len()).then(|| self.estimate(core, p + 1));
        (down, up)
    }
    /// The history is changed only on acceptance.
    fn restore(&mut self) {}
    fn accept(&mut self, core: &mut StiffCore<P>, _h: f64) {
        self.back.rotate_right(1);
        self.back[0].copy_from_slice(&self.ynew);
        core.y.copy_from_slice(&self.ynew);
        for i in 0..core.n {
            core.yp[i] = (self.ynew[i] - self.r3[i]) / self.gamma;
        }
    }
    fn set_order(&mut self, _core: &StiffCore<P>, p: usize) {
        self.p = p.max(1);
    }
    /// Order 1 from (y, f): back[j] = y − j·h·f, the Taylor line (so the
    /// first error estimate is backward Euler's ‖Δ‖/2).
    fn restart(&mut self, core: &StiffCore<P>, h: f64) {
        for (j, b) in self.back.iter_mut().enumerate() {
            for i in 0..core.n {
                b[i] = core.y[i] - j as f64 * h * core.yp[i];
            }
        }
        self.h_hist = h;
        self.p = 1;
    }
    /// MSTIFF's dense output: the polynomial of degree p through the last
    /// p + 1 accepted values back[0..=p] on the uniform grid of the last
    /// step (the history the next step's stage 1 extrapolates), and its
    /// derivative. After a restart back[] is the order-1 Taylor line.
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let d = self.p.min(self.back.len() - 1);
        if self.h_hist <= 0.0 || d + 1 > LAGRANGE_MAX_NODES {
            return false;
        }
        let x = (t - t_last) / self.h_hist;
        let (mut w, mut dw) = ([0.0; LAGRANGE_MAX_NODES], [0.0; LAGRANGE_MAX_NODES]);
        lagrange_with_derivative(d, x, &mut w, &mut dw);
        for i in 0..y.len() {
            let (mut v, mut dv) = (0.0, 0.0);
            for (j, b) in self.back[..=d].iter().enumerate() {
                v += w[j] * b[i];
                dv += dw[j] * b[i];
            }
            y[i] = v;
            yp[i] = dv / self.h_hist;
        }
        true
    }
}

/// Nodes of the interpolating polynomial: orders up to MSTIFF_MAX_ORDER
/// + 1 (the history holds p + 3 values).
const LAGRANGE_MAX_NODES: usize = MSTIFF_MAX_ORDER + 3;

/// Lagrange weights w_i(x) of the nodes 0, −1, …, −d and their
/// derivatives w_i′(x) (product rule, no division by x − x_m, so exact at
/// the nodes too).
fn lagrange_with_derivative(d: usize, x: f64, w: &mut [f64], dw: &mut [f64]) {
    for i in 0..=d {
        let xi = -(i as f64);
        let denominator: f64 = (0..=d).filter(|&m| m != i).map(|m| xi + m as f64).product();
        let factor = |m: usize| x + m as f64;
        w[i] = (0..=d).filter(|&m| m != i).map(factor).product::<f64>() / denominator;
        dw[i] = (0..=d)
            .filter(|&k| k != i)
            .map(|k| {
                (0..=d)
                    .filter(|&m| m != i && m != k)
                    .map(factor)
                    .product::<f64>()
            })
            .sum::<f64>()
            / denominator;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Backward Euler and the order-2 MEBDF by hand: BDF1 a = [−1], b = 1,
    /// C₁ = 1/2; the extended formula of k = 1 is
    /// y₀ − y₋₁ = h(3/2 f₀ − 1/2 f₁)... exact for degree ≤ 2.
    #[test]
    fn low_order_coefficients() {
        let f1 = MebdfFormula::new(1);
        assert!((f1.a[0] + 1.0).abs() < 1e-14 && (f1.b - 1.0).abs() < 1e-14);
        assert!((f1.error_constant - 0.5).abs() < 1e-14);
        let f2 = MebdfFormula::new(2);
        assert!((f2.alpha[0] + 1.0).abs() < 1e-13);
        assert!((f2.beta0 - 1.5).abs() < 1e-13 && (f2.beta1 + 0.5).abs() < 1e-13);
    }

    /// Every order's three-stage scheme is exact to z^p on y′ = λy and has a
    /// nonzero z^{p+1} term: the scheme has order p exactly.
    #[test]
    fn schemes_have_their_order() {
        for p in 1..=MSTIFF_MAX_ORDER {
            let f = MebdfFormula::new(p);
            for (i, d) in f.defect.iter().enumerate().take(p + 1) {
                assert!(d.abs() < 1e-9, "order {p}: z^{i} coefficient {d:e}");
            }
            assert!(
                f.error_constant.abs() > 1e-6,
                "order {p}: C = {:e}",
                f.error_constant
            );
        }
    }
}
