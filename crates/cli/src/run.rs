//! `mbsolve run`: read the dataset and the command file, execute the
//! commands in order, write PREFIX.csv and PREFIX.msg. An error stops the
//! command sequence, but what was computed is still written.

use crate::args::RunOptions;
use crate::progress;
use mbsolve_model::{Command, IntegratorSettings, Model, OutputSpec, SimulateMode, StaticSettings};
use mbsolve_solver::{requests, Simulation};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Apply an INTEGRATOR command to the current settings: DEFAULT resets to
/// the defaults first; otherwise every argument given overrides. The
/// integrator kind is always the command's (GSTIFF when it names none).
/// Without DEFAULT, a command that changes the integrator and gives no
/// ERROR inherits the effective ERROR of the previous one (seeds: GSTIFF's
/// 1e-3 carries over to INTEGRATOR/HHT unless DEFAULT is given); the
/// returned note says so for the message log.
pub fn apply_integrator(
    current: &mut IntegratorSettings,
    new: &IntegratorSettings,
    default: bool,
) -> Option<String> {
    let mut note = None;
    // A command that names no integrator keeps the current one.
    let kind = if new.kind_given {
        new.kind
    } else {
        current.kind
    };
    if default {
        *current = IntegratorSettings {
            kind,
            ..Default::default()
        };
    } else if kind != current.kind && current.error.is_none() && new.error.is_none() {
        let inherited = current.kind.default_error();
        current.error = Some(inherited);
        if inherited != kind.default_error() {
            note = Some(format!(
                "ERROR = {inherited:e} inherited from {} ({}'s own default {:e} needs INTEGRATOR/{}, DEFAULT)",
                current.kind.name(),
                kind.name(),
                kind.default_error(),
                kind.name()
            ));
        }
    }
    current.kind = kind;
    macro_rules! over {
        ($($f:ident),*) => { $( if new.$f.is_some() { current.$f = new.$f.clone(); } )* };
    }
    over!(
        formulation,
        error,
        hmax,
        hmin,
        hinit,
        kmax,
        maxit,
        pattern,
        corrector,
        adaptivity,
        interpolate,
        fixit,
        hratio,
        maxerr,
        alpha,
        beta,
        gamma
    );
    note
}

/// "GSTIFF, ERROR = 1e-6, HMAX = 0.01" — the arguments given so far; the
/// analysis logs the effective values with their defaults.
fn describe_settings(s: &IntegratorSettings) -> String {
    let mut out = s.kind.name().to_string();
    let mut put = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            let _ = write!(out, ", {name} = {v}");
        }
    };
    put(
        "FORMULATION",
        s.formulation.map(|f| format!("{f:?}").to_uppercase()),
    );
    put("ERROR", s.error.map(|v| format!("{v:e}")));
    put("HMAX", s.hmax.map(|v| format!("{v:e}")));
    put("HMIN", s.hmin.map(|v| format!("{v:e}")));
    put("HINIT", s.hinit.map(|v| format!("{v:e}")));
    put("KMAX", s.kmax.map(|v| v.to_string()));
    put("MAXIT", s.maxit.map(|v| v.to_string()));
    put(
        "PATTERN",
        s.pattern.as_ref().map(|p| {
            p.iter()
                .map(|b| if *b { "T" } else { "F" })
                .collect::<Vec<_>>()
                .join(":")
        }),
    );
    put(
        "CORRECTOR",
        s.corrector.map(|c| format!("{c:?}").to_uppercase()),
    );
    put("ADAPTIVITY", s.adaptivity.map(|v| format!("{v:e}")));
    put(
        "INTERPOLATE",
        s.interpolate
            .map(|v| if v { "ON" } else { "OFF" }.to_string()),
    );
    put("FIXIT", s.fixit.map(|v| v.to_string()));
    put("HRATIO", s.hratio.map(|v| v.to_string()));
    put("MAXERR", s.maxerr.map(|v| format!("{v:e}")));
    put("ALPHA", s.alpha.map(|v| format!("{v:e}")));
    put("BETA", s.beta.map(|v| format!("{v:e}")));
    put("GAMMA", s.gamma.map(|v| format!("{v:e}")));
    out
}

