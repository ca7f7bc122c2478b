//! `.acf` command files: header lines, then INTEGRATOR / SIMULATE / STOP.

use crate::args::{resolve, Args};
use crate::build::{
    equilibrium_settings, integrator_settings, EQUILIBRIUM_KEYS, INTEGRATOR_KEYS, OUTPUT_IGNORED,
    OUTPUT_KEYS, SFORCE_KEYS,
};
use crate::error::AdmError;
use crate::syntax::{self, lines, Statement};
use mbsolve_model::{Command, OutputSpec, SimulateMode};

mod edits;
use edits::*;

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
    /// Commands accepted that change nothing mbsolve computes (OUTPUT,
    /// DEBUG, PREFERENCES, LIST), one run-log line each, in file order.
    pub without_effect: Vec<String>,
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
    let mut late = Vec::new();
    for (k, st) in acf.late_redefinitions.clone() {
        late.push(st);
        let m = crate::read_adm_str_redefined_late(adm_text, adm_name, acf, &late, acf_file)?;
        if let Some(Command::Redefine { model, .. }) = acf.commands.get_mut(k) {
            model.0 = std::sync::Arc::new(m);
        }
    }
    Ok(base)
}

/// Adams Solver command names, as the Adams Solver (C++) command reference
/// spells them: a command is its full name or any unique prefix of it.
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
    "FLEX_BODY",
    "FRICTION",
    "GCON",
    "GFORCE",
    "HELP",
    "IC",
    "INFO",
    "INTEGRATOR",
    "JOINT",
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
    // Not in the Adams Solver command reference; real command files
    // restate the dataset's units with it (see the UNITS arm below).
    "UNITS",
    "VARIABLE",
    "VFORCE",
    "VTORQUE",
];

/// SIMULATE arguments by their reference names (DYNAMIC, STAT, sim/dyn …
/// are prefixes of them).
const SIMULATE_KEYS: &[&str] = &[
    "ACCELERATION",
    "DISPLACEMENT",
    "DTOUT",
    "DURATION",
    "DYNAMICS",
    "END",
    "INITIAL_CONDITIONS",
    "KINEMATICS",
    "STATICS",
    "STEPS",
    "TRANSIENT",
    "VELOCITY",
];

/// MOTION command arguments (Adams MOTION command: it respecifies a
/// MOTION statement).
const MOTION_COMMAND_KEYS: &[&str] = &[
    "ACCELERATION",
    "B1",
    "B2",
    "B3",
    "DISPLACEMENT",
    "FUNCTION",
    "I",
    "ICDISP",
    "ICVEL",
    "J",
    "JOINT",
    "LIST",
    "ROTATION",
    "ROUTINE",
    "TRANSLATION",
    "VELOCITY",
    "X",
    "Y",
    "Z",
];

/// What a MOTION command may not change: what the motion drives (the
/// model's constraint equations would change).
const MOTION_TARGET_KEYS: &[&str] = &[
    "I",
    "J",
    "JOINT",
    "TRANSLATION",
    "ROTATION",
    "X",
    "Y",
    "Z",
    "B1",
    "B2",
    "B3",
];

/// REQUEST command arguments (Adams REQUEST command: F2–F4 and F6–F8, the
/// components written to the request file, a REQSUB, LIST).
const REQUEST_COMMAND_KEYS: &[&str] = &[
    "F2", "F3", "F4", "F6", "F7", "F8", "FUNCTION", "LIST", "ROUTINE",
];

/// DEBUG command arguments: Adams' own diagnostic printouts.
const DEBUG_COMMAND_KEYS: &[&str] = &[
    "DOF", "DUMP", "EPRINT", "JMDUMP", "LIST", "REQDUMP", "RHSDUMP", "TRACE", "VERBOSE",
];

