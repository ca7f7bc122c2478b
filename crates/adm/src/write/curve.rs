//! CURVE and PTCV statements written back (write_adm), with each PTCV's
//! FLOATING JFLOAT marker before its first user (the reader needs it
//! defined; a marker already written for a VFORCE is not written twice).

use mbsolve_model::{Id, Model};
use std::collections::HashSet;
use std::fmt::Write as _;

pub(super) fn lines(m: &Model, floating_written: &mut HashSet<Id>) -> String {
    let mut o = String::new();
    for c in &m.curves {
        let _ = write!(o, "CURVE/{}, MATRIX = {}", c.id, c.matrix);
        if c.curve_points {
            o.push_str(", CURVE_POINTS");
        }
        let closure = if c.closed { "CLOSED" } else { "OPEN" };
        let _ = writeln!(o, ", ORDER = {}, {closure}", c.order);
    }
    for p in &m.ptcvs {
        if floating_written.insert(p.jfloat) {
            let _ = writeln!(o, "MARKER/{}, PART = {}, FLOATING", p.jfloat, p.jfloat_part);
        }
        let _ = writeln!(
            o,
            "PTCV/{}, I = {}, JFLOAT = {}, CURVE = {}, RM = {}",
            p.id, p.i, p.jfloat, p.curve, p.rm
        );
    }
    o
}
