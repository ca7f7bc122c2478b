//! The sparse partition choice (`choose_partition_sparse`) picks the same
//! dependent coordinates in the same order as the dense elimination with
//! complete pivoting (`choose_partition`), and reports the same dependent
//! row on rank-deficient matrices.

use mbsolve_solver::partition::{choose_partition, choose_partition_sparse};

/// Park–Miller minimal standard generator in [0, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0 * 48271 % 2147483647;
        self.0 as f64 / 2147483647.0
    }
}

/// 300 random sparse matrices (rows ≤ n ≤ 40, density 0.15, a repeated
/// entry in every tenth, a row copied from another in every seventh):
/// identical `Ok` partitions or identical `Err` rows.
#[test]
fn sparse_choice_equals_dense_choice() {
    let mut rng = Lcg(12345);
    let (mut ok, mut deficient) = (0, 0);
    for case in 0..300 {
        let n = 2 + (rng.next() * 39.0) as usize;
        let rows = 1 + (rng.next() * n as f64) as usize;
        let mut entries = Vec::new();
        for r in 0..rows {
            for c in 0..n {
                if rng.next() < 0.15 || c == (r * 7 + case) % n {
                    entries.push((r, c, 2.0 * rng.next() - 1.0));
                }
            }
        }
        if case % 10 == 0 {
            let (r, c, v) = entries[0];
            entries.push((r, c, 0.5 * v));
        }
        if case % 7 == 0 && rows > 1 {
            let copy: Vec<_> = entries
                .iter()
                .filter(|e| e.0 == 0)
                .map(|&(_, c, v)| (rows - 1, c, 3.0 * v))
                .collect();
            entries.retain(|e| e.0 != rows - 1);
            entries.extend(copy);
        }
        let mut dense = vec![0.0; rows * n];
        for &(r, c, v) in &entries {
            dense[r * n + c] += v;
        }
        let want = choose_partition(&mut dense, rows, n);
        let got = choose_partition_sparse(entries, rows, n);
        assert_eq!(got, want, "case {case} ({rows}×{n})");
        if want.is_ok() {
            ok += 1;
        } else {
            deficient += 1;
        }
    }
    println!("{ok} full-rank and {deficient} rank-deficient cases agree");
    assert!(ok > 100 && deficient > 20, "{ok} / {deficient}");
}
