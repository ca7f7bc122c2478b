//! BUSHING, FIELD, BEAM and COUPLER statements from the model (the reader's
//! arguments: see `build/elastic.rs`), or a refusal naming what the
//! statement cannot say.

use super::num;
use mbsolve_model::{Elastic, ElasticDamping, ElasticStatement, Id};
use nalgebra::Matrix6;

fn list(v: impl IntoIterator<Item = f64>) -> String {
    v.into_iter().map(num).collect::<Vec<_>>().join(", ")
}

fn is_diagonal(m: &Matrix6<f64>) -> bool {
    (0..6).all(|r| (0..6).all(|c| r == c || m[(r, c)] == 0.0))
}

/// The statement text (one line), or why it cannot be written.
pub(super) fn statement(id: Id, i: Id, j: Id, e: &Elastic) -> Result<String, String> {
    let label = format!("{}/{id}", e.statement.name());
    let head = format!("{label}, I = {i}, J = {j}");
    match e.statement {
        ElasticStatement::Bushing => {
            let c = e.damping_matrix();
            if !is_diagonal(&e.stiffness)
                || !is_diagonal(&c)
                || e.reference.iter().any(|v| *v != 0.0)
            {
                return Err(format!(
                    "{label}: a BUSHING takes diagonal stiffness and damping and no free lengths; this one has more (write it as a FIELD)"
                ));
            }
            let d = |m: &Matrix6<f64>, r: std::ops::Range<usize>| list(r.map(|k| m[(k, k)]));
            Ok(format!(
                "{head}, K = {}, C = {}, KT = {}, CT = {}, FORCE = {}, TORQUE = {}",
                d(&e.stiffness, 0..3),
                d(&c, 0..3),
                d(&e.stiffness, 3..6),
                d(&c, 3..6),
                list(e.preload.iter().take(3).copied()),
                list(e.preload.iter().skip(3).copied()),
            ))
        }
        ElasticStatement::Field => {
            let damping = match e.damping {
                ElasticDamping::Ratio(r) => format!("CRATIO = {}", num(r)),
                ElasticDamping::Matrix(c) => format!("CMATRIX = {}", list(c.iter().copied())),
            };
            Ok(format!(
                "{head}, KMATRIX = {}, {damping}, LENGTH = {}, FORCE = {}",
                list(e.stiffness.iter().copied()),
                list(e.reference.iter().copied()),
                list(e.preload.iter().copied()),
            ))
        }
        ElasticStatement::Beam => {
            let Some(s) = e.beam else {
                return Err(format!("{label}: a BEAM without its section data"));
            };
            if e.preload.iter().any(|v| *v != 0.0) {
                return Err(format!("{label}: the Adams BEAM statement has no preload"));
            }
            let damping = match e.damping {
                ElasticDamping::Ratio(r) => format!("CRATIO = {}", num(r)),
                ElasticDamping::Matrix(c) => {
                    let half = (0..6).flat_map(|col| (col..6).map(move |r| c[(r, col)]));
                    format!("CMATRIX = {}", list(half))
                }
            };
            Ok(format!(
                "{head}, LENGTH = {}, IXX = {}, IYY = {}, IZZ = {}, AREA = {}, ASY = {}, ASZ = {}, EMODULUS = {}, GMODULUS = {}, {damping}, FORMULATION = {}",
                num(s.length),
                num(s.ixx),
                num(s.iyy),
                num(s.izz),
                num(s.area),
                num(s.asy),
                num(s.asz),
                num(s.emodulus),
                num(s.gmodulus),
                e.formulation.name(),
            ))
        }
    }
}

/// COUPLER/id, JOINTS, TYPE and all SCALES.
pub(super) fn coupler(c: &mbsolve_model::Coupler) -> String {
    let ids: Vec<String> = c.joints.iter().map(|(j, ..)| j.to_string()).collect();
    let types: Vec<&str> = c.joints.iter().map(|(_, t, _)| t.letter()).collect();
    format!(
        "COUPLER/{}, JOINTS = {}, TYPE = {}, SCALES = {}",
        c.id,
        ids.join(", "),
        types.join(":"),
        list(c.joints.iter().map(|(.., s)| *s))
    )
}
