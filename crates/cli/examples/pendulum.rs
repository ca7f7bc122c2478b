//! A simple pendulum released horizontally, built through the Rust API and
//! run with GSTIFF/I3: prints the message log and the CM trajectory.

use mbsolve_model::IntegratorSettings;
use mbsolve_solver::{models, Simulation};

fn main() {
    let model = models::pendulum(1.0, 9.81);
    let mut sim = match Simulation::new(&model) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let settings = IntegratorSettings {
        error: Some(1e-6),
        ..Default::default()
    };
    let result = sim.dynamic(2.5, Some(25), None, &settings);
    for line in &sim.log {
        println!("{line}");
    }
    println!("\n{:>8} {:>12} {:>12}", "t", "x_cm", "y_cm");
    for f in &sim.frames {
        println!("{:8.3} {:12.6} {:12.6}", f.t, f.q[0], f.q[1]);
    }
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
