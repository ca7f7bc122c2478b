//! The elements added after the first reader (issue 18, stop 13): vector
//! forces, contact with its Post_Graphic geometry, arrays and matrices,
//! and the linear controls. One hook in `elements::translate` calls
//! [`translate`]; what they need from the whole `<Model>` is collected
//! first ([`FirstPass`]).

use crate::reader::Elem;
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use std::collections::{HashMap, HashSet};

/// Facts about the whole `<Model>` read before any element is translated.
#[derive(Default)]
pub(crate) struct FirstPass {
    /// Reference_Marker ids named as `j_floating_marker_id`.
    pub floating: HashSet<u32>,
    /// Post_Graphic ids a Force_Contact names (its contact geometry).
    pub contact_graphics: HashSet<u32>,
    /// The ground Body_Rigid.
    pub ground: Option<u32>,
    /// The floating marker on ground each Force_Vector_OneBody (by id)
    /// stands in with for its missing reaction: ids above every
    /// Reference_Marker's, in the order of the forces, so a modify command
    /// translating the force again gets the same one.
    pub onebody_floating: HashMap<u32, u32>,
    /// The Adams id of each Force_Vector_OneBody (by XML id) whose own id
    /// a Force_Vector_TwoBody of the same kind already holds (XML ids are
    /// unique per element type, Adams VFORCE/VTORQUE/GFORCE ids per
    /// statement): ids above every vector force's, in document order.
    pub onebody_id: HashMap<u32, u32>,
    /// Sensor_Evaluates and the Sensor_Events naming them.
    pub evaluates: crate::sensor::Evaluates,
}

impl FirstPass {
    pub fn collect(elems: &[Elem]) -> FirstPass {
        let is = |e: &Elem, t: &str| e.tag.eq_ignore_ascii_case(t);
        let max_marker = elems
            .iter()
            .filter(|e| is(e, "Reference_Marker"))
            .filter_map(|e| e.id)
            .max()
            .unwrap_or(0);
        let ground = elems
            .iter()
            .filter(|e| is(e, "Body_Rigid"))
            .find(|e| {
                e.peek("isground")
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("TRUE"))
            })
            .and_then(|e| e.id);
        let onebody = elems
            .iter()
            .filter(|e| is(e, "Force_Vector_OneBody"))
            .filter_map(|e| e.id);
        let onebody_floating = onebody
            .zip((1..).map_while(|k| max_marker.checked_add(k)))
            .collect();
        FirstPass {
            onebody_id: crate::vector_forces::onebody_ids(elems),
            evaluates: crate::sensor::Evaluates::collect(elems),
            floating: crate::vector_forces::floating_ids(elems),
            contact_graphics: crate::contact::graphics_ids(elems),
            ground,
            onebody_floating,
        }
    }
}

/// The Adams statements for one of the added elements, or None for any
/// other tag (and for a Post_Graphic no Force_Contact names: display
/// only).
pub(crate) fn translate(
    e: &mut Elem,
    first: &FirstPass,
) -> Result<Option<Vec<Statement>>, XmlError> {
    if let Some(sts) = crate::vector_forces::statements(e, first)? {
        return Ok(Some(sts));
    }
    if let Some(st) = crate::contact::statement(e, first)? {
        return Ok(Some(vec![st]));
    }
    if let Some(st) = crate::arrays::statement(e)? {
        return Ok(Some(vec![st]));
    }
    if let Some(st) = crate::control::statement(e)? {
        return Ok(Some(vec![st]));
    }
    if let Some(sts) = crate::sensor::sensor_evaluate(e)? {
        return Ok(Some(sts));
    }
    if let Some(st) = crate::general::statement(e)? {
        return Ok(Some(vec![st]));
    }
    Ok(None)
}
