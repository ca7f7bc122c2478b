//! Model elements → Adams statements (MS-XML-GRAMMAR.md §3–4, §7).

use crate::reader::{expr, flag, list, numbers, text, Attr, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::{StaticMethod, StaticSettings};
use nalgebra::{Matrix3, Vector3};
use std::collections::HashMap;

/// Marker poses in the global frame (the XML's own), by marker id.
/// A marker's origin and axes (columns) in the global frame.
pub(crate) type Pose = (Vector3<f64>, Matrix3<f64>);

#[derive(Default)]
pub(crate) struct Poses {
    markers: HashMap<u32, Pose>,
    /// What the added elements need from the whole model (added.rs).
    pub first: crate::added::FirstPass,
}

/// Tolerance on the direction cosines: the axes written must be unit and
/// orthogonal to this (decks print 6–8 significant digits).
const DCM_TOL: f64 = 1e-5;

impl Poses {
    /// Read every Reference_Marker's pose first: bodies refer to markers
    /// written before or after them.
    pub fn collect(elems: &mut [Elem]) -> Result<Poses, Vec<XmlError>> {
        let mut p = Poses::default();
        let mut errors = Vec::new();
        for e in elems
            .iter_mut()
            .filter(|e| e.tag.eq_ignore_ascii_case("Reference_Marker"))
        {
            match marker_pose(e) {
                Ok(Some((id, pose))) => {
                    p.markers.insert(id, pose);
                }
                Ok(None) => {}
                Err(x) => errors.push(x),
            }
        }
        if errors.is_empty() {
            Ok(p)
        } else {
            Err(errors)
        }
    }

    /// A modify command's new pose for marker `id`.
    pub fn set_marker(&mut self, id: u32, pose: Pose) {
        self.markers.insert(id, pose);
    }

    fn rotation(&self, id: u32) -> Option<Matrix3<f64>> {
        self.markers.get(&id).map(|(_, r)| *r)
    }
}

pub(crate) fn marker_pose(e: &mut Elem) -> Result<Option<(u32, Pose)>, XmlError> {
    let Some(id) = e.id else { return Ok(None) };
    let pos = Vector3::new(
        e.number_or("pos_x", 0.0)?,
        e.number_or("pos_y", 0.0)?,
        e.number_or("pos_z", 0.0)?,
    );
    let col = |e: &mut Elem, k: usize| -> Result<Option<Vector3<f64>>, XmlError> {
        let keys = [format!("a0{k}"), format!("a1{k}"), format!("a2{k}")];
        let given = keys.iter().filter(|key| e.has(key)).count();
        if given == 0 {
            return Ok(None);
        }
        if given < 3 {
            return Err(e.err_here(format!("give all of {} or none", keys.join(", "))));
        }
        let mut v = Vector3::zeros();
        for (i, key) in keys.iter().enumerate() {
            v[i] = e.number(key)?.map(|(x, _)| x).unwrap_or(0.0);
        }
        Ok(Some(v))
    };
    let (x, y, z) = (col(e, 0)?, col(e, 1)?, col(e, 2)?);
    let r = match (x, y, z) {
        (None, None, None) => Matrix3::identity(),
        (Some(x), y, Some(z)) => {
            let y = y.unwrap_or_else(|| z.cross(&x));
            Matrix3::from_columns(&[x, y, z])
        }
        _ => {
            return Err(e.err_here(
                "the orientation needs the x axis (a00 a10 a20) and the z axis (a02 a12 a22)",
            ))
        }
    };
    let err = (r.transpose() * r - Matrix3::identity()).abs().max();
    if err > DCM_TOL || (r.determinant() - 1.0).abs() > DCM_TOL {
        return Err(e.err_here(format!(
            "the direction cosines a00…a22 are not a rotation (orthonormality off by {err:.1e})"
        )));
    }
    Ok(Some((id, (pos, r))))
}

/// What the model section produces besides statements.
#[derive(Default)]
pub(crate) struct Output {
    pub statements: Vec<Statement>,
    pub skipped: Vec<mbsolve_adm::Skipped>,
    pub statics: Option<StaticSettings>,
    pub transient: Option<Vec<Attr>>,
    /// Current time while reading commands (end of the last Simulate).
    pub time: f64,
    /// Adams label of each statement made ("JOINT/3") → the element as the
    /// XML names it ("Constraint_Joint id=3"), for the builder's messages.
    pub labels: HashMap<String, String>,
}

/// Labels and MotionView bookkeeping that do not affect the solution.
const NAMES: &[&str] = &["label", "full_label"];

/// Elements in the grammar that we do not support yet.
const NOT_YET: &[&str] = &[
    "Body_Flexible",
    "Body_Point",
    "Reference_Curve",
    // Reference Guide xml-format_92, _44 and _37; see write/curve.rs.
    "Reference_ParamCurve",
    "Constraint_PTCV",
    "Constraint_CVCV",
    "Control_PlantInput",
    "Control_PlantOutput",
    "Reference_FlexData",
];

/// Elements with no effect on the solution (output, animation, linear
/// analysis settings for analyses that are not run).
const NO_EFFECT: &[(&str, &str)] = &[
    ("ResOutput", "result-file options only"),
    ("H3DOutput", "result-file options only"),
    ("Messaging", "message-file options only"),
    (
        "Param_Linear",
        "linear-analysis settings (no linear analysis is run)",
    ),
    (
        "Param_FreqResponse",
        "frequency-response settings (no such analysis is run)",
    ),
    ("Post_Graphic", "geometry for animation only (no contact)"),
];

pub(crate) fn translate(e: &mut Elem, poses: &Poses, out: &mut Output) -> Result<(), XmlError> {
    if let Some((name, value)) = e.names_with_prefix("usrsub_").into_iter().find(|(n, _)| {
        n.eq_ignore_ascii_case("usrsub_fnc_name") || n.eq_ignore_ascii_case("usrsub_param_string")
    }) {
        return Err(e.err_here(format!(
            "needs a user subroutine ({name} = \"{}\"), which mbsolve cannot run",
            value.trim()
        )));
    }
    let tag = e.tag.clone();
    let is = |name: &str| tag.eq_ignore_ascii_case(name);
    if let Some(sts) = crate::added::translate(e, &poses.first)? {
        e.ignore(NAMES);
        e.finish()?;
        for st in sts {
            out.labels.insert(st.label(), e.label());
            out.statements.push(st);
        }
        return Ok(());
    }
    if let Some((_, why)) = NO_EFFECT.iter().find(|(n, _)| is(n)) {
        out.skipped.push(mbsolve_adm::Skipped {
            statement: e.label(),
            location: e.origin(e.pos),
            reason: why,
        });
        return Ok(());
    }
    if let Some(st) = crate::elastic::statement(e)? {
        e.ignore(NAMES);
        e.finish()?;
        out.labels.insert(st.label(), e.label());
        out.statements.push(st);
        return Ok(());
    }
    if let Some(n) = NOT_YET.iter().find(|n| is(n)) {
        return Err(e.err_here(format!("{n} is not supported yet")));
    }
    if is("Param_Unit") {
        return units(e, out);
    }
    if is("Param_Static") {
        return statics(e, out);
    }
    if is("Param_Transient") {
        let attrs = e
            .take_all()
            .into_iter()
            .map(|(name, value, p)| Attr {
                name,
                value,
                origin: e.origin(p),
            })
            .collect();
        out.transient = Some(attrs);
        return Ok(());
    }
    if is("Param_Simulation") {
        return simulation(e);
    }
    if is("Force_Gravity") {
        let st = gravity(e)?;
        e.ignore(&["id"]);
        e.ignore(NAMES);
        e.finish()?;
        out.statements.push(st);
        return Ok(());
    }
    if e.id.is_none() {
        return Err(e.err_here("needs an id"));
    }
    let st = if is("Reference_Marker") {
        marker(e, poses)?
    } else if is("Body_Rigid") {
        body(e, poses)?
    } else if is("Constraint_Joint") || is("Constraint_Jprim") {
        joint(e)?
    } else if is("Motion_Joint") || is("Motion_Marker") {
        motion(e)?
    } else if is("Force_SpringDamper") {
        springdamper(e)?
    } else if is("Force_Scalar_TwoBody") {
        sforce(e)?
    } else if is("Reference_Variable") {
        variable(e)?
    } else if is("Reference_Spline") {
        crate::data::spline(e)?
    } else if is("Reference_String") {
        crate::data::string(e)?
    } else if is("Control_Diff") {
        crate::states::diff(e)?
    } else if is("Sensor_Event") {
        crate::sensor::sensor_event(e, &poses.first.evaluates)?
    } else if is("Post_Request") {
        request(e)?
    } else {
        return Err(e.err_here(format!("unknown element <{tag}>")));
    };
    e.ignore(NAMES);
    e.finish()?;
    out.labels.insert(st.label(), e.label());
    out.statements.push(st);
    Ok(())
}

fn units(e: &mut Elem, out: &mut Output) -> Result<(), XmlError> {
    let mut st = e.statement("UNITS", None);
    for (attr, key) in [
        ("force_unit", "FORCE"),
        ("mass_unit", "MASS"),
        ("length_unit", "LENGTH"),
        ("time_unit", "TIME"),
    ] {
        if let Some((v, p)) = e.get(attr) {
            list(&mut st, key, &[v.trim().to_ascii_uppercase()], p);
        }
    }
    // mass_mult_factor: F = factor · m · a (MotionSolve Param_Unit), so
    // Adams' UCF (F · UCF = m · a) is its inverse.
    if let Some((f, p)) = e.number("mass_mult_factor")? {
        if f.is_nan() || f <= 0.0 {
            return Err(e.err(p, format!("mass_mult_factor must be positive, found {f}")));
        }
        numbers(&mut st, "UCF", &[1.0 / f], p);
    }
    if let Some((v, p)) = e.get("angle_unit") {
        if !v.trim().eq_ignore_ascii_case("RADIAN") {
            return Err(e.err(p, format!("angle_unit = \"{v}\": only RADIAN is supported")));
        }
    }
    e.ignore(NAMES);
    e.finish()?;
    out.statements.push(st);
    Ok(())
}

fn gravity(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("ACCGRAV", None);
    for (attr, key) in [
        ("grav_x", "IGRAV"),
        ("grav_y", "JGRAV"),
        ("grav_z", "KGRAV"),
    ] {
        if let Some((g, p)) = e.number(attr)? {
            numbers(&mut st, key, &[g], p);
        }
    }
    Ok(st)
}

/// Body_Rigid's frame is the global frame at the initial configuration
/// (markers are written in global coordinates), so each marker's QP is its
/// global position and its axes are given by two points, ZP and XP.
fn marker(e: &mut Elem, poses: &Poses) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    if poses.first.floating.contains(&id) {
        return crate::vector_forces::floating_marker(e, id);
    }
    let mut st = e.statement("MARKER", Some(id));
    let (body, bp) = e.required_id("body_id")?;
    if let Some((t, p)) = e.get("body_type") {
        let t = t.trim().to_ascii_uppercase();
        if t != "RIGIDBODY" {
            return Err(e.err(
                p,
                format!("body_type = \"{t}\" is not supported (RigidBody)"),
            ));
        }
    }
    if let Some((_, p)) = e.get("rm_id") {
        return Err(e.err(
            p,
            "rm_id is not supported yet (positions are read in the global frame)",
        ));
    }
    list(&mut st, "PART", &[body.to_string()], bp);
    // pos_* and a** were read in the first pass.
    for k in ["pos_x", "pos_y", "pos_z"] {
        e.ignore(&[k]);
    }
    for i in 0..3 {
        for j in 0..3 {
            e.ignore(&[&format!("a{i}{j}")]);
        }
    }
    let (o, r) = poses
        .markers
        .get(&id)
        .copied()
        .unwrap_or((Vector3::zeros(), Matrix3::identity()));
    let at = e.pos;
    numbers(&mut st, "QP", o.as_slice(), at);
    let zp = o + r.column(2);
    let xp = o + r.column(0);
    numbers(&mut st, "ZP", zp.as_slice(), at);
    numbers(&mut st, "XP", xp.as_slice(), at);
    Ok(st)
}

