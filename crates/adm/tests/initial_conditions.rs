//! JOINT IC=, ICTRAN=, ICROT= and MOTION VELOCITY|ACCELERATION with
//! ICDISP, ICVEL: read into the model, written back, and their errors.

mod common;

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::{JointIc, MotionDof, MotionInput, MotionIntegral};

const BASE: &str = "title line\n\
PART/1, GROUND\n\
MARKER/11, PART = 1\n\
PART/2, MASS = 2, CM = 21, IP = 1, 1, 1\n\
MARKER/21, PART = 2\n\
PART/3, MASS = 2, CM = 31, IP = 1, 1, 1\n\
MARKER/31, PART = 3\n";

const DECK: &str = "JOINT/1, REVOLUTE, I = 21, J = 11, IC = 0.5, 2\n\
JOINT/2, CYLINDRICAL, I = 31, J = 21, ICTRAN = 0.3, 1.5, ICROT = 30D\n\
JOINT/3, REVOLUTE, I = 31, J = 11, IC = 90D\n\
MOTION/1, JOINT = 2, TRANSLATION, VELOCITY, ICDISP = 0.3, FUNCTION = COS(TIME)\n\
MOTION/2, JOINT = 1, ROTATION, ACCELERATION, ICDISP = 0.5, ICVEL = 2, FUNCTION = -TIME\n";

#[test]
fn joint_ics_and_integrated_motions_are_read() {
    let m = common::build_on(BASE, DECK);
    assert_eq!(
        m.joint_ics,
        [
            JointIc {
                joint: 1,
                dof: MotionDof::Rotation,
                displacement: 0.5,
                velocity: Some(2.0)
            },
            JointIc {
                joint: 2,
                dof: MotionDof::Translation,
                displacement: 0.3,
                velocity: Some(1.5)
            },
            JointIc {
                joint: 2,
                dof: MotionDof::Rotation,
                displacement: 30f64.to_radians(),
                velocity: None
            },
            JointIc {
                joint: 3,
                dof: MotionDof::Rotation,
                displacement: std::f64::consts::FRAC_PI_2,
                velocity: None
            },
        ]
    );
    let velocity = &m.motions[0].function;
    assert_eq!(
        velocity.integrated(),
        Some(MotionIntegral {
            input: MotionInput::Velocity,
            icdisp: 0.3,
            icvel: 0.0
        })
    );
    // d = 0.3 + sin t
    let [d, v, a] = velocity.eval(1.2);
    assert!((d - (0.3 + 1.2f64.sin())).abs() < 1e-13);
    assert_eq!([v, a], [1.2f64.cos(), -1.2f64.sin()]);
    // a = −t: d = 0.5 + 2t − t³/6, v = 2 − t²/2
    let [d, v, a] = m.motions[1].function.eval(0.6);
    assert!((d - (0.5 + 1.2 - 0.036)).abs() < 1e-13);
    assert!((v - (2.0 - 0.18)).abs() < 1e-13);
    assert_eq!(a, -0.6);
}

#[test]
fn joint_ics_and_integrated_motions_are_written_back() {
    let m = common::build_on(BASE, DECK);
    let text = write_adm(&m).unwrap();
    let back = read_adm_str(&text, "back.adm").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.joint_ics, m.joint_ics);
    for (a, b) in back.motions.iter().zip(&m.motions) {
        assert_eq!(a.function.integrated(), b.function.integrated());
        assert_eq!(a.function.eval(0.7), b.function.eval(0.7));
    }
}

#[test]
fn errors_name_the_argument() {
    common::expect_errors(
        BASE,
        &[
            (
                "JOINT/1, SPHERICAL, I = 21, J = 11, IC = 1\n",
                "m.adm:8:37: JOINT/1: IC (initial displacement and velocity) applies to REVOLUTE, TRANSLATIONAL and CYLINDRICAL joints, not to a SPHERICAL joint",
            ),
            (
                "JOINT/1, CYLINDRICAL, I = 21, J = 11, IC = 1\n",
                "m.adm:8:39: JOINT/1: a CYLINDRICAL joint has two degrees of freedom: give ICTRAN and ICROT instead of IC",
            ),
            (
                "JOINT/1, REVOLUTE, I = 21, J = 11, IC = 1, 2, 3\n",
                "m.adm:8:36: JOINT/1: IC takes 1 or 2 values, found 3",
            ),
            (
                "JOINT/1, TRANSLATIONAL, I = 21, J = 11, IC = 5D\n",
                "m.adm:8:46: JOINT/1: '5D' for IC: the degree suffix D applies to angles only (REULER, ANGLE, ALIMIT, WX, WY, WZ, ICROT, and a rotational MOTION's ICDISP and ICVEL)",
            ),
            (
                "JOINT/1, TRANSLATIONAL, I = 21, J = 11\nMOTION/1, JOINT = 1, TRANSLATION, VELOCITY, ICVEL = 1, FUNCTION = 1\n",
                "m.adm:9:45: MOTION/1: ICVEL applies to an ACCELERATION motion (a VELOCITY motion's function gives its velocity)",
            ),
            (
                "JOINT/1, TRANSLATIONAL, I = 21, J = 11\nMOTION/1, JOINT = 1, TRANSLATION, ICDISP = 1, FUNCTION = 1\n",
                "m.adm:9:35: MOTION/1: ICDISP applies to a VELOCITY or ACCELERATION motion",
            ),
            (
                "JOINT/1, TRANSLATIONAL, I = 21, J = 11\nMOTION/1, JOINT = 1, TRANSLATION, VELOCITY, ACCELERATION, FUNCTION = 1\n",
                "m.adm:9:45: MOTION/1: DISPLACEMENT, VELOCITY and ACCELERATION are exclusive",
            ),
        ],
    );
}

/// A rotational motion's ICDISP is an angle and its ICVEL an angular
/// velocity: `ICDISP = 0D` (as real decks write it) and `90D` read degrees;
/// on a translational motion `D` is still refused.
#[test]
fn rotational_motion_ic_takes_degrees() {
    let m = common::build_on(
        BASE,
        "JOINT/1, REVOLUTE, I = 21, J = 11\n\
         MOTION/1, JOINT = 1, ROTATIONAL, VELOCITY, ICDISP = 0D, FUNCTION = 1\n\
         MOTION/2, I = 31, J = 11, B3, ACCELERATION, ICDISP = 90D, ICVEL = 180D, FUNCTION = 0\n",
    );
    let i = |k: usize| m.motions[k].function.integrated().unwrap();
    assert_eq!(i(0).icdisp, 0.0);
    assert!((i(1).icdisp - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    assert!((i(1).icvel - std::f64::consts::PI).abs() < 1e-15);
    let e = read_adm_str(
        &format!(
            "{BASE}JOINT/1, TRANSLATIONAL, I = 21, J = 11\nMOTION/1, JOINT = 1, TRANSLATION, VELOCITY, ICDISP = 1D, FUNCTION = 1\nEND\n"
        ),
        "m.adm",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("'1D' for ICDISP: the degree suffix D applies to angles only"),
        "{e}"
    );
}
