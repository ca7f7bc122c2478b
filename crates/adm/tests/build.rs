//! Builder semantics and exact error messages.

mod common;

use mbsolve_adm::{read_acf_str, read_adm_full, read_adm_str};
use mbsolve_model::{
    Command, CorrectorKind, ElementRef, ForceKind, Formulation, IntegratorKind, JointKind,
    MotionDof, MotionTarget, OutputSpec, RequestKind, SimulateMode,
};
use std::f64::consts::PI;

const BASE: &str = "title line\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
PART/01, GROUND\n\
MARKER/0101, PART = 01\n\
PART/02, MASS = 2, CM = 0201, IP = 1, 2, 3\n\
, QG = 1, 0, 0, REULER = 90D, 0, 0\n\
MARKER/0201, PART = 02, QP = 0, 1, 0\n\
MARKER/0202, PART = 02\n";

fn build(extra: &str) -> mbsolve_model::Model {
    common::build_on(BASE, extra)
}

fn error(extra: &str) -> String {
    common::error_on(BASE, extra)
}

#[test]
fn parts_markers_and_sources() {
    let m = build("ACCGRAV/KGRAV = -9.80665\n");
    assert_eq!(m.title, "title line");
    assert_eq!(m.gravity.z, -9.80665);
    let p = m.part(2).unwrap();
    assert_eq!(p.mass, 2.0);
    assert_eq!(p.cm, Some(201));
    assert_eq!(p.inertia.izz, 3.0);
    assert!(
        (p.placement.rotation[(1, 0)] - 1.0).abs() < 1e-15,
        "x axis → ground y"
    );
    // marker 201 at QP (0,1,0) in the part frame → ground (0,0,0) after the 90° turn
    let g = m.marker_in_ground(201).unwrap();
    assert!((g.origin - nalgebra::Vector3::new(0.0, 0.0, 0.0)).norm() < 1e-15);
    assert!(m
        .sources
        .contains(&(ElementRef::Marker(201), "m.adm:7".to_string())));
    assert!(m
        .sources
        .contains(&(ElementRef::Part(2), "m.adm:5".to_string())));
}

