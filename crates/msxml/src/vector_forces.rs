//! Force_Vector_TwoBody and Force_Vector_OneBody → the Adams VFORCE,
//! VTORQUE or GFORCE they mean (MotionSolve Reference Guide, "Force: Two
//! Body Vector" and "Force: One Body Vector": `type = ForceOnly |
//! TorqueOnly | ForceAndTorque`, `fx_expression` … `tz_expression`,
//! `i_marker_id`, `j_floating_marker_id` (TwoBody) or `marker_id`
//! (OneBody), `ref_marker_id`).
//!
//! The XML has no floating-marker flag: a Reference_Marker becomes an
//! Adams FLOATING marker because a Force_Vector_TwoBody names it as its
//! `j_floating_marker_id` (collected in the first pass, [`floating_ids`]).
//! A OneBody force has no reaction; it becomes the same statement with a
//! floating marker on ground, whose id is above every Reference_Marker id
//! (ground takes no force; [`FirstPass::onebody_floating`]).
//!
//! Adams numbers VFORCE, VTORQUE and GFORCE separately, XML numbers all
//! three as Force_Vector_TwoBody: a VTORQUE/1 beside a VFORCE/1 is written
//! with a free XML id and `adams_id="1"`, an mbsolve extension (MotionSolve
//! documents no such attribute) read back here, so Adams decks round-trip.

use crate::added::FirstPass;
use crate::reader::{expr, flag, list, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use std::collections::HashSet;

/// The six component attributes, in the Adams order FX … TZ (also what
/// a modify command may change).
pub(crate) const EXPRESSIONS: [&str; 6] = [
    "fx_expression",
    "fy_expression",
    "fz_expression",
    "tx_expression",
    "ty_expression",
    "tz_expression",
];

/// The Adams keys of the components, in the same order.
const KEYS: [&str; 6] = ["FX", "FY", "FZ", "TX", "TY", "TZ"];

/// Marker ids that Force_Vector_TwoBody elements name as
/// `j_floating_marker_id`.
pub(crate) fn floating_ids(elems: &[Elem]) -> HashSet<u32> {
    elems
        .iter()
        .filter(|e| e.tag.eq_ignore_ascii_case("Force_Vector_TwoBody"))
        .filter_map(|e| e.peek("j_floating_marker_id"))
        .filter_map(|v| v.trim().parse::<u32>().ok())
        .collect()
}

/// The Adams statement a vector force's `type` makes (None for a wrong
/// type, which the translation reports).
fn statement_name(ty: &str) -> Option<&'static str> {
    match ty.trim().to_ascii_uppercase().as_str() {
        "FORCEONLY" => Some("VFORCE"),
        "TORQUEONLY" => Some("VTORQUE"),
        "FORCEANDTORQUE" => Some("GFORCE"),
        _ => None,
    }
}

/// The mbsolve extension attribute carrying a Force_Vector_TwoBody's
/// Adams id when its XML id had to differ (module docs).
const ADAMS_ID: &str = "adams_id";

/// The Adams id a vector force element stands for: its `adams_id` when
/// present and an id, else its XML id.
fn adams_id_of(e: &Elem) -> Option<u32> {
    match e.peek(ADAMS_ID) {
        Some(v) => v.trim().parse().ok(),
        None => e.id,
    }
}

/// [`FirstPass::onebody_id`]: a Force_Vector_OneBody and a
/// Force_Vector_TwoBody may share an id (different element types), but
/// both become the same Adams statement; the OneBody one takes a new id
/// above every vector force's.
pub(crate) fn onebody_ids(elems: &[Elem]) -> std::collections::HashMap<u32, u32> {
    let is = |e: &Elem, t: &str| e.tag.eq_ignore_ascii_case(t);
    let kind = |e: &Elem| e.peek("type").and_then(statement_name);
    let two: HashSet<(u32, &str)> = elems
        .iter()
        .filter(|e| is(e, "Force_Vector_TwoBody"))
        .filter_map(|e| Some((adams_id_of(e)?, kind(e)?)))
        .collect();
    let top = elems
        .iter()
        .filter(|e| is(e, "Force_Vector_TwoBody") || is(e, "Force_Vector_OneBody"))
        .flat_map(|e| [e.id, adams_id_of(e)])
        .flatten()
        .max()
        .unwrap_or(0);
    let clashing = elems
        .iter()
        .filter(|e| is(e, "Force_Vector_OneBody"))
        .filter_map(|e| Some((e.id?, kind(e)?)))
        .filter(|k| two.contains(k))
        .map(|(id, _)| id);
    clashing
        .zip((1..).map_while(|k| top.checked_add(k)))
        .collect()
}

