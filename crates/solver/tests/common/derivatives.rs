//! Exact derivatives of the constraint rows against finite differences
//! (the COUPLER and multi-part GCON tests).

use mbsolve_mech::{Sink, System};
use nalgebra::DMatrix;

/// Collects emitted entries into a dense matrix.
pub struct Dense(pub DMatrix<f64>);
impl Sink for Dense {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0[(r, c)] += v;
    }
}

/// Central differences (h = 1e-6) of `f` in each entry of `x`.
pub fn differences(x: &[f64], rows: usize, f: impl Fn(&[f64]) -> Vec<f64>) -> DMatrix<f64> {
    let h = 1e-6;
    let mut out = DMatrix::zeros(rows, x.len());
    let mut xs = x.to_vec();
    for c in 0..x.len() {
        xs[c] = x[c] + h;
        let plus = f(&xs);
        xs[c] = x[c] - h;
        let minus = f(&xs);
        xs[c] = x[c];
        for r in 0..rows {
            out[(r, c)] = (plus[r] - minus[r]) / (2.0 * h);
        }
    }
    out
}

/// Φ_q, ∂(R + Φ_qᵀλ)/∂q and γ of every row against finite differences at
/// (q, u, a, λ, t): relative error ≤ 1e-6 (Jacobians), 1e-5 (γ, a second
/// difference along (q + s u + s²a/2, t + s) with step 1e-4, so that the
/// time terms Φ_qt and Φ_tt are covered too).
pub fn check_derivatives(sys: &System, q: &[f64], u: &[f64], a: &[f64], t: f64) {
    let (n, m) = (sys.nq(), sys.neq());
    let lam: Vec<f64> = (0..m).map(|k| (0.37 * k as f64).cos()).collect();
    let close = |what: &str, x: f64, y: f64, tol: f64| {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}: analytic {x} vs finite difference {y}"
        )
    };
    let phi_at = |q: &[f64], t: f64| {
        let mut out = vec![0.0; m];
        sys.constraints(&mut sys.new_data(), q, t, &mut out);
        out
    };
    let phi = |q: &[f64]| phi_at(q, t);
    let phi_q = differences(q, m, phi);
    let mut data = sys.new_data();
    let mut jp = Dense(DMatrix::zeros(m, n));
    sys.constraint_jacobian(&mut data, q, t, &mut jp, 0, 0, None, None);
    let resid = |q: &[f64]| {
        let mut r = vec![0.0; n];
        sys.body_residual(&mut sys.new_data(), q, u, a, &lam, t, &mut r);
        r
    };
    let r_q = differences(q, n, resid);
    let mut jq = Dense(DMatrix::zeros(n, 2 * n));
    sys.body_jacobian(
        &mut data,
        q,
        u,
        a,
        Some(&lam),
        t,
        &mut jq,
        0,
        Some(0),
        n,
        0.0,
        0.0,
    );
    for c in 0..n {
        for r in 0..m {
            close(
                &format!("Φ_q ({r},{c}) {}", sys.equations[r].name),
                jp.0[(r, c)],
                phi_q[(r, c)],
                1e-6,
            );
        }
        for r in 0..n {
            close(&format!("R_q ({r},{c})"), jq.0[(r, c)], r_q[(r, c)], 1e-6);
        }
    }
    let mut gamma = vec![0.0; m];
    sys.acceleration_rhs(&data, q, u, t, &mut gamma);
    let along = |s: f64| {
        let qs: Vec<f64> = (0..n)
            .map(|k| q[k] + s * u[k] + 0.5 * s * s * a[k])
            .collect();
        phi_at(&qs, t + s)
    };
    let hs = 1e-4;
    let (p0, p1, p2) = (along(-hs), along(0.0), along(hs));
    for k in 0..m {
        let second = (p0[k] - 2.0 * p1[k] + p2[k]) / (hs * hs);
        let expect: f64 = (0..n).map(|c| phi_q[(k, c)] * a[c]).sum::<f64>() - gamma[k];
        close(
            &format!("γ row {k} {}", sys.equations[k].name),
            expect,
            second,
            1e-5,
        );
    }
}
