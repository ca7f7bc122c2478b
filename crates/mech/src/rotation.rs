//! Euler-parameter kinematics (Haug, "Computer-Aided Kinematics and Dynamics",
//! ch. 6 and 11). p = (e0, e1, e2, e3). The rotation matrix is the homogeneous
//! quadratic form A(p) = E(p) G(p)ᵀ, so every component of A(p)·a' is a
//! quadratic form pᵀ S p: its gradient is linear in p and its Hessian constant.
//! All derivatives below follow from that one fact.

use nalgebra::{Matrix3, Matrix4, SMatrix, Vector3, Vector4};

pub type Mat34 = SMatrix<f64, 3, 4>;

/// A(p) in homogeneous form (equals the rotation matrix when |p| = 1).
pub fn rot(p: &Vector4<f64>) -> Matrix3<f64> {
    let (e0, e1, e2, e3) = (p[0], p[1], p[2], p[3]);
    Matrix3::new(
        e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3,
        2.0 * (e1 * e2 - e0 * e3),
        2.0 * (e1 * e3 + e0 * e2),
        2.0 * (e1 * e2 + e0 * e3),
        e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3,
        2.0 * (e2 * e3 - e0 * e1),
        2.0 * (e1 * e3 - e0 * e2),
        2.0 * (e2 * e3 + e0 * e1),
        e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3,
    )
}

/// K(a', w) = ∂²(wᵀ A(p) a')/∂p² (constant in p, bilinear in a' and w).
/// From wᵀA a' = (e0² − eᵀe)(w·a') + 2(w·e)(a'·e) + 2e0 e·(a'×w):
/// K = 2 [[w·a', (a'×w)ᵀ], [a'×w, w a'ᵀ + a' wᵀ − (w·a') I]].
pub fn k_mat(a: &Vector3<f64>, w: &Vector3<f64>) -> Matrix4<f64> {
    let wa = w.dot(a);
    let c = a.cross(w);
    let mut out = Matrix4::zeros();
    out[(0, 0)] = 2.0 * wa;
    for r in 0..3 {
        out[(0, r + 1)] = 2.0 * c[r];
        out[(r + 1, 0)] = 2.0 * c[r];
        for k in 0..3 {
            let diag = if r == k { wa } else { 0.0 };
            out[(r + 1, k + 1)] = 2.0 * (w[r] * a[k] + a[r] * w[k] - diag);
        }
    }
    out
}

/// B(p, a') = ∂(A(p) a')/∂p, 3×4, linear in p. From
/// A a' = (e0² − eᵀe) a' + 2e(eᵀa') + 2e0 e×a':
/// B = 2 [e0 a' + e×a', (eᵀa') I + e a'ᵀ − a' eᵀ − e0 ã'].
pub fn b_mat(p: &Vector4<f64>, a: &Vector3<f64>) -> Mat34 {
    let e0 = p[0];
    let e = Vector3::new(p[1], p[2], p[3]);
    let ea = e.dot(a);
    let c0 = e0 * a + e.cross(a);
    // ã: the cross-product matrix of a', ã x = a' × x.
    let at = Matrix3::new(0.0, -a[2], a[1], a[2], 0.0, -a[0], -a[1], a[0], 0.0);
    let mut b = Mat34::zeros();
    for r in 0..3 {
        b[(r, 0)] = 2.0 * c0[r];
        for k in 0..3 {
            let diag = if r == k { ea } else { 0.0 };
            b[(r, k + 1)] = 2.0 * (diag + e[r] * a[k] - a[r] * e[k] - e0 * at[(r, k)]);
        }
    }
    b
}

/// G(p) = [−e, −ẽ + e0 I] (3×4): body angular velocity ω' = 2 G(p) ṗ.
pub fn g_mat(p: &Vector4<f64>) -> Mat34 {
    let (e0, e1, e2, e3) = (p[0], p[1], p[2], p[3]);
    Mat34::new(-e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0)
}

/// E(p) = [−e, ẽ + e0 I] (3×4): global angular velocity ω = 2 E(p) ṗ.
pub fn e_mat(p: &Vector4<f64>) -> Mat34 {
    let (e0, e1, e2, e3) = (p[0], p[1], p[2], p[3]);
    Mat34::new(-e1, e0, -e3, e2, -e2, e3, e0, -e1, -e3, -e2, e1, e0)
}

