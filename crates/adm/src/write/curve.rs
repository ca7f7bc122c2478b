//! CURVE, PTCV and CVCV statements written back (write_adm), with each
//! FLOATING marker they name (PTCV's JFLOAT, CVCV's IFLOAT and JFLOAT)
//! before its first user (the reader needs it defined; a marker already
//! written for a VFORCE is not written twice).

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
    for c in &m.cvcvs {
        for (float, part) in [(c.ifloat, c.ifloat_part), (c.jfloat, c.jfloat_part)] {
            if floating_written.insert(float) {
                let _ = writeln!(o, "MARKER/{float}, PART = {part}, FLOATING");
            }
        }
        let _ = writeln!(
            o,
            "CVCV/{}, IFLOAT = {}, ICURVE = {}, IRM = {}, JFLOAT = {}, JCURVE = {}, JRM = {}",
            c.id, c.ifloat, c.icurve, c.irm, c.jfloat, c.jcurve, c.jrm
        );
    }
    o
}
