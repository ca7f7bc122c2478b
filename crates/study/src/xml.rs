//! Studies on MotionSolve XML decks: a change `Body_Rigid/2.mass = 3` or
//! `Force_Scalar_TwoBody/1.val_expression = …` sets that attribute of the
//! `<Model>` element with that tag and id (`Param_Transient.integr_tol`
//! for the id-less settings elements), in place in the deck text
//! (`mbsolve_msxml::set_attribute`): line numbers are kept and the XML
//! reader validates the changed deck as it would the file. The deck's
//! `<Command>` section is its command sequence.

use crate::changes::{Change, Source};
use crate::run::StudyError;
use mbsolve_adm::{AdmError, Pos};

/// Apply the changes to the deck text.
pub fn apply(src: &Source, changes: &[Change]) -> Result<Source, AdmError> {
    let mut out = src.clone();
    for c in changes {
        let (tag, id) = match c.element.split_once('/') {
            Some((t, id)) => (t, id.parse::<u32>().ok()),
            None => (c.element.as_str(), None),
        };
        if tag.len() >= 3 && "INTEGRATOR".starts_with(tag) {
            return Err(AdmError::new(
                &src.adm_name,
                Pos::default(),
                Some(c.element.clone()),
                format!(
                    "{}: a MotionSolve deck sets its integrator in Param_Transient (e.g. PARAM_TRANSIENT.INTEGR_TOL)",
                    c.key()
                ),
            ));
        }
        out.adm = mbsolve_msxml::set_attribute(
            &out.adm,
            &out.adm_name,
            tag,
            id,
            &c.argument.to_ascii_lowercase(),
            &c.value,
        )
        .map_err(|e| {
            AdmError::new(
                &e.file,
                Pos {
                    line: e.line,
                    col: e.col,
                },
                Some(c.element.clone()),
                e.message,
            )
        })?;
    }
    Ok(out)
}

/// A reader error as a study error: file, line and the element the
/// message names ("Body_Rigid id=2: …" → element "Body_Rigid/2").
pub fn study_error(e: &mbsolve_msxml::XmlError) -> StudyError {
    let element = e.message.split_once(": ").and_then(|(head, _)| {
        let (tag, id) = head.split_once(" id=")?;
        (!tag.contains(' ')).then(|| format!("{tag}/{id}"))
    });
    StudyError {
        file: e.file.clone(),
        line: (e.line > 0).then_some(e.line),
        element,
        message: e.message.clone(),
    }
}

/// The deck's Param_Transient, validated (MotionSolve's defaults when the
/// deck has none), as `mbsolve run` uses it.
pub fn transient(
    read: &mbsolve_msxml::XmlRead,
    file: &str,
) -> Result<mbsolve_solver::settings::ParamTransient, StudyError> {
    let fail = |message: String| StudyError {
        file: file.to_string(),
        line: None,
        element: Some("Param_Transient".into()),
        message,
    };
    match &read.transient {
        Some(attrs) => {
            let attrs: Vec<(&str, &str, &str)> = attrs
                .iter()
                .map(|a| (a.name.as_str(), a.value.as_str(), a.origin.as_str()))
                .collect();
            mbsolve_solver::settings::ParamTransient::from_attributes(&attrs).map_err(fail)
        }
        None => mbsolve_solver::settings::ParamTransient::builder()
            .build()
            .map_err(|e| fail(e.to_string())),
    }
}