/// A Body_Rigid's mass and its inertia attributes (IP order), also what a
/// modify command may change.
pub(crate) const BODY_MASS: [&str; 7] = [
    "mass",
    "inertia_xx",
    "inertia_yy",
    "inertia_zz",
    "inertia_xy",
    "inertia_xz",
    "inertia_yz",
];

fn body(e: &mut Elem, poses: &Poses) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("PART", Some(id));
    if e.boolean("isground")? == Some(true) {
        flag(&mut st, "GROUND", e.pos);
        return Ok(st);
    }
    let (mass, mp) = e.number("mass")?.unwrap_or((0.0, e.pos));
    numbers(&mut st, "MASS", &[mass], mp);
    let cm = e.id_attr("cg_id")?;
    if let Some((cm, p)) = cm {
        list(&mut st, "CM", &[cm.to_string()], p);
    }
    // lprf_id names the body's local reference frame for post-processing;
    // marker poses are global, so it does not change the solution.
    e.ignore(&["lprf_id"]);
    let ip = &BODY_MASS[1..];
    let mut i6 = [0.0; 6];
    for (k, key) in ip.iter().enumerate() {
        i6[k] = e.number_or(key, 0.0)?;
    }
    // Inertia is about the im_id marker's axes; Adams' IP is in the CM
    // marker's axes: rotate when they differ.
    let cm_rot = cm.and_then(|(m, _)| poses.rotation(m));
    if let Some((im, p)) = e.id_attr("im_id")? {
        if Some(im) != cm.map(|(m, _)| m) {
            let (Some(ri), Some(rc)) = (poses.rotation(im), cm_rot) else {
                return Err(e.err(
                    p,
                    "im_id differs from cg_id and one of them is not a Reference_Marker",
                ));
            };
            let m = Matrix3::new(
                i6[0], i6[3], i6[4], i6[3], i6[1], i6[5], i6[4], i6[5], i6[2],
            );
            let r = rc.transpose() * ri;
            let t = r * m * r.transpose();
            i6 = [
                t[(0, 0)],
                t[(1, 1)],
                t[(2, 2)],
                t[(0, 1)],
                t[(0, 2)],
                t[(1, 2)],
            ];
        }
    }
    numbers(&mut st, "IP", &i6, e.pos);
    // Initial velocities: global frame (grammar §3). Each applies when its
    // flag is TRUE or absent; a FALSE flag leaves it free.
    let comp = |e: &mut Elem, key: &str| -> Result<f64, XmlError> {
        let v = e.number_or(key, 0.0)?;
        let held = e.boolean(&format!("{key}_flag"))?.unwrap_or(true);
        Ok(if held { v } else { 0.0 })
    };
    let v = Vector3::new(comp(e, "v_ic_x")?, comp(e, "v_ic_y")?, comp(e, "v_ic_z")?);
    let w = Vector3::new(comp(e, "w_ic_x")?, comp(e, "w_ic_y")?, comp(e, "w_ic_z")?);
    if v != Vector3::zeros() {
        numbers(&mut st, "VX", &[v.x], e.pos);
        numbers(&mut st, "VY", &[v.y], e.pos);
        numbers(&mut st, "VZ", &[v.z], e.pos);
    }
    if w != Vector3::zeros() {
        // Adams' WX/WY/WZ are in the CM marker's axes.
        let wl = cm_rot.map(|r| r.transpose() * w).unwrap_or(w);
        numbers(&mut st, "WX", &[wl.x], e.pos);
        numbers(&mut st, "WY", &[wl.y], e.pos);
        numbers(&mut st, "WZ", &[wl.z], e.pos);
    }
    Ok(st)
}

