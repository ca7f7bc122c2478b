//! Load a [`Source`] with changes and execute its command sequence into
//! memory: the same sequence and stopping rules as `mbsolve run`
//! (crates/cli/src/run.rs), with the frames kept as rows of numbers
//! instead of streamed to a CSV. Frames computed before an error are kept
//! and returned with it.

use crate::changes::{apply, Change, Source};
use mbsolve_adm::AdmError;
use mbsolve_mech::System;
use mbsolve_model::{Command, Model};
use mbsolve_solver::commands::{default_commands, CommandRunner};
use mbsolve_solver::{requests, Frame, FrameSink, Simulation, SolverError};
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A model that cannot be read, changed or assembled: the file, line and
/// element when known.
#[derive(Clone, Debug, PartialEq)]
pub struct StudyError {
    pub file: String,
    /// 1-based; None when the error has no single place in the text.
    pub line: Option<u32>,
    pub element: Option<String>,
    pub message: String,
}

impl fmt::Display for StudyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, &self.element) {
            (Some(l), _) => write!(f, "{}:{}: {}", self.file, l, self.message),
            (None, Some(e)) => write!(f, "{}: {}: {}", self.file, e, self.message),
            (None, None) => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for StudyError {}

impl From<AdmError> for StudyError {
    fn from(e: AdmError) -> StudyError {
        StudyError {
            file: e.file,
            line: (e.pos.line > 0).then_some(e.pos.line),
            element: e.statement,
            message: e.message,
        }
    }
}

/// A model error from validation or assembly: its location reads
/// "PART/2 (file.adm:14)" when the source is known.
fn model_error(file: &str, e: SolverError) -> StudyError {
    match e {
        SolverError::Model(m) => {
            let line = m
                .location
                .rsplit_once(':')
                .and_then(|(_, l)| l.trim_end_matches(')').parse::<u32>().ok());
            StudyError {
                file: file.to_string(),
                line,
                element: m.element.map(|e| e.to_string()),
                message: m.message,
            }
        }
        other => StudyError {
            file: file.to_string(),
            line: None,
            element: None,
            message: format!("the model cannot run: {other}"),
        },
    }
}

/// A model read, changed and checked, ready to run.
pub struct Loaded {
    pub model: Model,
    pub commands: Vec<Command>,
    /// The command file's output prefix, if it gives one.
    pub output_prefix: Option<String>,
    /// Degrees of freedom before redundant constraints are removed.
    pub dof: i64,
    /// Request column names (without time).
    pub header: Vec<String>,
    /// A MotionSolve deck's Param_Transient (dynamic analyses run with it).
    pub transient: Option<mbsolve_solver::settings::ParamTransient>,
}

/// Read the dataset and command file with the changes applied, and check
/// that the model assembles: every error a run would meet before its
/// first analysis is raised here.
pub fn load(src: &Source, changes: &[Change]) -> Result<Loaded, StudyError> {
    let src = apply(src, changes)?;
    let xml = mbsolve_msxml::is_motionsolve_xml(&src.adm);
    let (model, deck_commands, transient) = if xml {
        // A MotionSolve deck carries its own <Command> section.
        if src.acf.is_some() {
            return Err(StudyError {
                file: src.acf_name.clone(),
                line: None,
                element: None,
                message: format!(
                    "{} is a MotionSolve deck with its own <Command> section; a command file is not used with it",
                    src.adm_name
                ),
            });
        }
        let read = mbsolve_msxml::read_xml_str(&src.adm, &src.adm_name)
            .map_err(|e| crate::xml::study_error(&e.0[0]))?;
        let transient = crate::xml::transient(&read, &src.adm_name)?;
        (read.model, Some(read.commands), Some(transient))
    } else {
        let model = mbsolve_adm::read_adm_str(&src.adm, &src.adm_name)?;
        (model, None, None)
    };
    let mut model = model;
    let (commands, output_prefix) = match (&src.acf, deck_commands) {
        (_, Some(deck)) if !deck.is_empty() => (deck, None),
        (_, Some(_)) => (default_commands(), None),
        (None, None) => (default_commands(), None),
        (Some(text), None) => {
            let mut acf = mbsolve_adm::read_acf_str(text, &src.acf_name)?;
            // FUNCTION redefinitions in the command file, as `mbsolve run`
            // applies them.
            if !acf.redefinitions.is_empty() || !acf.late_redefinitions.is_empty() {
                model = mbsolve_adm::resolve_redefinitions(
                    &src.adm,
                    &src.adm_name,
                    &mut acf,
                    &src.acf_name,
                )?;
            }
            if acf.commands.is_empty() {
                return Err(StudyError {
                    file: src.acf_name.clone(),
                    line: None,
                    element: None,
                    message: "no analysis command (SIMULATE, INTEGRATOR or EQUILIBRIUM)".into(),
                });
            }
            (acf.commands, acf.output_prefix)
        }
    };
    let outputs = requests::Outputs::new(&model).map_err(|m| StudyError {
        file: src.adm_name.clone(),
        line: None,
        element: None,
        message: format!("the model cannot run: {m}"),
    })?;
    let sim = Simulation::new(&model).map_err(|e| model_error(&src.adm_name, e))?;
    Ok(Loaded {
        dof: sim.sys.dof(&sim.data),
        model,
        commands,
        output_prefix,
        header: outputs.header,
        transient,
    })
}

/// One analysis's counters, as the CLI prints them.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisStats {
    pub analysis: String,
    pub steps: u64,
    pub rejected_steps: u64,
    pub jacobian_evaluations: u64,
    pub corrector_failures: u64,
    pub residual_evaluations: u64,
    pub wall_seconds: f64,
}

