//! JPRIM/id, ATPOINT|INLINE|INPLANE|ORIENTATION|PARALLEL_AXES|PERPENDICULAR,
//! I = marker, J = marker (seeds: Adams JPRIM statement).

use super::{Builder, Space};
use crate::args::{resolve, Args};
use crate::syntax::{Statement, Value};
use crate::AdmError;
use mbsolve_model::{ElementRef, Id, Jprim, JprimKind};

const TYPES: [(&str, JprimKind); 6] = [
    ("ATPOINT", JprimKind::Atpoint),
    ("INLINE", JprimKind::Inline),
    ("INPLANE", JprimKind::Inplane),
    ("ORIENTATION", JprimKind::Orientation),
    ("PARALLEL_AXES", JprimKind::ParallelAxes),
    ("PERPENDICULAR", JprimKind::Perpendicular),
];
const KEYS: &[&str] = &[
    "ATPOINT",
    "INLINE",
    "INPLANE",
    "ORIENTATION",
    "PARALLEL_AXES",
    "PERPENDICULAR",
    "I",
    "J",
];
const TYPE_LIST: &str = "ATPOINT, INLINE, INPLANE, ORIENTATION, PARALLEL_AXES or PERPENDICULAR";

impl Builder<'_> {
    pub(super) fn jprim(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        // A bare word that is not one of ours is an unknown primitive type.
        for arg in &st.args {
            let unknown = matches!(resolve(&arg.key, KEYS, &[]), Err(e) if e.is_empty());
            if arg.value == Value::Flag && unknown {
                return Err(self.err(
                    arg.pos,
                    &label,
                    format!("unknown JPRIM type {} ({TYPE_LIST})", arg.key),
                ));
            }
        }
        let mut a = Args::new(self.file, st, label, KEYS, &[])?;
        self.define(Space::Jprim, id, st.pos, &a.label)?;
        let mut kind = None;
        for (key, k) in TYPES {
            if a.flag(key)? {
                if kind.is_some() {
                    return Err(a.err(a.pos_of(key), "more than one JPRIM type"));
                }
                kind = Some(k);
            }
        }
        let i = self.required_marker(&mut a, "I")?;
        let j = self.required_marker(&mut a, "J")?;
        let Some(kind) = kind else {
            return Err(a.err_here(format!("missing JPRIM type ({TYPE_LIST})")));
        };
        a.finish()?;
        self.model.jprims.push(Jprim { id, kind, i, j });
        self.source(ElementRef::Jprim(id), st.pos);
        Ok(())
    }
}
