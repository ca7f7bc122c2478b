//! The `<Command>` section's element commands: `<Deactivate>` and
//! `<Activate>` (element_type + element_id), mapped onto the solver's
//! ACTIVATE/DEACTIVATE.

use crate::reader::Elem;
use crate::XmlError;
use mbsolve_model::{Command, ElementRef};
use std::collections::HashMap;

/// element_type values: the Adams statement names and the XML element
/// names of the elements the mechanics can switch, with the Adams
/// statements they become.
const TYPES: &[(&str, &[&str])] = &[
    ("JOINT", &["JOINT", "JPRIM"]),
    ("CONSTRAINT_JOINT", &["JOINT", "JPRIM"]),
    ("JPRIM", &["JPRIM"]),
    ("CONSTRAINT_JPRIM", &["JPRIM"]),
    ("MOTION", &["MOTION"]),
    ("MOTION_JOINT", &["MOTION"]),
    ("MOTION_MARKER", &["MOTION"]),
    ("SFORCE", &["SFORCE"]),
    ("FORCE_SCALAR_TWOBODY", &["SFORCE"]),
    ("SPRINGDAMPER", &["SPRINGDAMPER"]),
    ("FORCE_SPRINGDAMPER", &["SPRINGDAMPER"]),
];

/// `<Deactivate element_type="MOTION" element_id="303003"/>` (and
/// `<Activate>`). `labels` holds the Adams label of every model element
/// read ("JOINT/3"), so a missing id is reported here with its line.
pub(crate) fn activation(
    e: &mut Elem,
    active: bool,
    labels: &HashMap<String, String>,
) -> Result<Command, XmlError> {
    let (ty, tpos) = e.required("element_type")?;
    let (id, ipos) = e.required_id("element_id")?;
    e.finish()?;
    let upper = ty.trim().to_ascii_uppercase();
    let Some((_, statements)) = TYPES.iter().find(|(n, _)| *n == upper) else {
        return Err(e.err(
            tpos,
            format!(
                "element_type = \"{}\" cannot be switched (supported: Constraint_Joint, Constraint_Jprim, Motion_Joint, Motion_Marker, Force_Scalar_TwoBody, Force_SpringDamper)",
                ty.trim()
            ),
        ));
    };
    let Some(stmt) = statements
        .iter()
        .find(|s| labels.contains_key(&format!("{s}/{id}")))
    else {
        return Err(e.err(ipos, format!("no {} with id {id} in the model", ty.trim())));
    };
    let element = match *stmt {
        "JOINT" => ElementRef::Joint(id),
        "JPRIM" => ElementRef::Jprim(id),
        "MOTION" => ElementRef::Motion(id),
        "SFORCE" => ElementRef::Force(id),
        _ => ElementRef::Springdamper(id),
    };
    Ok(Command::Activate {
        element,
        active,
        origin: e.origin(e.pos),
    })
}
