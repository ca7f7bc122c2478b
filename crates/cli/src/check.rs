//! `mbsolve check`: read, validate, assemble, summarize.

use mbsolve_solver::Simulation;
use std::path::Path;

pub fn check(path: &Path) -> Result<(), String> {
    crate::run::regular_file(path, "model")?;
    let model = crate::input::read_model(path)?.model;
    let mut sim = Simulation::new(&model).map_err(|e| e.to_string())?;
    let moving = model.parts.iter().filter(|p| !p.ground).count();
    println!("model '{}' ({})", model.title.trim(), path.display());
    println!(
        "parts: {} ({} moving), markers: {}, joints: {}, motions: {}, forces: {}, requests: {}",
        model.parts.len(),
        moving,
        model.markers.len(),
        model.joints.len(),
        model.motions.len(),
        model.forces.len(),
        model.requests.len() + model.function_requests.len()
    );
    println!(
        "coordinates: {}, constraint equations: {}",
        sim.sys.nq(),
        sim.sys.neq()
    );
    let before = sim.sys.dof(&sim.data);
    sim.initial_conditions()
        .map_err(|e| format!("initial conditions: {e}"))?;
    let redundant: Vec<&String> = sim
        .log
        .iter()
        .filter(|l| l.starts_with("deactivating"))
        .collect();
    if redundant.is_empty() {
        println!("redundant constraints: none");
    } else {
        println!("redundant constraints: {}", redundant.len());
        for r in redundant {
            println!("  {r}");
        }
    }
    if before != sim.sys.dof(&sim.data) {
        println!("degrees of freedom before redundancy removal: {before}");
    }
    println!("degrees of freedom: {}", sim.sys.dof(&sim.data));
    Ok(())
}
