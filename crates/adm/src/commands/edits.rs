//! The element commands of a command file: ACTIVATE/DEACTIVATE (by ID or
//! RANGE) and the MOTION and REQUEST commands that edit the dataset,
//! with the helpers they share with `commands.rs`.

use super::*;

/// Element types ACTIVATE/DEACTIVATE switch (the mechanics' constraints
/// and forces).
pub(super) const SWITCHABLE: &[&str] = &[
    "JOINT",
    "JPRIM",
    "MOTION",
    "GCON",
    "SFORCE",
    "SPRINGDAMPER",
    "VFORCE",
    "VTORQUE",
    "GFORCE",
    "BUSHING",
    "FIELD",
    "BEAM",
    "CONTACT",
    "SENSOR",
];

/// The other element types the Adams commands name: refused by name.
pub(super) const NOT_SWITCHABLE: &[&str] = &[
    "COUPLER",
    "CVCV",
    "DIFF",
    "FLEX_BODY",
    "FRICTION",
    "GEAR",
    "GSE",
    "LSE",
    "NFORCE",
    "PTCV",
    "TFSISO",
];

/// `DEACTIVATE/JOINT, ID = 1, 2` (and ACTIVATE): one command per id, in
/// the order written; `RANGE = a, b`: every element of the type with an id
/// in [a, b] that the model holds when the command runs (ids between
/// without one are skipped; a range holding none is an error then).
pub(super) fn activation(
    file: &str,
    st: &Statement,
    active: bool,
    out: &mut Vec<Command>,
) -> Result<(), AdmError> {
    let verb = if active { "ACTIVATE" } else { "DEACTIVATE" };
    let mut keys: Vec<&'static str> = SWITCHABLE.to_vec();
    keys.extend_from_slice(NOT_SWITCHABLE);
    keys.extend_from_slice(&["ID", "RANGE"]);
    let mut a = Args::new(file, st, verb.to_string(), &keys, &[])?;
    let mut kind = None;
    for k in SWITCHABLE.iter().chain(NOT_SWITCHABLE) {
        if a.flag(k)? {
            if kind.is_some() {
                return Err(a.err(a.pos_of(k), "more than one element type"));
            }
            kind = Some(*k);
        }
    }
    let Some(kind) = kind else {
        return Err(a.err_here(format!(
            "{verb} needs an element type ({}, …)",
            SWITCHABLE.join(", ")
        )));
    };
    if NOT_SWITCHABLE.contains(&kind) {
        return Err(a.err_here(format!(
            "{verb}/{kind} is not supported yet (supported: {})",
            SWITCHABLE.join(", ")
        )));
    }
    let origin = format!("{file}:{}", st.pos.line);
    if a.has("RANGE") {
        if a.has("ID") {
            return Err(a.err(a.pos_of("RANGE"), "ID and RANGE are exclusive"));
        }
        let range_pos = a.pos_of("RANGE");
        let Some(v) = a.numbers("RANGE", 2)? else {
            unreachable!("RANGE is present")
        };
        a.finish()?;
        let mut ids = [0u32; 2];
        for (n, x) in v.iter().enumerate() {
            ids[n] = positive_id(file, range_pos, verb, kind, "RANGE", *x)?;
        }
        if ids[0] > ids[1] {
            return Err(AdmError::new(
                file,
                range_pos,
                Some(format!("{verb}/{kind}")),
                format!(
                    "{verb}/{kind}: RANGE = {}, {}: the first id must not exceed the second",
                    ids[0], ids[1]
                ),
            ));
        }
        out.push(Command::ActivateRange {
            first: element_ref(kind, ids[0]),
            last: ids[1],
            active,
            origin,
        });
        return Ok(());
    }
    let id_pos = a.pos_of("ID");
    let Some(ids) = a.numbers_range("ID", 1, usize::MAX)? else {
        return Err(a.err_here(format!(
            "{verb}/{kind} needs ID = id1, id2, … or RANGE = first, last"
        )));
    };
    a.finish()?;
    for v in ids {
        let id = positive_id(file, id_pos, verb, kind, "ID", v)?;
        out.push(Command::Activate {
            element: element_ref(kind, id),
            active,
            origin: origin.clone(),
        });
    }
    Ok(())
}

