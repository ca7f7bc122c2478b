//! `.acf` command files: header lines, then INTEGRATOR / SIMULATE / STOP.

use crate::args::{resolve, Args};
use crate::build::{
    equilibrium_settings, integrator_settings, EQUILIBRIUM_KEYS, INTEGRATOR_KEYS, MOTION_KEYS,
    OUTPUT_IGNORED, OUTPUT_KEYS, SFORCE_KEYS,
};
use crate::error::AdmError;
use crate::syntax::{self, lines, Statement};
use mbsolve_model::{Command, OutputSpec, SimulateMode};

/// A command file: the dataset it runs, the output prefix, the commands.
#[derive(Clone, Debug, PartialEq)]
pub struct AcfFile {
    pub model_file: Option<String>,
    pub output_prefix: Option<String>,
    pub commands: Vec<Command>,
    /// VARIABLE, SFORCE and MOTION commands that redefine a FUNCTION
    /// before the first SIMULATE: edits of the dataset, applied by
    /// [`crate::read_adm_redefined`].
    pub redefinitions: Vec<Statement>,
    /// The same commands after a SIMULATE: (index in `commands` of the
    /// Command::Redefine placeholder, statement). [`resolve_redefinitions`]
    /// builds the model each one switches to.
    pub late_redefinitions: Vec<(usize, Statement)>,
}

/// Build the dataset with the redefinitions before the first SIMULATE
/// applied (the model to run), and fill every Command::Redefine of a
/// redefinition after a SIMULATE with the model as it stands from there
/// on (all redefinitions up to and including it). Errors point into the
/// command file.
pub fn resolve_redefinitions(
    adm_text: &str,
    adm_name: &str,
    acf: &mut AcfFile,
    acf_file: &str,
) -> Result<mbsolve_model::Model, AdmError> {
    let base = crate::read_adm_str_redefined(adm_text, adm_name, acf, acf_file)?;
    let mut upto = acf.clone();
    for (k, st) in acf.late_redefinitions.clone() {
        upto.redefinitions.push(st);
        let m = crate::read_adm_str_redefined(adm_text, adm_name, &upto, acf_file)?;
        if let Some(Command::Redefine { model, .. }) = acf.commands.get_mut(k) {
            model.0 = std::sync::Arc::new(m);
        }
    }
    Ok(base)
}

/// Adams Solver command names (for abbreviations and clear messages).
const COMMANDS: &[&str] = &[
    "ACCGRAV",
    "ACTIVATE",
    "ARRAY",
    "BEAM",
    "BUSHING",
    "CONTROL",
    "DEACTIVATE",
    "DEBUG",
    "DIFF",
    "ENVIRONMENT",
    "EQUILIBRIUM",
    "FIELD",
    "FILE",
    "FRICTION",
    "GCON",
    "GFORCE",
    "HELP",
    "IC",
    "INFO",
    "INTEGRATOR",
    "KINEMATICS",
    "LINEAR",
    "LIST",
    "LSOLVER",
    "MARKER",
    "MENU",
    "MOTION",
    "NOLIST",
    "OUTPUT",
    "PART",
    "PREFERENCES",
    "RELOAD",
    "REQUEST",
    "RETURN",
    "SAVE",
    "SENSOR",
    "SFORCE",
    "SHOW",
    "SIMULATE",
    "SPLINE",
    "SPRINGDAMPER",
    "STOP",
    "STRING",
    "TIME",
    "VARIABLE",
    "VFORCE",
    "VTORQUE",
];

fn is_command_line(line: &str) -> bool {
    let t = line.trim();
    let name: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<String>()
        .to_ascii_uppercase();
    let rest = t[name.len()..].trim_start();
    !name.is_empty()
        && (rest.is_empty() || rest.starts_with('/') || rest.starts_with(','))
        && resolve(&name, COMMANDS, &[]).is_ok()
}

/// The parse layer of a command file: header lines and statements.
#[derive(Clone, Debug, PartialEq)]
pub struct AcfSyntax {
    pub model_file: Option<String>,
    pub output_prefix: Option<String>,
    pub statements: Vec<Statement>,
}