/// T(w) with G(p)ᵀ w = T(w) p.
pub fn t_mat(w: &Vector3<f64>) -> Matrix4<f64> {
    Matrix4::new(
        0.0, -w[0], -w[1], -w[2], w[0], 0.0, w[2], -w[1], w[1], -w[2], 0.0, w[0], w[2], w[1],
        -w[0], 0.0,
    )
}

/// Euler parameters of a rotation matrix (Shepperd's method), e0 ≥ 0.
pub fn params_from_matrix(r: &Matrix3<f64>) -> Vector4<f64> {
    let q = nalgebra::UnitQuaternion::from_matrix(r);
    let q = q.into_inner();
    let mut p = Vector4::new(q.w, q.i, q.j, q.k);
    if p[0] < 0.0 {
        p = -p;
    }
    p / p.norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vector4<f64> {
        let p = Vector4::new(0.7, -0.3, 0.5, 0.2);
        p / p.norm()
    }

    #[test]
    fn rot_matches_quaternion_matrix() {
        let p = sample();
        let q = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            p[0], p[1], p[2], p[3],
        ));
        assert!((rot(&p) - q.to_rotation_matrix().into_inner()).norm() < 1e-14);
        assert!((params_from_matrix(&rot(&p)) - p).norm() < 1e-12);
    }

    #[test]
    fn b_and_k_are_exact_derivatives() {
        // Non-unit p on purpose: the formulas hold for the homogeneous form.
        let p = Vector4::new(0.9, -0.2, 0.4, 0.3);
        let a = Vector3::new(0.3, -1.2, 0.7);
        let w = Vector3::new(-0.4, 0.8, 1.1);
        let h = 1e-6;
        let b = b_mat(&p, &a);
        let k = k_mat(&a, &w);
        for j in 0..4 {
            let mut dp = Vector4::zeros();
            dp[j] = h;
            let fd = (rot(&(p + dp)) * a - rot(&(p - dp)) * a) / (2.0 * h);
            assert!((fd - b.column(j)).norm() < 1e-8, "B column {j}");
            let fdk = (b_mat(&(p + dp), &a).transpose() * w - b_mat(&(p - dp), &a).transpose() * w)
                / (2.0 * h);
            assert!((fdk - k.column(j)).norm() < 1e-8, "K column {j}");
        }
        // Homogeneity: B p = 2 A a.
        assert!((b * p - 2.0 * rot(&p) * a).norm() < 1e-12);
    }

    #[test]
    fn g_e_identities() {
        let p = sample();
        let a = Vector4::new(0.1, 0.5, -0.3, 0.8);
        // G(p) a = −G(a) p, G(p) p = 0, Gᵀ w = T(w) p, A = E Gᵀ.
        assert!((g_mat(&p) * a + g_mat(&a) * p).norm() < 1e-14);
        assert!((g_mat(&p) * p).norm() < 1e-14);
        let w = Vector3::new(0.2, -0.7, 0.4);
        assert!((g_mat(&p).transpose() * w - t_mat(&w) * p).norm() < 1e-14);
        assert!((e_mat(&p) * g_mat(&p).transpose() - rot(&p)).norm() < 1e-14);
    }
}

/// U(n) with E(p)ᵀ n = U(n) p.
pub fn u_mat(n: &Vector3<f64>) -> Matrix4<f64> {
    Matrix4::new(
        0.0, -n[0], -n[1], -n[2], n[0], 0.0, -n[2], n[1], n[1], n[2], 0.0, -n[0], n[2], -n[1],
        n[0], 0.0,
    )
}

#[cfg(test)]
mod u_tests {
    use super::*;
    #[test]
    fn u_matches_e_transpose() {
        let p = Vector4::new(0.3, -0.5, 0.7, 0.1);
        let n = Vector3::new(0.4, 0.2, -0.9);
        assert!((e_mat(&p).transpose() * n - u_mat(&n) * p).norm() < 1e-14);
    }
}