/// An id value of ID = or RANGE =.
pub(super) fn positive_id(
    file: &str,
    pos: crate::error::Pos,
    verb: &str,
    kind: &str,
    key: &str,
    v: f64,
) -> Result<u32, AdmError> {
    if v < 1.0 || v.fract() != 0.0 || v > u32::MAX as f64 {
        return Err(AdmError::new(
            file,
            pos,
            Some(format!("{verb}/{kind}")),
            format!("{verb}/{kind}: {key} = {v} is not a positive integer id"),
        ));
    }
    Ok(v as u32)
}

/// The element of a SWITCHABLE type with this id.
pub(super) fn element_ref(kind: &str, id: u32) -> mbsolve_model::ElementRef {
    use mbsolve_model::ElementRef as E;
    match kind {
        "JOINT" => E::Joint(id),
        "JPRIM" => E::Jprim(id),
        "MOTION" => E::Motion(id),
        "GCON" => E::Gcon(id),
        "SFORCE" => E::Force(id),
        "SPRINGDAMPER" => E::Springdamper(id),
        "VFORCE" => E::Vforce(id),
        "VTORQUE" => E::Vtorque(id),
        "BUSHING" => E::Bushing(id),
        "FIELD" => E::Field(id),
        "BEAM" => E::Beam(id),
        "CONTACT" => E::Contact(id),
        "SENSOR" => E::Sensor(id),
        _ => E::Gforce(id),
    }
}

/// "SFORCE/1" for a redefinition command.
pub(super) fn label_of(st: &Statement, name: &str) -> String {
    match st.id {
        Some(id) => format!("{name}/{id}"),
        None => name.to_string(),
    }
}

/// A redefinition before the first SIMULATE edits the dataset; after one,
/// a Command::Redefine placeholder that `resolve_redefinitions` fills.
pub(super) fn push_redefinition(
    file: &str,
    st: &Statement,
    name: &str,
    late: bool,
    acf: &mut AcfFile,
) {
    if late {
        acf.late_redefinitions
            .push((acf.commands.len(), st.clone()));
        acf.commands.push(Command::Redefine {
            model: mbsolve_model::RedefinedModel(std::sync::Arc::default()),
            what: label_of(st, name),
            origin: format!("{file}:{}", st.pos.line),
        });
    } else {
        acf.redefinitions.push(st.clone());
    }
}

/// Whether a SIMULATE came before (a redefinition then acts from the next
/// analysis on).
pub(super) fn after_simulate(acf: &AcfFile) -> bool {
    acf.commands
        .iter()
        .any(|c| matches!(c, Command::Simulate { .. }))
}

/// The run-log line of a command accepted without effect on the results.
pub(super) fn no_effect(file: &str, st: &Statement, name: &str, why: &str) -> String {
    let args: Vec<String> = st.args.iter().map(|a| a.key.to_ascii_uppercase()).collect();
    let what = if args.is_empty() {
        name.to_string()
    } else {
        format!("{name}/{}", args.join(", "))
    };
    format!(
        "{file}:{}: {what}: no effect in mbsolve ({why})",
        st.pos.line
    )
}

