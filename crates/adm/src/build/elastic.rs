//! BUSHING, FIELD and BEAM statements (Adams Solver reference):
//!
//! - `BUSHING/id, I=, J=, K=3, C=3, KT=3, CT=3, FORCE=3, TORQUE=3`
//! - `FIELD/id, I=, J=, KMATRIX=36, CMATRIX=36 | CRATIO=, LENGTH=6,
//!   FORCE=6`; matrices are entered by columns, top to bottom. KMATRIX and
//!   CMATRIX default to zeros; CRATIO needs KMATRIX (Adams FIELD
//!   statement). `K =` still reads as the unique prefix of KMATRIX; `C =` is
//!   ambiguous (CMATRIX, CRATIO), as Adams' abbreviation rule makes it.
//! - `BEAM/id, I=, J=, LENGTH=, IXX=, IYY=, IZZ=, AREA=, ASY=, ASZ=,
//!   EMODULUS=, GMODULUS=, CRATIO= | CMATRIX=21, FORMULATION=LINEAR |
//!   NONLINEAR | STRING` (the last two are mbsolve's own laws: Adams
//!   does not define them);
//!   CMATRIX is the lower half of the symmetric C by columns.

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_model::{
    BeamFormulation, BeamSection, Elastic, ElasticDamping, ElasticStatement, Force, ForceKind, Id,
};
use nalgebra::{Matrix6, Vector6};

const BUSHING_KEYS: &[&str] = &["I", "J", "K", "C", "KT", "CT", "FORCE", "TORQUE"];
const FIELD_KEYS: &[&str] = &["I", "J", "KMATRIX", "CMATRIX", "CRATIO", "LENGTH", "FORCE"];
const BEAM_KEYS: &[&str] = &[
    "I",
    "J",
    "LENGTH",
    "IXX",
    "IYY",
    "IZZ",
    "AREA",
    "ASY",
    "ASZ",
    "EMODULUS",
    "GMODULUS",
    "CRATIO",
    "CMATRIX",
    "FORMULATION",
];

/// The BEAM FORMULATION named by `f` (any abbreviation), or why not.
/// Adams defines only LINEAR; it names NONLINEAR "the full non linear
/// Euler-Bernoulli theory" and STRING "a simplified non linear theory"
/// without equations, so the laws mbsolve gives them are its own design
/// (mbsolve_mech::beam_nl): a co-rotational beam and LINEAR plus the
/// geometric stiffness of the axial force.
fn formulation(f: &str) -> Result<BeamFormulation, String> {
    let named = |word: &str| !f.is_empty() && word.starts_with(f);
    if named("LINEAR") {
        Ok(BeamFormulation::Linear)
    } else if named("STRING") {
        Ok(BeamFormulation::String)
    } else if named("NONLINEAR") {
        Ok(BeamFormulation::Nonlinear)
    } else {
        Err("unknown formulation (Adams' BEAM takes LINEAR, NONLINEAR or STRING)".into())
    }
}

/// C is given either in full or as a ratio of K, not both.
fn damping(a: &mut Args, matrix: &str, n: usize) -> Result<Option<ElasticDamping>, AdmError> {
    if a.has(matrix) && a.has("CRATIO") {
        return Err(a.err(
            a.pos_of("CRATIO"),
            format!("give either {matrix} or CRATIO, not both"),
        ));
    }
    if let Some(r) = a.number("CRATIO")? {
        return Ok(Some(ElasticDamping::Ratio(r)));
    }
    let Some(v) = a.numbers(matrix, n)? else {
        return Ok(None);
    };
    Ok(Some(ElasticDamping::Matrix(if n == 36 {
        Matrix6::from_column_slice(&v)
    } else {
        lower_half(&v)
    })))
}

/// The symmetric matrix whose lower half, by columns, is `v` (21 values).
fn lower_half(v: &[f64]) -> Matrix6<f64> {
    let mut m = Matrix6::zeros();
    let mut k = 0;
    for c in 0..6 {
        for r in c..6 {
            m[(r, c)] = v[k];
            m[(c, r)] = v[k];
            k += 1;
        }
    }
    m
}

fn three(a: &mut Args, key: &str) -> Result<[f64; 3], AdmError> {
    Ok(a.vec3(key)?.map_or([0.0; 3], |v| [v[0], v[1], v[2]]))
}

