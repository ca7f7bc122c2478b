//! SPLINE and STRING statements, as the builder reads them back.

use super::num;
use mbsolve_model::Model;
use std::fmt::Write as _;

pub(super) fn write_data(o: &mut String, m: &Model) {
    for s in &m.splines {
        let xs: Vec<String> = s.x.iter().map(|v| num(*v)).collect();
        let _ = write!(o, "SPLINE/{}\n, X = {}", s.id, xs.join(", "));
        for (k, row) in s.y.iter().enumerate() {
            let mut vals: Vec<String> = Vec::with_capacity(row.len() + 1);
            if let Some(z) = &s.z {
                vals.push(num(z[k]));
            }
            vals.extend(row.iter().map(|v| num(*v)));
            let _ = write!(o, "\n, Y = {}", vals.join(", "));
        }
        if s.linear_extrapolate {
            let _ = write!(o, "\n, LINEAR_EXTRAPOLATE");
        }
        let _ = writeln!(o);
    }
    for s in &m.strings {
        let _ = writeln!(o, "STRING/{}, STRING = {}", s.id, s.text);
    }
}