/// Parse a command file without building commands.
pub fn parse_acf(text: &str, file: &str) -> Result<AcfSyntax, AdmError> {
    syntax::check_layout(text, file)?;
    let all = lines(text);
    // Classic header: line 1 = dataset, line 2 = output prefix. The Adams
    // View export starts with a blank line or directly with commands.
    let first = all.first().copied().unwrap_or("");
    let classic = !first.trim().is_empty() && !is_command_line(first);
    let (mut model_file, mut output_prefix) = (None, None);
    let start = if classic {
        model_file = Some(first.trim().to_string());
        if let Some(p) = all.get(1).map(|l| l.trim()).filter(|l| !l.is_empty()) {
            output_prefix = Some(p.to_string());
        }
        2.min(all.len())
    } else {
        0
    };
    let statements = syntax::parse_command_lines(&all[start..], start as u32 + 1, file)?;
    Ok(AcfSyntax {
        model_file,
        output_prefix,
        statements,
    })
}

/// Parse and build a command file.
pub fn read_acf_str(text: &str, file: &str) -> Result<AcfFile, AdmError> {
    let syn = parse_acf(text, file)?;
    let mut acf = AcfFile {
        model_file: syn.model_file,
        output_prefix: syn.output_prefix,
        commands: Vec::new(),
        redefinitions: Vec::new(),
        late_redefinitions: Vec::new(),
    };
    let mut now = 0.0f64;
    for st in &syn.statements {
        if !command(st, file, &mut acf, &mut now)? {
            break; // STOP: Adams ignores the rest
        }
    }
    Ok(acf)
}