impl Builder<'_> {
    pub(super) fn elastic(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
        statement: ElasticStatement,
    ) -> Result<(), AdmError> {
        let (keys, space) = match statement {
            ElasticStatement::Bushing => (BUSHING_KEYS, Space::Bushing),
            ElasticStatement::Field => (FIELD_KEYS, Space::Field),
            ElasticStatement::Beam => (BEAM_KEYS, Space::Beam),
        };
        let mut a = Args::new(self.file, st, label, keys, &[])?;
        self.define(space, id, st.pos, &a.label.clone())?;
        let i = self.required_marker(&mut a, "I")?;
        let j = self.required_marker(&mut a, "J")?;
        let element = match statement {
            ElasticStatement::Bushing => Elastic::bushing(
                three(&mut a, "K")?,
                three(&mut a, "C")?,
                three(&mut a, "KT")?,
                three(&mut a, "CT")?,
                three(&mut a, "FORCE")?,
                three(&mut a, "TORQUE")?,
            ),
            ElasticStatement::Field => {
                if a.has("CRATIO") && !a.has("KMATRIX") {
                    return Err(a.err(
                        a.pos_of("CRATIO"),
                        "CRATIO multiplies KMATRIX, which is not given (Adams: do not use CRATIO without KMATRIX)",
                    ));
                }
                let stiffness = a
                    .numbers("KMATRIX", 36)?
                    .map_or(Matrix6::zeros(), |k| Matrix6::from_column_slice(&k));
                let damping = damping(&mut a, "CMATRIX", 36)?
                    .unwrap_or(ElasticDamping::Matrix(Matrix6::zeros()));
                let six = |a: &mut Args, key| -> Result<Vector6<f64>, AdmError> {
                    Ok(a.numbers(key, 6)?
                        .map_or(Vector6::zeros(), |v| Vector6::from_column_slice(&v)))
                };
                Elastic {
                    statement,
                    stiffness,
                    damping,
                    reference: six(&mut a, "LENGTH")?,
                    preload: six(&mut a, "FORCE")?,
                    beam: None,
                    formulation: BeamFormulation::Linear,
                }
            }
            ElasticStatement::Beam => {
                let law = match a.word("FORMULATION")? {
                    None => BeamFormulation::Linear,
                    Some((f, pos)) => formulation(&f)
                        .map_err(|reason| a.err(pos, format!("FORMULATION = {f}: {reason}")))?,
                };
                let mut get = |key: &str, required: bool| -> Result<f64, AdmError> {
                    let v = a.number(key)?;
                    match (v, required) {
                        (Some(v), _) => Ok(v),
                        (None, false) => Ok(0.0),
                        (None, true) => Err(a.err_here(format!("missing {key} ="))),
                    }
                };
                let section = BeamSection {
                    length: get("LENGTH", true)?,
                    ixx: get("IXX", true)?,
                    iyy: get("IYY", true)?,
                    izz: get("IZZ", true)?,
                    area: get("AREA", true)?,
                    asy: get("ASY", false)?,
                    asz: get("ASZ", false)?,
                    emodulus: get("EMODULUS", true)?,
                    gmodulus: get("GMODULUS", true)?,
                };
                for (key, v) in [
                    ("LENGTH", section.length),
                    ("AREA", section.area),
                    ("EMODULUS", section.emodulus),
                    ("GMODULUS", section.gmodulus),
                ] {
                    if v.is_nan() || v <= 0.0 {
                        return Err(a.err(
                            a.pos_of(key),
                            format!(
                                "{key} must be positive, found {}",
                                mbsolve_model::readable(v)
                            ),
                        ));
                    }
                }
                let damping = damping(&mut a, "CMATRIX", 21)?
                    .unwrap_or(ElasticDamping::Matrix(Matrix6::zeros()));
                Elastic::beam(section, damping).with_formulation(law)
            }
        };
        a.finish()?;
        self.model.forces.push(Force {
            id,
            i,
            j,
            kind: ForceKind::Elastic(Box::new(element)),
        });
        let e = self.model.forces.last().expect("just pushed").element();
        self.source(e, st.pos);
        Ok(())
    }
}
