//! Force_Contact and the Post_Graphic solids it names → the Adams CONTACT
//! and GRAPHICS statements (MotionSolve Reference Guide, "Force: Contact"
//! and "Post: Graphic").
//!
//! Post_Graphic types read as contact geometry, each onto the Adams solid
//! with the same placement:
//! * `BoxDefinedFromCorner` (corner_marker_id, length_x/y/z) → BOX, CORNER;
//! * `Cylinder` (center_marker_id, radius, length) → CYLINDER, CM;
//! * `Frustum` (center_marker_id, bottom_radius, top_radius, length) →
//!   FRUSTUM, CM (the docs: the marker is the centre of the bottom circle);
//! * `Sphere` (center_marker_id, radius) → ELLIPSOID with three equal
//!   diameters.
//!
//! That the Cylinder's marker is also at its bottom centre, as Adams' CM
//! is, is assumed from the Frustum page; the Cylinder page was not read
//! that far. Other types (BoxDefinedFromCenter, TriaMesh, Ellipsoid, …)
//! are refused by name when a contact uses them. `refinement_level`,
//! `color`, `hidden` and `ends_type` only change the display; a hollow
//! solid (`is_material_inside = FALSE`) is refused.

use crate::added::FirstPass;
use crate::reader::{counted_list, flag, list, numbers, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use std::collections::HashSet;

/// Post_Graphic ids that Force_Contact elements name.
pub(crate) fn graphics_ids(elems: &[Elem]) -> HashSet<u32> {
    elems
        .iter()
        .filter(|e| e.tag.eq_ignore_ascii_case("Force_Contact"))
        .flat_map(|e| {
            ["i_graphics_id", "j_graphics_id"]
                .into_iter()
                .filter_map(|k| e.peek(k))
                .collect::<Vec<_>>()
        })
        .flat_map(|v| {
            v.split(|c: char| c.is_whitespace() || c == ',')
                .filter_map(|w| w.parse::<u32>().ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

pub(crate) fn statement(e: &mut Elem, first: &FirstPass) -> Result<Option<Statement>, XmlError> {
    if e.tag.eq_ignore_ascii_case("Force_Contact") {
        return contact(e).map(Some);
    }
    if e.tag.eq_ignore_ascii_case("Post_Graphic")
        && e.id.is_some_and(|id| first.contact_graphics.contains(&id))
    {
        return graphic(e).map(Some);
    }
    Ok(None)
}

/// `i_graphics_id` / `j_graphics_id` with their counts.
fn ids(e: &mut Elem, side: char) -> Result<(Vec<String>, mbsolve_adm::Pos), XmlError> {
    let parse = |w: &str| {
        w.parse::<u32>()
            .ok()
            .filter(|id| *id > 0)
            .map(|id| id.to_string())
    };
    counted_list(
        e,
        &format!("{side}_graphics_id"),
        &format!("num_{side}_graphics"),
        parse,
        ("is not an id", "lists", "ids"),
    )
}

fn contact(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("CONTACT", e.id);
    let (i, ip) = ids(e, 'i')?;
    let (j, jp) = ids(e, 'j')?;
    list(&mut st, "IGEOM", &i, ip);
    list(&mut st, "JGEOM", &j, jp);
    let (ty, tp) = e.required("cnf_type")?;
    let normal: &[(&str, &str)] = match ty.trim().to_ascii_uppercase().as_str() {
        "IMPACT" => {
            flag(&mut st, "IMPACT", tp);
            &[
                ("stiffness", "STIFFNESS"),
                ("exponent", "EXPONENT"),
                ("damping", "DAMPING"),
                ("dmax", "DMAX"),
            ]
        }
        "POISSON" => {
            flag(&mut st, "POISSON", tp);
            &[
                ("penalty", "PENALTY"),
                ("restitution_coef", "RESTITUTION_COEFFICIENT"),
                ("normal_trans_vel", "NORMAL_TRANS"),
            ]
        }
        other => {
            return Err(e.err(
                tp,
                format!("cnf_type = \"{other}\" is not supported (IMPACT or POISSON)"),
            ))
        }
    };
    for (attr, key) in normal {
        if let Some((v, p)) = e.number(attr)? {
            numbers(&mut st, key, &[v], p);
        }
    }
    if let Some((ty, tp)) = e.get("cff_type") {
        let (mode, keys): (&str, &[(&str, &str)]) =
            match ty.trim().to_ascii_uppercase().as_str() {
                "COULOMB_OFF" => ("OFF", &[]),
                "COULOMB_ON" => (
                    "ON",
                    &[
                        ("mu_static", "MU_STATIC"),
                        ("mu_dynamic", "MU_DYNAMIC"),
                        ("stiction_trans_vel", "STICTION_TRANSITION_VELOCITY"),
                        ("friction_trans_vel", "FRICTION_TRANSITION_VELOCITY"),
                    ],
                ),
                "COULOMB_DYNAMICONLY" => (
                    "DYNAMICS_ONLY",
                    &[
                        ("mu_dynamic", "MU_DYNAMIC"),
                        ("friction_trans_vel", "FRICTION_TRANSITION_VELOCITY"),
                    ],
                ),
                other => {
                    return Err(e.err(
                        tp,
                        format!("cff_type = \"{other}\" is not supported (COULOMB_ON, COULOMB_DYNAMICONLY or COULOMB_OFF)"),
                    ))
                }
            };
        list(&mut st, "COULOMB_FRICTION", &[mode.to_string()], tp);
        for (attr, key) in keys {
            if let Some((v, p)) = e.number(attr)? {
                numbers(&mut st, key, &[v], p);
            }
        }
    }
    Ok(st)
}

fn graphic(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("GRAPHICS", e.id);
    let (ty, tp) = e.required("type")?;
    let ty = ty.trim().to_ascii_uppercase();
    // Every size of a solid is a positive length.
    let num = |e: &mut Elem, k: &str| -> Result<f64, XmlError> {
        match e.number(k)? {
            Some((v, _)) if v > 0.0 => Ok(v),
            Some((v, p)) => Err(e.err(p, format!("{k} = {v} must be positive"))),
            None => Err(e.err_here(format!("type = \"{ty}\" needs {k}"))),
        }
    };
    let (marker_attr, marker_key) = match ty.as_str() {
        "BOXDEFINEDFROMCORNER" => ("corner_marker_id", "CORNER"),
        "CYLINDER" | "FRUSTUM" | "SPHERE" => ("center_marker_id", "CM"),
        other => {
            return Err(e.err(
                tp,
                format!("type = \"{other}\" is not supported as contact geometry (BoxDefinedFromCorner, Cylinder, Frustum or Sphere)"),
            ))
        }
    };
    let (m, mp) = e.required_id(marker_attr)?;
    match ty.as_str() {
        "BOXDEFINEDFROMCORNER" => {
            flag(&mut st, "BOX", tp);
            for (attr, key) in [("length_x", "X"), ("length_y", "Y"), ("length_z", "Z")] {
                let v = num(e, attr)?;
                numbers(&mut st, key, &[v], e.pos);
            }
        }
        "CYLINDER" => {
            flag(&mut st, "CYLINDER", tp);
            let (l, r) = (num(e, "length")?, num(e, "radius")?);
            numbers(&mut st, "LENGTH", &[l], e.pos);
            numbers(&mut st, "RADIUS", &[r], e.pos);
        }
        "FRUSTUM" => {
            flag(&mut st, "FRUSTUM", tp);
            let l = num(e, "length")?;
            let (b, t) = (num(e, "bottom_radius")?, num(e, "top_radius")?);
            numbers(&mut st, "LENGTH", &[l], e.pos);
            numbers(&mut st, "BOTTOM", &[b], e.pos);
            numbers(&mut st, "TOP", &[t], e.pos);
        }
        _ => {
            flag(&mut st, "ELLIPSOID", tp);
            let d = 2.0 * num(e, "radius")?;
            for key in ["XSCALE", "YSCALE", "ZSCALE"] {
                numbers(&mut st, key, &[d], e.pos);
            }
        }
    }
    list(&mut st, marker_key, &[m.to_string()], mp);
    if let Some((v, p)) = e.get("is_material_inside") {
        if !v.trim().eq_ignore_ascii_case("TRUE") {
            return Err(e.err(
                p,
                format!("is_material_inside = \"{}\": only solid geometry (TRUE) is supported for contact", v.trim()),
            ));
        }
    }
    // Display only: tessellation, colour, visibility and end caps.
    e.ignore(&["refinement_level", "color", "hidden", "ends_type"]);
    Ok(st)
}

/// The model's contact solids as Post_Graphic and its CONTACTs as
/// Force_Contact, or why one cannot be written.
pub(crate) fn write(o: &mut String, m: &mbsolve_model::Model) -> Result<(), String> {
    use mbsolve_model::{NormalForce, Shape};
    use std::fmt::Write as _;
    let n = crate::write::num;
    for g in &m.geometries {
        let (ty, marker, rest) = match &g.shape {
            Shape::Box { x, y, z } => (
                "BoxDefinedFromCorner",
                "corner_marker_id",
                format!(
                    "length_x=\"{}\" length_y=\"{}\" length_z=\"{}\"",
                    n(*x),
                    n(*y),
                    n(*z)
                ),
            ),
            Shape::Cylinder { length, radius } => (
                "Cylinder",
                "center_marker_id",
                format!("radius=\"{}\" length=\"{}\"", n(*radius), n(*length)),
            ),
            Shape::Frustum {
                length,
                bottom,
                top,
            } => (
                "Frustum",
                "center_marker_id",
                format!(
                    "bottom_radius=\"{}\" top_radius=\"{}\" length=\"{}\"",
                    n(*bottom),
                    n(*top),
                    n(*length)
                ),
            ),
            Shape::Ellipsoid { x, y, z } if x == y && y == z => (
                "Sphere",
                "center_marker_id",
                format!("radius=\"{}\"", n(x / 2.0)),
            ),
            other => {
                return Err(format!(
                    "GRAPHICS/{}: a {} solid has no Post_Graphic form we read for contact (BoxDefinedFromCorner, Cylinder, Frustum, Sphere)",
                    g.id,
                    if matches!(other, Shape::Ellipsoid { .. }) {
                        "non-spherical ELLIPSOID"
                    } else {
                        other.name()
                    }
                ))
            }
        };
        let _ = writeln!(
            o,
            "  <Post_Graphic id=\"{}\" type=\"{ty}\" {marker}=\"{}\" {rest}/>",
            g.id, g.marker
        );
    }
    for c in &m.contacts {
        let list = |v: &[u32]| {
            v.iter()
                .map(|g| g.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let normal = match c.normal {
            NormalForce::Impact {
                stiffness,
                exponent,
                damping,
                dmax,
            } => format!(
                "cnf_type=\"IMPACT\" stiffness=\"{}\" exponent=\"{}\" damping=\"{}\" dmax=\"{}\"",
                n(stiffness),
                n(exponent),
                n(damping),
                n(dmax)
            ),
            NormalForce::Poisson {
                penalty,
                restitution,
                normal_trans,
            } => format!(
                "cnf_type=\"POISSON\" penalty=\"{}\" restitution_coef=\"{}\" normal_trans_vel=\"{}\"",
                n(penalty),
                n(restitution),
                n(normal_trans)
            ),
        };
        let friction = match c.friction {
            None => "cff_type=\"COULOMB_OFF\"".to_string(),
            Some(f) if !f.dynamics_only => format!(
                "cff_type=\"COULOMB_ON\" mu_static=\"{}\" mu_dynamic=\"{}\" stiction_trans_vel=\"{}\" friction_trans_vel=\"{}\"",
                n(f.mu_static),
                n(f.mu_dynamic),
                n(f.stiction_transition_velocity),
                n(f.friction_transition_velocity)
            ),
            Some(f) => {
                // COULOMB_DYNAMICONLY takes mu_dynamic and friction_trans_vel
                // only; the static values must be the builder's defaults
                // (0.3 and 0.1) to read back the same.
                if f.mu_static != 0.3 || f.stiction_transition_velocity != 0.1 {
                    return Err(format!(
                        "CONTACT/{}: COULOMB_FRICTION = DYNAMICS_ONLY with MU_STATIC or STICTION_TRANSITION_VELOCITY given has no MotionSolve form (COULOMB_DYNAMICONLY takes mu_dynamic and friction_trans_vel only)",
                        c.id
                    ));
                }
                format!(
                    "cff_type=\"COULOMB_DYNAMICONLY\" mu_dynamic=\"{}\" friction_trans_vel=\"{}\"",
                    n(f.mu_dynamic),
                    n(f.friction_transition_velocity)
                )
            }
        };
        let _ = writeln!(
            o,
            "  <Force_Contact id=\"{}\" num_i_graphics=\"{}\" i_graphics_id=\"{}\" num_j_graphics=\"{}\" j_graphics_id=\"{}\" {normal} {friction}/>",
            c.id,
            c.igeom.len(),
            list(&c.igeom),
            c.jgeom.len(),
            list(&c.jgeom)
        );
    }
    Ok(())
}
