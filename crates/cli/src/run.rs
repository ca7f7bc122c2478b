//! `mbsolve run`: read the dataset and the command file, execute the
//! commands in order (semantics: `mbsolve_solver::commands`), and stream
//! PREFIX.csv and PREFIX.msg as the frames are computed. An error, a panic
//! or a signal stops the command sequence; every frame computed before it
//! is already in the CSV, and the `.msg` says how far the run got.

use crate::args::RunOptions;
use crate::progress;
use crate::Failure;
use mbsolve_mech::System;
use mbsolve_model::Model;
use mbsolve_solver::commands::{default_commands, CommandRunner};
use mbsolve_solver::{requests, Frame, FrameSink, Simulation};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Refuse anything that is not a regular file, saying what it is, without
/// opening it (a FIFO would block the reader).
pub fn regular_file(path: &Path, what: &str) -> Result<(), String> {
    let name = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("cannot read the {what} file {name}: no such file"))
        }
        Err(e) => return Err(format!("cannot read the {what} file {name}: {e}")),
    };
    match special_kind(meta.file_type()) {
        None => Ok(()),
        Some(kind) => Err(format!(
            "cannot read the {what} file {name}: it is {kind}, not a regular file"
        )),
    }
}

/// What a file that is not a regular file is; None for a regular file.
fn special_kind(ft: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    Some(if ft.is_file() {
        return None;
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    })
}

/// Create (or truncate) the output file `path`, which must be a regular
/// file if it exists: a link, FIFO, device or directory there is refused
/// by name without being opened (a FIFO would block the writer; a link
/// would send the output elsewhere).
pub fn create_output(path: &Path) -> Result<File, String> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if let Some(kind) = special_kind(meta.file_type()) {
            return Err(format!(
                "refusing to write {}: it is {kind}; outputs are written only to regular files",
                path.display()
            ));
        }
    }
    File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Write `bytes` to the output file `path` ([`create_output`]).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    create_output(path)?
        .write_all(bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The output files and what has gone into them; shared between the
/// frame sink (inside the simulation) and the end of the run.
struct Files {
    csv: BufWriter<File>,
    /// The MotionSolve ASCII `.plt`, when the deck asks for it.
    plt: Option<BufWriter<File>>,
    msg: BufWriter<File>,
    /// Log lines already in the `.msg`.
    logged: usize,
    rows: usize,
    last_t: Option<f64>,
    /// A write to the CSV or `.msg` failed (disk full, ...): the rest of
    /// the run cannot be kept, so it stops.
    io_error: Option<String>,
    /// The paths of csv, msg and plt, for messages.
    names: [String; 3],
}

impl Files {
    fn append_log(&mut self, log: &[String]) {
        for l in log.iter().skip(self.logged) {
            let _ = writeln!(self.msg, "{l}");
        }
        self.logged = self.logged.max(log.len());
    }

    fn flush(&mut self) -> Result<(), String> {
        let [csv, msg, plt] = &self.names;
        self.csv.flush().map_err(|e| cannot_write(csv, e))?;
        self.msg.flush().map_err(|e| cannot_write(msg, e))?;
        self.plt
            .as_mut()
            .map_or(Ok(()), |p| p.flush())
            .map_err(|e| cannot_write(plt, e))
    }
}

fn cannot_write(name: &str, e: std::io::Error) -> String {
    format!("cannot write {name}: {e}")
}

/// Streams each frame as one CSV row (request components evaluated on it)
/// and the log lines written since the last frame; flushes both files.
struct CsvSink {
    files: Arc<Mutex<Files>>,
    outputs: requests::Outputs,
    /// The `.plt` request directory, when that file is written.
    plt: Option<crate::plt::Plt>,
    initial_q: Vec<f64>,
    rows: usize,
    /// Fault injection for the tests of panic handling: panic when this
    /// many frames are written (MBSOLVE_PANIC_AFTER_FRAMES).
    panic_after: Option<usize>,
}

impl FrameSink for CsvSink {
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
        log: &[String],
        frame: &Frame,
    ) -> Result<(), String> {
        let row = self.outputs.row(sys, model, frame, &self.initial_q)?;
        if self.panic_after == Some(self.rows) {
            panic!(
                "fault injected by MBSOLVE_PANIC_AFTER_FRAMES after {} frames",
                self.rows
            );
        }
        self.rows += 1;
        let mut f = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let mut line = String::with_capacity(16 * row.len());
        for (k, v) in row.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            let _ = write!(line, "{v:e}");
        }
        line.push('\n');
        let files = &mut *f;
        let names = &files.names;
        let mut written = files
            .csv
            .write_all(line.as_bytes())
            .map_err(|e| cannot_write(&names[0], e));
        if let (Some(plt), Some(file)) = (&self.plt, files.plt.as_mut()) {
            let text = plt.frame(sys, model, frame, &row);
            if written.is_ok() {
                written = file
                    .write_all(text.as_bytes())
                    .map_err(|e| cannot_write(&names[2], e));
            }
        }
        if let Err(e) = written {
            f.io_error = Some(e.clone());
            return Err(e);
        }
        f.rows += 1;
        f.last_t = Some(frame.t);
        f.append_log(log);
        f.flush().inspect_err(|e| f.io_error = Some(e.clone()))
    }
}

