//! probe
use mbsolve_adm::read_adm_str;
use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::Simulation;

const HEAD: &str = "stiction\n\
    UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
    PART/1, GROUND\n\
    MARKER/10, PART = 1\n\
    MARKER/11, PART = 1, REULER = 90D, 90D, 0D\n";

fn model(body: &str) -> Model {
    read_adm_str(&format!("{HEAD}{body}END\n"), "stiction.adm").unwrap_or_else(|e| panic!("{e}"))
}

fn block_deck(friction: &str, force: &str) -> String {
    format!(
        "ACCGRAV/JGRAV = -9.81\n\
         PART/2, MASS = 2, CM = 20, IP = 1, 1, 1\n\
         MARKER/20, PART = 2\n\
         MARKER/21, PART = 2, REULER = 90D, 90D, 0D\n\
         JOINT/1, TRANSLATIONAL, I = 21, J = 11\n\
         FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.25\n\
         , STICTION_TRANSITION_VELOCITY = 0.01{friction}\n\
         SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = {force}\n"
    )
}

fn wheel_deck(friction: &str, torque: &str) -> String {
    format!(
        "ACCGRAV/JGRAV = -9.81\n\
         PART/2, MASS = 2, CM = 20, IP = 0.3, 0.3, 0.5\n\
         MARKER/20, PART = 2\n\
         JOINT/1, REVOLUTE, I = 20, J = 10\n\
         FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.25, PIN_RADIUS = 0.05\n\
         , STICTION_TRANSITION_VELOCITY = 0.01{friction}\n\
         SFORCE/1, ROTATIONAL, ACTIONONLY, I = 20, J = 10, FUNCTION = {torque}\n"
    )
}

#[test]
fn probe() {
    for (name, deck) in [("block", block_deck("\n, MAX_STICTION_DEFORMATION = 1e-4", "2.943*TIME")), ("wheel", wheel_deck("\n, MAX_STICTION_DEFORMATION = 1e-4", "0.14715*TIME"))] {
        let m = model(&deck);
        let mut sim = Simulation::new(&m).unwrap_or_else(|e| panic!("{e:?}"));
        let st = sim
            .dynamic(2.5, Some(2500), None, &IntegratorSettings { error: Some(1e-6), ..Default::default() })
            .unwrap_or_else(|e| panic!("{e:?}"));
        let mut zmax = 0.0f64;
        let mut t99 = None; let mut tvs = None;
        for f in sim.frames.iter() {
            zmax = zmax.max(f.w[0].abs());
            let v = if name == "block" { f.u[0] } else { 2.0 * f.u[6] * 0.05 };
            if t99.is_none() && f.w[0].abs() > 0.99e-4 { t99 = Some(f.t); }
            if tvs.is_none() && v.abs() > 0.01 { tvs = Some(f.t); }
        }
        for f in sim.frames.iter().step_by(250) {
            println!("{name} t {:.3} q {:.4e} {:.4e} u {:.3e} {:.3e} w {:?}", f.t, f.q[0], f.q[6], f.u[0], f.u[5], f.w);
        }
        println!("{name} steps {} zmax {zmax:e} t99 {t99:?} tvs {tvs:?} closed {}", st.steps, 2.0 + (2.0*2.0*0.01f64/2.943).sqrt());
    }
    let pairs = [
        (IntegratorKind::Gstiff, Formulation::I3),
        (IntegratorKind::Gstiff, Formulation::Si2),
        (IntegratorKind::Wstiff, Formulation::Si2),
        (IntegratorKind::Hastiff, Formulation::Si1),
        (IntegratorKind::Hht, Formulation::I3),
        (IntegratorKind::Vstiff, Formulation::Ode),
        (IntegratorKind::Abam, Formulation::Ode),
    ];
    let m = model(&block_deck("\n, MAX_STICTION_DEFORMATION = 1e-4", "2.943"));
    for (kind, formulation) in pairs {
        let settings = IntegratorSettings { kind, formulation: Some(formulation), error: Some(1e-6), ..Default::default() };
        let mut sim = Simulation::new(&m).unwrap_or_else(|e| panic!("{e:?}"));
        match sim.dynamic(10.0, Some(100), None, &settings) {
            Ok(st) => { let f = sim.frames.last().unwrap(); println!("{kind:?}/{formulation:?}: steps {} x {:.4e} w {:?}", st.steps, f.q[0], f.w); }
            Err(e) => println!("{kind:?}/{formulation:?}: ERR {e}"),
        }
    }
}