/// Build one command; false on STOP.
fn command(st: &Statement, file: &str, acf: &mut AcfFile, now: &mut f64) -> Result<bool, AdmError> {
    let name = match resolve(&st.name, COMMANDS, &[]) {
        Ok(n) => n,
        Err(e) => {
            let msg = if e.is_empty() {
                format!("unknown command {}", st.name)
            } else {
                format!("ambiguous command abbreviation {} ({e})", st.name)
            };
            return Err(AdmError::new(file, st.pos, Some(st.label()), msg));
        }
    };
    let label = match st.id {
        Some(id) => format!("{name}/{id}"),
        None => name.to_string(),
    };
    match name {
        "STOP" => {
            Args::new(file, st, label, &[], &[])?.finish()?;
            Ok(false)
        }
        "FILE" => {
            let mut a = Args::new(file, st, label, &["MODEL", "OUTPUT_PREFIX", "COMMAND"], &[])?;
            if let Some(m) = a.text("MODEL")? {
                if acf.model_file.is_some() {
                    return Err(a.err(
                        a.pos_of("MODEL"),
                        "a second model file is not supported yet",
                    ));
                }
                acf.model_file = Some(m);
            }
            if let Some(p) = a.text("OUTPUT_PREFIX")? {
                acf.output_prefix = Some(p);
            }
            a.finish()?;
            Ok(true)
        }
        "OUTPUT" => {
            let mut a = Args::new(file, st, label, OUTPUT_KEYS, &[])?;
            a.ignore(OUTPUT_IGNORED);
            a.finish()?;
            Ok(true)
        }
        "INTEGRATOR" => {
            let mut a = Args::new(file, st, label, INTEGRATOR_KEYS, &[])?;
            let settings = integrator_settings(&mut a)?;
            let default = a.flag("DEFAULT")?;
            a.finish()?;
            acf.commands.push(Command::Integrator { settings, default });
            Ok(true)
        }
        "EQUILIBRIUM" => {
            let mut a = Args::new(file, st, label, EQUILIBRIUM_KEYS, &[])?;
            let settings = equilibrium_settings(&mut a)?;
            let default = a.flag("DEFAULT")?;
            a.finish()?;
            acf.commands
                .push(Command::Equilibrium { settings, default });
            Ok(true)
        }
        "ACCGRAV" => {
            let mut a = Args::new(file, st, label, &["IGRAV", "JGRAV", "KGRAV"], &[])?;
            let components = [a.number("IGRAV")?, a.number("JGRAV")?, a.number("KGRAV")?];
            if components.iter().all(Option::is_none) {
                return Err(a.err_here("give at least one of IGRAV, JGRAV or KGRAV"));
            }
            a.finish()?;
            acf.commands.push(Command::Accgrav { components });
            Ok(true)
        }
        // ENVIRONMENT/NAME = variable, VALUE = value sets an Adams Solver
        // environment variable. The one real decks use,
        // MDI_ADAMS_CONTACT_OUT = OFF, turns off the contact-incident
        // output, which mbsolve does not write in the first place; every
        // other name or value is refused by name.
        "ENVIRONMENT" => {
            let mut a = Args::new(file, st, label, &["NAME", "VALUE"], &[])?;
            let Some((name, name_pos)) = a.word("NAME")? else {
                return Err(a.err_here("missing NAME ="));
            };
            let Some((value, value_pos)) = a.word("VALUE")? else {
                return Err(a.err_here("missing VALUE ="));
            };
            if name != "MDI_ADAMS_CONTACT_OUT" {
                return Err(a.err(
                    name_pos,
                    format!("ENVIRONMENT variable {name} is not supported (supported: MDI_ADAMS_CONTACT_OUT = OFF)"),
                ));
            }
            if value != "OFF" {
                return Err(a.err(
                    value_pos,
                    format!("MDI_ADAMS_CONTACT_OUT = {value}: contact-incident output is not written by mbsolve; only OFF is accepted"),
                ));
            }
            a.finish()?;
            Ok(true)
        }
        "SIMULATE" => {
            let mut a = Args::new(
                file,
                st,
                label,
                &[
                    "DYNAMIC",
                    "KINEMATIC",
                    "STATIC",
                    "TRANSIENT",
                    "INITIAL_CONDITIONS",
                    "END",
                    "DURATION",
                    "STEPS",
                    "DTOUT",
                ],
                &[],
            )?;
            let modes = [
                ("DYNAMIC", SimulateMode::Dynamic),
                ("KINEMATIC", SimulateMode::Kinematic),
                ("STATIC", SimulateMode::Static),
                ("TRANSIENT", SimulateMode::Transient),
                ("INITIAL_CONDITIONS", SimulateMode::InitialConditions),
            ];
            let mut mode = None;
            for (k, m) in modes {
                if a.flag(k)? {
                    if mode.is_some() {
                        return Err(a.err(a.pos_of(k), "more than one analysis type"));
                    }
                    mode = Some(m);
                }
            }
            let Some(mode) = mode else {
                return Err(a.err_here(
                    "missing analysis type (DYNAMIC, KINEMATIC, STATIC, TRANSIENT or INITIAL_CONDITIONS)",
                ));
            };
            let end = a.number("END")?;
            let duration = a.number("DURATION")?;
            let steps = a.integer("STEPS")?;
            let dtout = a.number("DTOUT")?;
            // STATIC with END or DURATION is a quasi-static sweep.
            let timed = matches!(
                mode,
                SimulateMode::Dynamic | SimulateMode::Kinematic | SimulateMode::Transient
            ) || (mode == SimulateMode::Static && (a.has("END") || a.has("DURATION")));
            let output = if timed {
                let end = match (end, duration) {
                    (Some(_), Some(_)) => {
                        return Err(a.err(a.pos_of("DURATION"), "END and DURATION are exclusive"))
                    }
                    (Some(e), None) => e,
                    (None, Some(d)) if d > 0.0 => *now + d,
                    (None, Some(d)) => {
                        return Err(a.err(
                            a.pos_of("DURATION"),
                            format!("DURATION must be positive, found {d}"),
                        ))
                    }
                    (None, None) => return Err(a.err_here("missing END = or DURATION =")),
                };
                // END at or before the previous SIMULATE's END is not an
                // error here: a SENSOR with RETURN may have ended that one
                // early (FRS5 repeats `sim/dyn, end=2.0` after such a
                // sensor). The run checks END against the actual time.
                let steps = match steps {
                    Some(s) if s <= 0 => {
                        return Err(a.err(
                            a.pos_of("STEPS"),
                            format!("STEPS must be positive, found {s}"),
                        ))
                    }
                    s => s.map(|s| s as u64),
                };
                match (steps, dtout) {
                    (Some(_), Some(_)) => {
                        return Err(a.err(a.pos_of("DTOUT"), "STEPS and DTOUT are exclusive"))
                    }
                    (None, None) => return Err(a.err_here("missing STEPS = or DTOUT =")),
                    (_, Some(d)) if d <= 0.0 => {
                        return Err(a.err(
                            a.pos_of("DTOUT"),
                            format!("DTOUT must be positive, found {d}"),
                        ))
                    }
                    _ => {}
                }
                *now = now.max(end);
                // With DURATION the run ends d after the time actually
                // reached (solver commands.rs resolves it); `end` is the
                // time reached when every SIMULATE runs to its end.
                Some(OutputSpec {
                    end,
                    steps,
                    dtout,
                    duration,
                })
            } else {
                // STEPS/DTOUT without END on STATIC, or any on INITIAL_CONDITIONS
                for k in ["END", "DURATION", "STEPS", "DTOUT"] {
                    if a.has(k) {
                        return Err(a.err(
                            a.pos_of(k),
                            format!("{k} with this analysis type is not supported yet"),
                        ));
                    }
                }
                None
            };
            a.finish()?;
            acf.commands.push(Command::Simulate { mode, output });
            Ok(true)
        }
        other @ ("ACTIVATE" | "DEACTIVATE") => {
            activation(file, st, other == "ACTIVATE", &mut acf.commands)?;
            Ok(true)
        }
        other @ ("VARIABLE" | "SFORCE" | "MOTION") => {
            crate::build::reject_user_subroutine(file, st, other, &label)?;
            // After a SIMULATE the change acts from the next analysis on:
            // the front end builds that model (`resolve_redefinitions`) and
            // the solver switches to it.
            let late = acf
                .commands
                .iter()
                .any(|c| matches!(c, Command::Simulate { .. }));
            if st.id.is_none() {
                return Err(AdmError::new(
                    file,
                    st.pos,
                    Some(label.clone()),
                    format!("{label}: which {other}? ({other}/id, FUNCTION = …)"),
                ));
            }
            let known: &[&'static str] = match other {
                "VARIABLE" => &["FUNCTION", "IC", "ROUTINE"],
                "SFORCE" => SFORCE_KEYS,
                _ => MOTION_KEYS,
            };
            let mut a = Args::new(file, st, label, known, &[])?;
            let Some(e) = a.expr("FUNCTION")? else {
                return Err(a.err_here("missing FUNCTION ="));
            };
            // Syntax errors point into the command file now; the names
            // the function reads are checked against the dataset later.
            if let Err(x) = mbsolve_expr::Expr::parse(&e.text) {
                return Err(a.err(e.pos_at(x.span.start), &x.message));
            }
            // Only the FUNCTION changes: any other argument is reported.
            a.finish()?;
            if late {
                acf.late_redefinitions
                    .push((acf.commands.len(), st.clone()));
                acf.commands.push(Command::Redefine {
                    model: mbsolve_model::RedefinedModel(std::sync::Arc::default()),
                    what: label_of(st, other),
                    origin: format!("{file}:{}", st.pos.line),
                });
            } else {
                acf.redefinitions.push(st.clone());
            }
            Ok(true)
        }
        other => Err(AdmError::new(
            file,
            st.pos,
            Some(label.clone()),
            format!("{label}: command {other} is not supported yet"),
        )),
    }
}