pub(crate) fn markers_ij(e: &mut Elem, st: &mut Statement) -> Result<(), XmlError> {
    let (i, ip) = e.required_id("i_marker_id")?;
    let (j, jp) = e.required_id("j_marker_id")?;
    list(st, "I", &[i.to_string()], ip);
    list(st, "J", &[j.to_string()], jp);
    Ok(())
}

fn joint(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let (ty, tp) = e.required("type")?;
    let ty = ty.trim().to_ascii_uppercase();
    let (name, kind): (&str, &str) = match ty.as_str() {
        "REVOLUTE" | "TRANSLATIONAL" | "SPHERICAL" | "FIXED" | "CYLINDRICAL" | "UNIVERSAL"
        | "HOOKE" | "PLANAR" => ("JOINT", ty.as_str()),
        "RACK_PINION" | "RACKPIN" => ("JOINT", "RACKPIN"),
        "INLINE" | "INPLANE" | "ORIENTATION" | "PARALLEL_AXES" | "PERPENDICULAR" | "ATPOINT" => {
            ("JPRIM", ty.as_str())
        }
        _ => {
            return Err(e.err(
                tp,
                format!("type = \"{ty}\" is not supported (REVOLUTE, TRANSLATIONAL, SPHERICAL, FIXED, CYLINDRICAL, UNIVERSAL, HOOKE, PLANAR, RACK_PINION, INLINE, INPLANE, ORIENTATION, PARALLEL_AXES, PERPENDICULAR, ATPOINT)"),
            ))
        }
    };
    if e.tag.eq_ignore_ascii_case("Constraint_Jprim") && name != "JPRIM" {
        return Err(e.err(
            tp,
            format!("type = \"{ty}\" is a joint, not a joint primitive"),
        ));
    }
    let mut st = e.statement(name, Some(id));
    flag(&mut st, kind, tp);
    markers_ij(e, &mut st)?;
    if kind == "RACKPIN" {
        let (pd, p) = e
            .number("pitch_diameter")?
            .ok_or_else(|| e.err_here("RACK_PINION needs pitch_diameter"))?;
        numbers(&mut st, "PD", &[pd], p);
    }
    if e.boolean("is_virtual")? == Some(true) {
        return Err(e.err_here("is_virtual = TRUE is not supported"));
    }
    Ok(st)
}