#[test]
fn part_initial_velocities_in_ground_axes() {
    // CM marker turned 90° about z in a part turned 90° about z: CM x axis = ground −x.
    let m = read_adm_str(
        "t\nPART/1, GROUND\nPART/2, MASS=1, CM=3, IP=1,1,1, REULER=90D,0,0, VX=1, WX=2\n\
         MARKER/3, PART=2, REULER=90D,0,0\nEND\n",
        "v.adm",
    )
    .unwrap();
    let p = m.part(2).unwrap();
    assert!((p.velocity - nalgebra::Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-15);
    assert!((p.angular_velocity - nalgebra::Vector3::new(-2.0, 0.0, 0.0)).norm() < 1e-12);
}

#[test]
fn marker_axes_from_points() {
    let m = build("MARKER/7, PART = 01, QP = 1, 0, 0, ZP = 1, 0, 2, XP = 1, 1, 0\n");
    let r = m.marker(7).unwrap().placement.rotation;
    // z = +Z, x = +Y, y = z × x = −X
    assert!((r.column(2) - nalgebra::Vector3::z()).norm() < 1e-15);
    assert!((r.column(0) - nalgebra::Vector3::y()).norm() < 1e-15);
    assert!((r.column(1) + nalgebra::Vector3::x()).norm() < 1e-15);
}

#[test]
fn joints_motions_forces_requests() {
    let m = build(
        "JOINT/1, REVOLUTE, I = 0202, J = 0101\n\
         JOINT/2, HOOKE, I = 0202, J = 0101\n\
         MOTION/1, JOINT = 1, FUNCTION = 30.0d * time\n\
         SPRINGDAMPER/3, ROTATIONAL, I = 0202, J = 0101, KT = 10, CT = 1, ANGLE = 5D, TORQUE = 2\n\
         SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = - 100.0*(dm(0202,0101)-2.0)\n\
         , - 1.0*vr(0202,0101)\n\
         SFORCE/2, ROTATIONAL, ACTIONONLY, I = 0202, J = 0101, FUNCTION = -AZ(202,101)\n\
         REQUEST/01, D,I=0201,J=0101,C=DISPLACEMENT: X Y Z (body-fixed-3-1-3)\n\
         REQUEST/02, F, I = 0202, J = 0101, RM = 0101\n\
         REQUEST/04, F2=ORIENT(27,1,0201,0101)\\F3=JOINT(1,0,3,0),C=EULER PARAMETERS\n\
         INTEGRATOR/GSTIFF, SI2, ERROR = 1.0E-04, PATTERN = T:F:F, CORRECTOR = MOD, INTERPOLATE = ON, KMAX = 4\n\
         OUTPUT/REQSAVE, GRSAVE\n\
         GRAPHICS/1, CYLINDER, CM = 0201, LENGTH = 1, RADIUS = 0.1\n",
    );
    assert_eq!(m.joints[0].kind, JointKind::Revolute);
    assert_eq!(m.joints[1].kind, JointKind::Hooke);
    let mo = &m.motions[0];
    assert_eq!(
        mo.target,
        MotionTarget::Joint {
            joint: 1,
            dof: MotionDof::Rotation
        },
        "inferred from the revolute joint"
    );
    let [v, d, dd] = mo.function.eval(2.0);
    assert!((v - PI / 3.0).abs() < 1e-14 && (d - PI / 6.0).abs() < 1e-14 && dd == 0.0);
    match &m.forces[0].kind {
        ForceKind::RotationalSpringDamper {
            stiffness,
            free_angle,
            preload,
            ..
        } => {
            assert_eq!((*stiffness, *preload), (10.0, 2.0));
            assert!((free_angle - 5f64.to_radians()).abs() < 1e-15);
        }
        k => panic!("{k:?}"),
    }
    match &m.forces[1].kind {
        ForceKind::TranslationalActionReaction { function } => {
            let mut dm = [0.0; 2];
            let (f, _) = function.eval(0.0, &[2.5, 0.5], &mut dm);
            assert_eq!(f, -50.5);
            assert_eq!(dm, [-100.0, -1.0]);
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(
        m.forces[2].kind,
        ForceKind::RotationalActionOnly { .. }
    ));
    assert_eq!(m.requests[0].kind, RequestKind::Displacement);
    assert_eq!(
        m.requests[0].comment,
        "DISPLACEMENT: X Y Z (body-fixed-3-1-3)"
    );
    assert_eq!(
        (m.requests[1].kind, m.requests[1].rm),
        (RequestKind::Force, Some(101))
    );
    let fr = &m.function_requests[0];
    assert_eq!(fr.components[1].as_deref(), Some("ORIENT(27,1,0201,0101)"));
    assert_eq!(fr.components[2].as_deref(), Some("JOINT(1,0,3,0)"));
    assert_eq!(fr.comment, "EULER PARAMETERS");
    let s = &m.integrator;
    assert_eq!(s.kind, IntegratorKind::Gstiff);
    assert_eq!(s.formulation, Some(Formulation::Si2));
    assert_eq!(s.error, Some(1e-4));
    assert_eq!(s.pattern, Some(vec![true, false, false]));
    assert_eq!(s.corrector, Some(CorrectorKind::Modified));
    assert_eq!((s.interpolate, s.kmax), (Some(true), Some(4)));
    assert_eq!(s.hmax, None);
    let r = read_adm_full(&format!("{BASE}GRAPHICS/1, CYLINDER\nEND\n"), "m.adm").unwrap();
    assert_eq!(r.skipped[0].statement, "GRAPHICS/1");
}

#[test]
fn error_messages() {
    let cases: &[(&str, &str)] = &[
        ("FOO/1, BAR = 2\n", "m.adm:9:1: unknown statement FOO"),
        ("NFORCE/1, I = 202, J = 101\n", "m.adm:9:1: NFORCE/1: statement NFORCE is not supported yet"),
        ("GCON/1, I = 0102, FUNCTION = DM(0202, 0102)-2\n", "m.adm:9:13: GCON/1: I marker 102 does not exist"),
        ("GCON/1, I = 0201, FUNCTION = VR(0202, 0101)-2\n", "m.adm:9:30: GCON/1: VR is not supported yet in a constraint function (only DX DY DZ DM AX AY AZ VX VY VZ WX WY WZ and TIME)"),
        ("PART/3, MASS = 1, COLOUR = 2\n", "m.adm:9:19: PART/3: unknown keyword COLOUR"),
        ("PART/3, M = 1\n", "m.adm:9:9: PART/3: ambiguous keyword abbreviation M (MASS, MATERIAL)"),
        ("MARKER/5, QP = 1, 2, 3\n", "m.adm:9:1: MARKER/5: missing PART ="),
        ("MARKER/5, PART = 2, QP = 1, 2\n", "m.adm:9:21: MARKER/5: QP takes 3 values, found 2"),
        ("PART/3, MASS = 1.2.3\n", "m.adm:9:16: PART/3: bad number '1.2.3' for MASS"),
        ("MARKER/5, PART = 9\n", "m.adm:9:18: MARKER/5: PART 9 does not exist"),
        ("JOINT/1, REVOLUTE, I = 0202, J = 0999\n", "m.adm:9:34: JOINT/1: J marker 999 does not exist"),
        ("MARKER/0201, PART = 02\n", "m.adm:9:1: MARKER/201: duplicate id: MARKER/201 is already defined at m.adm:7"),
        ("JOINT/3, RACKPIN, I = 0202, J = 0101\n", "m.adm:9:1: JOINT/3: RACKPIN needs PD = pitch diameter of the pinion"),
        ("JOINT/3, REVOLUTE, I = 0202, J = 0101, PD = 1\n", "m.adm:9:40: JOINT/3: PD (pitch diameter) applies to a RACKPIN joint only"),
        ("JOINT/3, SCREW, PITCH = 2, I = 0202, J = 0101\n", "m.adm:9:10: JOINT/3: SCREW is not supported yet"),
        ("JOINT/3, I = 0202, J = 0101\n", "m.adm:9:1: JOINT/3: missing joint type (REVOLUTE, TRANSLATIONAL, SPHERICAL, FIXED, CYLINDRICAL, UNIVERSAL, HOOKE, PLANAR or RACKPIN)"),
        ("JPRIM/1, SIDEWAYS, I = 202, J = 101\n", "m.adm:9:10: JPRIM/1: unknown JPRIM type SIDEWAYS (ATPOINT, INLINE, INPLANE, ORIENTATION, PARALLEL_AXES or PERPENDICULAR)"),
        ("JPRIM/1, I = 202, J = 101\n", "m.adm:9:1: JPRIM/1: missing JPRIM type (ATPOINT, INLINE, INPLANE, ORIENTATION, PARALLEL_AXES or PERPENDICULAR)"),
        ("JPRIM/1, INLINE, ATPOINT, I = 202, J = 101\n", "m.adm:9:10: JPRIM/1: more than one JPRIM type"),
        ("JPRIM/1, IN, I = 202, J = 101\n", "m.adm:9:10: JPRIM/1: ambiguous keyword abbreviation IN (INLINE, INPLANE)"),
        ("JPRIM/1, PERP, I = 202, J = 0999\n", "m.adm:9:29: JPRIM/1: J marker 999 does not exist"),
        ("JPRIM/1, INLINE, I = 202\n", "m.adm:9:1: JPRIM/1: missing J ="),
        ("MARKER/9, PART = 2, FLOATING\nJOINT/5, REVOLUTE, I = 9, J = 101\n", "m.adm:10:24: JOINT/5: I marker 9 is a FLOATING marker: only the elements that position it (VFORCE, VTORQUE, GFORCE, PTCV, CVCV, CONTACT) may use it"),
        ("SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = 2*FOO(1)\n", "m.adm:9:59: SFORCE/1: unknown function FOO"),
        ("SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = 2*(DM(202,101)\n", "m.adm:9:59: SFORCE/1: unclosed parenthesis: missing ')'"),
        ("SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = 2*\n", "m.adm:9:58: SFORCE/1: unterminated expression: expected an operand after '*'"),
        ("SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = DM(202,0777)\n", "m.adm:9:57: SFORCE/1: DM(202,777): MARKER 777 does not exist"),
        ("SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = USER(1,2)\n", "m.adm:9:46: SFORCE/1: FUNCTION = USER(1,2) calls the user subroutine SFOSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
        ("JOINT/1, CYLINDRICAL, I = 0202, J = 0101\nMOTION/1, JOINT = 1, FUNCTION = TIME\n", "m.adm:10:1: MOTION/1: say TRANSLATION or ROTATION (the joint type does not decide it)"),
        ("MOTION/1, I = 202, J = 101, FUNCTION = TIME\n", "m.adm:9:1: MOTION/1: a MOTION between markers needs its component: X, Y, Z, B1, B2 or B3"),
        ("MOTION/1, I = 202, J = 101, X, B3, FUNCTION = TIME\n", "m.adm:9:32: MOTION/1: a MOTION drives one component: X, Y, Z, B1, B2 or B3"),
        ("MOTION/1, JOINT = 1, I = 202, J = 101, X, FUNCTION = TIME\n", "m.adm:9:11: MOTION/1: a MOTION acts either on a JOINT or between markers I and J, not both"),
        ("MOTION/1, I = 202, J = 101, X, ROTATION, FUNCTION = TIME\n", "m.adm:9:32: MOTION/1: ROTATION applies to a joint motion; between markers say X, Y, Z, B1, B2 or B3"),
        ("MOTION/1, I = 202, J = 101, B1, ICDISP = 0, FUNCTION = TIME\n", "m.adm:9:33: MOTION/1: ICDISP applies to a VELOCITY or ACCELERATION motion"),
        ("MOTION/1, J = 101, Z, FUNCTION = TIME\n", "m.adm:9:1: MOTION/1: missing I ="),
        ("MOTION/1, I = 202, J = 101, Z, FUNCTION = VARVAL(5)\nVARIABLE/5, FUNCTION = DM(202,101)\n", "m.adm:9:43: MOTION/1: a motion function may depend on TIME only; found DM(202,101)"),
        ("VARIABLE/3, IC = 1, FUNCTION = VARVAL(3)\n", "m.adm:9:32: VARIABLE/3: VARIABLE/3 = VARVAL(3) determines no value (an implicit VARIABLE needs an equation v = f(v, …) that fixes v)"),
        ("SPRINGDAMPER/1, ROTATIONAL, I = 0202, J = 0101, KT = 1\nREQUEST/5, F2=SPDP(1,0,6,0)\\F3=SPDP(1,0,3,0)\n", "m.adm:10:32: REQUEST/5: illegal function expression SPDP(1,0,3,0): Wrong component: 3. No force in corresponding object (SPRINGDAMPER/1 is ROTATIONAL: it applies a torque only)"),
        ("BUSHING/1, I = 0202, J = 0101, K = 1, 1, 1\nREQUEST/5, F2=BUSH(1,0,9,0)\n", "m.adm:10:15: REQUEST/5: illegal function expression BUSH(1,0,9,0): BUSH: component must be 1…8 (1 force magnitude, 2–4 force x y z, 5 torque magnitude, 6–8 torque x y z), got 9"),
        ("FIELD/1, I = 0202, J = 0101, K = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0\nREQUEST/5, F2=FIELD(1,2,3,0)\n", "m.adm:10:15: REQUEST/5: illegal function expression FIELD(1,2,3,0): FIELD: jflag must be 0 (I marker) or 1 (J marker), got 2"),
        ("REQUEST/5, F2=BEAM(1,0,0,0)\nBEAM/1, I = 0202, J = 0101, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, EMOD = 100, GMOD = 40\n", "m.adm:9:15: REQUEST/5: illegal function expression BEAM(1,0,0,0): BEAM: component must be 1…8 (1 force magnitude, 2–4 force x y z, 5 torque magnitude, 6–8 torque x y z), got 0"),
        ("VARIABLE/3, FUNCTION = 1\nVARIABLE/3, FUNCTION = 2\n", "m.adm:10:1: VARIABLE/3: duplicate id: VARIABLE/3 is already defined at m.adm:9"),
        ("SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = VARVAL(5)\n", "m.adm:9:57: SFORCE/1: VARVAL(5): VARIABLE 5 does not exist"),
        ("SFORCE/1, ROTATIONAL, I = 0202, J = 0101, FUNCTION = 1\nREQUEST/5, F2=SFORCE(1,0,8,0)\\F3=SFORCE(1,0,2,101)\n", "m.adm:10:34: REQUEST/5: illegal function expression SFORCE(1,0,2,101): Wrong component: 2. No force in corresponding object (SFORCE/1 is ROTATIONAL: it applies a torque only)"),
        ("MOTION/1, JOINT = 1, ROTATION, FUNCTION = DM(202,101)\n", "m.adm:9:43: MOTION/1: a motion function may depend on TIME only; found DM(202,101)"),
        ("SPRINGDAMPER/1, TRANSLATIONAL, I = 202, J = 101, KT = 3\n", "m.adm:9:50: SPRINGDAMPER/1: KT does not apply to a TRANSLATIONAL SPRINGDAMPER"),
        ("SFORCE/1, TRANSLATIONAL, I = 202, J = 101, FUNCTION = 1\nSFORCE/1, ROTATIONAL, I = 202, J = 101, FUNCTION = 1\n", "m.adm:10:1: SFORCE/1: duplicate id: SFORCE/1 is already defined at m.adm:9"),
        ("REQUEST/3, I = 202\n", "m.adm:9:1: REQUEST/3: missing request type (DISPLACEMENT, VELOCITY, ACCELERATION, FORCE or F1…F8)"),
        ("REQUEST/3, F2 = VARVAL(4)\n", "m.adm:9:17: REQUEST/3: VARVAL(4): VARIABLE 4 does not exist"),
        ("OUTPUT/YPR\n", "m.adm:9:8: OUTPUT: YPR is not supported yet"),
        ("PART/4, MASS = 1, EXACT = X:Y\n", "m.adm:9:19: PART/4: EXACT is not supported yet"),
        ("INTEGRATOR/GSTIFF, HHT\n", "m.adm:9:20: INTEGRATOR: GSTIFF and HHT are exclusive"),
        ("INTEGRATOR/PATTERN = T:X\n", "m.adm:9:22: INTEGRATOR: bad PATTERN entry 'X' (T or F)"),
        ("PART/4, MASS = 1, MASS = 2\n", "m.adm:9:19: PART/4: MASS is given twice (first at line 9, column 9)"),
        ("PART/1, GROUND\n", "m.adm:9:1: PART/1: duplicate id: PART/1 is already defined at m.adm:3"),
        ("PART/7, GROUND\n", "m.adm:9:1: PART/7: a second GROUND part"),
        ("PART, MASS = 1\n", "m.adm:9:1: PART needs an id (PART/id)"),
    ];
    let mut bad = Vec::new();
    for (extra, want) in cases {
        let got = error(extra);
        if got != *want {
            bad.push(format!("for {extra:?}\n   got: {got}\n  want: {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn error_carries_the_statement() {
    let e = read_adm_str(&format!("{BASE}NFORCE/1, I = 202, J = 101\nEND\n"), "m.adm").unwrap_err();
    assert_eq!(e.statement.as_deref(), Some("NFORCE/1"));
    assert_eq!((e.file.as_str(), e.pos.line, e.pos.col), ("m.adm", 9, 1));
}

#[test]
fn command_files() {
    let acf = read_acf_str(
        "model.adm\r\nout_prefix\r\noutput/noseparator\r\nintegrator/gstiff, &\r\n\terror = 1.0e-4, hmax=1e-5\r\n\
         simulate/transient, &\r\n\tend=5.0, dtout=1.0E-002\r\nsim/dyn, duration = 1, steps = 10\r\nINTEGRATOR/HHT, DEFAULT\r\nsim/stat\r\nstop\r\nGARBAGE",
        "m.acf",
    )
    .unwrap();
    assert_eq!(acf.model_file.as_deref(), Some("model.adm"));
    assert_eq!(acf.output_prefix.as_deref(), Some("out_prefix"));
    assert_eq!(acf.commands.len(), 5);
    match &acf.commands[0] {
        Command::Integrator { settings, default } => {
            assert_eq!(
                (settings.error, settings.hmax, *default),
                (Some(1e-4), Some(1e-5), false)
            );
        }
        c => panic!("{c:?}"),
    }
    assert_eq!(
        acf.commands[1],
        Command::Simulate {
            mode: SimulateMode::Transient,
            output: Some(OutputSpec {
                end: 5.0,
                steps: None,
                dtout: Some(0.01),
                duration: None
            })
        }
    );
    assert_eq!(
        acf.commands[2],
        Command::Simulate {
            mode: SimulateMode::Dynamic,
            output: Some(OutputSpec {
                end: 6.0,
                steps: Some(10),
                dtout: None,
                duration: Some(1.0)
            })
        }
    );
    assert!(
        matches!(&acf.commands[3], Command::Integrator { default: true, settings } if settings.kind == IntegratorKind::Hht)
    );
    assert_eq!(
        acf.commands[4],
        Command::Simulate {
            mode: SimulateMode::Static,
            output: None
        }
    );

    // Adams View export: blank first line, FILE/MODEL=
    let acf = read_acf_str("\nfile/model=generic_model\n! Insert ACF commands here:\nSIMULATE/DYNAMIC, END=20.0, DTOUT=0.1\nstop\n", "g.acf").unwrap();
    assert_eq!(acf.model_file.as_deref(), Some("generic_model"));
    assert_eq!(acf.commands.len(), 1);

    let e = read_acf_str("m.adm\np\nsim/dyn, end = 1\n", "e.acf").unwrap_err();
    assert_eq!(
        e.to_string(),
        "e.acf:3:1: SIMULATE: missing STEPS = or DTOUT ="
    );
    // An END not after the previous one is checked when the command runs
    // (a SENSOR RETURN may end a SIMULATE early), not when it is read.
    let acf = read_acf_str(
        "m.adm\np\nsim/dyn, end = 2, steps = 5\nsim/dyn, end = 1, steps = 5\n",
        "e.acf",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(acf.commands.len(), 2);
    let acf = read_acf_str("m.adm\np\nACTIVATE/JOINT, ID=12, 13\n", "e.acf").unwrap();
    assert_eq!(
        acf.commands,
        [12, 13].map(|id| Command::Activate {
            element: mbsolve_model::ElementRef::Joint(id),
            active: true,
            origin: "e.acf:3".into(),
        })
    );
    // The elastic elements and CONTACT switch too (mech `activation.rs`).
    for (kind, element) in [
        ("BUSHING", mbsolve_model::ElementRef::Bushing(12)),
        ("FIELD", mbsolve_model::ElementRef::Field(12)),
        ("BEAM", mbsolve_model::ElementRef::Beam(12)),
        ("CONTACT", mbsolve_model::ElementRef::Contact(12)),
    ] {
        let text = format!("m.adm\np\nDEACTIVATE/{kind}, ID=12\n");
        let acf = read_acf_str(&text, "e.acf").unwrap();
        assert_eq!(
            acf.commands,
            [Command::Activate {
                element,
                active: false,
                origin: "e.acf:3".into(),
            }]
        );
    }
    let e = read_acf_str("m.adm\np\nDEACTIVATE/COUPLER, ID=12\n", "e.acf").unwrap_err();
    assert_eq!(
        e.to_string(),
        "e.acf:3:1: DEACTIVATE: DEACTIVATE/COUPLER is not supported yet (supported: JOINT, JPRIM, MOTION, GCON, SFORCE, SPRINGDAMPER, VFORCE, VTORQUE, GFORCE, BUSHING, FIELD, BEAM, CONTACT, SENSOR)"
    );
    let e = read_acf_str("m.adm\np\nFLY/AWAY\n", "e.acf").unwrap_err();
    assert_eq!(e.to_string(), "e.acf:3:1: unknown command FLY");
}

#[test]
fn jprims_rackpin_marker_motions_and_variables() {
    use mbsolve_model::{JprimKind, MarkerMotionAxis};
    let m = build(
        "JPRIM/1, INLINE, I = 0202, J = 0101\n\
         JPRIM/2, PARA, I = 0202, J = 0101\n\
         JPRIM/3, PERPENDICULAR, I = 0202, J = 0101\n\
         JOINT/3, RACKPIN, I = 0202, J = 0101, PD = 0.1\n\
         MOTION/2, I = 0202, J = 0101, B3, FUNCTION = VARVAL(7) + 10D\n\
         MOTION/3, X, I = 0202, J = 0101, DISPLACEMENT, FUNCTION = 2*TIME\n\
         SFORCE/1, TRANSLATIONAL, I = 0202, J = 0101, FUNCTION = -VARVAL(8)\n\
         VARIABLE/7, FUNCTION = 30D*TIME\n\
         VARIABLE/8, FUNCTION = 100*(DM(0202,0101) - 2) + VARVAL(7)\n\
         REQUEST/4, F2 = VARVAL(8)\\F3 = JPRIM(2,0,6,0)\n",
    );
    let kinds: Vec<_> = m.jprims.iter().map(|j| (j.id, j.kind, j.i, j.j)).collect();
    assert_eq!(
        kinds,
        vec![
            (1, JprimKind::Inline, 202, 101),
            (2, JprimKind::ParallelAxes, 202, 101),
            (3, JprimKind::Perpendicular, 202, 101),
        ]
    );
    assert_eq!(
        m.joints[0].kind,
        JointKind::RackPin {
            pitch_diameter: 0.1
        }
    );
    assert_eq!(
        m.motions[0].target,
        MotionTarget::Markers {
            i: 202,
            j: 101,
            axis: MarkerMotionAxis::B3
        }
    );
    // B3 = 30°/s · t + 10°: value and derivatives through the VARIABLE.
    let [v, d, dd] = m.motions[0].function.eval(2.0);
    assert!((v - 70f64.to_radians()).abs() < 1e-14, "{v}");
    assert!((d - 30f64.to_radians()).abs() < 1e-14 && dd == 0.0);
    assert_eq!(
        m.motions[1].target,
        MotionTarget::Markers {
            i: 202,
            j: 101,
            axis: MarkerMotionAxis::X
        }
    );
    // The SFORCE reads DM through VARIABLE/8, with its derivative.
    match &m.forces[0].kind {
        ForceKind::TranslationalActionReaction { function } => {
            assert_eq!(
                function.measures(),
                &[mbsolve_model::Measure::Dm {
                    i: 202,
                    j: Some(101)
                }]
            );
            let mut dm = [0.0];
            let (f, ft) = function.eval(3.0, &[2.5], &mut dm);
            assert!((f + (50.0 + 90f64.to_radians())).abs() < 1e-12, "{f}");
            assert!((ft + 30f64.to_radians()).abs() < 1e-14, "{ft}");
            assert_eq!(dm[0], -100.0);
        }
        k => panic!("{k:?}"),
    }
    // Variables are kept as text for function requests, which keep VARVAL.
    assert_eq!(m.variables.len(), 2);
    assert_eq!(m.variables[0].function, "30D*TIME");
    assert_eq!(
        m.function_requests[0].components[1].as_deref(),
        Some("VARVAL(8)")
    );
    assert!(m
        .sources
        .contains(&(ElementRef::Jprim(2), "m.adm:10".to_string())));
    assert!(m
        .sources
        .contains(&(ElementRef::Variable(8), "m.adm:17".to_string())));
}

/// VFORCE, VTORQUE and GFORCE: components by key into [FX … TZ], RM as
/// `Force::j`, the JFLOAT marker's part as the reaction part, and each
/// statement its own id space (VFORCE/1 beside VTORQUE/1 and GFORCE/1).
#[test]
fn vector_forces_build_their_components() {
    let m = build(
        "MARKER/9, PART = 1, FLOATING\n\
         VFORCE/1, I = 0201, JFLOAT = 9, RM = 0101, FX = 1\\FY = 2*TIME\\FZ = DX(0201)\n\
         VTORQUE/1, I = 0202, JFLOAT = 9, RM = 0201, TZ = 4\n\
         GFORCE/1, I = 0201, JFLOAT = 9, RM = 0202, FY = 5\\TX = 6\n",
    );
    // Each component evaluated at t = 3 with every measure = 0.5.
    let got: Vec<(ElementRef, u32, u32, Vec<Option<f64>>)> = m
        .forces
        .iter()
        .map(|f| {
            let ForceKind::Vector {
                reaction_part,
                components,
                ..
            } = &f.kind
            else {
                panic!("{:?}", f.kind)
            };
            let vals = components
                .iter()
                .map(|c| {
                    c.as_ref().map(|c| {
                        let mut dm = vec![0.0; c.measures().len()];
                        let vals = vec![0.5; c.measures().len()];
                        c.eval(3.0, &vals, &mut dm).0
                    })
                })
                .collect();
            (f.element(), f.j, *reaction_part, vals)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                ElementRef::Vforce(1),
                101,
                1,
                vec![Some(1.0), Some(6.0), Some(0.5), None, None, None]
            ),
            (
                ElementRef::Vtorque(1),
                201,
                1,
                vec![None, None, None, None, None, Some(4.0)]
            ),
            (
                ElementRef::Gforce(1),
                202,
                1,
                vec![None, Some(5.0), None, Some(6.0), None, None]
            ),
        ]
    );
    assert!(m
        .sources
        .contains(&(ElementRef::Vtorque(1), "m.adm:11".to_string())));
}

/// Components that read VARVAL (the FRS5 deck's VFORCEs) are inlined once
/// every VARIABLE is read, forward references included: the same values
/// and derivatives as the expression written out.
#[test]
fn vector_force_components_read_variables() {
    let eval = |deck: &str| -> Vec<(f64, Vec<f64>)> {
        let m = build(deck);
        let ForceKind::Vector { components, .. } = &m.forces[0].kind else {
            panic!("{:?}", m.forces[0].kind)
        };
        components
            .iter()
            .flatten()
            .map(|c| {
                let n = c.measures().len();
                let mut dm = vec![0.0; n];
                let vals: Vec<f64> = (0..n).map(|k| 0.3 + 0.1 * k as f64).collect();
                (c.eval(2.0, &vals, &mut dm).0, dm)
            })
            .collect()
    };
    let via_variables = eval(
        "MARKER/9, PART = 1, FLOATING\n\
         VFORCE/1, I = 0201, JFLOAT = 9, RM = 0101, FX = VARVAL(1)\\FZ = 3*VARVAL(2)\n\
         VARIABLE/1, FUNCTION = 2*TIME + DX(0201)**2\n\
         VARIABLE/2, FUNCTION = VARVAL(1) - 1\n",
    );
    let written_out = eval(
        "MARKER/9, PART = 1, FLOATING\n\
         VFORCE/1, I = 0201, JFLOAT = 9, RM = 0101, FX = 2*TIME + DX(0201)**2\\FZ = 3*(2*TIME + DX(0201)**2 - 1)\n",
    );
    assert_eq!(via_variables.len(), 2);
    for ((v, dv), (w, dw)) in via_variables.iter().zip(&written_out) {
        assert!((v - w).abs() < 1e-14, "{v} vs {w}");
        assert_eq!(dv.len(), dw.len());
        for (a, b) in dv.iter().zip(dw) {
            assert!((a - b).abs() < 1e-14, "{a} vs {b}");
        }
    }
    // 2·2 + 0.3² = 4.09 and 3·(4.09 − 1).
    assert!((via_variables[0].0 - 4.09).abs() < 1e-12);
    assert!((via_variables[1].0 - 9.27).abs() < 1e-12);
}

#[test]
fn vector_force_errors_name_the_element() {
    let fl = "MARKER/9, PART = 1, FLOATING\n";
    let cases = [
        (
            "VFORCE/1, I = 0201, JFLOAT = 0101, RM = 0101, FX = 1\n".to_string(),
            "m.adm:9:30: VFORCE/1: JFLOAT marker 101 is not a FLOATING marker defined before this statement",
        ),
        (
            format!("{fl}VFORCE/1, I = 0201, JFLOAT = 9, RM = 0101\n"),
            "m.adm:10:1: VFORCE/1: give at least one of FX, FY, FZ =",
        ),
        (
            format!("{fl}VFORCE/1, I = 0201, JFLOAT = 9, RM = 0101, TX = 1\n"),
            "m.adm:10:44: VFORCE/1: TX does not apply to a VFORCE (it takes FX, FY, FZ)",
        ),
        (
            format!("{fl}VTORQUE/2, I = 0201, JFLOAT = 9, RM = 0101, FUNCTION = 1\n"),
            "m.adm:10:45: VTORQUE/2: give the components as TX, TY, TZ = expressions, not FUNCTION =",
        ),
        (
            "VTORQUE/2, I = 0201, RM = 0101, TZ = 1\n".to_string(),
            "m.adm:9:1: VTORQUE/2: missing JFLOAT =",
        ),
        (
            format!("{fl}GFORCE/3, I = 0201, JFLOAT = 9, RM = 0101, TZ = VARVAL(7)\n"),
            "m.adm:10:49: GFORCE/3: VARVAL(7): VARIABLE 7 does not exist",
        ),
    ];
    for (extra, want) in cases {
        assert_eq!(error(&extra), want, "{extra}");
    }
}
