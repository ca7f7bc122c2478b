//! DIFF statements: user states (explicit y' = FUNCTION, or IMPLICIT
//! FUNCTION(y, y', …) = 0), read by DIF(id) and DIF1(id).

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_expr::ExprStateFunction;
use mbsolve_model::{Diff, ElementRef, Id, StateFunction};
use std::sync::Arc;
use variables::{PendingFunction, Unresolved};

use super::variables;

impl Builder<'_> {
    /// DIFF/id, IC = y0[, y0'], FUNCTION = e[, IMPLICIT][, STATIC_HOLD].
    pub(super) fn diff(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &["IC", "FUNCTION", "IMPLICIT", "STATIC_HOLD", "ROUTINE"],
            &[],
        )?;
        self.define(Space::Diff, id, st.pos, &a.label)?;
        let ic = a.numbers_range("IC", 1, 2)?.unwrap_or_else(|| vec![0.0]);
        let implicit = a.flag("IMPLICIT")?;
        let static_hold = a.flag("STATIC_HOLD")?;
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let expr = self.compile(e, &label)?;
        let k = self.model.diffs.len();
        let function = self.function_or_pending(
            expr,
            e,
            &label,
            |file, x, t, l| PendingFunction::diff(file, k, x, t, l),
            Arc::new(Unresolved) as Arc<dyn StateFunction>,
            |x| ExprStateFunction::new(x).map(|f| Arc::new(f) as Arc<dyn StateFunction>),
        )?;
        a.finish()?;
        self.model.diffs.push(Diff {
            id,
            function,
            implicit,
            ic: ic[0],
            ic_rate: ic.get(1).copied(),
            static_hold,
        });
        self.source(ElementRef::Diff(id), st.pos);
        Ok(())
    }
}

use crate::error::Pos;
use mbsolve_expr::Expr;
use mbsolve_model::{Array, ArrayKind, LinearSystem, Matrix};
use std::collections::HashMap;

