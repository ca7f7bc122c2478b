//! probe
use mbsolve_adm::read_adm_str;
use mbsolve_model::{IntegratorSettings, Model};
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

#[test]
fn probe() {
    for fr in ["", "\n, MAX_STICTION_DEFORMATION = 1e-4"] {
        let m = model(&block_deck(fr, "2.943"));
        let mut sim = Simulation::new(&m).unwrap_or_else(|e| panic!("{e:?}"));
        let st = sim
            .dynamic(10.0, Some(100), None, &IntegratorSettings { error: Some(1e-6), ..Default::default() })
            .unwrap_or_else(|e| panic!("{e:?}"));
        for f in sim.frames.iter().step_by(10) {
            println!("{fr:?} t {:.2} x {:.4e} v {:.3e} w {:?}", f.t, f.q[0], f.u[0], f.w);
        }
        println!("steps {} ", st.steps);
    }
}
