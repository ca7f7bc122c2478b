//! The `Simulation::progress` hook is called once per output frame, with
//! its time, by the kinematic, dynamic (GSTIFF and HHT) and quasi-static
//! (FIM_S and FIM_D) analyses.

use mbsolve_model::*;
use mbsolve_solver::{models, Simulation};
use std::sync::{Arc, Mutex};

/// Attach a hook that records the times it is called with.
fn recorder(sim: &mut Simulation) -> Arc<Mutex<Vec<f64>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    sim.output.progress = Some(Box::new(move |t| s.lock().unwrap().push(t)));
    seen
}

/// The hook saw exactly the frames after the initial one, in order.
fn assert_reported(sim: &Simulation, seen: &[f64], n: usize, end: f64) {
    let times: Vec<f64> = sim.frames[1..].iter().map(|f| f.t).collect();
    assert_eq!(seen, times.as_slice());
    assert_eq!(seen.len(), n);
    assert!((seen[n - 1] - end).abs() < 1e-12, "{seen:?}");
}

#[test]
fn dynamic_gstiff_and_hht_report_each_output_time() {
    for kind in [IntegratorKind::Gstiff, IntegratorKind::Hht] {
        let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
        let seen = recorder(&mut sim);
        let settings = IntegratorSettings {
            kind,
            ..Default::default()
        };
        sim.dynamic(0.5, Some(10), None, &settings).unwrap();
        assert_reported(&sim, &seen.lock().unwrap(), 10, 0.5);
    }
}

#[test]
fn kinematic_reports_each_output_time() {
    let mut sim = Simulation::new(&models::slider_crank(0.5, 1.5, 6.0)).unwrap();
    let seen = recorder(&mut sim);
    sim.kinematic(0.2, None, Some(0.05)).unwrap();
    assert_reported(&sim, &seen.lock().unwrap(), 4, 0.2);
}

#[test]
fn quasi_static_reports_each_output_time() {
    for method in [StaticMethod::FimS, StaticMethod::FimD] {
        let mut sim = Simulation::new(&models::spring_mass(2.0, 100.0, 5.0, 0.1)).unwrap();
        let seen = recorder(&mut sim);
        let set = StaticSettings {
            method: Some(method),
            ..Default::default()
        };
        sim.quasi_static(1.0, Some(5), None, &set, &IntegratorSettings::default())
            .unwrap();
        assert_reported(&sim, &seen.lock().unwrap(), 5, 1.0);
    }
}

/// The hook is `Send`, so a simulation can still move to another thread.
#[test]
fn a_simulation_with_a_hook_is_send() {
    fn is_send<T: Send>(_: &T) {}
    let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
    let _ = recorder(&mut sim);
    is_send(&sim);
    let frames = std::thread::spawn(move || {
        sim.dynamic(0.1, Some(2), None, &IntegratorSettings::default())
            .unwrap();
        sim.frames.len()
    })
    .join()
    .unwrap();
    assert_eq!(frames, 3);
}
