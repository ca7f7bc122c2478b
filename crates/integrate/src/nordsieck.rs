//! The Nordsieck history of the fixed-coefficient BDF (GSTIFF; VSTIFF
//! later), DIFSUB lineage: z_j = h^j y^(j)/j!, j = 0..=k. A step predicts by
//! the Pascal (Taylor) matrix and, once corrected by e, updates
//! z_j += (l_j/l_0)·e with Gear's l-vector; a step-size change by r rescales
//! z_j by r^j (the formula then assumes the past steps were equal: the
//! accuracy cost of fixed coefficients).

/// Nordsieck l-vector of the order-k BDF (l1 = 1): coefficients of
/// Π_{i=1..k} (1 + x/i), divided by the x coefficient.
pub fn bdf_l(k: usize) -> Vec<f64> {
    let k = k.max(1);
    let mut c = vec![1.0];
    for i in 1..=k {
        let mut n = vec![0.0; c.len() + 1];
        for (j, v) in c.iter().enumerate() {
            n[j] += v;
            n[j + 1] += v / i as f64;
        }
        c = n;
    }
    let s = c[1];
    c.iter().map(|v| v / s).collect()
}

pub(crate) fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

pub(crate) struct Nordsieck {
    n: usize,
    /// z[0..=kmax+1]; columns above the order are zero or a candidate for
    /// the order raise.
    pub z: Vec<Vec<f64>>,
    zsave: Vec<Vec<f64>>,
    /// l-vectors by order.
    pub l: Vec<Vec<f64>>,
    /// The step z is scaled with.
    pub h: f64,
    pub order: usize,
}

impl Nordsieck {
    /// Order 1 from (y0, y0') at step h.
    pub fn new(y0: &[f64], yp0: &[f64], h: f64, kmax: usize) -> Self {
        let n = y0.len();
        let mut z = vec![vec![0.0; n]; kmax + 2];
        z[0].copy_from_slice(y0);
        for i in 0..n {
            z[1][i] = h * yp0[i];
        }
        Nordsieck {
            n,
            zsave: z.clone(),
            z,
            l: (0..=kmax + 1).map(bdf_l).collect(),
            h,
            order: 1,
        }
    }

    /// Exact derivatives `derivs[j] = y^(j)(t0)` for j = 0..=order.
    pub fn set_exact(&mut self, derivs: &[Vec<f64>], order: usize) {
        let mut f = 1.0;
        for (j, d) in derivs.iter().enumerate().take(order + 1) {
            if j > 0 {
                f *= self.h / j as f64;
            }
            for i in 0..self.n {
                self.z[j][i] = f * d[i];
            }
        }
        self.order = order;
    }

    /// z_j ← r^j z_j, h ← r·h.
    pub fn rescale(&mut self, r: f64) {
        let mut f = 1.0;
        for j in 1..=self.order {
            f *= r;
            for v in self.z[j].iter_mut() {
                *v *= f;
            }
        }
        self.h *= r;
    }

    /// Save the history and apply the Pascal matrix: z becomes the
    /// prediction at t + h.
    pub fn predict(&mut self) {
        for j in 0..=self.order {
            self.zsave[j].copy_from_slice(&self.z[j]);
        }
        let k = self.order;
        for j in 0..k {
            for i in (j..k).rev() {
                let (lo, hi) = self.z.split_at_mut(i + 1);
                for (a, b) in lo[i].iter_mut().zip(hi[0].iter()) {
                    *a += b;
                }
            }
        }
    }

    pub fn restore(&mut self) {
        for j in 0..=self.order {
            self.z[j].copy_from_slice(&self.zsave[j]);
        }
    }

    /// The corrector's start: y = z_0, y' = z_1/h; its leading coefficient
    /// 1/(h·l_0).
    pub fn start_corrector(&self, y: &mut [f64], yp: &mut [f64]) -> f64 {
        let hinv = 1.0 / self.h;
        for i in 0..self.n {
            y[i] = self.z[0][i];
            yp[i] = self.z[1][i] * hinv;
        }
        1.0 / (self.h * self.l[self.order][0])
    }

    /// Accept the correction `acor` (= l_0·e): z_j += (l_j/l_0)·acor.
    pub fn update(&mut self, acor: &[f64]) {
        let k = self.order;
        let l0 = self.l[k][0];
        for j in 0..=k {
            let lj = self.l[k][j] / l0;
            for i in 0..self.n {
                self.z[j][i] += lj * acor[i];
            }
        }
    }

    /// Local-error constant of order k applied to `acor`: k!·l_k/(k+1).
    pub fn error_constant(&self) -> f64 {
        let k = self.order;
        factorial(k) * self.l[k][k] / (k as f64 + 1.0)
    }

    /// Raise the order: z_{k+1} = l_k e/(k+1) with e = acor/l_0.
    pub fn raise_order(&mut self, acor: &[f64]) {
        let k = self.order;
        let c = self.l[k][k] / (k as f64 + 1.0) / self.l[k][0];
        for i in 0..self.n {
            self.z[k + 1][i] = c * acor[i];
        }
        self.order = k + 1;
    }

    /// Lower the order: drop z_k.
    pub fn lower_order(&mut self) {
        let k = self.order;
        for v in self.z[k].iter_mut() {
            *v = 0.0;
        }
        self.order = k - 1;
    }

    /// Drop every column above order 1 (the fixed-step option).
    pub fn truncate_to_order_one(&mut self) {
        for v in self.z[2..].iter_mut().flatten() {
            *v = 0.0;
        }
        self.order = 1;
    }

    /// The Nordsieck interpolant at `t` within the last step, which ended at
    /// `t_last`: y = Σ z_j s^j, y' = Σ j z_j s^(j−1)/h, s = (t − t_last)/h.
    pub fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) {
        let s = (t - t_last) / self.h;
        for i in 0..self.n {
            let (mut v, mut d, mut p) = (0.0, 0.0, 1.0);
            for j in 0..=self.order {
                v += self.z[j][i] * p;
                if j < self.order {
                    d += (j + 1) as f64 * self.z[j + 1][i] * p;
                }
                p *= s;
            }
            y[i] = v;
            yp[i] = d / self.h;
        }
    }
}
