//! Force_Bushing, Force_Field, Force_Beam and Constraint_Coupler from the model (the reader's
//! attributes: see `elastic.rs`), or a refusal naming what the element
//! cannot say.

use super::num;
use crate::elastic::{LENGTHS, PRELOADS};
use mbsolve_model::{BeamFormulation, Elastic, ElasticDamping, ElasticStatement, Id};
use nalgebra::Matrix6;

fn attrs(names: &[&str], values: impl IntoIterator<Item = f64>) -> String {
    names
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n}=\"{}\"", num(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The element line, or why it cannot be written.
pub(super) fn element(id: Id, i: Id, j: Id, e: &Elastic) -> Result<String, String> {
    let label = format!("{}/{id}", e.statement.name());
    let ij = format!("id=\"{id}\" i_marker_id=\"{i}\" j_marker_id=\"{j}\"");
    let c = e.damping_matrix();
    let diagonal = |m: &Matrix6<f64>| (0..6).all(|r| (0..6).all(|k| r == k || m[(r, k)] == 0.0));
    match e.statement {
        ElasticStatement::Bushing => {
            if !diagonal(&e.stiffness) || !diagonal(&c) || e.reference.iter().any(|v| *v != 0.0) {
                return Err(format!(
                    "{label}: a Force_Bushing takes diagonal stiffness and damping and no free lengths"
                ));
            }
            Ok(format!(
                "  <Force_Bushing {ij} {} {} {}/>",
                attrs(
                    &["kx", "ky", "kz", "ktx", "kty", "ktz"],
                    (0..6).map(|k| e.stiffness[(k, k)])
                ),
                attrs(
                    &["cx", "cy", "cz", "ctx", "cty", "ctz"],
                    (0..6).map(|k| c[(k, k)])
                ),
                attrs(&PRELOADS, e.preload.iter().copied()),
            ))
        }
        ElasticStatement::Field => {
            let entries = |m: &str, x: &Matrix6<f64>| {
                (0..6)
                    .flat_map(|r| (0..6).map(move |k| (r, k)))
                    .map(|(r, k)| format!("{m}{}{}=\"{}\"", r + 1, k + 1, num(x[(r, k)])))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let damping = match e.damping {
                ElasticDamping::Ratio(r) => format!("cratio=\"{}\"", num(r)),
                ElasticDamping::Matrix(m) => entries("C", &m),
            };
            Ok(format!(
                "  <Force_Field {ij} {} {damping} {} {}/>",
                entries("K", &e.stiffness),
                attrs(&LENGTHS, e.reference.iter().copied()),
                attrs(&PRELOADS, e.preload.iter().copied()),
            ))
        }
        ElasticStatement::Beam => {
            let Some(s) = e.beam else {
                return Err(format!("{label}: a BEAM without its section data"));
            };
            if e.formulation != BeamFormulation::Linear {
                return Err(format!(
                    "{label}: FORMULATION = {}: MotionSolve's Force_Beam is the linear beam and has no formulation attribute",
                    e.formulation.name()
                ));
            }
            let r = match e.damping {
                ElasticDamping::Ratio(r) => r,
                ElasticDamping::Matrix(m) if m == Matrix6::zeros() => 0.0,
                ElasticDamping::Matrix(_) => {
                    return Err(format!(
                        "{label}: a Force_Beam takes its damping as cratio only, not as a damping matrix (CMATRIX)"
                    ))
                }
            };
            if e.preload.iter().any(|v| *v != 0.0) {
                return Err(format!("{label}: a BEAM with a preload"));
            }
            Ok(format!(
                "  <Force_Beam {ij} {}/>",
                attrs(
                    &["length", "E", "G", "area", "ixx", "iyy", "izz", "ASY", "ASZ", "cratio"],
                    [
                        s.length, s.emodulus, s.gmodulus, s.area, s.ixx, s.iyy, s.izz, s.asy,
                        s.asz, r
                    ]
                ),
            ))
        }
    }
}

/// Constraint_Coupler with every joint, freedom and coefficient.
pub(super) fn coupler(c: &mbsolve_model::Coupler) -> String {
    let mut a = format!("  <Constraint_Coupler id=\"{}\"", c.id);
    for (k, (j, t, _)) in c.joints.iter().enumerate() {
        a += &format!(
            " joint{0}_id=\"{j}\" freedom_{0}=\"{1}\"",
            k + 1,
            t.letter()
        );
    }
    let scales: Vec<String> = c.joints.iter().map(|(.., s)| num(*s)).collect();
    format!("{a} coefficients=\"{}\"/>", scales.join(" "))
}