/// Why the command sequence stopped early.
enum Stop {
    Error(String),
    Panic(String),
    Signal(i32),
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        signal_hook::consts::SIGINT => "SIGINT",
        signal_hook::consts::SIGTERM => "SIGTERM",
        signal_hook::consts::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// The signals that end a run cleanly: Ctrl-C, `kill`, and the terminal
/// closing.
pub const STOP_SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// SIGINT, SIGTERM and SIGHUP set `stop` (checked by the analyses after
/// every integration step, statics iteration and output) and record which
/// signal came; a second one while the first is being handled ends the
/// process at once (status 128 + signal).
pub fn catch_signals() -> (Arc<AtomicBool>, Arc<AtomicUsize>) {
    let stop = Arc::new(AtomicBool::new(false));
    let which = Arc::new(AtomicUsize::new(0));
    for sig in STOP_SIGNALS {
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, stop.clone());
        let _ = signal_hook::flag::register_usize(sig, which.clone(), sig as usize);
        let _ = signal_hook::flag::register(sig, stop.clone());
    }
    (stop, which)
}

/// The output prefix as a bare file name: one with directory parts (or an
/// absolute path) is reduced to its last component, and the note says so.
fn bare_prefix(prefix: &str, fallback: &str) -> (String, Option<String>) {
    let p = Path::new(prefix);
    let single = p.components().count() == 1
        && matches!(p.components().next(), Some(std::path::Component::Normal(_)));
    if single {
        return (prefix.to_string(), None);
    }
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| fallback.to_string());
    let note = format!(
        "output prefix '{prefix}' has directory parts: reduced to '{name}' (output goes only into the output directory)"
    );
    (name, Some(note))
}

/// Does this line read as an Adams command with arguments, or STOP (so it
/// is not a file name)? Adams accepts abbreviated command names, so a bare
/// short word such as "k" is taken for a file name.
fn looks_like_command(line: &str) -> bool {
    let t = line.trim();
    (t.contains(['/', ',', '=']) || t.eq_ignore_ascii_case("STOP"))
        && mbsolve_adm::parse_acf(line, "")
            .map(|s| s.model_file.is_none())
            .unwrap_or(false)
}

/// `.acf` checks the reader leaves to the run: at least one analysis
/// command, and no command swallowed as the output prefix.
fn check_acf(acf: &mbsolve_adm::AcfFile, path: &Path) -> Result<(), String> {
    let name = path.display();
    let header_hint =
        "(in a command file whose line 1 names the dataset, line 2 is the output prefix)";
    let prefix_is_command = acf
        .output_prefix
        .as_deref()
        .filter(|p| looks_like_command(p));
    if acf.commands.is_empty() {
        let hint = match (acf.model_file.as_deref(), prefix_is_command) {
            (Some(m), _) if m.contains('=') || m.contains(',') || (m.contains('/') && !m.contains('.')) => {
                format!("; line 1 ('{m}') was read as the dataset name: is the command misspelled?")
            }
            (_, Some(p)) => format!(
                "; line 2 ('{p}') was read as the output prefix: is the prefix line missing? {header_hint}"
            ),
            _ => String::new(),
        };
        return Err(format!(
            "{name}: no analysis command (SIMULATE, INTEGRATOR or EQUILIBRIUM){hint}"
        ));
    }
    if let Some(p) = prefix_is_command {
        return Err(format!(
            "{name}:2: '{p}' was read as the output prefix but looks like a command: is the prefix line missing? {header_hint}"
        ));
    }
    Ok(())
}

