//! Adams command semantics: how INTEGRATOR and EQUILIBRIUM commands merge
//! into the current settings, and how a command sequence (SIMULATE,
//! INTEGRATOR, EQUILIBRIUM) runs on a `Simulation`. The front ends (the
//! CLI, tests) only choose the commands and where the output goes.

use crate::analysis::{Simulation, SolverError};
use mbsolve_model::{Command, IntegratorSettings, OutputSpec, SimulateMode, StaticSettings};
use std::fmt::Write as _;

/// An argument the command gives replaces the current one.
fn over<T: Clone>(cur: &mut Option<T>, new: &Option<T>) {
    if new.is_some() {
        cur.clone_from(new);
    }
}

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
    // Destructured without `..`: a field added to IntegratorSettings must
    // be merged here before this compiles.
    let IntegratorSettings {
        kind,
        kind_given,
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
        gamma,
        vel_tol_factor,
        rel_abs_tol_ratio,
        origin,
    } = new;
    let mut note = None;
    // A command that names no integrator keeps the current one.
    let kind = if *kind_given { *kind } else { current.kind };
    if default {
        *current = IntegratorSettings {
            kind,
            ..Default::default()
        };
    } else if kind != current.kind && current.error.is_none() && error.is_none() {
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
    current.kind_given |= *kind_given;
    over(&mut current.formulation, formulation);
    over(&mut current.error, error);
    over(&mut current.hmax, hmax);
    over(&mut current.hmin, hmin);
    over(&mut current.hinit, hinit);
    over(&mut current.kmax, kmax);
    over(&mut current.maxit, maxit);
    over(&mut current.pattern, pattern);
    over(&mut current.corrector, corrector);
    over(&mut current.adaptivity, adaptivity);
    over(&mut current.interpolate, interpolate);
    over(&mut current.fixit, fixit);
    over(&mut current.hratio, hratio);
    over(&mut current.maxerr, maxerr);
    over(&mut current.alpha, alpha);
    over(&mut current.beta, beta);
    over(&mut current.gamma, gamma);
    over(&mut current.vel_tol_factor, vel_tol_factor);
    over(&mut current.rel_abs_tol_ratio, rel_abs_tol_ratio);
    // A range error then names the latest command that set the arguments.
    over(&mut current.origin, origin);
    note
}

/// An INTEGRATOR command that switches to another integrator (without
/// DEFAULT): every current argument the new integrator does not take and
/// the command does not give is kept aside in `kept`, not used, and comes
/// back when a later command switches to an integrator that takes it
/// (Adams keeps an argument stored for one integrator, e.g. ALPHA from an
/// `.adm` INTEGRATOR/HHT, when the `.acf` switches to GSTIFF, and does not
/// use it). Call before `apply_integrator`; the returned line for the
/// message log names what is kept.
pub fn set_aside_arguments(
    current: &mut IntegratorSettings,
    kept: &mut IntegratorSettings,
    new: &IntegratorSettings,
    default: bool,
) -> Option<String> {
    use crate::settings::Arg;
    if default {
        *kept = IntegratorSettings::default();
        return None;
    }
    let kind = if new.kind_given {
        new.kind
    } else {
        current.kind
    };
    if kind == current.kind {
        return None;
    }
    let mut moved = IntegratorSettings {
        kind: current.kind,
        ..Default::default()
    };
    for a in Arg::ALL {
        if a.is_given(current) && !a.is_given(new) && !a.taken_by(kind) {
            a.move_value(current, &mut moved);
        } else if a.is_given(kept) && a.taken_by(kind) && !a.is_given(current) {
            a.move_value(kept, current);
        }
    }
    let given: Vec<Arg> = Arg::ALL
        .into_iter()
        .filter(|a| a.is_given(&moved))
        .collect();
    if given.is_empty() {
        return None;
    }
    let line = describe_settings(&moved);
    for a in given {
        a.move_value(&mut moved, kept);
    }
    let args = line.split_once(", ").map_or("", |(_, rest)| rest);
    Some(format!(
        "{args} kept from {} but not used by {} (Adams keeps an argument of another integrator and does not use it)",
        current.kind.name(),
        kind.name()
    ))
}

