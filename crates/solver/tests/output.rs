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
