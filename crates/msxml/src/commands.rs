//! The `<Command>` section's element commands: `<Deactivate>` and
//! `<Activate>` (element_type + element_id), mapped onto the solver's
//! ACTIVATE/DEACTIVATE.

use crate::reader::Elem;
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
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
    ("BUSHING", &["BUSHING"]),
    ("FORCE_BUSHING", &["BUSHING"]),
    ("FIELD", &["FIELD"]),
    ("FORCE_FIELD", &["FIELD"]),
    ("BEAM", &["BEAM"]),
    ("FORCE_BEAM", &["BEAM"]),
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
                "element_type = \"{}\" cannot be switched (supported: Constraint_Joint, Constraint_Jprim, Motion_Joint, Motion_Marker, Force_Scalar_TwoBody, Force_SpringDamper, Force_Bushing, Force_Field, Force_Beam)",
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
        "BUSHING" => ElementRef::Bushing(id),
        "FIELD" => ElementRef::Field(id),
        "BEAM" => ElementRef::Beam(id),
        _ => ElementRef::Springdamper(id),
    };
    Ok(Command::Activate {
        element,
        active,
        origin: e.origin(e.pos),
    })
}

/// Model elements a command may modify by id, with the attributes it may
/// change (MotionSolve's command forms; `id` and `label` aside).
const MODIFIABLE: &[(&str, &[&str])] = &[
    ("motion_joint", &["expr", "val_type", "type", "q"]),
    ("motion_marker", &["expr", "val_type", "type", "q"]),
    ("force_scalar_twobody", &["val_expression"]),
    (
        "force_springdamper",
        &["stiffness", "damping", "length", "preload", "angle"],
    ),
    ("reference_variable", &["expr"]),
    (
        "reference_marker",
        &[
            "pos_x", "pos_y", "pos_z", "a00", "a01", "a02", "a10", "a11", "a12", "a20", "a21",
            "a22",
        ],
    ),
    ("body_rigid", &crate::elements::BODY_MASS),
    ("force_vector_twobody", &crate::vector_forces::EXPRESSIONS),
    ("force_vector_onebody", &crate::vector_forces::EXPRESSIONS),
    // MotionSolve Reference Guide, "Sensor: Event" command element
    // (xml-format_30); usrsub_* are refused as everywhere.
    (
        "sensor_event",
        &["type", "expr", "compare", "value", "error_tol", "verbose"],
    ),
    // "Reference: Array" command element (xml-format_26): new values of
    // an IC array as text; type RESTART and PRINT are refused below.
    ("reference_array", &["type", "num_element"]),
];

/// Command forms the docs list that we do not run: refused by name.
const NOT_MODIFIABLE: &[&str] = &[
    "post_request",
    "force_bushing",
    "force_beam",
    "force_contact",
    "force_gravity",
];

/// Whether a `<Command>` child with this tag is a modify command.
pub(crate) fn is_modify(tag: &str) -> bool {
    let t = tag.to_ascii_lowercase();
    MODIFIABLE.iter().any(|(n, _)| *n == t) || NOT_MODIFIABLE.contains(&t.as_str())
}

/// Whether model elements with this tag are kept for later modification.
pub(crate) fn is_modifiable(tag: &str) -> bool {
    let t = tag.to_ascii_lowercase();
    MODIFIABLE.iter().any(|(n, _)| *n == t)
}

/// The walk through `<Command>`: the model elements as read (for modify
/// commands, which override their attributes), the statements of the
/// running model once an analysis has run, and the Param_Transient
/// attributes so far.
pub(crate) struct Walk<'a> {
    pub originals: HashMap<(String, u32), Elem<'a>>,
    pub transient: Vec<crate::Attr>,
    /// None until the first Simulate: edits before it change the model
    /// itself (as `.acf` redefinitions before the first SIMULATE do).
    pub running: Option<Vec<Statement>>,
    /// (index in the command list, statements to build) of each
    /// Command::Redefine to fill once the model has been built.
    pub pending: Vec<(usize, Vec<Statement>)>,
    /// The marker poses as read and as modified since (a modified
    /// Reference_Marker's statement is written from its pose, a
    /// Body_Rigid's inertia and spin are rotated with them).
    pub poses: crate::elements::Poses,
}