/// Apply an EQUILIBRIUM command to the static settings: DEFAULT resets
/// first; every argument given overrides (TLIMIT and ALIMIT included, as in
/// the `.adm` statement; their ranges are checked when the analysis runs).
pub fn apply_equilibrium(current: &mut StaticSettings, new: &StaticSettings, default: bool) {
    // Destructured without `..`, as in `apply_integrator`.
    let StaticSettings {
        method,
        max_ke_tol,
        max_dq_tol,
        max_num_iter,
        max_imbalance,
        max_error,
        stability,
        compliance_delta,
        tlimit,
        alimit,
        origin,
    } = new;
    if default {
        *current = StaticSettings::default();
    }
    over(&mut current.method, method);
    over(&mut current.max_ke_tol, max_ke_tol);
    over(&mut current.max_dq_tol, max_dq_tol);
    over(&mut current.max_num_iter, max_num_iter);
    over(&mut current.max_imbalance, max_imbalance);
    over(&mut current.max_error, max_error);
    over(&mut current.stability, stability);
    over(&mut current.compliance_delta, compliance_delta);
    over(&mut current.tlimit, tlimit);
    over(&mut current.alimit, alimit);
    over(&mut current.origin, origin);
}

/// "GSTIFF, ERROR = 1e-6, HMAX = 0.01" — the arguments given so far; the
/// analysis logs the effective values with their defaults.
pub fn describe_settings(s: &IntegratorSettings) -> String {
    let mut out = s.kind.name().to_string();
    let mut put = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            let _ = write!(out, ", {name} = {v}");
        }
    };
    let e = |v: Option<f64>| v.map(|v| format!("{v:e}"));
    put(
        "FORMULATION",
        s.formulation.map(|f| format!("{f:?}").to_uppercase()),
    );
    put("ERROR", e(s.error));
    put("HMAX", e(s.hmax));
    put("HMIN", e(s.hmin));
    put("HINIT", e(s.hinit));
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
    put("ADAPTIVITY", e(s.adaptivity));
    put(
        "INTERPOLATE",
        s.interpolate
            .map(|v| if v { "ON" } else { "OFF" }.to_string()),
    );
    put("FIXIT", s.fixit.map(|v| v.to_string()));
    put("HRATIO", s.hratio.map(|v| v.to_string()));
    put("MAXERR", e(s.maxerr));
    put("ALPHA", e(s.alpha));
    put("BETA", e(s.beta));
    put("GAMMA", e(s.gamma));
    out
}

/// The commands a run executes when no command file is given: initial
/// conditions, then SIMULATE/DYNAMIC, END = 1, STEPS = 100.
pub fn default_commands() -> Vec<Command> {
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
                duration: None,
            }),
        },
    ]
}

/// Called before a SIMULATE with an output range runs: (label such as
/// "SIMULATE/DYNAMIC", start time, END); it may install a progress hook in
/// `sim.output.progress`, which is removed when the command ends.
pub type OnSimulate<'a> = dyn FnMut(&mut Simulation, &str, f64, f64) + 'a;

/// Executes a command sequence in order, carrying the INTEGRATOR settings
/// from command to command (EQUILIBRIUM settings live in the simulation's
/// model copy, where the static analyses read them).
pub struct CommandRunner {
    pub integrator: IntegratorSettings,
    /// A MotionSolve deck's Param_Transient: dynamic analyses run with it
    /// (DSTIFF, or the ODE form) instead of `integrator`.
    pub transient: Option<crate::settings::ParamTransient>,
    /// Arguments of another integrator, kept aside and not used
    /// (`set_aside_arguments`).
    kept: IntegratorSettings,
    ic_done: bool,
    /// An element was activated or deactivated since the last analysis:
    /// the next SIMULATE first re-runs the initial conditions.
    topology_changed: bool,
}

impl CommandRunner {
    /// Start from the dataset's own INTEGRATOR statement.
    pub fn new(sim: &Simulation) -> CommandRunner {
        CommandRunner {
            integrator: sim.model.integrator.clone(),
            transient: None,
            kept: IntegratorSettings::default(),
            ic_done: false,
            topology_changed: false,
        }
    }

