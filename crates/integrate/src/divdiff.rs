//! The modified-divided-difference history of the variable-coefficient BDF
//! (WSTIFF; DSTIFF later), as in DASSL (Brenan, Campbell & Petzold,
//! *Numerical Solution of Initial-Value Problems in DAEs*, SIAM 1996,
//! §5.2–5.4):
//!
//! * φ_1(n) = y_n, φ_i(n) = ψ_1(n)…ψ_{i−1}(n)·[y_n, …, y_{n−i+1}]
//!   (divided differences over the actual past times), with
//!   ψ_i(n+1) = t_{n+1} − t_{n+1−i};
//! * a new step h rescales φ_i by β_i = Π_{j<i} ψ_j(n+1)/ψ_j(n) (φ*), and
//!   the predictor is the divided-difference interpolant through the last
//!   k+1 solutions, y^P = Σ φ*_i, y'^P = Σ γ_i φ*_i, γ_i = γ_{i−1} + α_{i−1}/h,
//!   α_i = h/ψ_i — exact for polynomials of degree k whatever the steps;
//! * σ_i = h^i (i−1)!/(ψ_1…ψ_i) scale the error terms.

pub(crate) struct DividedDifferences {
    n: usize,
    /// φ_1 … φ_{KMAX+2} stored as phi[0] … phi[KMAX+1]; phi[0] = y_n.
    pub phi: Vec<Vec<f64>>,
    /// ψ_i, α_i, β_i, γ_i, σ_i for i = 1..=k+1 (index 0 unused).
    pub psi: Vec<f64>,
    pub alpha: Vec<f64>,
    pub beta: Vec<f64>,
    pub gamma: Vec<f64>,
    pub sigma: Vec<f64>,
    /// ψ_{k+1}(n) before this step overwrote it (restored on failure).
    psi_kp1_old: f64,
    /// β_{k+2} and σ_{k+2} of this step, for the order k+1 estimate.
    pub beta_kp2: f64,
    pub sigma_kp2: f64,
    /// Steps taken at constant h and k (capped at k_old + 2): the
    /// coefficients are recomputed only while the history is not uniform.
    ns: usize,
    /// First φ index scaled by this step (1-based, as `ns+1`).
    nsp1: usize,
    /// Order and step of the last accepted step.
    pub order_old: usize,
    pub h_old: f64,
}

impl DividedDifferences {
    /// Order 1 from (y0, y0') at step h.
    pub fn new(y0: &[f64], yp0: &[f64], h: f64, kmax: usize) -> Self {
        let n = y0.len();
        let mut phi = vec![vec![0.0; n]; kmax + 2];
        phi[0].copy_from_slice(y0);
        for i in 0..n {
            phi[1][i] = h * yp0[i];
        }
        let mut psi = vec![0.0; kmax + 2];
        psi[1] = h;
        DividedDifferences {
            n,
            phi,
            psi,
            alpha: vec![0.0; kmax + 2],
            beta: vec![0.0; kmax + 2],
            gamma: vec![0.0; kmax + 2],
            sigma: vec![0.0; kmax + 2],
            psi_kp1_old: 0.0,
            beta_kp2: 1.0,
            sigma_kp2: 0.0,
            ns: 0,
            nsp1: 1,
            order_old: 0,
            h_old: 0.0,
        }
    }

    /// Exact past solutions `past[j] = y(t0 − j·h)`, j = 0..=order+1, at
    /// the constant step h.
    pub fn set_exact(&mut self, past: &[Vec<f64>], h: f64, order: usize) {
        // Backward differences ∇^j y_0 = φ_{j+1} on a uniform grid.
        let mut diff: Vec<Vec<f64>> = past[..order + 2].to_vec();
        for j in 0..=order + 1 {
            if j < self.phi.len() {
                self.phi[j].copy_from_slice(&diff[0]);
            }
            for m in 0..diff.len() - 1 - j {
                for i in 0..self.n {
                    diff[m][i] -= diff[m + 1][i];
                }
            }
        }
        for i in 1..self.psi.len() {
            self.psi[i] = i as f64 * h;
        }
        self.h_old = h;
        self.order_old = order;
        self.ns = 0;
    }

