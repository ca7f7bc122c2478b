//! `mbsolve check`: read, validate, assemble, summarize.

use mbsolve_solver::Simulation;
use std::path::Path;

pub fn check(path: &Path) -> Result<(), String> {
    crate::run::regular_file(path, "model")?;
    // An Adams dataset: every problem at once (a deck with ten user
    // subroutines names all ten). A MotionSolve deck: its own reader.
    let text = String::from_utf8_lossy(
        &std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?,
    )
    .into_owned();
    let model = if mbsolve_msxml::is_motionsolve_xml(&text) {
        let input = crate::input::read_model(path)?;
        for line in &input.without_effect {
            println!("{line}");
        }
        input.model
    } else {
        match mbsolve_adm::diagnose_adm(&text, &path.display().to_string()) {
            Ok(read) => read.model,
            Err(errors) => {
                let mut lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                if lines.len() > 1 {
                    lines.push(format!("{} problems in {}", lines.len(), path.display()));
                }
                return Err(lines.join("\n"));
            }
        }
    };
    let mut sim = Simulation::new(&model).map_err(|e| e.to_string())?;
    // POINT_MASSes are bodies in `model.parts` (their own id space): the
    // parts line counts PARTs, the point masses have their own line.
    let is_point_mass = |p: &&mbsolve_model::Part| mbsolve_model::point_mass::is_point_mass(p.id);
    let point_masses = model.parts.iter().filter(is_point_mass).count();
    let parts = model.parts.len() - point_masses;
    let moving = model
        .parts
        .iter()
        .filter(|p| !p.ground && !is_point_mass(p))
        .count();
    println!("model '{}' ({})", model.title.trim(), path.display());
    println!(
        "parts: {} ({} moving), markers: {}, joints: {}, motions: {}, forces: {}, requests: {}",
        parts,
        moving,
        model.markers.len(),
        model.joints.len(),
        model.motions.len(),
        model.forces.len(),
        model.requests.len() + model.function_requests.len()
    );
    // Joint FRICTION and CONTACT are force elements of their own lists.
    if !model.frictions.is_empty() || !model.contacts.is_empty() {
        println!(
            "frictions: {}, contacts: {}",
            model.frictions.len(),
            model.contacts.len()
        );
    }
    if point_masses > 0 {
        println!("point masses: {point_masses}");
    }
    // Adams/Controls plant inputs and outputs, each with its VARIABLEs in
    // order (the controller's view of the plant).
    for (kind, ios) in [
        ("PINPUT", &model.plant_inputs),
        ("POUTPUT", &model.plant_outputs),
    ] {
        for io in ios {
            let vars: Vec<String> = io.variables.iter().map(|v| v.to_string()).collect();
            println!("{kind}/{}: VARIABLES = {}", io.id, vars.join(", "));
        }
    }
    for w in mbsolve_model::inertia_warnings(&model) {
        println!("{w}");
    }
    println!(
        "coordinates: {}, constraint equations: {}",
        sim.sys.nq(),
        sim.sys.neq()
    );
    let before = sim.sys.dof(&sim.data);
    sim.initial_conditions()
        .map_err(|e| format!("initial conditions: {e}"))?;
    // The equations the run leaves out, read from its active set (decided
    // on the assembled configuration).
    let redundant = sim.removed_equations();
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
    let velocity_dof = sim.sys.velocity_dof(&sim.data);
    if velocity_dof != sim.sys.dof(&sim.data) {
        // Non-holonomic GCONs restrict the velocities, not the positions.
        println!("velocity degrees of freedom (after the velocity GCONs): {velocity_dof}");
    }
    Ok(())
}