fn motion(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("MOTION", Some(id));
    if let Some((vt, p)) = e.get("val_type") {
        if !vt.trim().eq_ignore_ascii_case("D") {
            return Err(e.err(
                p,
                format!("val_type = \"{}\" (velocity or acceleration) is not supported yet: displacement (D) only", vt.trim()),
            ));
        }
    }
    if e.tag.eq_ignore_ascii_case("Motion_Joint") {
        let (joint, jp) = e.required_id("joint_id")?;
        list(&mut st, "JOINT", &[joint.to_string()], jp);
        if let Some((mt, p)) = e.get("motion_type") {
            match mt.trim().to_ascii_uppercase().as_str() {
                "T" | "TRANSLATION" => flag(&mut st, "TRANSLATION", p),
                "R" | "ROTATION" => flag(&mut st, "ROTATION", p),
                other => return Err(e.err(p, format!("motion_type = \"{other}\" must be T or R"))),
            }
        }
    } else {
        markers_ij(e, &mut st)?;
        let (dir, p) = e.required("direction")?;
        let d = dir.trim().to_ascii_uppercase();
        if !["X", "Y", "Z", "B1", "B2", "B3"].contains(&d.as_str()) {
            return Err(e.err(
                p,
                format!("direction = \"{d}\" must be X, Y, Z, B1, B2 or B3"),
            ));
        }
        flag(&mut st, &d, p);
    }
    let ty = e.get("type");
    let constant = match &ty {
        Some((t, p)) => match t.trim().to_ascii_uppercase().as_str() {
            "EXPRESSION" => false,
            "CONSTANT" => true,
            other => {
                return Err(e.err(
                    *p,
                    format!("type = \"{other}\" must be EXPRESSION or CONSTANT"),
                ))
            }
        },
        None => false,
    };
    if constant {
        let (q, p) = e
            .number("q")?
            .ok_or_else(|| e.err_here("type CONSTANT needs q"))?;
        expr(&mut st, "FUNCTION", &format!("{q:e}"), p);
    } else {
        let (x, p) = e.required("expr")?;
        expr(&mut st, "FUNCTION", &x, p);
    }
    Ok(st)
}