/// What a run produced, complete or not.
#[derive(Clone, Debug, Default)]
pub struct RunOutcome {
    /// "time", then the request columns.
    pub header: Vec<String>,
    /// Row-major, `header.len()` values per frame.
    pub data: Vec<f64>,
    pub log: Vec<String>,
    pub stats: Vec<AnalysisStats>,
    pub reports: Vec<String>,
    pub dof: i64,
    /// Why the command sequence stopped early; the frames before it are
    /// in `data`.
    pub error: Option<String>,
}

impl RunOutcome {
    pub fn rows(&self) -> usize {
        self.data.len() / self.header.len().max(1)
    }
}

struct MemorySink {
    outputs: requests::Outputs,
    initial_q: Vec<f64>,
    data: Arc<Mutex<Vec<f64>>>,
}

impl FrameSink for MemorySink {
    fn wants_steps(&self) -> bool {
        self.outputs.records_steps()
    }

    fn step(&mut self, sys: &System, model: &Model, frame: &Frame) {
        self.outputs.record_step(sys, model, frame, &self.initial_q);
    }

    fn write(
        &mut self,
        sys: &System,
        model: &Model,
        _log: &[String],
        frame: &Frame,
    ) -> Result<(), String> {
        let row = self.outputs.row(sys, model, frame, &self.initial_q)?;
        // The row starts with the time (requests::Outputs::row).
        let mut d = self.data.lock().unwrap_or_else(|p| p.into_inner());
        d.extend_from_slice(&row);
        Ok(())
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Load and run. `Err` only when the model cannot be read or assembled;
/// an analysis that fails returns `Ok` with `error` set and the frames
/// computed before the failure. `stop`, when set from outside, ends the
/// run at the next output frame (kept).
pub fn run(
    src: &Source,
    changes: &[Change],
    stop: Option<Arc<AtomicBool>>,
) -> Result<RunOutcome, StudyError> {
    let loaded = load(src, changes)?;
    let adm_name = apply(src, changes)?.adm_name;
    let outputs = requests::Outputs::new(&loaded.model)
        .map_err(|m| model_error(&adm_name, SolverError::Settings(m)))?;
    let mut sim = Simulation::new(&loaded.model).map_err(|e| model_error(&adm_name, e))?;
    // SENVAL and MODE in requests read this run's values.
    let outputs = outputs.bind_run(&sim.model);
    let mut header = vec!["time".to_string()];
    header.extend(outputs.header.iter().cloned());
    let data = Arc::new(Mutex::new(Vec::new()));
    sim.output.retain = false;
    sim.output.stop = stop;
    sim.output.sink = Some(Box::new(MemorySink {
        outputs,
        initial_q: sim.sys.initial_state().0,
        data: data.clone(),
    }));
    let mut runner = CommandRunner::new(&sim);
    runner.transient = loaded.transient.clone();
    let mut no_progress = |_: &mut Simulation, _: &str, _: f64, _: f64| {};
    let mut error = None;
    let started = Instant::now();
    for cmd in &loaded.commands {
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            runner.execute(&mut sim, cmd, &mut no_progress)
        }));
        match done {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                let e = e.to_string();
                if !sim.log.last().is_some_and(|l| l.ends_with(&e)) {
                    sim.log.push(format!("ERROR: {e}"));
                }
                error = Some(e);
                break;
            }
            Err(p) => {
                let e = format!("internal error: {} (please report this)", panic_text(&*p));
                sim.log.push(e.clone());
                error = Some(e);
                break;
            }
        }
    }
    sim.output.sink = None;
    sim.log.push(format!(
        "{}; {:.3} s wall clock",
        match &error {
            None => "finished normally".to_string(),
            Some(e) => format!("stopped on error: {e}"),
        },
        started.elapsed().as_secs_f64()
    ));
    let data = std::mem::take(&mut *data.lock().unwrap_or_else(|p| p.into_inner()));
    Ok(RunOutcome {
        header,
        data,
        stats: sim
            .stats
            .iter()
            .map(|(name, s, wall)| AnalysisStats {
                analysis: name.clone(),
                steps: s.steps,
                rejected_steps: s.rejected_steps,
                jacobian_evaluations: s.jacobian_evaluations,
                corrector_failures: s.corrector_failures,
                residual_evaluations: s.residual_evaluations,
                wall_seconds: *wall,
            })
            .collect(),
        reports: sim.reports.clone(),
        dof: sim.sys.dof(&sim.data),
        log: std::mem::take(&mut sim.log),
        error,
    })
}
