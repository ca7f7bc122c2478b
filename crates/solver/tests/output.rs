//! The frame-output path (`Simulation::output`): a sink sees every frame
//! as it is computed, streaming keeps only the last frame in memory, a
//! failing sink or a stop request ends the analysis with the frames before
//! it written — for the kinematic, dynamic (GSTIFF, HHT) and quasi-static
//! analyses.

use mbsolve_mech::System;
use mbsolve_model::*;
use mbsolve_solver::{models, Frame, FrameSink, Simulation, SolverError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Records frame times; fails on frame `fail_at` (0-based), or raises
/// `stop` after frame `stop_after`.
struct Recorder {
    times: Arc<Mutex<Vec<f64>>>,
    fail_at: Option<usize>,
    stop_after: Option<(usize, Arc<AtomicBool>)>,
}

impl FrameSink for Recorder {
    fn write(
        &mut self,
        _sys: &System,
        _model: &Model,
        _log: &[String],
        frame: &Frame,
    ) -> Result<(), String> {
        let mut times = self.times.lock().unwrap();
        if self.fail_at == Some(times.len()) {
            return Err(format!("request failed at t = {}", frame.t));
        }
        times.push(frame.t);
        if let Some((n, stop)) = &self.stop_after {
            if times.len() == *n {
                stop.store(true, Ordering::SeqCst);
            }
        }
        Ok(())
    }
}

fn streaming(
    sim: &mut Simulation,
    fail_at: Option<usize>,
    stop_after: Option<usize>,
) -> Arc<Mutex<Vec<f64>>> {
    let times = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    sim.output.retain = false;
    sim.output.stop = Some(stop.clone());
    sim.output.sink = Some(Box::new(Recorder {
        times: times.clone(),
        fail_at,
        stop_after: stop_after.map(|n| (n, stop)),
    }));
    times
}

/// The times 0, dt, 2 dt, … (n of them).
fn assert_times(seen: &[f64], n: usize, dt: f64) {
    assert_eq!(seen.len(), n, "{seen:?}");
    for (k, t) in seen.iter().enumerate() {
        assert!((t - k as f64 * dt).abs() < 1e-12, "{seen:?}");
    }
}

#[test]
fn streaming_sends_every_frame_and_keeps_only_the_last() {
    for kind in [IntegratorKind::Gstiff, IntegratorKind::Hht] {
        let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
        let times = streaming(&mut sim, None, None);
        let settings = IntegratorSettings {
            kind,
            ..Default::default()
        };
        sim.dynamic(0.5, Some(10), None, &settings).unwrap();
        sim.dynamic(1.0, Some(10), None, &settings).unwrap();
        assert_times(&times.lock().unwrap(), 21, 0.05);
        assert_eq!(sim.frames.len(), 1, "{kind:?}");
        assert_eq!(sim.frames[0].t, 1.0);
        assert_eq!(sim.state.t, 1.0);
        assert_eq!(sim.output.written, 21);
    }
    // Kinematic and quasi-static (FIM_D holds its last output back until
    // FIM_S has polished it: it is still written once, in order).
    let mut sim = Simulation::new(&models::slider_crank(0.5, 1.5, 6.0)).unwrap();
    let times = streaming(&mut sim, None, None);
    sim.kinematic(0.2, Some(4), None).unwrap();
    assert_times(&times.lock().unwrap(), 5, 0.05);
    let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
    let times = streaming(&mut sim, None, None);
    let eq = StaticSettings {
        method: Some(StaticMethod::FimD),
        ..Default::default()
    };
    sim.quasi_static(1.0, Some(5), None, &eq, &IntegratorSettings::default())
        .unwrap();
    assert_times(&times.lock().unwrap(), 6, 0.2);
    assert_eq!(sim.frames.len(), 1);
}

#[test]
fn a_failing_sink_stops_the_analysis_after_the_frames_before_it() {
    let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
    let times = streaming(&mut sim, Some(4), None);
    let e = sim
        .dynamic(0.5, Some(10), None, &IntegratorSettings::default())
        .unwrap_err();
    assert_eq!(
        e,
        SolverError::Stopped {
            t: 0.2,
            reason: "output failed: request failed at t = 0.2".into()
        }
    );
    assert_times(&times.lock().unwrap(), 4, 0.05);
    // The state is the last frame written: a later analysis goes on from it.
    assert!((sim.state.t - 0.15).abs() < 1e-12);
}

#[test]
fn a_stop_request_ends_each_analysis_at_the_next_output() {
    let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
    let times = streaming(&mut sim, None, Some(3));
    let e = sim
        .dynamic(0.5, Some(10), None, &IntegratorSettings::default())
        .unwrap_err();
    assert_eq!(e.to_string(), "interrupted at t = 1e-1");
    assert_times(&times.lock().unwrap(), 3, 0.05);
    let mut sim = Simulation::new(&models::slider_crank(0.5, 1.5, 6.0)).unwrap();
    let times = streaming(&mut sim, None, Some(2));
    let e = sim.kinematic(0.2, Some(4), None).unwrap_err();
    assert_eq!(e.to_string(), "interrupted at t = 5e-2");
    assert_times(&times.lock().unwrap(), 2, 0.05);
}

#[test]
fn retained_frames_are_the_default() {
    let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
    sim.dynamic(0.5, Some(10), None, &IntegratorSettings::default())
        .unwrap();
    assert_eq!(sim.frames.len(), 11);
    assert_eq!(sim.output.written, 11);
}

/// Raises `stop` at the `at`-th accepted integration step (it asks for
/// every step, as a request reading DELAY does); writes nothing.
struct StepCounter {
    steps: usize,
    at: usize,
    stop: Arc<AtomicBool>,
    frames: Arc<Mutex<Vec<f64>>>,
}

impl FrameSink for StepCounter {
    fn write(&mut self, _: &System, _: &Model, _: &[String], f: &Frame) -> Result<(), String> {
        self.frames.lock().unwrap().push(f.t);
        Ok(())
    }
    fn wants_steps(&self) -> bool {
        true
    }
    fn step(&mut self, _: &System, _: &Model, _: &Frame) {
        self.steps += 1;
        if self.steps == self.at {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

/// A stop request inside one long output interval (STEPS = 1 over END = 1
/// with HMAX = 1e-4: 10,000 steps before the only output) ends the
/// dynamic analysis after the step that saw it, not at the output: the
/// error says interrupted at that step's time, the IC frame is the only
/// one written, and the statistics count the steps taken.
#[test]
fn a_stop_request_between_outputs_ends_the_step_loop() {
    for kind in [IntegratorKind::Gstiff, IntegratorKind::Hht] {
        let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let frames = Arc::new(Mutex::new(Vec::new()));
        sim.output.retain = false;
        sim.output.stop = Some(stop.clone());
        sim.output.sink = Some(Box::new(StepCounter {
            steps: 0,
            at: 50,
            stop,
            frames: frames.clone(),
        }));
        let settings = IntegratorSettings {
            kind,
            hmax: Some(1e-4),
            ..Default::default()
        };
        let e = sim.dynamic(1.0, Some(1), None, &settings).unwrap_err();
        let SolverError::Stopped { t, reason } = &e else {
            panic!("{kind:?}: {e:?}");
        };
        assert_eq!(reason, &format!("interrupted at t = {t:e}"), "{kind:?}");
        assert!(
            *t > 0.0 && *t <= 50.0 * 1e-4 * (1.0 + 1e-9),
            "{kind:?}: t = {t}"
        );
        assert_eq!(*frames.lock().unwrap(), vec![0.0], "{kind:?}");
        assert_eq!(sim.stats.last().unwrap().1.steps, 50, "{kind:?}");
    }
}

/// A stop flag (unset) changes nothing: the steps, and so every frame and
/// counter, are the same bit for bit as without one — for a BDF, HHT, the
/// fixed-step option, INTERPOLATE = ON and an ODE-form integrator. (The
/// driver steps one step at a time either way; this guards against the
/// flag choosing a different stepping path again.)
#[test]
fn a_stop_flag_does_not_change_the_solution() {
    let cases = [
        IntegratorSettings::default(),
        IntegratorSettings {
            kind: IntegratorKind::Hht,
            ..Default::default()
        },
        IntegratorSettings {
            kind: IntegratorKind::Wstiff,
            interpolate: Some(true),
            ..Default::default()
        },
        IntegratorSettings {
            fixit: Some(3),
            ..Default::default()
        },
        IntegratorSettings {
            kind: IntegratorKind::Vstiff,
            ..Default::default()
        },
    ];
    for settings in cases {
        let run = |flag: bool| {
            let mut sim = Simulation::new(&models::double_pendulum()).unwrap();
            if flag {
                sim.output.stop = Some(Arc::new(AtomicBool::new(false)));
            }
            let stats = sim.dynamic(1.0, Some(20), None, &settings).unwrap();
            (sim.frames, stats)
        };
        let ((a, sa), (b, sb)) = (run(false), run(true));
        assert_eq!(sa, sb, "{settings:?}");
        assert_eq!(a.len(), 21);
        for (fa, fb) in a.iter().zip(&b) {
            assert_eq!(fa.t.to_bits(), fb.t.to_bits(), "{settings:?}");
            assert_eq!(fa.q, fb.q, "{settings:?} t = {}", fa.t);
            assert_eq!(fa.u, fb.u, "{settings:?} t = {}", fa.t);
            assert_eq!(fa.lambda, fb.lambda, "{settings:?} t = {}", fa.t);
        }
    }
}