/// `MOTION/id, [DISPLACEMENT|VELOCITY|ACCELERATION], [FUNCTION = e],
/// [ICDISP = r], [ICVEL = r]`: respecifies the motion's input and initial
/// conditions (applied to the dataset by `Builder::redefine`). What the
/// motion drives (JOINT, I, J, TRANSLATION, …, B3) is refused: it would
/// change the constraint equations. After a SIMULATE only the FUNCTION of
/// a DISPLACEMENT motion may change: a VELOCITY or ACCELERATION motion's
/// displacement is its integral from ICDISP at t = 0, so a change once an
/// analysis has run would not continue from the current displacement.
pub(super) fn motion_command(
    file: &str,
    st: &Statement,
    label: String,
    acf: &mut AcfFile,
) -> Result<(), AdmError> {
    crate::build::reject_user_subroutine(file, st, "MOTION", &label)?;
    if st.id.is_none() {
        return Err(AdmError::new(
            file,
            st.pos,
            Some(label.clone()),
            format!("{label}: which MOTION? (MOTION/id, FUNCTION = …)"),
        ));
    }
    let mut a = Args::new(file, st, label, MOTION_COMMAND_KEYS, &[])?;
    for k in MOTION_TARGET_KEYS {
        if a.has(k) {
            return Err(a.err(
                a.pos_of(k),
                format!("{k}: a MOTION command cannot change what the motion drives (the model's constraint equations would change); it respecifies DISPLACEMENT, VELOCITY, ACCELERATION, FUNCTION, ICDISP and ICVEL"),
            ));
        }
    }
    let list = a.flag("LIST")?;
    if let Some(e) = a.expr("FUNCTION")? {
        if let Err(x) = mbsolve_expr::Expr::parse(&e.text) {
            return Err(a.err(e.pos_at(x.span.start), &x.message));
        }
    }
    let late = after_simulate(acf);
    let edits = [
        "DISPLACEMENT",
        "VELOCITY",
        "ACCELERATION",
        "FUNCTION",
        "ICDISP",
        "ICVEL",
    ];
    if late {
        for k in ["VELOCITY", "ACCELERATION", "ICDISP", "ICVEL"] {
            if a.has(k) {
                return Err(a.err(
                    a.pos_of(k),
                    format!("{k} after a SIMULATE is not supported: a VELOCITY or ACCELERATION motion's displacement is integrated from ICDISP (and ICVEL) at t = 0, so it would not continue from the current displacement (give it before the first SIMULATE)"),
                ));
            }
        }
    }
    let edits_given = edits.iter().any(|k| a.has(k));
    // The values are read (and checked) again when the redefinition is
    // applied to the dataset.
    a.ignore(&edits);
    a.finish()?;
    if !edits_given {
        if list {
            acf.without_effect.push(no_effect(
                file,
                st,
                "MOTION",
                "LIST prints the motion's data in Adams' message file",
            ));
            return Ok(());
        }
        return Err(AdmError::new(
            file,
            st.pos,
            Some(label_of(st, "MOTION")),
            format!(
                "{}: nothing to redefine (DISPLACEMENT, VELOCITY, ACCELERATION, FUNCTION, ICDISP or ICVEL)",
                label_of(st, "MOTION")
            ),
        ));
    }
    push_redefinition(file, st, "MOTION", late, acf);
    Ok(())
}

/// `REQUEST/id, F2 = e, …`: respecifies components of a function REQUEST
/// before the first SIMULATE (a dataset edit). After a SIMULATE it is
/// refused: mbsolve fixes the output columns when the run starts. A REQSUB
/// (FUNCTION = USER(…), ROUTINE) is refused as every user subroutine is;
/// LIST alone is noted as having no effect.
pub(super) fn request_command(
    file: &str,
    st: &Statement,
    label: String,
    acf: &mut AcfFile,
) -> Result<(), AdmError> {
    crate::build::reject_user_subroutine(file, st, "REQUEST", &label)?;
    if st.id.is_none() {
        return Err(AdmError::new(
            file,
            st.pos,
            Some(label.clone()),
            format!("{label}: which REQUEST? (REQUEST/id, F2 = …)"),
        ));
    }
    let mut a = Args::new(file, st, label, REQUEST_COMMAND_KEYS, &[])?;
    if a.has("FUNCTION") {
        return Err(a.err(
            a.pos_of("FUNCTION"),
            "FUNCTION on a REQUEST command passes constants to a REQSUB user subroutine (FUNCTION = USER(…)); give the components as F2, F3, F4, F6, F7, F8 = expressions",
        ));
    }
    let list = a.flag("LIST")?;
    let fkeys = ["F2", "F3", "F4", "F6", "F7", "F8"];
    let mut given = false;
    for k in fkeys {
        if let Some(e) = a.expr(k)? {
            if let Err(x) = mbsolve_expr::Expr::parse(&e.text) {
                return Err(a.err(e.pos_at(x.span.start), &x.message));
            }
            given = true;
        }
    }
    if given && after_simulate(acf) {
        return Err(a.err_here(
            "redefining request components after a SIMULATE is not supported: mbsolve fixes the output columns when the run starts (give the REQUEST command before the first SIMULATE)",
        ));
    }
    a.finish()?;
    if !given {
        if list {
            acf.without_effect.push(no_effect(
                file,
                st,
                "REQUEST",
                "LIST prints the request's data in Adams' message file",
            ));
            return Ok(());
        }
        return Err(AdmError::new(
            file,
            st.pos,
            Some(label_of(st, "REQUEST")),
            format!(
                "{}: nothing to redefine (F2, F3, F4, F6, F7, F8 or LIST)",
                label_of(st, "REQUEST")
            ),
        ));
    }
    acf.redefinitions.push(st.clone());
    Ok(())
}