impl Builder<'_> {
    /// ARRAY/id[, IC | U | X | Y][, SIZE = n][, NUMBERS = …][, VARIABLES = …].
    pub(super) fn array(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &["IC", "U", "X", "Y", "SIZE", "NUMBERS", "VARIABLES"],
            &[],
        )?;
        self.define(Space::Array, id, st.pos, &a.label)?;
        let mut kind = ArrayKind::Numbers;
        for (flag, k) in [
            ("IC", ArrayKind::Ic),
            ("U", ArrayKind::U),
            ("X", ArrayKind::X),
            ("Y", ArrayKind::Y),
        ] {
            if a.flag(flag)? {
                if kind != ArrayKind::Numbers {
                    return Err(a.err_here("say at most one of IC, U, X or Y"));
                }
                kind = k;
            }
        }
        let size = a.integer("SIZE")?;
        if let Some(n) = size.filter(|n| *n <= 0) {
            return Err(a.err(
                a.pos_of("SIZE"),
                format!("SIZE must be positive, found {n}"),
            ));
        }
        let size = size.map(|n| n as usize);
        let numbers = a
            .numbers_range("NUMBERS", 1, usize::MAX)?
            .unwrap_or_default();
        let mut variables = Vec::new();
        if let Some(list) = a.text("VARIABLES")? {
            let pos = a.pos_of("VARIABLES");
            for t in list.split(',') {
                match crate::args::parse_id(t) {
                    Some(v) if v > 0 => {
                        self.refer(Space::Variable, v, pos, &a.label, "VARIABLES: VARIABLE");
                        variables.push(v);
                    }
                    _ => {
                        return Err(
                            a.err(pos, format!("bad VARIABLE id '{}' in VARIABLES", t.trim()))
                        )
                    }
                }
            }
        }
        let given = match kind {
            ArrayKind::U => variables.len(),
            _ => numbers.len(),
        };
        let wrong = match kind {
            ArrayKind::U => !numbers.is_empty() || variables.is_empty(),
            ArrayKind::X | ArrayKind::Y => !numbers.is_empty() || !variables.is_empty(),
            _ => !variables.is_empty(),
        };
        if wrong {
            return Err(a.err_here(format!(
                "an ARRAY{} takes {}",
                if kind == ArrayKind::Numbers {
                    String::new()
                } else {
                    format!(" of type {}", kind.name())
                },
                match kind {
                    ArrayKind::U => "VARIABLES = id, … (and SIZE)",
                    ArrayKind::X | ArrayKind::Y => "SIZE only (its values are states or outputs)",
                    _ => "NUMBERS = … (and SIZE)",
                }
            )));
        }
        if let (Some(n), true) = (size, given > 0) {
            if n != given {
                return Err(a.err(
                    a.pos_of("SIZE"),
                    format!("SIZE = {n} but {given} values are given"),
                ));
            }
        }
        a.finish()?;
        self.model.arrays.push(Array {
            id,
            kind,
            size,
            numbers,
            variables,
        });
        self.source(ElementRef::Array(id), st.pos);
        Ok(())
    }

    /// MATRIX/id, FULL = RORDER | CORDER, ROWS, COLUMNS, VALUES, or
    /// SPARSE, ROWS, COLUMNS, I, J, VALUES. FILE = (values read from a
    /// file) is rejected by name.
    pub(super) fn matrix(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &[
                "FULL", "SPARSE", "ROWS", "COLUMNS", "VALUES", "I", "J", "FILE", "NAME",
            ],
            &[],
        )?;
        self.define(Space::Matrix, id, st.pos, &a.label)?;
        if a.has("FILE") {
            return Err(a.err(
                a.pos_of("FILE"),
                "FILE = (matrix values read from a file) is not supported yet; give FULL or SPARSE with VALUES",
            ));
        }
        let full = a.word("FULL")?;
        let sparse = a.flag("SPARSE")?;
        if full.is_some() == sparse {
            return Err(a.err_here("say exactly one of FULL = RORDER | CORDER or SPARSE"));
        }
        let dim = |a: &mut Args, key: &str| -> Result<usize, AdmError> {
            match a.integer(key)? {
                Some(n) if n > 0 => Ok(n as usize),
                Some(n) => Err(a.err(a.pos_of(key), format!("{key} must be positive, found {n}"))),
                None => Err(a.err_here(format!("missing {key} ="))),
            }
        };
        let rows = dim(&mut a, "ROWS")?;
        let columns = dim(&mut a, "COLUMNS")?;
        // The model stores a matrix dense: rows × columns numbers are
        // allocated whatever VALUES holds, so an absurd size is refused
        // before it is allocated (or overflows).
        if rows
            .checked_mul(columns)
            .is_none_or(|n| n > MAX_MATRIX_ENTRIES)
        {
            return Err(a.err(
                a.pos_of("ROWS"),
                format!(
                    "ROWS × COLUMNS = {rows} × {columns} is too large (at most {MAX_MATRIX_ENTRIES} entries; matrices are stored dense)"
                ),
            ));
        }
        let values = a
            .numbers_range("VALUES", 1, usize::MAX)?
            .unwrap_or_default();
        let mut m = vec![0.0; rows * columns];
        if let Some((order, pos)) = full {
            if values.len() != rows * columns {
                return Err(a.err(
                    a.pos_of("VALUES"),
                    format!(
                        "VALUES has {} entries; a {rows} × {columns} FULL matrix needs {}",
                        values.len(),
                        rows * columns
                    ),
                ));
            }
            match order.as_str() {
                "RORDER" => m.copy_from_slice(&values),
                "CORDER" => {
                    for c in 0..columns {
                        for r in 0..rows {
                            m[r * columns + c] = values[c * rows + r];
                        }
                    }
                }
                other => {
                    return Err(a.err(pos, format!("FULL = {other}: expected RORDER or CORDER")))
                }
            }
        } else {
            let is = a.numbers_range("I", 1, usize::MAX)?.unwrap_or_default();
            let js = a.numbers_range("J", 1, usize::MAX)?.unwrap_or_default();
            if is.len() != values.len() || js.len() != values.len() {
                return Err(a.err_here(format!(
                    "a SPARSE matrix needs as many I and J as VALUES ({}, {}, {})",
                    is.len(),
                    js.len(),
                    values.len()
                )));
            }
            for ((i, j), v) in is.iter().zip(&js).zip(&values) {
                let (r, c) = (*i as usize, *j as usize);
                if i.fract() != 0.0 || !(1..=rows).contains(&r) || !(1..=columns).contains(&c) {
                    return Err(a.err_here(format!(
                        "SPARSE entry ({i}, {j}) is outside the {rows} × {columns} matrix"
                    )));
                }
                m[(r - 1) * columns + c - 1] = *v;
            }
        }
        a.ignore(&["NAME"]);
        a.finish()?;
        self.model.matrices.push(Matrix {
            id,
            rows,
            columns,
            values: m,
            sparse,
        });
        self.source(ElementRef::Matrix(id), st.pos);
        Ok(())
    }

    /// The id argument `key` (an ARRAY or MATRIX), checked once all
    /// statements are read.
    fn array_ref(&mut self, a: &mut Args, key: &str, space: Space) -> Result<Option<Id>, AdmError> {
        let Some((id, pos)) = a.id(key)? else {
            return Ok(None);
        };
        let role = format!(
            "{key}: {}",
            if space == Space::Array {
                "ARRAY"
            } else {
                "MATRIX"
            }
        );
        self.refer(space, id, pos, &a.label, &role);
        Ok(Some(id))
    }

    /// LSE/id, X, A[, B, C, D, U, Y, IC][, STATIC_HOLD]: x' = A x + B u,
    /// y = C x + D u.
    pub(super) fn lse(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &[
                "X",
                "A",
                "B",
                "C",
                "D",
                "U",
                "Y",
                "IC",
                "STATIC_HOLD",
                "SAMPLE_PERIOD",
                "SAMPLE_OFFSET",
            ],
            &[],
        )?;
        self.define(Space::Lse, id, st.pos, &a.label)?;
        // A discrete LSE: x_{k+1} = A x_k + B u_k at offset + k·period
        // (mbsolve-model `discrete.rs`).
        let period = a.number("SAMPLE_PERIOD")?;
        let offset = a.number("SAMPLE_OFFSET")?;
        match (period, offset) {
            (Some(p), _) if !(p.is_finite() && p > 0.0) => {
                return Err(a.err(a.pos_of("SAMPLE_PERIOD"), "SAMPLE_PERIOD must be positive"));
            }
            (Some(period), offset) => self.model.samplings.push(mbsolve_model::Sampling {
                element: ElementRef::Lse(id),
                period,
                offset: offset.unwrap_or(0.0),
            }),
            (None, Some(_)) => {
                return Err(a.err(
                    a.pos_of("SAMPLE_OFFSET"),
                    "SAMPLE_OFFSET applies to a discrete LSE: give SAMPLE_PERIOD too",
                ));
            }
            (None, None) => {}
        }
        let x = self.array_ref(&mut a, "X", Space::Array)?;
        let x = a.require(x, "X")?;
        let mut matrices = [None; 4];
        for (k, key) in ["A", "B", "C", "D"].into_iter().enumerate() {
            matrices[k] = self.array_ref(&mut a, key, Space::Matrix)?;
        }
        if matrices[0].is_none() {
            return Err(a.err_here("missing A ="));
        }
        let u = self.array_ref(&mut a, "U", Space::Array)?;
        let y = self.array_ref(&mut a, "Y", Space::Array)?;
        let ic = self.array_ref(&mut a, "IC", Space::Array)?;
        let static_hold = a.flag("STATIC_HOLD")?;
        a.finish()?;
        self.push_linear(
            ElementRef::Lse(id),
            x,
            u,
            y,
            matrices,
            ic,
            static_hold,
            st.pos,
        );
        Ok(())
    }

    /// TFSISO/id, NUMERATOR, DENOMINATOR (ascending powers of s), U, X,
    /// Y[, STATIC_HOLD]: y = N(s)/D(s) u from zero initial states.
    pub(super) fn tfsiso(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &["NUMERATOR", "DENOMINATOR", "U", "X", "Y", "STATIC_HOLD"],
            &[],
        )?;
        self.define(Space::Tfsiso, id, st.pos, &a.label)?;
        let num = a.numbers_range("NUMERATOR", 1, usize::MAX)?;
        let num = a.require(num, "NUMERATOR")?;
        let den = a.numbers_range("DENOMINATOR", 1, usize::MAX)?;
        let den = a.require(den, "DENOMINATOR")?;
        if den.len() < 2 || den.last() == Some(&0.0) {
            return Err(a.err(
                a.pos_of("DENOMINATOR"),
                "DENOMINATOR must be of degree 1 or more with a nonzero highest coefficient",
            ));
        }
        if num.len() > den.len() {
            return Err(a.err(
                a.pos_of("NUMERATOR"),
                "NUMERATOR must not be of higher degree than DENOMINATOR (a proper transfer function)",
            ));
        }
        let mut refs = [None; 3];
        for (k, key) in ["U", "X", "Y"].into_iter().enumerate() {
            let r = self.array_ref(&mut a, key, Space::Array)?;
            refs[k] = Some(a.require(r, key)?);
        }
        let static_hold = a.flag("STATIC_HOLD")?;
        a.finish()?;
        let [u, x, y] = refs;
        self.push_linear(
            ElementRef::Tfsiso(id),
            x.unwrap_or(0),
            u,
            y,
            [None; 4],
            None,
            static_hold,
            st.pos,
        );
        let l = self.model.linear_systems.last_mut().expect("just pushed");
        l.numerator = num;
        l.denominator = den;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn push_linear(
        &mut self,
        element: ElementRef,
        x: Id,
        u: Option<Id>,
        y: Option<Id>,
        matrices: [Option<Id>; 4],
        ic: Option<Id>,
        static_hold: bool,
        pos: Pos,
    ) {
        self.model.linear_systems.push(LinearSystem {
            element,
            x,
            u,
            y,
            matrices,
            ic,
            numerator: Vec::new(),
            denominator: Vec::new(),
            static_hold,
            x0: Vec::new(),
            states: Vec::new(),
            outputs: Vec::new(),
        });
        self.linear_sources
            .push((self.file.to_string(), pos, element.to_string()));
        self.source(element, pos);
    }

    /// Every LSE/TFSISO: its matrices (TFSISO: the controllable canonical
    /// form of N(s)/D(s)), checked against its arrays' sizes, become one
    /// function per state and per output over ARYVAL(X, j), the inputs
    /// VARVAL(u_j) (substituted from `variables`) and TIME.
    pub(super) fn resolve_linear_systems(
        &mut self,
        variables: &HashMap<Id, Expr>,
    ) -> Result<(), AdmError> {
        for k in 0..self.model.linear_systems.len() {
            let (file, pos, label) = self.linear_sources[k].clone();
            let fail = |m: String| super::err_in(&file, pos, &label, m);
            let l = &self.model.linear_systems[k];
            let array = |id: Id, want: ArrayKind, role: &str| -> Result<&Array, AdmError> {
                let a = self.model.arrays.iter().find(|a| a.id == id);
                match a {
                    Some(a)
                        if a.kind == want
                            || (want == ArrayKind::Ic && a.kind == ArrayKind::Numbers) =>
                    {
                        Ok(a)
                    }
                    Some(a) => Err(fail(format!(
                        "{role} = {id}: ARRAY/{id} is of type {}, expected {}",
                        if a.kind == ArrayKind::Numbers {
                            "NUMBERS"
                        } else {
                            a.kind.name()
                        },
                        want.name()
                    ))),
                    None => Err(fail(format!("{role} = {id}: ARRAY/{id} does not exist"))),
                }
            };
            let inputs: Vec<Id> = match l.u {
                Some(u) => array(u, ArrayKind::U, "U")?.variables.clone(),
                None => Vec::new(),
            };
            let x_array = array(l.x, ArrayKind::X, "X")?;
            let (a, b, c, d, x0) = if let ElementRef::Tfsiso(_) = l.element {
                if inputs.len() != 1 {
                    return Err(fail(format!(
                        "a TFSISO has one input; its U array has {}",
                        inputs.len()
                    )));
                }
                let (a, b, c, d) = controllable_form(&l.numerator, &l.denominator);
                let n = a.rows;
                (a, b, Some(c), Some(d), vec![0.0; n])
            } else {
                let matrix = |id: Option<Id>, role: &str| -> Result<Option<Matrix>, AdmError> {
                    match id {
                        None => Ok(None),
                        Some(id) => match self.model.matrices.iter().find(|m| m.id == id) {
                            Some(m) => Ok(Some(m.clone())),
                            None => Err(fail(format!("{role} = {id}: MATRIX/{id} does not exist"))),
                        },
                    }
                };
                let a = matrix(l.matrices[0], "A")?.expect("LSE has A");
                let n = a.rows;
                let nu = inputs.len();
                let b = matrix(l.matrices[1], "B")?.unwrap_or(Matrix {
                    id: 0,
                    rows: n,
                    columns: nu,
                    values: vec![0.0; n * nu],
                    sparse: false,
                });
                let x0 = match l.ic {
                    Some(ic) => array(ic, ArrayKind::Ic, "IC")?.numbers.clone(),
                    None => vec![0.0; n],
                };
                (
                    a,
                    b,
                    matrix(l.matrices[2], "C")?,
                    matrix(l.matrices[3], "D")?,
                    x0,
                )
            };
            let n = a.rows;
            let ny = match l.y {
                Some(y) => array(y, ArrayKind::Y, "Y")?
                    .size
                    .or(c.as_ref().map(|c| c.rows))
                    .unwrap_or(0),
                None => 0,
            };
            let nu = inputs.len();
            let shape = |m: &Matrix, r: usize, cl: usize, role: &str| -> Result<(), AdmError> {
                if m.rows == r && m.columns == cl {
                    Ok(())
                } else {
                    Err(fail(format!(
                        "{role} is {} × {}, expected {r} × {cl} (X has {n} states, U {nu} inputs, Y {ny} outputs)",
                        m.rows, m.columns
                    )))
                }
            };
            shape(&a, n, n, "A")?;
            shape(&b, n, nu, "B")?;
            if x_array.size.is_some_and(|s| s != n) {
                return Err(fail(format!(
                    "X = {}: ARRAY/{} has SIZE {}, but A has {n} rows",
                    l.x,
                    l.x,
                    x_array.size.unwrap_or(0)
                )));
            }
            if x0.len() != n {
                return Err(fail(format!("IC has {} values for {n} states", x0.len())));
            }
            if ny > 0 {
                let c = c
                    .as_ref()
                    .ok_or_else(|| fail("Y is given without C".into()))?;
                shape(c, ny, n, "C")?;
                if let Some(d) = &d {
                    shape(d, ny, nu, "D")?;
                }
            }
            let row =
                |m: &Matrix, r: usize, terms: &mut Vec<String>, read: &dyn Fn(usize) -> String| {
                    for j in 0..m.columns {
                        let v = m.get(r, j);
                        if v != 0.0 {
                            terms.push(format!("({v:e})*{}", read(j)));
                        }
                    }
                };
            let x_id = l.x;
            let state = move |j: usize| format!("ARYVAL({x_id},{})", j + 1);
            let input = |j: usize| format!("VARVAL({})", inputs[j]);
            let compile = |terms: Vec<String>| -> Result<Arc<dyn StateFunction>, AdmError> {
                let text = if terms.is_empty() {
                    "0".to_string()
                } else {
                    terms.join(" + ")
                };
                let e = Expr::parse(&text)
                    .and_then(|e| e.with_variables(variables))
                    .and_then(ExprStateFunction::new)
                    .map_err(|e| fail(format!("an input (U) VARIABLE: {e}")))?;
                Ok(Arc::new(e))
            };
            let mut states = Vec::with_capacity(n);
            for r in 0..n {
                let mut terms = Vec::new();
                row(&a, r, &mut terms, &state);
                row(&b, r, &mut terms, &input);
                states.push(compile(terms)?);
            }
            let mut outputs = Vec::with_capacity(ny);
            for r in 0..ny {
                let mut terms = Vec::new();
                if let Some(c) = &c {
                    row(c, r, &mut terms, &state);
                }
                if let Some(d) = &d {
                    row(d, r, &mut terms, &input);
                }
                outputs.push(compile(terms)?);
            }
            let l = &mut self.model.linear_systems[k];
            l.x0 = x0;
            l.states = states;
            l.outputs = outputs;
        }
        Ok(())
    }
}