fn output(spec: Option<OutputSpec>, what: &str) -> Result<OutputSpec, String> {
    spec.ok_or_else(|| format!("SIMULATE/{what} needs END or DURATION with STEPS or DTOUT"))
}

/// Execute one command, logging what it does into `sim.log`.
fn execute(
    sim: &mut Simulation,
    cmd: &Command,
    settings: &mut IntegratorSettings,
    ic_done: &mut bool,
    show: progress::Show,
) -> Result<(), String> {
    match cmd {
        Command::Integrator {
            settings: s,
            default,
        } => {
            let note = apply_integrator(settings, s, *default);
            sim.log.push(format!(
                "INTEGRATOR command: {}",
                describe_settings(settings)
            ));
            if let Some(note) = note {
                sim.log.push(note);
            }
            Ok(())
        }
        Command::Equilibrium {
            settings: s,
            default,
        } => {
            apply_equilibrium(&mut sim.sys.model.equilibrium, s, *default);
            sim.log.push(format!(
                "EQUILIBRIUM command: {:?}",
                sim.sys.model.equilibrium
            ));
            Ok(())
        }
        Command::Simulate { mode, output: spec } => {
            // TRANSIENT picks kinematic or dynamic by the DOF count after
            // redundant constraints are removed, so assemble first.
            if *mode == SimulateMode::Transient && sim.frames.is_empty() && !*ic_done {
                sim.initial_conditions().map_err(|e| e.to_string())?;
                *ic_done = true;
            }
            let mode = match mode {
                SimulateMode::Transient if sim.sys.dof() == 0 => SimulateMode::Kinematic,
                SimulateMode::Transient => SimulateMode::Dynamic,
                m => *m,
            };
            if let Some(o) = spec {
                let label = format!("SIMULATE/{mode:?}").to_uppercase();
                sim.progress = progress::hook(show, &label, sim.state.t, o.end);
            }
            let result = match mode {
                SimulateMode::Static => run_static(sim, *spec, settings),
                SimulateMode::InitialConditions => {
                    sim.initial_conditions().map_err(|e| e.to_string())?;
                    *ic_done = true;
                    Ok(())
                }
                SimulateMode::Kinematic => {
                    let o = output(*spec, "KINEMATIC")?;
                    sim.kinematic(o.end, o.steps, o.dtout)
                        .map_err(|e| e.to_string())
                }
                SimulateMode::Dynamic => {
                    let o = output(*spec, "DYNAMIC")?;
                    sim.dynamic(o.end, o.steps, o.dtout, settings)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                }
                SimulateMode::Transient => unreachable!("resolved above"),
            };
            // Dropping the hook clears the progress line.
            sim.progress = None;
            result
        }
    }
}

/// Apply an EQUILIBRIUM command to the static settings (kept in the
/// simulation's model copy): DEFAULT resets first; given arguments override.
pub fn apply_equilibrium(current: &mut StaticSettings, new: &StaticSettings, default: bool) {
    if default {
        *current = StaticSettings::default();
    }
    macro_rules! over {
        ($($f:ident),*) => { $( if new.$f.is_some() { current.$f = new.$f; } )* };
    }
    over!(
        method,
        max_ke_tol,
        max_dq_tol,
        max_num_iter,
        max_imbalance,
        max_error,
        stability,
        compliance_delta
    );
}

/// SIMULATE/STATIC: the static equilibrium, or with END a quasi-static
/// sweep (FIM_D integration uses the INTEGRATOR settings).
fn run_static(
    sim: &mut Simulation,
    spec: Option<OutputSpec>,
    settings: &IntegratorSettings,
) -> Result<(), String> {
    let eq = sim.sys.model.equilibrium.clone();
    let report = match spec {
        None => sim.static_equilibrium(&eq),
        Some(o) => sim.quasi_static(o.end, o.steps, o.dtout, &eq, settings),
    }
    .map_err(|e| e.to_string())?;
    sim.log.push(format!(
        "SIMULATE/STATIC: {} finished, {} iterations, {} Jacobian evaluations, largest imbalance {:.3e}",
        report.method.name(),
        report.iterations,
        report.jacobians,
        report.imbalance
    ));
    Ok(())
}