/// PREFERENCES command arguments. The first four change nothing mbsolve
/// computes (noted in the run log); the others change how Adams' solver
/// behaves or where it loads libraries from, and are refused by name.
const PREFERENCES_COMMAND_KEYS: &[&str] = &[
    "CONTACT_FACETING_TOLERANCE",
    "CONTACT_GEOMETRY_LIBRARY",
    "NTHREADS",
    "STATUS_MESSAGE",
    "LIST",
    "SOLVERBIAS",
    "SIMFAIL",
    "FLEX_LIMIT_CHECK",
    "FLEX_LIMIT_CHECK_ACTION",
    "LIBRARY_SEARCH_PATH",
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
        without_effect: Vec::new(),
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
            acf.without_effect.push(no_effect(
                file,
                st,
                "OUTPUT",
                "it chooses which of Adams' own files are written and their layout",
            ));
            Ok(true)
        }
        "DEBUG" => {
            let mut a = Args::new(file, st, label, DEBUG_COMMAND_KEYS, &[])?;
            a.ignore(DEBUG_COMMAND_KEYS);
            a.finish()?;
            acf.without_effect.push(no_effect(
                file,
                st,
                "DEBUG",
                "Adams' diagnostic printout only",
            ));
            Ok(true)
        }
        "PREFERENCES" => {
            let mut a = Args::new(file, st, label, PREFERENCES_COMMAND_KEYS, &[])?;
            crate::build::preference_values(&mut a)?;
            a.ignore(&["STATUS_MESSAGE", "LIST"]);
            for (k, why) in [
                ("SOLVERBIAS", "it chooses between Adams' own solvers"),
                (
                    "SIMFAIL",
                    "it sets what Adams does after a failed simulation",
                ),
                (
                    "FLEX_LIMIT_CHECK",
                    "it checks Adams flexible bodies, which mbsolve does not read",
                ),
                (
                    "FLEX_LIMIT_CHECK_ACTION",
                    "it acts on Adams flexible-body checks, which mbsolve does not read",
                ),
                (
                    "LIBRARY_SEARCH_PATH",
                    "it is where Adams loads user-subroutine libraries, which mbsolve cannot run",
                ),
            ] {
                if a.has(k) {
                    return Err(a.err(a.pos_of(k), format!("{k} is not supported: {why}")));
                }
            }
            a.finish()?;
            acf.without_effect.push(no_effect(
                file,
                st,
                "PREFERENCES",
                "Adams' contact faceting and geometry library, thread count and status messages; mbsolve has its own contact geometry and no result depends on them",
            ));
            Ok(true)
        }
        // Adams documents UNITS as a dataset statement; a command file that
        // states them again is read the same way (the statement's reader)
        // and checked against the dataset's when the run reaches it.
        "UNITS" => {
            let units = crate::build::redefine::units_of_command(file, st)?;
            acf.commands.push(Command::Units {
                units,
                origin: format!("{file}:{}", st.pos.line),
            });
            Ok(true)
        }
        "REQUEST" => {
            request_command(file, st, label, acf)?;
            Ok(true)
        }
        "MOTION" => {
            motion_command(file, st, label, acf)?;
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
            let mut a = Args::new(file, st, label, SIMULATE_KEYS, &[])?;
            let modes = [
                ("DYNAMICS", SimulateMode::Dynamic),
                ("KINEMATICS", SimulateMode::Kinematic),
                ("STATICS", SimulateMode::Static),
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
                    "missing analysis type (DYNAMICS, KINEMATICS, STATICS, TRANSIENT or INITIAL_CONDITIONS)",
                ));
            };
            // Which initial-conditions analyses to run: ACCELERATION asks
            // for displacements, velocities and accelerations, which is
            // what mbsolve's initial conditions always solve.
            for k in ["DISPLACEMENT", "VELOCITY", "ACCELERATION"] {
                if a.has(k) && mode != SimulateMode::InitialConditions {
                    return Err(a.err(
                        a.pos_of(k),
                        format!("{k} chooses the initial-conditions analyses: it applies to INITIAL_CONDITIONS only"),
                    ));
                }
            }
            let _ = a.flag("ACCELERATION")?;
            for k in ["DISPLACEMENT", "VELOCITY"] {
                if a.has(k) {
                    return Err(a.err(
                        a.pos_of(k),
                        format!("INITIAL_CONDITIONS, {k}: a partial initial-conditions analysis is not supported (mbsolve solves displacements, velocities and accelerations together: give ACCELERATION or nothing)"),
                    ));
                }
            }
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
        other @ ("VARIABLE" | "SFORCE") => {
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
                _ => SFORCE_KEYS,
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
            push_redefinition(file, st, other, late, acf);
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