/// The controllable canonical form (A, B, C, D) of N(s)/D(s), coefficients
/// in ascending powers of s, D of degree n ≥ 1 and N of degree ≤ n
/// (Ogata, Modern Control Engineering, §2-4): with a = d/d_n and
/// The most entries a MATRIX may have (stored dense).
const MAX_MATRIX_ENTRIES: usize = 10_000_000;

/// b = num/d_n padded to n + 1 terms, A is the companion matrix (ones on
/// the superdiagonal, last row −a_0 … −a_{n−1}), B = e_n, D = b_n and
/// C_i = b_i − b_n a_i.
fn controllable_form(num: &[f64], den: &[f64]) -> (Matrix, Matrix, Matrix, Matrix) {
    let n = den.len() - 1;
    let lead = den[n];
    let a_coef: Vec<f64> = den.iter().map(|v| v / lead).collect();
    let mut b_coef: Vec<f64> = num.iter().map(|v| v / lead).collect();
    b_coef.resize(n + 1, 0.0);
    let mut a = vec![0.0; n * n];
    for i in 0..n - 1 {
        a[i * n + i + 1] = 1.0;
    }
    for j in 0..n {
        a[(n - 1) * n + j] = -a_coef[j];
    }
    let mut b = vec![0.0; n];
    b[n - 1] = 1.0;
    let d = b_coef[n];
    let c: Vec<f64> = (0..n).map(|i| b_coef[i] - d * a_coef[i]).collect();
    let m = |rows, columns, values| Matrix {
        id: 0,
        rows,
        columns,
        values,
        sparse: false,
    };
    (m(n, n, a), m(n, 1, b), m(1, n, c), m(1, 1, vec![d]))
}
