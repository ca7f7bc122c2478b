//! COUPLER/id, JOINTS = id1, id2[, id3], TYPE = T|R:T|R[:T|R],
//! SCALES = [r1,]r2[,r3] (Adams Solver reference: with one scale fewer than
//! joints, r1 = 1). GEAR is read here too (POINT_MASS: build/point_mass.rs).

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_model::{Coupler, CouplerFreedom, ElementRef, Id, JointKind};

impl Builder<'_> {
    pub(super) fn coupler(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
    ) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, &["JOINTS", "TYPE", "SCALES"], &[])?;
        self.define(Space::Coupler, id, st.pos, &a.label.clone())?;
        let Some(ids) = a.numbers_range("JOINTS", 2, 3)? else {
            return Err(a.err_here("missing JOINTS ="));
        };
        let jpos = a.pos_of("JOINTS");
        let mut joints = Vec::new();
        for v in &ids {
            if *v < 1.0 || v.fract() != 0.0 || *v > f64::from(u32::MAX) {
                return Err(a.err(jpos, format!("JOINTS: bad joint id {v}")));
            }
            let j = *v as Id;
            self.refer(Space::Joint, j, jpos, &a.label, "JOINTS: joint");
            joints.push(j);
        }
        let n = joints.len();
        let types: Vec<CouplerFreedom> = match a.word("TYPE")? {
            Some((t, pos)) => {
                let parts: Vec<&str> = t.split(':').map(str::trim).collect();
                if parts.len() != n {
                    return Err(a.err(
                        pos,
                        format!("TYPE = {t} names {} joints; JOINTS names {n}", parts.len()),
                    ));
                }
                let mut out = Vec::new();
                for p in parts {
                    out.push(match p {
                        "T" => CouplerFreedom::Translation,
                        "R" => CouplerFreedom::Rotation,
                        other => {
                            return Err(a.err(pos, format!("TYPE: '{other}' is neither T nor R")))
                        }
                    });
                }
                out
            }
            None => {
                // Without TYPE, each joint's kind decides (a CYLINDRICAL
                // joint has both freedoms, so it needs TYPE).
                let mut out = Vec::new();
                for j in &joints {
                    let kind = self
                        .model
                        .joints
                        .iter()
                        .find(|x| x.id == *j)
                        .map(|x| x.kind);
                    out.push(match kind {
                        Some(JointKind::Revolute) => CouplerFreedom::Rotation,
                        Some(JointKind::Translational) => CouplerFreedom::Translation,
                        _ => {
                            return Err(a.err_here(format!(
                                "give TYPE = (T or R per joint): JOINT/{j} is not a REVOLUTE or TRANSLATIONAL joint defined before this statement"
                            )))
                        }
                    });
                }
                out
            }
        };
        let scales = match a.numbers_range("SCALES", n - 1, n)? {
            Some(s) if s.len() == n => s,
            Some(s) => std::iter::once(1.0).chain(s).collect(),
            None => return Err(a.err_here("missing SCALES =")),
        };
        a.finish()?;
        self.model.couplers.push(Coupler {
            id,
            joints: joints
                .into_iter()
                .zip(types)
                .zip(scales)
                .map(|((j, t), s)| (j, t, s))
                .collect(),
        });
        self.source(ElementRef::Coupler(id), st.pos);
        Ok(())
    }

    /// GEAR/id, JOINTS = id1, id2, CV = marker on the carrier.
    pub(super) fn gear(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, &["JOINTS", "CV"], &[])?;
        self.define(Space::Gear, id, st.pos, &a.label.clone())?;
        let Some(ids) = a.numbers("JOINTS", 2)? else {
            return Err(a.err_here("missing JOINTS ="));
        };
        let jpos = a.pos_of("JOINTS");
        let mut joints = [0; 2];
        for (slot, v) in joints.iter_mut().zip(&ids) {
            if *v < 1.0 || v.fract() != 0.0 || *v > f64::from(u32::MAX) {
                return Err(a.err(jpos, format!("JOINTS: bad joint id {v}")));
            }
            *slot = *v as Id;
            self.refer(Space::Joint, *slot, jpos, &a.label, "JOINTS: joint");
        }
        let cv = self.required_marker(&mut a, "CV")?;
        a.finish()?;
        self.model
            .gears
            .push(mbsolve_model::Gear { id, joints, cv });
        self.source(ElementRef::Gear(id), st.pos);
        Ok(())
    }
}