fn springdamper(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("SPRINGDAMPER", Some(id));
    let (ty, tp) = e.get("type").unwrap_or(("TRANSLATIONAL".into(), e.pos));
    let keys: [(&str, &str); 4] = match ty.trim().to_ascii_uppercase().as_str() {
        "TRANSLATIONAL" => {
            flag(&mut st, "TRANSLATIONAL", tp);
            [
                ("stiffness", "K"),
                ("damping", "C"),
                ("length", "LENGTH"),
                ("preload", "FORCE"),
            ]
        }
        "ROTATIONAL" => {
            flag(&mut st, "ROTATIONAL", tp);
            [
                ("stiffness", "KT"),
                ("damping", "CT"),
                ("angle", "ANGLE"),
                ("preload", "TORQUE"),
            ]
        }
        other => {
            return Err(e.err(
                tp,
                format!("type = \"{other}\" must be TRANSLATIONAL or ROTATIONAL"),
            ))
        }
    };
    markers_ij(e, &mut st)?;
    for (attr, key) in keys {
        if let Some((v, p)) = e.number(attr)? {
            numbers(&mut st, key, &[v], p);
        }
    }
    Ok(st)
}

fn sforce(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("SFORCE", Some(id));
    let (ty, tp) = e.required("type")?;
    match ty.trim().to_ascii_uppercase().as_str() {
        "FORCE" | "TRANSLATION" | "TRANSLATIONAL" => flag(&mut st, "TRANSLATIONAL", tp),
        "TORQUE" | "ROTATION" | "ROTATIONAL" => flag(&mut st, "ROTATIONAL", tp),
        other => return Err(e.err(tp, format!("type = \"{other}\" must be Force or Torque"))),
    }
    markers_ij(e, &mut st)?;
    // is_action_only (MotionSolve Reference Guide, "Force: Two Body
    // Scalar", model element xml-format_68 and command xml-format_13):
    // TRUE applies the force on I with no reaction on J, the Adams
    // SFORCE ACTIONONLY (the MotionSolve Python API's Sforce names the
    // same attribute `actiononly`).
    if e.boolean("is_action_only")? == Some(true) {
        flag(&mut st, "ACTIONONLY", e.pos);
    }
    let (x, p) = e.required("val_expression")?;
    expr(&mut st, "FUNCTION", &x, p);
    Ok(st)
}