    /// Execute one command, logging what it does into `sim.log`.
    pub fn execute(
        &mut self,
        sim: &mut Simulation,
        cmd: &Command,
        on_simulate: &mut OnSimulate<'_>,
    ) -> Result<(), SolverError> {
        match cmd {
            Command::Integrator { settings, default } => {
                let kept =
                    set_aside_arguments(&mut self.integrator, &mut self.kept, settings, *default);
                let note = apply_integrator(&mut self.integrator, settings, *default);
                sim.log.push(format!(
                    "INTEGRATOR command: {}",
                    describe_settings(&self.integrator)
                ));
                sim.log.extend(kept);
                if let Some(note) = note {
                    sim.log.push(note);
                }
                Ok(())
            }
            Command::Equilibrium { settings, default } => {
                apply_equilibrium(&mut sim.model.equilibrium, settings, *default);
                sim.log
                    .push(format!("EQUILIBRIUM command: {:?}", sim.model.equilibrium));
                Ok(())
            }
            Command::Accgrav { components } => {
                // The body equations read the mechanics' gravity at every
                // evaluation, so the change holds from the next SIMULATE on;
                // the model keeps the same value (outputs, later commands).
                for (k, c) in components.iter().enumerate() {
                    if let Some(v) = c {
                        sim.sys.gravity[k] = *v;
                        sim.model.gravity[k] = *v;
                    }
                }
                let g = sim.sys.gravity;
                sim.log.push(format!(
                    "ACCGRAV command: gravity = ({}, {}, {})",
                    g[0], g[1], g[2]
                ));
                Ok(())
            }
            Command::Activate {
                element,
                active,
                origin,
            } => {
                switch_element(sim, *element, *active, origin)?;
                self.topology_changed = true;
                Ok(())
            }
            Command::ActivateRange {
                first,
                last,
                active,
                origin,
            } => {
                let elements = elements_in_range(sim, *first, *last);
                if elements.is_empty() {
                    let verb = if *active { "ACTIVATE" } else { "DEACTIVATE" };
                    let (lo, kind) = id_and_kind(*first);
                    return Err(SolverError::Settings(format!(
                        "{origin}: {verb}/{kind}, RANGE = {lo}, {last}: the model has no {kind} with an id in that range"
                    )));
                }
                for e in elements {
                    switch_element(sim, e, *active, origin)?;
                }
                self.topology_changed = true;
                Ok(())
            }
            Command::Units { units, origin } => {
                if *units != sim.model.units {
                    return Err(SolverError::Settings(format!(
                        "{origin}: UNITS command: {} differ from the dataset's units {}; the Adams Solver command reference has no UNITS command, units are the dataset's UNITS statement, and mbsolve does not change units between analyses (put the units in the dataset)",
                        describe_units(units),
                        describe_units(&sim.model.units)
                    )));
                }
                sim.log.push(format!(
                    "UNITS command at {origin}: restates the dataset's units ({}); no change",
                    describe_units(units)
                ));
                Ok(())
            }
            Command::Redefine {
                model,
                what,
                origin,
            } => {
                redefine(sim, &model.0, what, origin)?;
                self.topology_changed = true;
                Ok(())
            }
            Command::ParamTransient { attributes } => {
                let attrs: Vec<(&str, &str, &str)> = attributes
                    .iter()
                    .map(|(n, v, o)| (n.as_str(), v.as_str(), o.as_str()))
                    .collect();
                let p = crate::settings::ParamTransient::from_attributes(&attrs)
                    .map_err(SolverError::Settings)?;
                sim.log.push(format!(
                    "Param_Transient command: {}",
                    attributes
                        .iter()
                        .map(|(n, v, _)| format!("{n} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                self.transient = Some(p);
                Ok(())
            }
            Command::Simulate { mode, output } => {
                if sim.halted {
                    // Adams SENSOR HALT ends the whole analysis.
                    let label = format!("SIMULATE/{mode:?}").to_uppercase();
                    sim.log
                        .push(format!("{label} not run: a SENSOR halted the analysis"));
                    return Ok(());
                }
                if std::mem::take(&mut self.topology_changed) && sim.ic_done {
                    reinitialize(sim)?;
                }
                // TRANSIENT picks kinematic or dynamic by the DOF count after
                // redundant constraints are removed, so assemble first.
                if *mode == SimulateMode::Transient && sim.output.written == 0 && !self.ic_done {
                    sim.initial_conditions()?;
                    self.ic_done = true;
                }
                let mode = match mode {
                    SimulateMode::Transient if sim.sys.dof(&sim.data) == 0 => {
                        SimulateMode::Kinematic
                    }
                    SimulateMode::Transient => SimulateMode::Dynamic,
                    m => *m,
                };
                let output = output.map(|o| from_time_reached(o, sim.state.t));
                if let Some(o) = output {
                    let label = format!("SIMULATE/{mode:?}").to_uppercase();
                    let t0 = sim.state.t;
                    on_simulate(sim, &label, t0, o.end);
                }
                let result = self.simulate(sim, mode, output);
                // Dropping the hook clears the progress line.
                sim.output.progress = None;
                result
            }
        }
    }

    fn simulate(
        &mut self,
        sim: &mut Simulation,
        mode: SimulateMode,
        spec: Option<OutputSpec>,
    ) -> Result<(), SolverError> {
        let need = |what: &str| {
            spec.ok_or_else(|| {
                SolverError::Settings(format!(
                    "SIMULATE/{what} needs END or DURATION with STEPS or DTOUT"
                ))
            })
        };
        match mode {
            SimulateMode::Static => {
                let eq = sim.model.equilibrium.clone();
                let report = match spec {
                    None => sim.static_equilibrium(&eq),
                    Some(o) => sim.quasi_static(o.end, o.steps, o.dtout, &eq, &self.integrator),
                }?;
                sim.log.push(format!(
                    "SIMULATE/STATIC: {} finished, {} iterations, {} Jacobian evaluations, largest imbalance {:.3e}",
                    report.method.name(),
                    report.iterations,
                    report.jacobians,
                    report.imbalance
                ));
                Ok(())
            }
            SimulateMode::InitialConditions => {
                // Adams writes the initial-conditions solution as an
                // output step; a dynamic or kinematic run after it does
                // not write that frame again (`ensure_ic`).
                sim.initial_conditions()?;
                self.ic_done = true;
                sim.write_initial_conditions_frame()
            }
            SimulateMode::Kinematic => {
                let o = need("KINEMATIC")?;
                sim.kinematic(o.end, o.steps, o.dtout)
            }
            SimulateMode::Dynamic => {
                let o = need("DYNAMIC")?;
                match &self.transient {
                    Some(p) => sim.dynamic_transient(o.end, o.steps, o.dtout, p),
                    None => sim.dynamic(o.end, o.steps, o.dtout, &self.integrator),
                }
                .map(|_| ())
            }
            SimulateMode::Transient => unreachable!("resolved by execute"),
        }
    }
}

/// A SIMULATE with DURATION = d ends d after `reached`, the time the
/// previous analysis actually reached: a SENSOR with RETURN may have ended
/// it before the END the command file planned, which the reader's `end`
/// assumes (Adams SIMULATE: DURATION is the length of this simulation).
fn from_time_reached(o: OutputSpec, reached: f64) -> OutputSpec {
    match o.duration {
        Some(d) => OutputSpec {
            end: reached + d,
            ..o
        },
        None => o,
    }
}

/// The element kinds ACTIVATE/DEACTIVATE can switch (constraints and
/// forces the mechanics evaluates); any other is refused by name.
pub fn switchable(e: mbsolve_model::ElementRef) -> bool {
    use mbsolve_model::ElementRef as E;
    matches!(
        e,
        E::Joint(_)
            | E::Motion(_)
            | E::Jprim(_)
            | E::Gcon(_)
            | E::Force(_)
            | E::Springdamper(_)
            | E::Vforce(_)
            | E::Vtorque(_)
            | E::Gforce(_)
            | E::Bushing(_)
            | E::Field(_)
            | E::Beam(_)
            | E::Contact(_)
    )
}

/// "FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND".
fn describe_units(u: &mbsolve_model::Units) -> String {
    format!(
        "FORCE = {}, MASS = {}, LENGTH = {}, TIME = {}",
        u.force, u.mass, u.length, u.time
    )
}

/// The id of an element reference and its Adams statement name, for the
/// types ACTIVATE/DEACTIVATE take ("JOINT", "SFORCE", …); (0, "") for
/// any other.
fn id_and_kind(e: mbsolve_model::ElementRef) -> (mbsolve_model::Id, &'static str) {
    use mbsolve_model::ElementRef as E;
    match e {
        E::Joint(i) => (i, "JOINT"),
        E::Motion(i) => (i, "MOTION"),
        E::Jprim(i) => (i, "JPRIM"),
        E::Gcon(i) => (i, "GCON"),
        E::Force(i) => (i, "SFORCE"),
        E::Springdamper(i) => (i, "SPRINGDAMPER"),
        E::Vforce(i) => (i, "VFORCE"),
        E::Vtorque(i) => (i, "VTORQUE"),
        E::Gforce(i) => (i, "GFORCE"),
        E::Bushing(i) => (i, "BUSHING"),
        E::Field(i) => (i, "FIELD"),
        E::Beam(i) => (i, "BEAM"),
        E::Contact(i) => (i, "CONTACT"),
        E::Sensor(i) => (i, "SENSOR"),
        _ => (0, ""),
    }
}

/// The elements of `first`'s type with ids in [id of `first`, `last`]
/// that the running model holds (constraint equations, force elements,
/// contacts; sensors), each once, in ascending id order.
fn elements_in_range(
    sim: &Simulation,
    first: mbsolve_model::ElementRef,
    last: mbsolve_model::Id,
) -> Vec<mbsolve_model::ElementRef> {
    use mbsolve_model::ElementRef as E;
    let (lo, kind) = id_and_kind(first);
    let held = sim
        .sys
        .equations
        .iter()
        .map(|e| e.element)
        .chain(sim.sys.forces.iter().map(|f| f.element))
        .chain(sim.sys.contacts.iter().map(|c| E::Contact(c.id)))
        .chain(sim.model.sensors.iter().map(|s| E::Sensor(s.id)));
    let mut out: Vec<(mbsolve_model::Id, E)> = held
        .filter_map(|e| {
            let (id, k) = id_and_kind(e);
            (!k.is_empty() && k == kind && (lo..=last).contains(&id)).then_some((id, e))
        })
        .collect();
    out.sort_by_key(|(id, _)| *id);
    out.dedup();
    out.into_iter().map(|(_, e)| e).collect()
}

/// ACTIVATE/DEACTIVATE one element in the simulation's mechanics data.
fn switch_element(
    sim: &mut Simulation,
    element: mbsolve_model::ElementRef,
    active: bool,
    origin: &str,
) -> Result<(), SolverError> {
    let verb = if active { "ACTIVATE" } else { "DEACTIVATE" };
    // A sensor is switched in its run-time state: it is not checked while
    // off, and when switched on it trips only on its condition becoming
    // true (or holding at the next check without having held before).
    if let mbsolve_model::ElementRef::Sensor(id) = element {
        if !sim.model.sensors.iter().any(|s| s.id == id) {
            return Err(SolverError::Settings(format!(
                "{origin}: {verb}: {element} is not in the model"
            )));
        }
        sim.sensor_state.set_active(id, active);
        sim.log
            .push(format!("{verb} command: {element} at t = {}", sim.state.t));
        return Ok(());
    }
    if !switchable(element) {
        return Err(SolverError::Settings(format!(
            "{origin}: {verb} of {element} is not supported (only JOINT, MOTION, JPRIM, GCON, SFORCE, SPRINGDAMPER, VFORCE, VTORQUE, GFORCE, BUSHING, FIELD, BEAM and CONTACT can be switched)"
        )));
    }
    let Some(sw) = sim.sys.set_element_active(&mut sim.data, element, active) else {
        return Err(SolverError::Settings(format!(
            "{origin}: {verb}: {element} is not in the model"
        )));
    };
    // Results of a switched-off force element read this (requests get
    // the model, not the mechanics' switches).
    sim.model.inactive_forces.retain(|e| *e != element);
    if !active && sw.forces > 0 {
        sim.model.inactive_forces.push(element);
    }
    // Force functions reading a force's value (solved quantities) read
    // it through the evaluator's copy of the model: refreshed to these
    // switches (`reaction_fn.rs`).
    if sim.data.solved.is_some() {
        sim.data.solved =
            crate::reaction_fn::evaluator(&sim.sys, &sim.model).map_err(SolverError::Assembly)?;
    }
    sim.log.push(format!(
        "{verb} command: {} ({} constraint equations, {} force elements) at t = {}",
        sim.sys.describe(element),
        sw.equations,
        sw.forces,
        sim.state.t
    ));
    Ok(())
}

/// Replace the running model by `model` (a front end's redefinition of
/// one element's functions or values): the mechanics is rebuilt from it;
/// the state, the active set and the settings the commands changed
/// (gravity, EQUILIBRIUM) carry over. The structure (coordinates,
/// constraint equations, force elements) must be the same.
fn redefine(
    sim: &mut Simulation,
    model: &mbsolve_model::Model,
    what: &str,
    origin: &str,
) -> Result<(), SolverError> {
    let mut model = model.clone();
    // The new functions read this run's SENVALs.
    model.bind_sensor_values(sim.model.sensor_values.clone());
    model.gravity = sim.model.gravity;
    model.inactive_forces = sim.model.inactive_forces.clone();
    model.equilibrium = sim.model.equilibrium.clone();
    let mut sys = mbsolve_mech::System::new(&model).map_err(SolverError::Model)?;
    if sys.nq() != sim.sys.nq()
        || sys.neq() != sim.sys.neq()
        || sys.forces.len() != sim.sys.forces.len()
        || sys.nw() != sim.sys.nw()
    {
        return Err(SolverError::Settings(format!(
            "{origin}: {what}: the change alters the model's coordinates, constraint equations, force elements or user states (an implicit VARIABLE is one), which a command cannot do between analyses"
        )));
    }
    sys.gravity = sim.sys.gravity;
    sim.sys = sys;
    sim.model = model;
    sim.data.invalidate_cache();
    sim.log.push(format!(
        "{what} modified by the command at {origin}, from t = {}",
        sim.state.t
    ));
    Ok(())
}

/// After a topology change, as Adams does: re-decide the redundant
/// constraints among the active elements (on the re-assembled
/// configuration, `ic_rank`) and solve consistent positions,
/// velocities, accelerations and reactions at the current state (a
/// reactivated joint pulls the positions back onto its constraint).
fn reinitialize(sim: &mut Simulation) -> Result<(), SolverError> {
    let (t, q, u) = (sim.state.t, sim.state.q.clone(), sim.state.u.clone());
    // The redundant set decided on the re-assembled configuration.
    let q = sim.reassemble_deciding_rank(t, &q)?;
    sim.solve_configuration(t, &q, &u)?;
    sim.log.push(format!(
        "initial conditions re-run at t = {t} after the element set changed: {} degrees of freedom",
        sim.sys.dof(&sim.data)
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbsolve_model::{CorrectorKind, Formulation, IntegratorKind, StaticMethod};

    /// Every field given: each one must arrive in the merged settings.
    fn every_integrator_field() -> IntegratorSettings {
        IntegratorSettings {
            kind: IntegratorKind::Wstiff,
            kind_given: true,
            formulation: Some(Formulation::Si2),
            error: Some(1e-6),
            hmax: Some(0.01),
            hmin: Some(1e-9),
            hinit: Some(1e-4),
            kmax: Some(4),
            maxit: Some(7),
            pattern: Some(vec![true, false]),
            corrector: Some(CorrectorKind::Modified),
            adaptivity: Some(1e-3),
            interpolate: Some(true),
            fixit: Some(3),
            hratio: Some(2),
            maxerr: Some(0.5),
            alpha: Some(-0.1),
            beta: Some(0.3),
            gamma: Some(0.6),
            vel_tol_factor: Some(10.0),
            rel_abs_tol_ratio: Some(0.5),
            origin: Some("m.acf:3:1".into()),
        }
    }

    #[test]
    fn integrator_merge_carries_every_field() {
        let given = every_integrator_field();
        let mut cur = IntegratorSettings::default();
        assert_eq!(apply_integrator(&mut cur, &given, false), None);
        assert_eq!(cur, given, "every field given arrives");
        // A command giving nothing changes nothing (not even the kind).
        let before = cur.clone();
        let nothing = IntegratorSettings::default();
        assert_eq!(apply_integrator(&mut cur, &nothing, false), None);
        assert_eq!(cur, before);
        // Field by field: one argument given overrides only that one.
        let mut one = IntegratorSettings {
            hmax: Some(0.5),
            ..Default::default()
        };
        apply_integrator(&mut cur, &one, false);
        assert_eq!(
            cur,
            IntegratorSettings {
                hmax: Some(0.5),
                ..before.clone()
            }
        );
        one = IntegratorSettings {
            pattern: Some(vec![false]),
            origin: Some("m.acf:9:1".into()),
            ..Default::default()
        };
        apply_integrator(&mut cur, &one, false);
        assert_eq!(cur.pattern, Some(vec![false]));
        assert_eq!(cur.origin.as_deref(), Some("m.acf:9:1"));
        assert_eq!(cur.error, Some(1e-6));
        // DEFAULT resets everything but the integrator, then applies.
        apply_integrator(&mut cur, &nothing, true);
        assert_eq!(
            cur,
            IntegratorSettings {
                kind: IntegratorKind::Wstiff,
                ..Default::default()
            }
        );
    }

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

    /// An argument given for one integrator (ALPHA of an `.adm`
    /// INTEGRATOR/HHT) is kept aside, not used, when a command switches to
    /// GSTIFF, and comes back with a switch to HHT (Adams keeps it); the
    /// validator then accepts the GSTIFF settings.
    #[test]
    fn arguments_of_another_integrator_are_kept_aside() {
        let mut cur = IntegratorSettings {
            kind: IntegratorKind::Hht,
            kind_given: true,
            alpha: Some(-0.2),
            hmax: Some(0.01),
            ..Default::default()
        };
        let mut kept = IntegratorSettings::default();
        let gstiff = IntegratorSettings {
            kind: IntegratorKind::Gstiff,
            kind_given: true,
            ..Default::default()
        };
        let note = set_aside_arguments(&mut cur, &mut kept, &gstiff, false);
        assert_eq!(
            note.as_deref(),
            Some("ALPHA = -2e-1 kept from HHT but not used by GSTIFF (Adams keeps an argument of another integrator and does not use it)")
        );
        let _ = apply_integrator(&mut cur, &gstiff, false);
        assert_eq!(
            (cur.kind, cur.alpha, cur.hmax),
            (IntegratorKind::Gstiff, None, Some(0.01))
        );
        assert!(crate::settings::validate(&cur, 0.01).is_ok());
        // Back to HHT: ALPHA is in effect again.
        let hht = IntegratorSettings {
            kind: IntegratorKind::Hht,
            kind_given: true,
            ..Default::default()
        };
        assert_eq!(set_aside_arguments(&mut cur, &mut kept, &hht, false), None);
        let _ = apply_integrator(&mut cur, &hht, false);
        assert_eq!(cur.alpha, Some(-0.2));
        // Given in the same command it is still refused by name.
        let wrong = IntegratorSettings {
            alpha: Some(-0.1),
            ..gstiff.clone()
        };
        let mut cur = IntegratorSettings::default();
        assert_eq!(
            set_aside_arguments(&mut cur, &mut kept, &wrong, false),
            None
        );
        let _ = apply_integrator(&mut cur, &wrong, false);
        assert_eq!(
            crate::settings::validate(&cur, 0.01).unwrap_err(),
            "INTEGRATOR: ALPHA applies only to HHT, not to GSTIFF"
        );
        // DEFAULT forgets what was kept.
        set_aside_arguments(&mut cur, &mut kept, &hht, true);
        assert_eq!(kept, IntegratorSettings::default());
    }

    #[test]
    fn equilibrium_merge_carries_every_field() {
        let given = StaticSettings {
            method: Some(StaticMethod::FimS),
            max_ke_tol: Some(1e-6),
            max_dq_tol: Some(1e-5),
            max_num_iter: Some(40),
            max_imbalance: Some(1e-7),
            max_error: Some(1e-3),
            stability: Some(1e-9),
            compliance_delta: Some(1e-4),
            tlimit: Some(0.2),
            alimit: Some(0.3),
            origin: Some("m.acf:4:1".into()),
        };
        let mut cur = StaticSettings::default();
        apply_equilibrium(&mut cur, &given, false);
        assert_eq!(cur, given, "every field given arrives (TLIMIT, ALIMIT too)");
        let before = cur.clone();
        apply_equilibrium(&mut cur, &StaticSettings::default(), false);
        assert_eq!(cur, before, "nothing given changes nothing");
        let tlimit_only = StaticSettings {
            tlimit: Some(-1.0),
            ..Default::default()
        };
        apply_equilibrium(&mut cur, &tlimit_only, false);
        assert_eq!(
            cur,
            StaticSettings {
                tlimit: Some(-1.0),
                ..before
            }
        );
        apply_equilibrium(&mut cur, &tlimit_only, true);
        assert_eq!(cur, tlimit_only, "DEFAULT resets, then applies");
    }

    #[test]
    fn describes_the_arguments_given() {
        let s = every_integrator_field();
        assert_eq!(
            describe_settings(&s),
            "WSTIFF, FORMULATION = SI2, ERROR = 1e-6, HMAX = 1e-2, HMIN = 1e-9, HINIT = 1e-4, KMAX = 4, MAXIT = 7, PATTERN = T:F, CORRECTOR = MODIFIED, ADAPTIVITY = 1e-3, INTERPOLATE = ON, FIXIT = 3, HRATIO = 2, MAXERR = 5e-1, ALPHA = -1e-1, BETA = 3e-1, GAMMA = 6e-1"
        );
    }
}