/// A modify command `<Motion_Joint id="3" expr="…"/>`: the element's
/// attributes as read, overridden by the command's, translated again;
/// the statement replaces the element's in the model (before the first
/// Simulate) or in the running model (then `Some(what)`: the caller
/// records a Command::Redefine).
pub(crate) fn modify(
    e: &mut Elem<'_>,
    walk: &mut Walk<'_>,
    statements: &mut [Statement],
) -> Result<Option<String>, XmlError> {
    let tag = e.tag.to_ascii_lowercase();
    if tag == "post_request" {
        // The result file's columns are laid out once, from the requests
        // of the model the run starts with.
        return Err(e.err_here(
            "<Post_Request> as a command is not supported: the result file's columns are fixed when the run starts",
        ));
    }
    let Some((_, allowed)) = MODIFIABLE.iter().find(|(n, _)| *n == tag) else {
        return Err(e.err_here(format!(
            "<{}> as a command is not supported yet (modify commands: Motion_Joint, Motion_Marker, Force_Scalar_TwoBody, Force_SpringDamper, Force_Vector_TwoBody, Force_Vector_OneBody, Reference_Variable, Reference_Marker, Reference_Array, Body_Rigid, Sensor_Event)",
            e.tag
        )));
    };
    let Some(id) = e.id else {
        return Err(e.err_here("a modify command needs the id of the element it changes"));
    };
    let Some(base) = walk.originals.get(&(tag.clone(), id)) else {
        return Err(e.err_here(format!("no {} with id {id} in the model", e.tag)));
    };
    let given = e.take_all();
    for (name, _, p) in &given {
        let n = name.to_ascii_lowercase();
        if !allowed.contains(&n.as_str()) && !["id", "label", "full_label"].contains(&n.as_str()) {
            return Err(e.err(
                *p,
                format!(
                    "attribute {name} cannot be changed by a command (it can change: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    let has = |k: &str| given.iter().any(|(n, _, _)| n.eq_ignore_ascii_case(k));
    // A new expression replaces a CONSTANT q and the other way round.
    let mut dropped: Vec<&str> = Vec::new();
    let mut added = Vec::new();
    if tag.starts_with("motion_") {
        if has("expr") {
            dropped.extend(["type", "q"]);
        } else if has("q") {
            dropped.extend(["type", "expr"]);
            if !has("type") {
                added.push(("type".to_string(), "CONSTANT".to_string(), e.pos));
            }
        }
    }
    let mut merged = base.overridden(&given, &dropped, added, e.pos);
    if tag == "reference_array" {
        crate::arrays::modify(e, base, &given, &mut merged, walk.running.is_some())?;
    }
    if tag == "reference_marker" {
        if walk.poses.first.floating.contains(&id) {
            return Err(e.err_here(
                "a floating marker (a Force_Vector_TwoBody's j_floating_marker_id) has no pose of its own to change",
            ));
        }
        // The command's pos_* and a** are global (MotionSolve Reference
        // Guide, "Reference: Marker" command element). Before the first
        // Simulate every body frame is the global frame (the design
        // configuration); after it, that holds for ground only, and where
        // a moving body is when the command runs is not known here.
        let body = base
            .peek("body_id")
            .and_then(|b| b.trim().parse::<u32>().ok());
        if walk.running.is_some() && body != walk.poses.first.ground {
            return Err(e.err_here(format!(
                "marker {id} is on Body_Rigid {}: after a Simulate only markers on ground can be moved (the command's position is global, and where the body is then is known only while running)",
                body.map_or("?".to_string(), |b| b.to_string())
            )));
        }
        if let Some((_, pose)) = crate::elements::marker_pose(&mut merged.clone())? {
            walk.poses.set_marker(id, pose);
        }
    }
    let mut out = crate::elements::Output::default();
    let mut translated = merged.clone();
    crate::elements::translate(&mut translated, &walk.poses, &mut out)?;
    let Some(st) = out.statements.pop() else {
        return Err(e.err_here("the modified element translates to nothing"));
    };
    let label = st.label();
    let target: &mut [Statement] = match walk.running.as_mut() {
        Some(r) => r,
        None => statements,
    };
    let Some(slot) = target.iter_mut().find(|s| s.label() == label) else {
        return Err(e.err_here(format!("no {} with id {id} in the model", e.tag)));
    };
    *slot = st;
    walk.originals.insert((tag, id), merged);
    Ok(walk.running.as_ref().map(|_| e.label()))
}

/// `<Param_Transient …/>` as a command: its attributes override the
/// deck's (and earlier commands'); the merged list is validated when the
/// command runs.
pub(crate) fn param_transient(e: &mut Elem<'_>, walk: &mut Walk<'_>) -> Command {
    for (name, value, p) in e.take_all() {
        let origin = e.origin(p);
        match walk
            .transient
            .iter_mut()
            .find(|a| a.name.eq_ignore_ascii_case(&name))
        {
            Some(a) => {
                a.value = value;
                a.origin = origin;
            }
            None => walk.transient.push(crate::Attr {
                name,
                value,
                origin,
            }),
        }
    }
    Command::ParamTransient {
        attributes: walk
            .transient
            .iter()
            .map(|a| (a.name.clone(), a.value.clone(), a.origin.clone()))
            .collect(),
    }
}

/// The |Φ| bound to which mbsolve assembles positions (initial conditions,
/// kinematics, restarts): solver/src/analysis.rs POS_TOL.
pub(crate) const ASSEMBLY_TOL: f64 = 1e-10;

/// Param_Simulation `constr_tol`: the largest constraint violation the
/// initial-condition and kinematic solutions may leave. mbsolve always
/// assembles to [`ASSEMBLY_TOL`], which meets any bound at least that
/// loose (MotionSolve's default is 1e-10); a tighter one cannot be
/// honoured and is refused.
pub(crate) fn constr_tol(e: &mut Elem<'_>) -> Result<(), XmlError> {
    if let Some((v, p)) = e.number("constr_tol")? {
        if v.is_nan() || v <= 0.0 {
            return Err(e.err(p, format!("constr_tol = {v} must be positive")));
        }
        if v < ASSEMBLY_TOL {
            return Err(e.err(
                p,
                format!(
                    "constr_tol = {v:e} is tighter than the {ASSEMBLY_TOL:e} to which mbsolve assembles constraints; not supported"
                ),
            ));
        }
    }
    Ok(())
}

/// ResOutput (in `<Model>` or `<Command>`): `plt_file="TRUE"` asks for the
/// ASCII `.plt` result file, which `run` writes beside the CSV; the other
/// result-file options (binary files, angle types, …) are listed as read
/// without effect. Returns plt_file.
pub(crate) fn res_output(
    e: &mut Elem<'_>,
    skipped: &mut Vec<mbsolve_adm::Skipped>,
) -> Result<bool, XmlError> {
    let plt = e.boolean("plt_file")?.unwrap_or(false);
    if let Some((v, p)) = e.get("angle_type") {
        if !v.trim().eq_ignore_ascii_case("YPR") {
            return Err(e.err(
                p,
                format!(
                    "angle_type = \"{}\" is not supported (the .plt writes yaw, pitch, roll: YPR)",
                    v.trim()
                ),
            ));
        }
    }
    let rest = e.take_all();
    let others = rest.iter().any(|(n, _, _)| {
        !["plt_file", "angle_type", "label"]
            .iter()
            .any(|k| n.eq_ignore_ascii_case(k))
    });
    if others {
        skipped.push(mbsolve_adm::Skipped {
            statement: e.label(),
            location: e.origin(e.pos),
            reason: "result-file options other than plt_file and angle_type",
        });
    }
    Ok(plt)
}