fn variable(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("VARIABLE", Some(id));
    if let Some((t, p)) = e.get("type") {
        if !t.trim().eq_ignore_ascii_case("EXPRESSION") {
            return Err(e.err(
                p,
                format!("type = \"{}\" is not supported (EXPRESSION)", t.trim()),
            ));
        }
    }
    // is_implicit = TRUE makes expr a residual (MotionSolve Reference
    // Guide, "Reference: Solver Variable", xml-format_94); mbsolve's
    // implicit VARIABLEs are Adams' v = f(v, …) (a Reference_Variable
    // whose expr reads its own VARVAL), so the residual form is refused.
    if let Some((_, p)) = e
        .get("is_implicit")
        .filter(|(v, _)| !v.trim().eq_ignore_ascii_case("FALSE"))
    {
        return Err(e.err(
            p,
            "is_implicit = TRUE is not supported (an expr reading its own VARVAL is solved as v = expr)",
        ));
    }
    // ic: the value at the initial-conditions solve, the Adams VARIABLE IC
    // (the start of an implicit VARIABLE's first Newton solve; an explicit
    // one's value is computed exactly, in Adams as here).
    if let Some((ic, p)) = e.number("ic")? {
        numbers(&mut st, "IC", &[ic], p);
    }
    let (x, p) = e.required("expr")?;
    expr(&mut st, "FUNCTION", &x, p);
    Ok(st)
}

