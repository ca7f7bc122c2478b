//! CURVE/id, MATRIX = id[, CURVE_POINTS][, ORDER = k][, OPEN | CLOSED] and
//! PTCV/id, I = id, JFLOAT = id, CURVE = id, RM = id (Adams Solver
//! reference, CURVE and PTCV statements) and CVCV/id, IFLOAT, ICURVE, IRM,
//! JFLOAT, JCURVE, JRM (CVCV statement). FUNCTION = USER (CURSUB) is
//! refused before this, as every user subroutine.

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::{ExprText, Statement};
use crate::AdmError;
use mbsolve_expr::{fill_curve_slot, Expr};
use mbsolve_model::{readable, Curve, Cvcv, ElementRef, Id, Ptcv};

impl Builder<'_> {
    pub(super) fn curve(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &[
                "MATRIX",
                "CURVE_POINTS",
                "ORDER",
                "OPEN",
                "CLOSED",
                "MINPAR",
                "MAXPAR",
            ],
            &[],
        )?;
        self.define(Space::Curve, id, st.pos, &a.label.clone())?;
        let matrix = a.id("MATRIX")?;
        let (matrix, mpos) = a.require(matrix, "MATRIX")?;
        self.refer(Space::Matrix, matrix, mpos, &a.label, "MATRIX");
        let curve_points = a.flag("CURVE_POINTS")?;
        let (open, closed) = (a.flag("OPEN")?, a.flag("CLOSED")?);
        if open && closed {
            return Err(a.err(a.pos_of("CLOSED"), "OPEN and CLOSED are exclusive"));
        }
        let order = match a.integer("ORDER")? {
            None => 4,
            Some(k) if (2..=mbsolve_model::MAX_CURVE_ORDER as i64).contains(&k) => k as usize,
            Some(k) => {
                return Err(a.err(
                    a.pos_of("ORDER"),
                    format!(
                        "ORDER = {k}: a CURVE's order is 2 (polyline) to {}",
                        mbsolve_model::MAX_CURVE_ORDER
                    ),
                ))
            }
        };
        // Adams: the parameter of a MATRIX curve always runs from −1 to 1;
        // MINPAR/MAXPAR belong to user-written (CURSUB) curves. Their
        // defaults are accepted, any other value is refused.
        for (key, fixed) in [("MINPAR", -1.0), ("MAXPAR", 1.0)] {
            if let Some(v) = a.number(key)? {
                if v != fixed {
                    return Err(a.err(
                        a.pos_of(key),
                        format!(
                            "{key} = {}: the parameter of a MATRIX curve always runs from -1 to 1 (MINPAR and MAXPAR set the range of a user-written CURSUB curve)",
                            readable(v)
                        ),
                    ));
                }
            }
        }
        a.finish()?;
        self.model.curves.push(Curve {
            id,
            matrix,
            curve_points,
            order,
            closed,
        });
        self.source(ElementRef::Curve(id), st.pos);
        Ok(())
    }

    pub(super) fn ptcv(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &["I", "JFLOAT", "CURVE", "RM", "DISP", "ICM", "VEL"],
            &[],
        )?;
        self.define(Space::Ptcv, id, st.pos, &a.label.clone())?;
        for key in ["DISP", "ICM", "VEL"] {
            if a.has(key) {
                return Err(a.err(
                    a.pos_of(key),
                    format!(
                        "{key} (initial contact conditions) is not supported: mbsolve starts a PTCV at the curve point nearest to the I marker, Adams' default without DISP"
                    ),
                ));
            }
        }
        let i = self.required_marker(&mut a, "I")?;
        let rm = self.required_marker(&mut a, "RM")?;
        let curve = a.id("CURVE")?;
        let (curve, cpos) = a.require(curve, "CURVE")?;
        self.refer(Space::Curve, curve, cpos, &a.label, "CURVE");
        let jfloat = a.id("JFLOAT")?;
        let (jfloat, jpos) = a.require(jfloat, "JFLOAT")?;
        let Some(&jfloat_part) = self.floating.get(&jfloat) else {
            return Err(a.err(
                jpos,
                format!(
                    "JFLOAT marker {jfloat} is not a FLOATING marker defined before this statement"
                ),
            ));
        };
        a.finish()?;
        self.model.ptcvs.push(Ptcv {
            id,
            i,
            jfloat,
            jfloat_part,
            rm,
            curve,
        });
        self.source(ElementRef::Ptcv(id), st.pos);
        Ok(())
    }

    /// Every CURVE() call of `expr` bound to the slot of its id (one per
    /// id), its CURVE recorded for the end-of-file check. A slot whose
    /// curve is already complete is filled now (a FUNCTION redefined in a
    /// command file); the others are filled by `fill_curve_slots`.
    pub(super) fn bind_curves(&mut self, expr: Expr, e: &ExprText, label: &str) -> Expr {
        for (id, span) in expr.curves_read() {
            self.refer(
                Space::Curve,
                id,
                e.pos_at(span.start),
                label,
                "CURVE(): CURVE",
            );
        }
        let model = &self.model;
        let slots = &mut self.curve_slots;
        expr.with_curves(&mut |id| {
            let slot = slots.entry(id).or_default().clone();
            if slot.get().is_none() {
                fill_curve_slot(&slot, model, id);
            }
            slot
        })
    }

    /// Fill every CURVE() slot from the model's CURVE and MATRIX data, once
    /// the dataset is read. A missing CURVE is reported by the reference
    /// check, bad curve data by the model check (validate).
    pub(super) fn fill_curve_slots(&self) {
        for (id, slot) in &self.curve_slots {
            fill_curve_slot(slot, &self.model, *id);
        }
    }

    /// CVCV/id, IFLOAT = id, ICURVE = id, IRM = id, JFLOAT = id,
    /// JCURVE = id, JRM = id. The initial-contact arguments (IDISP, IICM,
    /// IVEL, JDISP, JICM, JVEL) are refused by name: mbsolve starts at the
    /// closest points of the two curves, Adams' default without them.
    pub(super) fn cvcv(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        const INITIAL: [&str; 6] = ["IDISP", "IICM", "IVEL", "JDISP", "JICM", "JVEL"];
        let keys = [
            "IFLOAT", "ICURVE", "IRM", "JFLOAT", "JCURVE", "JRM", "IDISP", "IICM", "IVEL", "JDISP",
            "JICM", "JVEL",
        ];
        let mut a = Args::new(self.file, st, label, &keys, &[])?;
        self.define(Space::Cvcv, id, st.pos, &a.label.clone())?;
        for key in INITIAL {
            if a.has(key) {
                return Err(a.err(
                    a.pos_of(key),
                    format!(
                        "{key} (initial contact conditions) is not supported: mbsolve starts a CVCV at the closest points of the two curves, Adams' default without IDISP and JDISP"
                    ),
                ));
            }
        }
        let irm = self.required_marker(&mut a, "IRM")?;
        let jrm = self.required_marker(&mut a, "JRM")?;
        let mut curves = [0; 2];
        for (slot, key) in curves.iter_mut().zip(["ICURVE", "JCURVE"]) {
            let curve = a.id(key)?;
            let (curve, pos) = a.require(curve, key)?;
            self.refer(Space::Curve, curve, pos, &a.label, key);
            *slot = curve;
        }
        let mut floats = [(0, 0); 2];
        for (slot, key) in floats.iter_mut().zip(["IFLOAT", "JFLOAT"]) {
            let m = a.id(key)?;
            let (m, pos) = a.require(m, key)?;
            let Some(&part) = self.floating.get(&m) else {
                return Err(a.err(
                    pos,
                    format!(
                        "{key} marker {m} is not a FLOATING marker defined before this statement"
                    ),
                ));
            };
            *slot = (m, part);
        }
        a.finish()?;
        self.model.cvcvs.push(Cvcv {
            id,
            icurve: curves[0],
            irm,
            ifloat: floats[0].0,
            ifloat_part: floats[0].1,
            jcurve: curves[1],
            jrm,
            jfloat: floats[1].0,
            jfloat_part: floats[1].1,
        });
        self.source(ElementRef::Cvcv(id), st.pos);
        Ok(())
    }
}