/// The statements for a Force_Vector_TwoBody or Force_Vector_OneBody, or
/// None for any other tag.
pub(crate) fn statements(
    e: &mut Elem,
    first: &FirstPass,
) -> Result<Option<Vec<Statement>>, XmlError> {
    let two = e.tag.eq_ignore_ascii_case("Force_Vector_TwoBody");
    if !two && !e.tag.eq_ignore_ascii_case("Force_Vector_OneBody") {
        return Ok(None);
    }
    let id = e.id.unwrap_or(0);
    let (ty, tp) = e.required("type")?;
    let Some(name) = statement_name(&ty) else {
        return Err(e.err(
            tp,
            format!(
                "type = \"{}\" must be ForceOnly, TorqueOnly or ForceAndTorque",
                ty.trim().to_ascii_uppercase()
            ),
        ));
    };
    let own = match name {
        "VFORCE" => 0..3,
        "VTORQUE" => 3..6,
        _ => 0..6,
    };
    // A OneBody force sharing its id with a TwoBody one of the same kind
    // takes the Adams id the first pass gave it.
    let adams_id = match first.onebody_id.get(&id) {
        Some(&k) if !two => k,
        _ if two => e.id_attr(ADAMS_ID)?.map_or(id, |(k, _)| k),
        _ => id,
    };
    let mut st = e.statement(name, Some(adams_id));
    let mut out = Vec::new();
    let i_key = if two { "i_marker_id" } else { "marker_id" };
    let (i, ip) = e.required_id(i_key)?;
    list(&mut st, "I", &[i.to_string()], ip);
    if two {
        let (j, jp) = e.required_id("j_floating_marker_id")?;
        list(&mut st, "JFLOAT", &[j.to_string()], jp);
    } else {
        let Some(ground) = first.ground else {
            return Err(e.err_here(
                "a Force_Vector_OneBody needs a ground Body_Rigid (IsGround = TRUE) to stand for its missing reaction",
            ));
        };
        let Some(&m) = first.onebody_floating.get(&id) else {
            return Err(e.err_here(
                "no marker id is left above the Reference_Marker ids for the floating marker this force needs",
            ));
        };
        let mut fm = e.statement("MARKER", Some(m));
        list(&mut fm, "PART", &[ground.to_string()], e.pos);
        flag(&mut fm, "FLOATING", e.pos);
        out.push(fm);
        list(&mut st, "JFLOAT", &[m.to_string()], e.pos);
    }
    // The docs bracket ref_marker_id as optional without saying what it
    // defaults to; Adams needs RM, so it is required here.
    let (rm, rp) = e.required_id("ref_marker_id")?;
    list(&mut st, "RM", &[rm.to_string()], rp);
    let mut any = false;
    for (k, (attr, key)) in EXPRESSIONS.iter().zip(KEYS).enumerate() {
        let Some((x, p)) = e.get(attr) else { continue };
        if !own.contains(&k) {
            return Err(e.err(
                p,
                format!("{attr} does not apply to type = \"{}\"", ty.trim()),
            ));
        }
        expr(&mut st, key, x.trim(), p);
        any = true;
    }
    if !any {
        let names = &EXPRESSIONS[own];
        return Err(e.err_here(format!("needs at least one of {}", names.join(", "))));
    }
    out.push(st);
    Ok(Some(out))
}

/// A Reference_Marker named as a `j_floating_marker_id`: an Adams
/// FLOATING marker on its body (its pose is given by the force that uses
/// it, so the written one is read and not used).
pub(crate) fn floating_marker(e: &mut Elem, id: u32) -> Result<Statement, XmlError> {
    let mut st = e.statement("MARKER", Some(id));
    let (body, bp) = e.required_id("body_id")?;
    list(&mut st, "PART", &[body.to_string()], bp);
    e.ignore(&["body_type", "pos_x", "pos_y", "pos_z"]);
    for i in 0..3 {
        for j in 0..3 {
            e.ignore(&[&format!("a{i}{j}")]);
        }
    }
    flag(&mut st, "FLOATING", e.pos);
    Ok(st)
}

/// The model's VFORCE, VTORQUE and GFORCE as Force_Vector_TwoBody, each
/// floating marker once as a Reference_Marker on its part. XML ids are
/// unique per element type: a force whose id another vector force already
/// holds takes the next XML id above every vector force's and keeps its
/// own as `adams_id` (module docs).
pub(crate) fn write(o: &mut String, m: &mbsolve_model::Model) -> Result<(), String> {
    use mbsolve_model::{ForceKind, VectorStatement};
    use std::fmt::Write as _;
    let is_vector = |f: &&mbsolve_model::Force| matches!(f.kind, ForceKind::Vector { .. });
    let top = m.forces.iter().filter(is_vector).map(|f| f.id).max();
    let mut spare = top
        .into_iter()
        .flat_map(|t| (1..).map_while(move |k| t.checked_add(k)));
    let mut seen = HashSet::new();
    let mut floating = HashSet::new();
    for f in &m.forces {
        let ForceKind::Vector {
            statement,
            jfloat,
            reaction_part,
            components,
        } = &f.kind
        else {
            continue;
        };
        let label = format!("{}/{}", statement.name(), f.id);
        let xml_id = if seen.insert(f.id) {
            f.id
        } else {
            spare.next().ok_or_else(|| {
                format!("{label}: no Force_Vector_TwoBody id is left above {}", f.id)
            })?
        };
        if floating.insert(*jfloat) {
            let _ = writeln!(
                o,
                "  <Reference_Marker id=\"{jfloat}\" body_id=\"{reaction_part}\" body_type=\"RigidBody\"/>"
            );
        }
        let ty = match statement {
            VectorStatement::Vforce => "ForceOnly",
            VectorStatement::Vtorque => "TorqueOnly",
            VectorStatement::Gforce => "ForceAndTorque",
        };
        let _ = write!(
            o,
            "  <Force_Vector_TwoBody id=\"{xml_id}\" type=\"{ty}\" i_marker_id=\"{}\" j_floating_marker_id=\"{jfloat}\" ref_marker_id=\"{}\"",
            f.i, f.j
        );
        if xml_id != f.id {
            let _ = write!(o, " {ADAMS_ID}=\"{}\"", f.id);
        }
        for (attr, c) in EXPRESSIONS.iter().zip(components) {
            if let Some(c) = c {
                let text = mbsolve_adm::function_source(c.source(), &label)?;
                let _ = write!(o, " {attr}=\"{}\"", crate::write::esc(text));
            }
        }
        let _ = writeln!(o, "/>");
    }
    Ok(())
}