/// Same file, by identity when both exist.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn summary(model: &Model, path: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "mbsolve {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(s, "model: {} ({})", model.title.trim(), path.display());
    // every output column is in these units (Adams writes its results in
    // the model's units too)
    let _ = writeln!(s, "units: {}", model.units.describe());
    for w in mbsolve_model::inertia_warnings(model) {
        let _ = writeln!(s, "{w}");
    }
    let _ = writeln!(
        s,
        "gravity: ({}, {}, {})",
        model.gravity[0], model.gravity[1], model.gravity[2]
    );
    let _ = writeln!(
        s,
        "parts: {}, markers: {}, joints: {}, motions: {}, forces: {}, requests: {}, function requests: {}",
        model.parts.len(),
        model.markers.len(),
        model.joints.len(),
        model.motions.len(),
        model.forces.len(),
        model.requests.len(),
        model.function_requests.len()
    );
    s
}

fn create(path: &Path) -> Result<BufWriter<File>, String> {
    create_output(path).map(BufWriter::new)
}

pub fn run(opts: &RunOptions) -> Result<(), Failure> {
    let started = Instant::now();
    regular_file(&opts.model, "model")?;
    if let Some(p) = &opts.acf {
        regular_file(p, "command")?;
    }
    let input = crate::input::read_model(&opts.model)?;
    if let (Some(_), Some(p)) = (&input.commands, &opts.acf) {
        return Err(format!(
            "{}: a MotionSolve deck carries its own <Command> section; {} is not used with it",
            opts.model.display(),
            p.display()
        )
        .into());
    }
    let transient = input.transient;
    let without_effect = input.without_effect;
    let model = input.model;
    let mut acf = match &opts.acf {
        Some(p) => {
            let a = mbsolve_adm::read_acf(p).map_err(|e| e.to_string())?;
            check_acf(&a, p)?;
            Some(a)
        }
        None => None,
    };
    // FUNCTION redefinitions before the first SIMULATE edit the dataset;
    // those after one switch the running model (Command::Redefine).
    let model = match (&mut acf, &opts.acf) {
        (Some(a), Some(p)) if !a.redefinitions.is_empty() || !a.late_redefinitions.is_empty() => {
            let bytes = std::fs::read(&opts.model)
                .map_err(|e| format!("{}: cannot read: {e}", opts.model.display()))?;
            mbsolve_adm::resolve_redefinitions(
                &String::from_utf8_lossy(&bytes),
                &opts.model.display().to_string(),
                a,
                &p.display().to_string(),
            )
            .map_err(|e| e.to_string())?
        }
        _ => model,
    };
    let dir: PathBuf = match &opts.out {
        Some(d) => d.clone(),
        None => opts
            .model
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    if !dir.as_os_str().is_empty() {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create output directory {}: {e}", dir.display()))?;
    }
    let stem = opts
        .model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mbsolve".into());
    let (prefix, prefix_note) = match acf.as_ref().and_then(|a| a.output_prefix.as_deref()) {
        Some(p) => bare_prefix(p, &stem),
        None => (stem, None),
    };
    let csv_path = dir.join(format!("{prefix}.csv"));
    let msg_path = dir.join(format!("{prefix}.msg"));
    let plt_path = dir.join(format!("{prefix}.plt"));
    for out in [&csv_path, &msg_path, &plt_path] {
        for (what, input) in [("model", Some(&opts.model)), ("command", opts.acf.as_ref())] {
            if input.is_some_and(|i| same_file(out, i)) {
                return Err(format!(
                    "refusing to write {}: it is the {what} file (choose another output prefix or --out)",
                    out.display()
                )
                .into());
            }
        }
    }

    let mut msg = create(&msg_path)?;
    let _ = write!(msg, "{}", summary(&model, &opts.model));
    let fail_early = |mut msg: BufWriter<File>, err: String| -> Failure {
        let _ = writeln!(msg, "ERROR: {err}");
        let _ = msg.flush();
        err.into()
    };
    let outputs = match requests::Outputs::new(&model) {
        Ok(o) => o,
        Err(e) => return Err(fail_early(msg, format!("the model cannot run: {e}"))),
    };
    let mut sim = match Simulation::new(&model) {
        Ok(s) => s,
        Err(e) => return Err(fail_early(msg, format!("the model cannot run: {e}"))),
    };
    // SENVAL and MODE in requests read this run's values.
    let outputs = outputs.bind_run(&sim.model);
    let mut csv = create(&csv_path)?;
    let mut head = String::from("time");
    for h in &outputs.header {
        head.push(',');
        head.push_str(h);
    }
    let _ = writeln!(csv, "{head}");
    let plt = match input.plt_file {
        true => {
            let mut file = create(&plt_path)?;
            let (plt, head) = crate::plt::Plt::new(
                &model,
                &outputs.header,
                &format!("mbsolve {} Plot File", env!("CARGO_PKG_VERSION")),
            );
            let _ = write!(file, "{head}");
            Some((plt, file))
        }
        false => None,
    };
    let (plt, plt_file) = match plt {
        Some((p, f)) => (Some(p), Some(f)),
        None => (None, None),
    };
    let _ = writeln!(msg, "\n--- log ---");
    if let Some(note) = prefix_note {
        sim.log.push(note);
    }
    sim.log.extend(without_effect);
    let commands = match (&acf, input.commands) {
        (_, Some(deck)) if !deck.is_empty() => {
            sim.log.push(format!(
                "{}: running the deck's <Command> section",
                input.format
            ));
            deck
        }
        (Some(a), _) => {
            if let (Some(f), Some(p)) = (&a.model_file, &opts.acf) {
                sim.log.push(format!(
                    "command file {} (names dataset '{f}'; running {})",
                    p.display(),
                    opts.model.display()
                ));
            }
            sim.log.extend(a.without_effect.iter().cloned());
            a.commands.clone()
        }
        (None, _) => {
            sim.log.push(
                "no command file: running initial conditions and SIMULATE/DYNAMIC, END=1, STEPS=100"
                    .into(),
            );
            default_commands()
        }
    };
    let files = Arc::new(Mutex::new(Files {
        csv,
        plt: plt_file,
        msg,
        logged: 0,
        rows: 0,
        last_t: None,
        io_error: None,
        names: [&csv_path, &msg_path, &plt_path].map(|p| p.display().to_string()),
    }));
    let header_len = outputs.header.len();
    sim.output.retain = false;
    sim.output.sink = Some(Box::new(CsvSink {
        files: files.clone(),
        outputs,
        plt,
        initial_q: sim.sys.initial_state().0,
        rows: 0,
        panic_after: std::env::var("MBSOLVE_PANIC_AFTER_FRAMES")
            .ok()
            .and_then(|v| v.parse().ok()),
    }));
    let (stop_flag, signal) = catch_signals();
    sim.output.stop = Some(stop_flag.clone());

    let show = progress::Show::choose(opts.quiet);
    let mut runner = CommandRunner::new(&sim);
    runner.transient = transient;
    let mut on_simulate = |sim: &mut Simulation, label: &str, t0: f64, end: f64| {
        sim.output.progress = progress::hook(show, label, t0, end);
    };
    let mut stopped = None;
    for cmd in &commands {
        if stop_flag.load(Ordering::SeqCst) {
            stopped = Some(Stop::Signal(signal.load(Ordering::SeqCst) as i32));
            break;
        }
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            runner.execute(&mut sim, cmd, &mut on_simulate)
        }));
        match done {
            Ok(Ok(())) => {}
            // Whatever way the analysis ended after a stop request (an
            // interrupted statics iteration reads as a failed one), the
            // signal is why.
            Ok(Err(_)) if stop_flag.load(Ordering::SeqCst) => {
                stopped = Some(Stop::Signal(signal.load(Ordering::SeqCst) as i32));
                break;
            }
            Ok(Err(e)) => {
                let e = e.to_string();
                if !sim.log.last().is_some_and(|l| l.ends_with(&e)) {
                    sim.log.push(format!("ERROR: {e}"));
                }
                stopped = Some(Stop::Error(e));
                break;
            }
            Err(_) => {
                sim.output.progress = None;
                let what = crate::panic_context();
                sim.log.push(format!("internal error: {what}"));
                stopped = Some(Stop::Panic(what));
                break;
            }
        }
    }
    // The sink holds the shared files too; drop it before the last writes.
    sim.output.sink = None;
    let mut f = files.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = f.io_error.clone() {
        if stopped.is_none() {
            stopped = Some(Stop::Error(e));
        }
    }
    let (rows, last_t) = (f.rows, f.last_t);
    let kept = match last_t {
        Some(t) => format!("{rows} output frames up to t = {t:e} written"),
        None => "no output frame was written".to_string(),
    };
    if let Some(Stop::Signal(sig)) = &stopped {
        sim.log
            .push(format!("stopped by {}: {kept}", signal_name(*sig)));
    }
    f.append_log(&sim.log);
    let mut tail = String::new();
    let _ = writeln!(tail, "\n--- end of run ---");
    let _ = writeln!(tail, "degrees of freedom: {}", sim.sys.dof(&sim.data));
    for (name, stats, wall) in &sim.stats {
        let _ = writeln!(tail, "{name} analysis ({wall:.3} s wall clock):\n{stats}");
    }
    let _ = writeln!(
        tail,
        "output frames: {rows}; total wall clock {:.3} s",
        started.elapsed().as_secs_f64()
    );
    let _ = match &stopped {
        None => writeln!(tail, "finished normally"),
        Some(Stop::Error(e)) => writeln!(tail, "stopped on error: {e}; {kept}"),
        Some(Stop::Panic(e)) => writeln!(tail, "stopped on an internal error: {e}; {kept}"),
        Some(Stop::Signal(s)) => writeln!(tail, "stopped by {}; {kept}", signal_name(*s)),
    };
    let _ = f.msg.write_all(tail.as_bytes());
    f.flush()?;
    drop(f);

    if !opts.quiet {
        println!(
            "{}: {rows} frames to t = {}, {header_len} request columns, DOF {}",
            model.title.trim(),
            last_t.unwrap_or(0.0),
            sim.sys.dof(&sim.data)
        );
        for (name, s, wall) in &sim.stats {
            println!(
                "  {name}: {} steps, {} rejected, {} Jacobians, {:.3} s",
                s.steps, s.rejected_steps, s.jacobian_evaluations, wall
            );
        }
        for r in &sim.reports {
            println!("{r}");
        }
        println!("  wrote {} and {}", csv_path.display(), msg_path.display());
    }
    let written = format!(
        "{kept}; see {} and {}",
        csv_path.display(),
        msg_path.display()
    );
    match stopped {
        None => Ok(()),
        Some(Stop::Error(e)) => Err(format!("{e} ({written})").into()),
        Some(Stop::Panic(e)) => Err(Failure {
            message: format!("internal error: {e} ({written})"),
            code: 2,
        }),
        Some(Stop::Signal(sig)) => Err(Failure {
            message: format!("stopped by {} ({written})", signal_name(sig)),
            code: 128 + sig as u8,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_reduced_to_file_names() {
        assert_eq!(bare_prefix("run1", "m"), ("run1".into(), None));
        for (p, name) in [
            ("/tmp/x/abs", "abs"),
            ("../up", "up"),
            ("a/b/c", "c"),
            ("..", "m"),
            ("/", "m"),
            ("./here", "here"),
        ] {
            let (got, note) = bare_prefix(p, "m");
            assert_eq!(got, name, "{p}");
            assert_eq!(
                note.unwrap(),
                format!("output prefix '{p}' has directory parts: reduced to '{name}' (output goes only into the output directory)")
            );
        }
    }

    #[test]
    fn command_lines_are_told_from_file_names() {
        assert!(looks_like_command("SIMULATE/DYNAMIC, END = 1, STEPS = 100"));
        assert!(looks_like_command("integrator/gstiff"));
        assert!(!looks_like_command("pendulum_run"));
        assert!(!looks_like_command("results/p1"));
        assert!(!looks_like_command(""));
        assert!(looks_like_command("stop"));
        // Abbreviations of command names, without arguments, are names.
        assert!(!looks_like_command("k"));
        assert!(!looks_like_command("sim"));
    }
}