fn summary(model: &Model, path: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "mbsolve {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(s, "model: {} ({})", model.title.trim(), path.display());
    let _ = writeln!(
        s,
        "units: force {}, mass {}, length {}, time {}, angle {}",
        model.units.force,
        model.units.mass,
        model.units.length,
        model.units.time,
        model.units.angle
    );
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

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

pub fn run(opts: &RunOptions) -> Result<(), String> {
    let started = Instant::now();
    for (what, p) in [("model", Some(&opts.model)), ("command", opts.acf.as_ref())] {
        if let Some(p) = p {
            if !p.is_file() {
                return Err(format!(
                    "cannot read the {what} file {}: no such file",
                    p.display()
                ));
            }
        }
    }
    let model = mbsolve_adm::read_adm(&opts.model).map_err(|e| e.to_string())?;
    let acf = match &opts.acf {
        Some(p) => Some(mbsolve_adm::read_acf(p).map_err(|e| e.to_string())?),
        None => None,
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
    let prefix = acf
        .as_ref()
        .and_then(|a| a.output_prefix.clone())
        .unwrap_or_else(|| {
            opts.model
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "mbsolve".into())
        });
    let csv_path = dir.join(format!("{prefix}.csv"));
    let msg_path = dir.join(format!("{prefix}.msg"));

    let mut msg = summary(&model, &opts.model);
    let outputs = match requests::Outputs::new(&model) {
        Ok(o) => o,
        Err(e) => {
            let err = format!("the model cannot run: {e}");
            let _ = writeln!(msg, "ERROR: {err}");
            write_file(&msg_path, &msg)?;
            return Err(err);
        }
    };
    let mut sim = match Simulation::new(&model) {
        Ok(s) => s,
        Err(e) => {
            let err = format!("the model cannot run: {e}");
            let _ = writeln!(msg, "ERROR: {err}");
            write_file(&msg_path, &msg)?;
            return Err(err);
        }
    };
    let commands = match &acf {
        Some(a) => {
            if let (Some(f), Some(p)) = (&a.model_file, &opts.acf) {
                sim.log.push(format!(
                    "command file {} (names dataset '{f}'; running {})",
                    p.display(),
                    opts.model.display()
                ));
            }
            a.commands.clone()
        }
        None => {
            sim.log.push(
                "no command file: running initial conditions and SIMULATE/DYNAMIC, END=1, STEPS=100"
                    .into(),
            );
            vec![
                Command::Simulate {
                    mode: SimulateMode::InitialConditions,
                    output: None,
                },
                Command::Simulate {
                    mode: SimulateMode::Dynamic,
                    output: Some(OutputSpec {
                        end: 1.0,
                        steps: Some(100),
                        dtout: None,
                    }),
                },
            ]
        }
    };
    let mut settings = model.integrator.clone();
    let mut failure = None;
    let mut ic_done = false;
    let show = progress::Show::choose(opts.quiet);
    for cmd in &commands {
        if let Err(e) = execute(&mut sim, cmd, &mut settings, &mut ic_done, show) {
            sim.log.push(format!("ERROR: {e}"));
            failure = Some(e);
            break;
        }
    }

    // CSV: time then request components.
    let (rows, output_error) = outputs.table(&sim.sys, &sim.frames);
    if let Some(e) = output_error {
        sim.log.push(format!("ERROR: {e}"));
        failure.get_or_insert(e);
    }
    let mut csv = String::from("time");
    for h in &outputs.header {
        csv.push(',');
        csv.push_str(h);
    }
    csv.push('\n');
    for row in &rows {
        let line: Vec<String> = row.iter().map(|v| format!("{v:e}")).collect();
        csv.push_str(&line.join(","));
        csv.push('\n');
    }
    let csv_written = write_file(&csv_path, &csv);

    let _ = writeln!(msg, "degrees of freedom: {}", sim.sys.dof());
    let _ = writeln!(msg, "\n--- log ---");
    for l in &sim.log {
        let _ = writeln!(msg, "{l}");
    }
    let _ = writeln!(msg, "\n--- end of run ---");
    for (name, stats, wall) in &sim.stats {
        let _ = writeln!(msg, "{name} analysis ({wall:.3} s wall clock):\n{stats}");
    }
    let _ = writeln!(
        msg,
        "output frames: {}; total wall clock {:.3} s",
        sim.frames.len(),
        started.elapsed().as_secs_f64()
    );
    match &failure {
        None => {
            let _ = writeln!(msg, "finished normally");
        }
        Some(e) => {
            let _ = writeln!(msg, "stopped on error: {e}");
        }
    }
    write_file(&msg_path, &msg)?;
    csv_written?;

    if !opts.quiet {
        let last_t = sim.frames.last().map(|f| f.t).unwrap_or(0.0);
        println!(
            "{}: {} frames to t = {last_t}, {} request columns, DOF {}",
            model.title.trim(),
            sim.frames.len(),
            outputs.header.len(),
            sim.sys.dof()
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
    match failure {
        None => Ok(()),
        Some(e) => Err(format!(
            "{e} (results up to the failure written to {} and {})",
            csv_path.display(),
            msg_path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbsolve_model::IntegratorKind;

    #[test]
    fn integrator_commands_override_or_reset() {
        let mut cur = IntegratorSettings {
            error: Some(1e-5),
            hmax: Some(0.1),
            ..Default::default()
        };
        let cmd = IntegratorSettings {
            hmax: Some(0.01),
            ..Default::default()
        };
        let _ = apply_integrator(&mut cur, &cmd, false);
        assert_eq!(cur.error, Some(1e-5));
        assert_eq!(cur.hmax, Some(0.01));
        let _ = apply_integrator(&mut cur, &cmd, true);
        assert_eq!(cur.error, None);
        assert_eq!(cur.hmax, Some(0.01));
        assert_eq!(cur.kind, IntegratorKind::Gstiff);
    }

    /// The seeds' HHT example: GSTIFF's default ERROR (1e-3) is inherited by
    /// INTEGRATOR/HHT without DEFAULT; with DEFAULT HHT's own 1e-5 applies;
    /// an explicit ERROR always wins.
    #[test]
    fn error_is_inherited_across_integrators_without_default() {
        let hht = IntegratorSettings {
            kind: IntegratorKind::Hht,
            kind_given: true,
            ..Default::default()
        };
        let mut cur = IntegratorSettings::default();
        let note = apply_integrator(&mut cur, &hht, false);
        assert_eq!((cur.kind, cur.error), (IntegratorKind::Hht, Some(1e-3)));
        assert_eq!(
            note.as_deref(),
            Some("ERROR = 1e-3 inherited from GSTIFF (HHT's own default 1e-5 needs INTEGRATOR/HHT, DEFAULT)")
        );
        let mut cur = IntegratorSettings::default();
        assert_eq!(apply_integrator(&mut cur, &hht, true), None);
        assert_eq!(cur.error, None, "DEFAULT: HHT's own default applies");
        let mut cur = IntegratorSettings::default();
        let explicit = IntegratorSettings {
            error: Some(1e-4),
            ..hht
        };
        assert_eq!(apply_integrator(&mut cur, &explicit, false), None);
        assert_eq!(cur.error, Some(1e-4));
        // INTEGRATOR/ERROR = 1e-6 names no integrator: HHT stays, and
        // DEFAULT without a name resets HHT to its own defaults.
        let error_only = IntegratorSettings {
            error: Some(1e-6),
            ..Default::default()
        };
        assert_eq!(apply_integrator(&mut cur, &error_only, false), None);
        assert_eq!((cur.kind, cur.error), (IntegratorKind::Hht, Some(1e-6)));
        assert_eq!(
            apply_integrator(&mut cur, &IntegratorSettings::default(), true),
            None
        );
        assert_eq!((cur.kind, cur.error), (IntegratorKind::Hht, None));
    }
}