/// Element types ACTIVATE/DEACTIVATE switch (the mechanics' constraints
/// and forces).
const SWITCHABLE: &[&str] = &[
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
const NOT_SWITCHABLE: &[&str] = &[
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
/// the order written.
fn activation(
    file: &str,
    st: &Statement,
    active: bool,
    out: &mut Vec<Command>,
) -> Result<(), AdmError> {
    use mbsolve_model::ElementRef as E;
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
    if a.has("RANGE") {
        return Err(a.err(
            a.pos_of("RANGE"),
            "RANGE is not supported yet: list the ids with ID = id1, id2, …",
        ));
    }
    let id_pos = a.pos_of("ID");
    let Some(ids) = a.numbers_range("ID", 1, usize::MAX)? else {
        return Err(a.err_here(format!("{verb}/{kind} needs ID = id1, id2, …")));
    };
    a.finish()?;
    for v in ids {
        if v < 1.0 || v.fract() != 0.0 || v > u32::MAX as f64 {
            return Err(AdmError::new(
                file,
                id_pos,
                Some(format!("{verb}/{kind}")),
                format!("{verb}/{kind}: ID = {v} is not a positive integer id"),
            ));
        }
        let id = v as u32;
        let element = match kind {
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
        };
        out.push(Command::Activate {
            element,
            active,
            origin: format!("{file}:{}", st.pos.line),
        });
    }
    Ok(())
}

/// "SFORCE/1" for a redefinition command.
fn label_of(st: &Statement, name: &str) -> String {
    match st.id {
        Some(id) => format!("{name}/{id}"),
        None => name.to_string(),
    }
}