    /// Coefficients of a step h at order k from the step history (BCP
    /// §5.2), then φ → φ*.
    pub fn begin_step(&mut self, h: f64, k: usize) {
        if h != self.h_old || k != self.order_old {
            self.ns = 0;
        }
        self.ns = (self.ns + 1).min(self.order_old + 2);
        self.nsp1 = self.ns + 1;
        self.psi_kp1_old = self.psi[k + 1];
        if k + 1 >= self.ns {
            self.beta[1] = 1.0;
            self.alpha[1] = 1.0;
            self.gamma[1] = 0.0;
            self.sigma[1] = 1.0;
            let mut psi_new = h;
            for i in 2..=k + 1 {
                let psi_old = self.psi[i - 1];
                self.psi[i - 1] = psi_new;
                self.beta[i] = self.beta[i - 1] * psi_new / psi_old;
                psi_new = psi_old + h;
                self.alpha[i] = h / psi_new;
                self.sigma[i] = (i - 1) as f64 * self.sigma[i - 1] * self.alpha[i];
                self.gamma[i] = self.gamma[i - 1] + self.alpha[i - 1] / h;
            }
            self.psi[k + 1] = psi_new;
        }
        // ψ_{k+2}(n+1) = ψ_{k+1}(n) + h; meaningful once k+1 steps were
        // taken at order k (the caller guards its use).
        let psi_kp2 = self.psi_kp1_old + h;
        self.beta_kp2 = self.beta[k + 1] * self.psi[k + 1] / self.psi_kp1_old;
        self.sigma_kp2 = (k + 1) as f64 * self.sigma[k + 1] * h / psi_kp2;
        for j in self.nsp1..=k + 1 {
            let b = self.beta[j];
            for v in self.phi[j - 1].iter_mut() {
                *v *= b;
            }
        }
    }

    /// Undo `begin_step(h, k)` after a failed attempt: φ* → φ, ψ(n+1) → ψ(n).
    pub fn restore(&mut self, h: f64, k: usize) {
        for j in self.nsp1..=k + 1 {
            let b = 1.0 / self.beta[j];
            for v in self.phi[j - 1].iter_mut() {
                *v *= b;
            }
        }
        for i in 2..=k + 1 {
            self.psi[i - 1] = self.psi[i] - h;
        }
        self.psi[k + 1] = self.psi_kp1_old;
    }

    /// Divided-difference predictor of order k into y, y'.
    pub fn predict(&self, k: usize, y: &mut [f64], yp: &mut [f64]) {
        y.copy_from_slice(&self.phi[0]);
        yp.iter_mut().for_each(|v| *v = 0.0);
        for j in 2..=k + 1 {
            let g = self.gamma[j];
            let p = &self.phi[j - 1];
            for i in 0..self.n {
                y[i] += p[i];
                yp[i] += g * p[i];
            }
        }
    }

    /// α_s = −(1 + 1/2 + … + 1/k): the fixed leading coefficient is −α_s/h.
    pub fn alpha_s(k: usize) -> f64 {
        -(1..=k).map(|i| 1.0 / i as f64).sum::<f64>()
    }

    /// Variable-step error constant ck of the order-k formula (BCP §5.3):
    /// max(|α_{k+1} + α_s − α⁰|, α_{k+1}).
    pub fn error_constant(&self, k: usize) -> f64 {
        let alpha0: f64 = -(1..=k).map(|i| self.alpha[i]).sum::<f64>();
        (self.alpha[k + 1] + Self::alpha_s(k) - alpha0)
            .abs()
            .max(self.alpha[k + 1])
    }

    /// φ(n) → φ(n+1) with the converged correction e at order k.
    pub fn update(&mut self, k: usize, kmax: usize, e: &[f64]) {
        if k < kmax {
            self.phi[k + 1].copy_from_slice(e);
        }
        for i in 0..self.n {
            self.phi[k][i] += e[i];
        }
        for j in (0..k).rev() {
            let (lo, hi) = self.phi.split_at_mut(j + 1);
            for (a, b) in lo[j].iter_mut().zip(hi[0].iter()) {
                *a += b;
            }
        }
    }

    /// The interpolating polynomial of the last step (DASSL's DDATRP) at
    /// `t`, the step having ended at `t_last`: y = Σ c_j φ_j, y' = Σ d_j φ_j.
    pub fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) {
        let dt = t - t_last;
        y.copy_from_slice(&self.phi[0]);
        yp.iter_mut().for_each(|v| *v = 0.0);
        let (mut c, mut d, mut gamma) = (1.0, 0.0, dt / self.psi[1]);
        for j in 2..=self.order_old + 1 {
            d = d * gamma + c / self.psi[j - 1];
            c *= gamma;
            gamma = (dt + self.psi[j - 1]) / self.psi[j];
            let p = &self.phi[j - 1];
            for i in 0..self.n {
                y[i] += c * p[i];
                yp[i] += d * p[i];
            }
        }
    }
}