fn request(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("REQUEST", Some(id));
    let (ty, tp) = e.required("type")?;
    let ty = ty.trim().to_ascii_uppercase();
    let kind = match ty.as_str() {
        "MARKER_DISPLACEMENT" => Some("DISPLACEMENT"),
        "MARKER_VELOCITY" => Some("VELOCITY"),
        "MARKER_ACCELERATION" => Some("ACCELERATION"),
        "MARKER_FORCE" => Some("FORCE"),
        "EXPRESSION" => None,
        other => {
            return Err(e.err(
                tp,
                format!("type = \"{other}\" is not supported (MARKER_DISPLACEMENT, MARKER_VELOCITY, MARKER_ACCELERATION, MARKER_FORCE, EXPRESSION)"),
            ))
        }
    };
    match kind {
        Some(k) => {
            flag(&mut st, k, tp);
            let (i, ip) = e.required_id("i_marker_id")?;
            list(&mut st, "I", &[i.to_string()], ip);
            if let Some((j, jp)) = e.id_attr("j_marker_id")? {
                list(&mut st, "J", &[j.to_string()], jp);
            }
            if let Some((rm, p)) = e.id_attr("ref_marker_id")? {
                list(&mut st, "RM", &[rm.to_string()], p);
            }
        }
        None => {
            for k in 1..=8 {
                if let Some((x, p)) = e.get(&format!("expr{k}")) {
                    if !x.trim().eq_ignore_ascii_case("NULL") && !x.trim().is_empty() {
                        expr(&mut st, &format!("F{k}"), x.trim(), p);
                    }
                }
            }
        }
    }
    // Post_Request names itself by `comment` (sometimes `label`).
    let name = e.get("comment").or_else(|| e.get("label"));
    if let Some((c, p)) = name {
        if !c.trim().is_empty() {
            text(&mut st, "COMMENT", c.trim(), p);
        }
    }
    Ok(st)
}

/// Param_Static → the static settings (seeds: motionsolve-param-static).
fn statics(e: &mut Elem, out: &mut Output) -> Result<(), XmlError> {
    let mut s = StaticSettings {
        origin: Some(e.origin(e.pos)),
        ..Default::default()
    };
    if let Some((m, p)) = e.get("method") {
        s.method = Some(match m.trim().to_ascii_uppercase().as_str() {
            "MKEAM" => StaticMethod::Mkeam,
            "FIM_S" => StaticMethod::FimS,
            "FIM_D" => StaticMethod::FimD,
            other => {
                return Err(e.err(
                    p,
                    format!("method = \"{other}\" must be MKEAM, FIM_S or FIM_D"),
                ))
            }
        });
    }
    let num = |e: &mut Elem, k: &str| -> Result<Option<f64>, XmlError> {
        Ok(e.number(k)?.map(|(x, _)| x))
    };
    s.max_ke_tol = num(e, "max_ke_tol")?;
    s.max_dq_tol = num(e, "max_dq_tol")?;
    s.max_imbalance = num(e, "max_imbalance")?;
    s.max_error = num(e, "max_error")?;
    // max_residual (the seed's FIM_S example, not its attribute list) is
    // the residual limit the list calls max_error.
    if let Some((r, p)) = e.number("max_residual")? {
        if s.max_error.is_some() {
            return Err(e.err(
                p,
                "give max_residual or max_error, not both (max_residual, in the seed's FIM_S example, is max_error)",
            ));
        }
        s.max_error = Some(r);
    }
    s.stability = num(e, "stability")?;
    // compliance_delta: mbsolve computes no compliance matrix from a deck
    // (no MotionSolve output asks for one): refused rather than read
    // without effect.
    if let Some((_, p)) = e.get("compliance_delta") {
        return Err(e.err(
            p,
            "compliance_delta is not supported: no deck output uses the compliance matrix (the Rust API Simulation::compliance_matrix reads it from StaticSettings)",
        ));
    }
    if let Some((n, p)) = e.number("max_num_iter")? {
        if n.fract() != 0.0 {
            return Err(e.err(p, format!("max_num_iter = {n} must be an integer")));
        }
        s.max_num_iter = Some(n as i64);
    }
    e.ignore(NAMES);
    e.finish()?;
    out.statics = Some(s);
    Ok(())
}

/// Param_Simulation: the linear solver choice does not change results
/// (mbsolve always uses its sparse LU); everything else is rejected by
/// name until it is honoured.
fn simulation(e: &mut Elem) -> Result<(), XmlError> {
    if let Some((v, p)) = e.get("linsolver") {
        let v = v.trim().to_ascii_uppercase();
        if !["HARWELL", "CALAHAN", "KLU", "UMF", "SPARSE"].contains(&v.as_str()) {
            return Err(e.err(
                p,
                format!("linsolver = \"{v}\" is not a linear solver MotionSolve names"),
            ));
        }
    }
    crate::commands::constr_tol(e)?;
    e.ignore(NAMES);
    e.finish()
}
