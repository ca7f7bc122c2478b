//! Sparse matrices with a fixed pattern and a sparse LU that reuses its
//! symbolic analysis (faer). The pattern is recorded on the first assembly;
//! later assemblies must emit the same (row, col) sequence and only add
//! values, so nothing is allocated in the step loop.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par};

/// Collects entries in emission order; after the first `finish` each
/// emission slot maps straight to its CSC value.
#[derive(Debug, Default)]
pub struct SlotAssembler {
    n: usize,
    recording: bool,
    triplets: Vec<(usize, usize, f64)>,
    slot_rc: Vec<(u32, u32)>,
    slot_nz: Vec<usize>,
    cursor: usize,
    mismatch: bool,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    pub values: Vec<f64>,
    symbolic: Option<SymbolicSparseColMat<usize>>,
    /// Incremented whenever the pattern is (re)built.
    pub pattern_version: u64,
}

impl SlotAssembler {
    pub fn new(n: usize) -> Self {
        SlotAssembler {
            n,
            recording: true,
            ..Default::default()
        }
    }
    pub fn dim(&self) -> usize {
        self.n
    }
    pub fn begin(&mut self) {
        self.cursor = 0;
        self.mismatch = false;
        if self.recording {
            self.triplets.clear();
        } else {
            self.values.iter_mut().for_each(|v| *v = 0.0);
        }
    }
    #[inline]
    pub fn add(&mut self, r: usize, c: usize, v: f64) {
        if self.recording {
            self.triplets.push((r, c, v));
            return;
        }
        match self.slot_rc.get(self.cursor) {
            Some(&(sr, sc)) if sr as usize == r && sc as usize == c => {
                self.values[self.slot_nz[self.cursor]] += v;
            }
            _ => self.mismatch = true,
        }
        self.cursor += 1;
    }
    /// Returns false if the emitted pattern differed from the recorded one;
    /// the assembler then re-records and the caller must assemble again.
    pub fn finish(&mut self) -> bool {
        if !self.recording {
            if self.mismatch || self.cursor != self.slot_rc.len() {
                self.recording = true;
                return false;
            }
            return true;
        }
        let n = self.n;
        let mut order: Vec<usize> = (0..self.triplets.len()).collect();
        order.sort_by_key(|&k| (self.triplets[k].1, self.triplets[k].0));
        self.col_ptr = vec![0; n + 1];
        self.row_idx.clear();
        self.values.clear();
        self.slot_nz = vec![0; self.triplets.len()];
        let mut last = None;
        for &k in &order {
            let (r, c, v) = self.triplets[k];
            if last != Some((r, c)) {
                self.row_idx.push(r);
                self.values.push(0.0);
                self.col_ptr[c + 1] += 1;
                last = Some((r, c));
            }
            let nz = self.values.len() - 1;
            self.values[nz] += v;
            self.slot_nz[k] = nz;
        }
        for c in 0..n {
            self.col_ptr[c + 1] += self.col_ptr[c];
        }
        self.slot_rc = self
            .triplets
            .iter()
            .map(|&(r, c, _)| (r as u32, c as u32))
            .collect();
        self.symbolic = Some(SymbolicSparseColMat::new_checked(
            n,
            n,
            self.col_ptr.clone(),
            None,
            self.row_idx.clone(),
        ));
        self.recording = false;
        self.pattern_version += 1;
        true
    }
    pub fn nnz(&self) -> usize {
        self.values.len()
    }
    fn matrix(&self) -> SparseColMatRef<'_, usize, f64> {
        SparseColMatRef::new(
            self.symbolic.as_ref().expect("finished").as_ref(),
            &self.values,
        )
    }
    /// y = A x (for residual checks and condition estimates).
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for c in 0..self.n {
            for k in self.col_ptr[c]..self.col_ptr[c + 1] {
                y[self.row_idx[k]] += self.values[k] * x[c];
            }
        }
    }
    /// For a singular matrix: the first row (in order) that depends on the
    /// rows before it and the first such column, by modified Gram–Schmidt
    /// on a dense copy (relative tolerance 1e-10). None when nothing is
    /// dependent at that tolerance or the matrix is too large (n > 3000)
    /// for a dense diagnosis.
    pub fn dependent_row_and_column(&self) -> Option<(Option<usize>, Option<usize>)> {
        if self.n > 3000 {
            return None;
        }
        let d = self.to_dense();
        let first_dependent = |vecs: &mut dyn Iterator<Item = Vec<f64>>| {
            let mut basis: Vec<Vec<f64>> = Vec::new();
            for (k, mut v) in vecs.enumerate() {
                let n0 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                for _ in 0..2 {
                    for b in &basis {
                        let p: f64 = b.iter().zip(&v).map(|(x, y)| x * y).sum();
                        v.iter_mut().zip(b).for_each(|(x, y)| *x -= p * y);
                    }
                }
                let nr = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                if n0 == 0.0 || nr <= 1e-10 * n0 {
                    return Some(k);
                }
                v.iter_mut().for_each(|x| *x /= nr);
                basis.push(v);
            }
            None
        };
        let row = first_dependent(&mut d.iter().cloned());
        let col = first_dependent(&mut (0..self.n).map(|c| d.iter().map(|r| r[c]).collect()));
        (row.is_some() || col.is_some()).then_some((row, col))
    }

    /// The singular-matrix diagnosis as text: "UNKNOWN (equation EQ
    /// depends on the equations before it)", else the unknown that came out
    /// non-finite, else "(factorization failed)". `eq` and `var` name rows
    /// and columns.
    pub fn describe_singular(
        &self,
        nonfinite: Option<usize>,
        eq: impl Fn(usize) -> String,
        var: impl Fn(usize) -> String,
    ) -> String {
        match self.dependent_row_and_column() {
            Some((row, col)) => format!(
                "{} (equation {} depends on the equations before it)",
                col.map_or("?".into(), &var),
                row.map_or("?".into(), &eq)
            ),
            None => nonfinite.map_or("(factorization failed)".into(), var),
        }
    }

    /// Dense copy (small problems and tests only).
    pub fn to_dense(&self) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; self.n]; self.n];
        for c in 0..self.n {
            for k in self.col_ptr[c]..self.col_ptr[c + 1] {
                d[self.row_idx[k]][c] += self.values[k];
            }
        }
        d
    }
}

