//! ARRAY, MATRIX, LSE and TFSISO statements written back (write_adm).

use mbsolve_model::{ArrayKind, ElementRef, Model};
use std::fmt::Write;

fn list(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:e}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The arrays, matrices and linear systems of `m`, in model order.
pub(crate) fn write_linear(o: &mut String, m: &Model) {
    for a in &m.arrays {
        let mut line = format!("ARRAY/{}", a.id);
        if a.kind != ArrayKind::Numbers {
            let _ = write!(line, ", {}", a.kind.name());
        }
        if let Some(n) = a.size {
            let _ = write!(line, ", SIZE = {n}");
        }
        if !a.numbers.is_empty() {
            let _ = write!(line, ", NUMBERS = {}", list(&a.numbers));
        }
        if !a.variables.is_empty() {
            let ids: Vec<String> = a.variables.iter().map(|v| v.to_string()).collect();
            let _ = write!(line, ", VARIABLES = {}", ids.join(", "));
        }
        let _ = writeln!(o, "{line}");
    }
    for x in &m.matrices {
        // A SPARSE matrix goes back as SPARSE: its nonzeros with 1-based
        // I and J (an all-zero one keeps its (1, 1) entry, since VALUES
        // needs at least one value).
        let nonzero: Vec<(usize, usize, f64)> = (0..x.rows)
            .flat_map(|r| (0..x.columns).map(move |c| (r, c)))
            .map(|(r, c)| (r + 1, c + 1, x.get(r, c)))
            .filter(|&(_, _, v)| v != 0.0)
            .collect();
        if x.sparse {
            let entries = if nonzero.is_empty() {
                vec![(1, 1, 0.0)]
            } else {
                nonzero
            };
            let index = |k: fn(&(usize, usize, f64)) -> usize| {
                entries
                    .iter()
                    .map(|e| k(e).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let (is, js) = (index(|e| e.0), index(|e| e.1));
            let vs: Vec<f64> = entries.iter().map(|e| e.2).collect();
            let _ = writeln!(
                o,
                "MATRIX/{}, SPARSE, ROWS = {}, COLUMNS = {}, I = {}, J = {}, VALUES = {}",
                x.id,
                x.rows,
                x.columns,
                is,
                js,
                list(&vs)
            );
        } else {
            let _ = writeln!(
                o,
                "MATRIX/{}, FULL = RORDER, ROWS = {}, COLUMNS = {}, VALUES = {}",
                x.id,
                x.rows,
                x.columns,
                list(&x.values)
            );
        }
    }
    for l in &m.linear_systems {
        let hold = if l.static_hold { ", STATIC_HOLD" } else { "" };
        let mut refs = format!("X = {}", l.x);
        for (key, id) in [("U", l.u), ("Y", l.y)] {
            if let Some(id) = id {
                let _ = write!(refs, ", {key} = {id}");
            }
        }
        match l.element {
            ElementRef::Tfsiso(id) => {
                let _ = writeln!(
                    o,
                    "TFSISO/{id}, NUMERATOR = {}, DENOMINATOR = {}, {refs}{hold}",
                    list(&l.numerator),
                    list(&l.denominator)
                );
            }
            e => {
                for (key, id) in ["A", "B", "C", "D"].iter().zip(l.matrices) {
                    if let Some(id) = id {
                        let _ = write!(refs, ", {key} = {id}");
                    }
                }
                if let Some(ic) = l.ic {
                    let _ = write!(refs, ", IC = {ic}");
                }
                // A discrete LSE keeps its sampling.
                if let Some(s) = m.samplings.iter().find(|s| s.element == e) {
                    let _ = write!(
                        refs,
                        ", SAMPLE_PERIOD = {:e}, SAMPLE_OFFSET = {:e}",
                        s.period, s.offset
                    );
                }
                let _ = writeln!(o, "{e}, {refs}{hold}");
            }
        }
    }
}
