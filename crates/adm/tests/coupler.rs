//! COUPLER and GEAR statements (JOINTS, TYPE, SCALES; JOINTS, CV), the
//! refusal of POINT_MASS EXACT, and the writer's round trip.

mod common;

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::CouplerFreedom::{Rotation, Translation};

const BASE: &str = "coupler\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
MARKER/20, PART = 2\n\
PART/3, MASS = 1, CM = 30, IP = 1, 1, 1\n\
MARKER/30, PART = 3\n\
JOINT/1, REVOLUTE, I = 20, J = 10\n\
JOINT/2, TRANSLATIONAL, I = 30, J = 10\n\
JOINT/3, CYLINDRICAL, I = 30, J = 20\n";

/// One scale fewer than joints: r1 = 1 (Adams). Without TYPE the joint
/// kinds decide; a CYLINDRICAL joint takes TYPE.
#[test]
fn joints_types_and_scales() {
    let m = common::build_on(
        BASE,
        "COUPLER/1, JOINTS = 1, 2, SCALES = 18\n\
         COUPLER/2, JOINTS = 1, 3, 2, TYPE = R:T:T, SCALES = 2, -1, 0.5\n",
    );
    assert_eq!(
        m.couplers[0].joints,
        vec![(1, Rotation, 1.0), (2, Translation, 18.0)]
    );
    assert_eq!(
        m.couplers[1].joints,
        vec![
            (1, Rotation, 2.0),
            (3, Translation, -1.0),
            (2, Translation, 0.5)
        ]
    );
    let back = read_adm_str(&write_adm(&m).unwrap(), "back.adm").unwrap();
    assert_eq!(back.couplers, m.couplers);
}

#[test]
fn gear_joints_and_cv() {
    let m = common::build_on(BASE, "GEAR/4, JOINTS = 1, 2, CV = 10\n");
    assert_eq!(
        m.gears,
        vec![mbsolve_model::Gear {
            id: 4,
            joints: [1, 2],
            cv: 10
        }]
    );
    let back = read_adm_str(&write_adm(&m).unwrap(), "back.adm").unwrap();
    assert_eq!(back.gears, m.gears);
}

#[test]
fn exact_errors() {
    common::expect_errors(
        BASE,
        &[
            (
                "COUPLER/1, JOINTS = 1, 3, SCALES = 1, 2\n",
                "m.adm:11:1: COUPLER/1: give TYPE = (T or R per joint): JOINT/3 is not a REVOLUTE or TRANSLATIONAL joint defined before this statement",
            ),
            (
                "COUPLER/1, JOINTS = 1, 9, SCALES = 1, 2\n",
                "m.adm:11:1: COUPLER/1: give TYPE = (T or R per joint): JOINT/9 is not a REVOLUTE or TRANSLATIONAL joint defined before this statement",
            ),
            (
                "COUPLER/1, JOINTS = 1, 2, TYPE = R:T:R, SCALES = 1, 2\n",
                "m.adm:11:34: COUPLER/1: TYPE = R:T:R names 3 joints; JOINTS names 2",
            ),
            (
                "COUPLER/1, JOINTS = 1, 2\n",
                "m.adm:11:1: COUPLER/1: missing SCALES =",
            ),
            (
                "GEAR/1, JOINTS = 1, 2, 3\n",
                "m.adm:11:9: GEAR/1: JOINTS takes 2 values, found 3",
            ),
            (
                "POINT_MASS/5, MASS = 1, EXACT = X\n",
                "m.adm:11:25: POINT_MASS/5: EXACT is not supported yet",
            ),
        ],
    );
}

/// TYPE against the joint kind is a model check (validate), naming both.
#[test]
fn type_must_fit_the_joint() {
    let m = common::build_on(
        BASE,
        "COUPLER/1, JOINTS = 1, 2, TYPE = R:R, SCALES = 1, 2\n",
    );
    let err = mbsolve_model::validate(&m).unwrap_err().to_string();
    assert_eq!(
        err,
        "COUPLER/1 (m.adm:11): TYPE R does not fit JOINT/2, which is TRANSLATIONAL"
    );
}