/// The linear system could not be solved: the matrix is singular to working
/// precision. `row` is the first unknown that came out non-finite.
#[derive(Clone, Debug, PartialEq)]
pub struct Singular {
    pub row: usize,
}

/// Sparse LU: symbolic analysis once per pattern, numeric factorization per
/// Jacobian update, symbolic re-analysis when a factorization fails.
#[derive(Default)]
pub struct SparseLu {
    symbolic: Option<SymbolicLu<usize>>,
    numeric: NumericLu<usize, f64>,
    mem: Option<MemBuffer>,
    pattern_version: u64,
    factored: bool,
    pub factorizations: u64,
    pub symbolic_factorizations: u64,
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SparseLu(factorizations: {})", self.factorizations)
    }
}

impl SparseLu {
    pub fn new() -> Self {
        Self::default()
    }

    fn analyse(&mut self, a: &SlotAssembler) -> Result<(), Singular> {
        let sym = factorize_symbolic_lu(a.matrix().symbolic(), LuSymbolicParams::default())
            .map_err(|_| Singular { row: 0 })?;
        let req = StackReq::any_of(&[
            sym.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
            sym.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        self.mem = Some(MemBuffer::new(req));
        self.symbolic = Some(sym);
        self.pattern_version = a.pattern_version;
        self.symbolic_factorizations += 1;
        Ok(())
    }

    /// Factorize `a`. Returns Ok(true) if a symbolic re-analysis was needed
    /// after a failed numeric factorization (the seeds' "symbolic
    /// refactorization").
    pub fn factor(&mut self, a: &SlotAssembler) -> Result<bool, Singular> {
        let mut refactored = false;
        if self.symbolic.is_none() || self.pattern_version != a.pattern_version {
            self.analyse(a)?;
        }
        for attempt in 0..2 {
            let sym = self.symbolic.as_ref().unwrap();
            let stack = MemStack::new(self.mem.as_mut().unwrap());
            let ok = sym
                .factorize_numeric_lu(
                    &mut self.numeric,
                    a.matrix(),
                    Par::Seq,
                    stack,
                    Default::default(),
                )
                .is_ok();
            self.factorizations += 1;
            if ok {
                self.factored = true;
                return Ok(refactored);
            }
            if attempt == 0 {
                self.analyse(a)?;
                refactored = true;
            }
        }
        self.factored = false;
        Err(Singular { row: 0 })
    }

    /// Solve in place; a non-finite result means the matrix was singular.
    pub fn solve(&mut self, rhs: &mut [f64]) -> Result<(), Singular> {
        if !self.factored {
            return Err(Singular { row: 0 });
        }
        let sym = self.symbolic.as_ref().unwrap();
        let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(sym, &self.numeric);
        let n = rhs.len();
        let stack = MemStack::new(self.mem.as_mut().unwrap());
        let mat = MatMut::from_column_major_slice_mut(rhs, n, 1);
        lu.solve_in_place_with_conj(Conj::No, mat, Par::Seq, stack);
        match rhs.iter().position(|v| !v.is_finite()) {
            Some(row) => Err(Singular { row }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_reuses_pattern() {
        // 3×3 with a zero diagonal (needs pivoting): [[0,2,1],[1,0,0],[3,1,4]].
        let mut a = SlotAssembler::new(3);
        let fill = |a: &mut SlotAssembler, s: f64| {
            a.begin();
            for (r, c, v) in [
                (0, 1, 2.0),
                (0, 2, 1.0),
                (1, 0, 1.0),
                (2, 0, 3.0),
                (2, 1, 1.0),
                (2, 2, 4.0),
            ] {
                a.add(r, c, v * s);
            }
            a.finish()
        };
        assert!(fill(&mut a, 1.0));
        let mut lu = SparseLu::new();
        lu.factor(&a).unwrap();
        let mut b = vec![3.0, 1.0, 8.0]; // x = (1, 1, 1)
        lu.solve(&mut b).unwrap();
        for v in &b {
            assert!((v - 1.0).abs() < 1e-14);
        }
        assert!(fill(&mut a, 2.0));
        lu.factor(&a).unwrap();
        let mut b = vec![3.0, 1.0, 8.0];
        lu.solve(&mut b).unwrap();
        for v in &b {
            assert!((v - 0.5).abs() < 1e-14);
        }
        assert_eq!(lu.symbolic_factorizations, 1);
        assert_eq!(lu.factorizations, 2);
    }

    #[test]
    fn singular_matrix_is_reported() {
        let mut a = SlotAssembler::new(2);
        a.begin();
        for (r, c, v) in [(0, 0, 1.0), (0, 1, 2.0), (1, 0, 2.0), (1, 1, 4.0)] {
            a.add(r, c, v);
        }
        a.finish();
        let mut lu = SparseLu::new();
        let r = lu.factor(&a).and_then(|_| {
            let mut b = vec![1.0, 1.0];
            lu.solve(&mut b)
        });
        assert!(r.is_err());
    }

    #[test]
    fn pattern_change_is_detected() {
        let mut a = SlotAssembler::new(2);
        a.begin();
        a.add(0, 0, 1.0);
        a.add(1, 1, 1.0);
        assert!(a.finish());
        a.begin();
        a.add(0, 0, 1.0);
        a.add(1, 0, 1.0);
        assert!(!a.finish());
    }
}
