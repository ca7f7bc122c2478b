//! A small dense solve on caller-kept buffers, for the few-unknown Newton
//! iterations of the step loop (user-state rates, solved quantities) that
//! must not allocate (the `no_alloc` tests); nalgebra's LU takes its
//! matrix by value and allocates its permutation.

/// Solves a x = b in place (a: n × n row-major, overwritten by its
/// elimination; b becomes x) by Gaussian elimination with partial
/// pivoting. Returns det(a), or None at an exactly zero pivot (singular,
/// as nalgebra's `LU::solve` reports it).
pub fn solve_in_place(a: &mut [f64], b: &mut [f64], n: usize) -> Option<f64> {
    let mut det = 1.0;
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))
            .unwrap_or(k);
        if a[p * n + k] == 0.0 {
            return None;
        }
        if p != k {
            for c in 0..n {
                a.swap(k * n + c, p * n + c);
            }
            b.swap(k, p);
            det = -det;
        }
        let pivot = a[k * n + k];
        det *= pivot;
        for i in k + 1..n {
            let f = a[i * n + k] / pivot;
            if f == 0.0 {
                continue;
            }
            for c in k + 1..n {
                a[i * n + c] -= f * a[k * n + c];
            }
            b[i] -= f * b[k];
        }
    }
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|c| a[k * n + c] * b[c]).sum();
        b[k] = (b[k] - s) / a[k * n + k];
    }
    Some(det)
}

#[cfg(test)]
mod tests {
    use super::solve_in_place;

    /// A 3 × 3 system needing a row swap (zero leading entry): x and the
    /// determinant against the hand-computed values; a singular matrix
    /// (two equal rows) is reported.
    #[test]
    fn solves_with_pivoting_and_reports_singular() {
        // [0 2 1; 1 1 0; 2 0 3] x = [7, 3, 11] has x = (1, 2, 3)
        // (0+4+3, 1+2+0, 2+0+9); det = 0·3 − 2·3 + 1·(−2) = −8.
        let mut a = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 3.0];
        let mut b = [7.0, 3.0, 11.0];
        let det = solve_in_place(&mut a, &mut b, 3).expect("nonsingular");
        assert!((det + 8.0).abs() < 1e-14, "det {det}");
        for (x, want) in b.iter().zip([1.0, 2.0, 3.0]) {
            assert!((x - want).abs() < 1e-14, "{b:?}");
        }
        let mut s = [1.0, 2.0, 1.0, 2.0];
        let mut r = [1.0, 1.0];
        assert_eq!(solve_in_place(&mut s, &mut r, 2), None);
    }
}
