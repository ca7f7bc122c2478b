//! Issue 16: the statements and arguments real Adams decks use — each one
//! honoured (a value that could come out wrong is checked) or rejected by
//! name with file:line:column.

mod common;

use mbsolve_adm::{diagnose_adm, read_adm_full};

const BASE: &str = "title line\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
PART/01, GROUND\n\
MARKER/0101, PART = 01\n\
PART/02, MASS = 2, CM = 0201, IP = 1, 2, 3\n\
MARKER/0201, PART = 02, QP = 0, 1, 0\n\
MARKER/0202, PART = 02\n";

#[test]
fn user_subroutines_are_rejected_naming_element_subroutine_and_line() {
    let cases: &[(&str, &str)] = &[
        (
            "SFORCE/4, ROTATIONAL, I = 0201, J = 0101, FUNCTION = USER(20, 50)\n",
            "m.adm:8:43: SFORCE/4: FUNCTION = USER(20, 50) calls the user subroutine SFOSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression",
        ),
        (
            "VARIABLE/7, FUNCTION = user (1, 2)\n, ROUTINE = mylib::Torque\n",
            "m.adm:8:13: VARIABLE/7: FUNCTION = user (1, 2) calls the user subroutine mylib::Torque; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression",
        ),
        // A statement not supported yet still names its subroutine first.
        (
            "GFORCE/9, I = 0201, JFLOAT = 0202, RM = 0101, FUNCTION = USER(7, 8, 9)\n",
            "m.adm:8:47: GFORCE/9: FUNCTION = USER(7, 8, 9) calls the user subroutine GFOSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression",
        ),
        (
            "MOTION/2, JOINT = 1, ROTATION, ROUTINE = drv::Motor\n",
            "m.adm:8:32: MOTION/2: ROUTINE = drv::Motor names a user subroutine; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression",
        ),
    ];
    common::expect_errors(BASE, cases);
}

/// `diagnose_adm` (what `check` prints) names every user subroutine and
/// every unsupported element, not only the first.
#[test]
fn every_problem_is_reported_at_once() {
    let text = format!(
        "{BASE}SFORCE/1, TRANSLATIONAL, I = 0201, J = 0101, FUNCTION = USER(1)\n\
         VARIABLE/2, FUNCTION = USER(2)\n\
         NFORCE/3, I = 0201, J = 0101\n\
         SFORCE/4, TRANSLATIONAL, I = 0201, J = 0101, FUNCTION = 1\nEND\n"
    );
    let errors = diagnose_adm(&text, "m.adm").unwrap_err();
    let got: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(
        got[0].starts_with(
            "m.adm:8:46: SFORCE/1: FUNCTION = USER(1) calls the user subroutine SFOSUB"
        ),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with(
            "m.adm:9:13: VARIABLE/2: FUNCTION = USER(2) calls the user subroutine VARSUB"
        ),
        "{got:#?}"
    );
    assert_eq!(
        got[2],
        "m.adm:10:1: NFORCE/3: statement NFORCE is not supported yet"
    );
    // With every statement read, the cross-statement checks run.
    let text = format!("{BASE}JOINT/1, REVOLUTE, I = 0202, J = 0999\nEND\n");
    let errors = diagnose_adm(&text, "m.adm").unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].to_string(),
        "m.adm:8:34: JOINT/1: J marker 999 does not exist"
    );
    assert!(diagnose_adm(&format!("{BASE}END\n"), "m.adm").is_ok());
}

#[test]
fn plant_inputs_and_outputs_are_read_and_checked() {
    let m = common::build_on(
        BASE,
        "VARIABLE/32, FUNCTION = DX(0201)\nVARIABLE/3, IC = 1, FUNCTION = 2*TIME\n\
         PINPUT/1, VARIABLES = 32\nPOUTPUT/1, VARIABLES = 3, 32\n",
    );
    assert_eq!(m.plant_inputs.len(), 1);
    assert_eq!(m.plant_inputs[0].variables, vec![32]);
    assert_eq!(m.plant_outputs[0].id, 1);
    assert_eq!(m.plant_outputs[0].variables, vec![3, 32]);
    assert_eq!(
        common::error_on(BASE, "POUTPUT/1, VARIABLES = 3\n"),
        "m.adm:8:12: POUTPUT/1: VARIABLES: VARIABLE 3 does not exist"
    );
    assert_eq!(
        common::error_on(
            BASE,
            "VARIABLE/3, FUNCTION = 1\nPINPUT/1, VARIABLES = 3, 3\n"
        ),
        "m.adm:9:11: PINPUT/1: VARIABLES names VARIABLE/3 twice"
    );
    assert_eq!(
        common::error_on(BASE, "PINPUT/1\n"),
        "m.adm:8:1: PINPUT/1: missing VARIABLES = id, …"
    );
    assert_eq!(
        common::error_on(
            BASE,
            "VARIABLE/3, FUNCTION = 1\nPINPUT/1, VARIABLES = 3\nPINPUT/1, VARIABLES = 3\n"
        ),
        "m.adm:10:1: PINPUT/1: duplicate id: PINPUT/1 is already defined at m.adm:9"
    );
}

#[test]
fn variable_ic_is_a_checked_initial_guess() {
    let m = common::build_on(BASE, "VARIABLE/3, IC = 11, FUNCTION = 10+20\n");
    assert_eq!(m.variables[0].function, "10+20");
    assert_eq!(
        common::error_on(BASE, "VARIABLE/3, IC = ten, FUNCTION = 1\n"),
        "m.adm:8:18: VARIABLE/3: bad number 'ten' for IC"
    );
}

#[test]
fn preferences_kinematics_material_debug() {
    let r = read_adm_full(
        &format!(
            "{BASE}PREFERENCES/, CONTACT_FACETING_TOLERANCE = 300.0028, NTHREADS = 8\n\
             KINEMATICS/, HMAX = 0.01\nMATERIAL/1, DENSITY = 7800\nDEBUG/EPRINT\nEND\n"
        ),
        "m.adm",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.model.kinematics.hmax, Some(0.01));
    let skipped: Vec<&str> = r.skipped.iter().map(|s| s.statement.as_str()).collect();
    assert_eq!(skipped, ["PREFERENCES", "MATERIAL/1", "DEBUG"]);
    // the geometry library (Adams/View writes Default_library) is read and
    // recorded with the reason it changes nothing
    let r = read_adm_full(
        &format!(
            "{BASE}PREFERENCES/, CONTACT_GEOMETRY_LIBRARY = Default_library
END
"
        ),
        "m.adm",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        r.skipped[0].reason.contains("geometry library"),
        "{:?}",
        r.skipped
    );
    // LIST/NOLIST (dataset listing) and LSOLVER (Adams' linear solver
    // choice) change no result: read and recorded as skipped
    let r = read_adm_full(
        &format!("{BASE}LIST/\nNOLIST/\nLSOLVER/UMF\nEND\n"),
        "m.adm",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let skipped: Vec<&str> = r.skipped.iter().map(|s| s.statement.as_str()).collect();
    assert_eq!(skipped, ["LIST", "NOLIST", "LSOLVER"]);
    let cases: &[(&str, &str)] = &[
        (
            "PREFERENCES/, SOLVERBIAS = CONTACT\n",
            "m.adm:8:15: PREFERENCES: SOLVERBIAS is not supported yet",
        ),
        (
            "PREFERENCES/, CONTACT_GEOMETRY_LIBRARY = ACIS\n",
            "m.adm:8:42: PREFERENCES: CONTACT_GEOMETRY_LIBRARY = ACIS is not one of DEFAULT_LIBRARY, PARASOLID, RAPID",
        ),
        (
            "LSOLVER/, CALAHAN, STABILITY = 0.1\n",
            "m.adm:8:20: LSOLVER: STABILITY is not supported yet",
        ),
        (
            "LSOLVER/, CALAHAN, UMF\n",
            "m.adm:8:20: LSOLVER: CALAHAN and UMF are exclusive",
        ),
        (
            "PREFERENCES/, NTHREADS = 0\n",
            "m.adm:8:15: PREFERENCES: NTHREADS must be at least 1, found 0",
        ),
        (
            "PREFERENCES/, CONTACT_FACETING_TOLERANCE = -1\n",
            "m.adm:8:15: PREFERENCES: CONTACT_FACETING_TOLERANCE must be positive, found -1",
        ),
        (
            "KINEMATICS/, HMAX = 0\n",
            "m.adm:8:14: KINEMATICS: HMAX must be positive, found 0",
        ),
        (
            "KINEMATICS/, ERROR = 1E-6\n",
            "m.adm:8:14: KINEMATICS: ERROR is not supported yet",
        ),
        (
            "KINEMATICS/, HMAX = 1\nKINEMATICS/, HMAX = 2\n",
            "m.adm:9:1: KINEMATICS: a second KINEMATICS statement",
        ),
        (
            "DEBUG/, COLOUR\n",
            "m.adm:8:9: DEBUG: unknown keyword COLOUR",
        ),
    ];
    common::expect_errors(BASE, cases);
}

/// GCON without I (SolidWorks Motion): the reaction marker is the first
/// marker the function reads; with none, the GCON is rejected.
#[test]
fn gcon_without_i() {
    let m = common::build_on(BASE, "GCON/1, FUNCTION = DM(0202, 0101) - 2\n");
    assert_eq!(m.gcons[0].i, 202);
    let m = common::build_on(BASE, "GCON/1, I = 0201, FUNCTION = DM(0202, 0101) - 2\n");
    assert_eq!(m.gcons[0].i, 201);
    assert_eq!(
        common::error_on(BASE, "GCON/1, FUNCTION = TIME - 2\n"),
        "m.adm:8:1: GCON/1: missing I = (the reaction marker), and the FUNCTION reads no marker to take it from"
    );
}

#[test]
fn request_column_names() {
    let m = common::build_on(
        BASE,
        "REQUEST/7, F2 = DX(0201)\\F3 = DY(0201)\n, CNAMES = \"\", \"depth\", \"\"\n\
         , CLABELS = \"\", \"(ft)\"\n, RESULTS_NAME = bit_Motion\n",
    );
    let f = &m.function_requests[0];
    assert_eq!(f.results_name.as_deref(), Some("bit_Motion"));
    assert_eq!(f.cnames[0], None);
    assert_eq!(f.cnames[1].as_deref(), Some("depth"));
    assert_eq!(f.cnames[2], None);
    assert_eq!(f.clabels[1].as_deref(), Some("(ft)"));
    assert_eq!(
        common::error_on(BASE, "REQUEST/7, F2 = DX(0201), CNAMES = \"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\"\n"),
        "m.adm:8:27: REQUEST/7: CNAMES value 9 ('i') names a component past F8; a request has F1…F8"
    );
    // Empty names past F8, as Adams View writes them, name nothing.
    let m = common::build_on(BASE, "REQUEST/7, F1 = DX(0201), CNAMES = \"x\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"\n");
    assert_eq!(m.function_requests[0].cnames[0].as_deref(), Some("x"));
    // D/V/A/F requests have fixed columns.
    assert_eq!(
        common::error_on(BASE, "REQUEST/8, DISPLACEMENT, I = 0201, CNAMES = a\n"),
        "m.adm:8:36: REQUEST/8: CNAMES is not supported yet"
    );
}

#[test]
fn arguments_that_need_mechanics_work_are_rejected_by_name() {
    let cases: &[(&str, &str)] = &[
        (
            "INTEGRATOR/GSTIFF, SCALE = 1, 1, 1\n",
            "m.adm:8:20: INTEGRATOR: SCALE (Adams FORTRAN error scaling of state groups) is not supported: mbsolve weights the integration error as the seeds define; scale ERROR instead",
        ),
        (
            "JOINT/1, CYLINDRICAL, I = 0202, J = 0101, ICTRAN = x\n",
            "m.adm:8:52: JOINT/1: bad number 'x' for ICTRAN",
        ),
        (
            "JOINT/1, REVOLUTE, I = 0202, J = 0101\nMOTION/1, JOINT = 1, ACCELERATION, ICVEL = v, FUNCTION = 1\n",
            "m.adm:9:44: MOTION/1: bad number 'v' for ICVEL",
        ),
    ];
    common::expect_errors(BASE, cases);
}

/// INCANG in a dataset: it reads markers (checked like any measure).
#[test]
fn incang_function_reads_markers() {
    let m = common::build_on(
        BASE,
        "VARIABLE/1, FUNCTION = INCANG(0201, 0101, 0202)*RTOD\n",
    );
    assert_eq!(m.variables[0].function, "INCANG(0201, 0101, 0202)*RTOD");
    assert_eq!(
        common::error_on(BASE, "VARIABLE/1, FUNCTION = INCANG(0201, 0101, 0909)\n"),
        "m.adm:8:24: VARIABLE/1: DX(909,101): MARKER 909 does not exist"
    );
}

/// The command-file forms real `.acf` files use (adamspy, FRS5, Chrono).
#[test]
fn command_file_abbreviations_and_accgrav() {
    use mbsolve_adm::read_acf_str;
    use mbsolve_model::{Command, SimulateMode};
    let acf = read_acf_str(
        "\nfile/model=C:\\models\\test\noutput/noseparator\naccg/kgrav=0\n\
         equil/maxit=500, stab=0.1, error=0.1, imbal=0.1, tlim=1.0, alim=2.0D\nsim/stat\n\
         int/hht, err=1E-7, hmax=2.5E-4\nsim/dyn, end=1.5, dtout=.005\nstop\n",
        "t.acf",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(acf.model_file.as_deref(), Some("C:\\models\\test"));
    assert_eq!(acf.commands.len(), 5);
    assert_eq!(
        acf.commands[0],
        Command::Accgrav {
            components: [None, None, Some(0.0)]
        }
    );
    let Command::Equilibrium { settings, .. } = &acf.commands[1] else {
        panic!("{:?}", acf.commands[1])
    };
    assert_eq!(settings.max_num_iter, Some(500));
    assert_eq!(settings.alimit, Some(2.0f64.to_radians()));
    assert!(matches!(
        acf.commands[2],
        Command::Simulate {
            mode: SimulateMode::Static,
            output: None
        }
    ));
    let Command::Integrator { settings, .. } = &acf.commands[3] else {
        panic!("{:?}", acf.commands[3])
    };
    assert_eq!(settings.kind, mbsolve_model::IntegratorKind::Hht);
    assert_eq!(settings.error, Some(1e-7));
    let cases: &[(&str, &str)] = &[
        ("accgrav/\n", "t.acf:1:1: ACCGRAV: give at least one of IGRAV, JGRAV or KGRAV"),
        (
            "ACTIVATE/JOINT\n",
            "t.acf:1:1: ACTIVATE: ACTIVATE/JOINT needs ID = id1, id2, … or RANGE = first, last",
        ),
        (
            "DEACTIVATE/JOINT, MOTION, ID=2\n",
            "t.acf:1:19: DEACTIVATE: more than one element type",
        ),
        (
            "DEACTIVATE/JOINT, ID=2.5\n",
            "t.acf:1:19: DEACTIVATE/JOINT: ID = 2.5 is not a positive integer id",
        ),
        (
            "DEACTIVATE/JOINT, RANGE=1,4, ID = 2\n",
            "t.acf:1:19: DEACTIVATE: ID and RANGE are exclusive",
        ),
        (
            "DEACTIVATE/JOINT, RANGE=4,1\n",
            "t.acf:1:19: DEACTIVATE/JOINT: RANGE = 4, 1: the first id must not exceed the second",
        ),
        (
            "DEACTIVATE/JOINT, RANGE=4\n",
            "t.acf:1:19: DEACTIVATE: RANGE takes 2 values, found 1",
        ),
        (
            "DEACTIVATE/JOINT, RANGE=0, 4\n",
            "t.acf:1:19: DEACTIVATE/JOINT: RANGE = 0 is not a positive integer id",
        ),
        (
            "deactivate/tfsiso, ID=1000\n",
            "t.acf:1:1: DEACTIVATE: DEACTIVATE/TFSISO is not supported yet (supported: JOINT, JPRIM, MOTION, GCON, SFORCE, SPRINGDAMPER, VFORCE, VTORQUE, GFORCE, BUSHING, FIELD, BEAM, CONTACT, SENSOR)",
        ),
        (
            "sim/stat\nVARIABLE/9105, FUNCTION=1 + * 2\n",
            "t.acf:3:29: VARIABLE/9105: expected an operand, found '*'",
        ),
        (
            "sim/stat\nMOTION/4, FUNC = -16+STEP5(time,1.9,0,2,16), ICDISP = 1\n",
            "t.acf:3:46: MOTION/4: ICDISP after a SIMULATE is not supported: a VELOCITY or ACCELERATION motion's displacement is integrated from ICDISP (and ICVEL) at t = 0, so it would not continue from the current displacement (give it before the first SIMULATE)",
        ),
        (
            "MOTION/4, JOINT = 2, FUNC = TIME\n",
            "t.acf:1:11: MOTION/4: JOINT: a MOTION command cannot change what the motion drives (the model's constraint equations would change); it respecifies DISPLACEMENT, VELOCITY, ACCELERATION, FUNCTION, ICDISP and ICVEL",
        ),
        (
            "SFORCE/4, FUNCTION = USER(3)\n",
            "t.acf:1:11: SFORCE/4: FUNCTION = USER(3) calls the user subroutine SFOSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression",
        ),
        (
            "VARIABLE/2, FUNCTION = 1 + * 2\n",
            "t.acf:1:28: VARIABLE/2: expected an operand, found '*'",
        ),
        (
            "VARIABLE, FUNCTION = 1\n",
            "t.acf:1:1: VARIABLE: which VARIABLE? (VARIABLE/id, FUNCTION = …)",
        ),
    ];
    for (text, want) in cases {
        let e = read_acf_str(&format!("\n{text}"), "t.acf").unwrap_err();
        // The blank first line makes this an Adams View style file: the
        // statement is on line 2.
        assert_eq!(
            e.to_string(),
            want.replace("t.acf:1:", "t.acf:2:"),
            "{text}"
        );
    }
}

/// Redefinitions are applied to the dataset; what they name is checked
/// against it, with the command file's name and line in the message.
#[test]
fn command_file_redefinitions_edit_the_dataset() {
    use mbsolve_adm::{read_acf_str, read_adm_str_redefined};
    let adm = format!(
        "{BASE}VARIABLE/1, FUNCTION = 2*TIME\nVARIABLE/2, FUNCTION = VARVAL(1)\n\
         SFORCE/3, TRANSLATIONAL, I = 0201, J = 0101, FUNCTION = VARVAL(2)\n\
         SPRINGDAMPER/3, TRANSLATIONAL, I = 0201, J = 0101, K = 1\nEND\n"
    );
    let redefine = |acf: &str| {
        let acf =
            read_acf_str(&format!("\n{acf}sim/stat\n"), "r.acf").unwrap_or_else(|e| panic!("{e}"));
        read_adm_str_redefined(&adm, "m.adm", &acf, "r.acf")
    };
    // The SFORCE's function (SPRINGDAMPER/3 shares `forces` and its id).
    let sforce_3 = |m: &mbsolve_model::Model| {
        m.forces
            .iter()
            .find_map(|f| match &f.kind {
                mbsolve_model::ForceKind::TranslationalActionReaction { function } => {
                    Some(function.clone())
                }
                _ => None,
            })
            .unwrap()
    };
    let m =
        redefine("variable/1, function = 3*TIME + DX(0201)\n").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.variables[0].function, "3*TIME + DX(0201)");
    // SFORCE/3 reads VARIABLE/2 → VARIABLE/1: its function is re-inlined.
    let function = sforce_3(&m);
    assert_eq!(
        function.measures().len(),
        1,
        "DX(0201) reached through VARVAL(2) → VARVAL(1)"
    );
    let m = redefine("sforce/3, function = 5\n").unwrap_or_else(|e| panic!("{e}"));
    let function = sforce_3(&m);
    let mut dm = [0.0; 0];
    assert_eq!(function.eval(0.7, &[], &mut dm).0, 5.0);
    let cases: &[(&str, &str)] = &[
        ("variable/9, function = 1\n", "r.acf:2:1: VARIABLE/9: VARIABLE/9 does not exist in the dataset, so it cannot be redefined"),
        ("motion/1, function = TIME\n", "r.acf:2:1: MOTION/1: MOTION/1 does not exist in the dataset, so it cannot be redefined"),
        ("variable/1, function = DX(0909)\n", "r.acf:2:24: VARIABLE/1: DX(909): MARKER 909 does not exist"),
        ("variable/1, function = VARVAL(1)\n", "r.acf:2:24: VARIABLE/1: VARIABLE/1 = VARVAL(1) determines no value (an implicit VARIABLE needs an equation v = f(v, …) that fixes v)"),
    ];
    for (acf, want) in cases {
        assert_eq!(redefine(acf).unwrap_err().to_string(), *want, "{acf}");
    }
}

/// `write_adm` (mbsolve convert) keeps what this issue reads: PINPUT and
/// POUTPUT, KINEMATICS HMAX, REQUEST CNAMES/CLABELS/RESULTS_NAME.
#[test]
fn written_dataset_keeps_plant_io_kinematics_and_column_names() {
    let m = common::build_on(
        BASE,
        "VARIABLE/1, FUNCTION = DX(0201)\nVARIABLE/2, FUNCTION = 2*TIME\n\
         PINPUT/3, VARIABLES = 2\nPOUTPUT/4, VARIABLES = 1, 2\nKINEMATICS/, HMAX = 0.01\n\
         REQUEST/7, F2 = DX(0201)\\F3 = DY(0201)\n, CNAMES = \"\", \"depth\"\n\
         , CLABELS = \"\", \"(ft)\", \"(m)\", RESULTS_NAME = bit\n",
    );
    let text = mbsolve_adm::write_adm(&m).unwrap();
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.plant_inputs, m.plant_inputs);
    assert_eq!(back.plant_outputs, m.plant_outputs);
    assert_eq!(back.kinematics, m.kinematics);
    assert_eq!(back.function_requests, m.function_requests);
    assert_eq!(back.function_requests[0].clabels[2].as_deref(), Some("(m)"));
}

/// An absurd MATRIX size is an error naming the statement, not an
/// allocation failure (the model stores matrices dense).
#[test]
fn huge_matrix_is_refused() {
    let cases: &[(&str, &str)] = &[(
        "MATRIX/1, FULL = RORDER, ROWS = 100000, COLUMNS = 100000000, VALUES = 1\n",
        "m.adm:8:26: MATRIX/1: ROWS × COLUMNS = 100000 × 100000000 is too large (at most 10000000 entries; matrices are stored dense)",
    )];
    common::expect_errors(BASE, cases);
}

/// write_adm keeps a SPARSE matrix SPARSE (it was written FULL, losing the
/// flag) with the same entries, and a FULL one FULL.
#[test]
fn sparse_matrix_round_trips_sparse() {
    let m = common::build_on(
        BASE,
        "MATRIX/1, SPARSE, ROWS = 2, COLUMNS = 3, I = 2, 1, J = 3, 2, VALUES = 5, -1.5\n\
         MATRIX/2, FULL = CORDER, ROWS = 2, COLUMNS = 2, VALUES = 1, 2, 3, 4\n",
    );
    let text = mbsolve_adm::write_adm(&m).unwrap();
    assert!(text.contains("MATRIX/1, SPARSE"), "{text}");
    let back = mbsolve_adm::read_adm_str(&text, "back.adm").unwrap();
    for (a, b) in m.matrices.iter().zip(&back.matrices) {
        assert_eq!(
            (a.id, a.rows, a.columns, a.sparse),
            (b.id, b.rows, b.columns, b.sparse)
        );
        assert_eq!(a.values, b.values);
    }
    assert_eq!(back.matrices[0].values, [0.0, -1.5, 0.0, 0.0, 0.0, 5.0]);
    assert_eq!(back.matrices[1].values, [1.0, 3.0, 2.0, 4.0]);
}

/// ENVIRONMENT: MDI_ADAMS_CONTACT_OUT = OFF (FRS5's command file) is
/// accepted, adding no command (mbsolve writes no contact incidents); any
/// other variable or value is refused naming it.
#[test]
fn environment_contact_output_off_is_accepted_and_the_rest_refused() {
    use mbsolve_adm::read_acf_str;
    let acf = read_acf_str(
        "\nENVIRONMENT/NAME=MDI_ADAMS_CONTACT_OUT, VALUE=off\nsim/stat\nstop\n",
        "t.acf",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(acf.commands.len(), 1);
    for (text, want) in [
        (
            "ENVIRONMENT/NAME=MDI_ADAMS_CONTACT_OUT, VALUE=on\n",
            "t.acf:2:47: ENVIRONMENT: MDI_ADAMS_CONTACT_OUT = ON: contact-incident output is not written by mbsolve; only OFF is accepted",
        ),
        (
            "ENVIRONMENT/NAME=MSC_ADAMS_SOLVER_BEAM_MODEL, VALUE=LINEAR\n",
            "t.acf:2:18: ENVIRONMENT: ENVIRONMENT variable MSC_ADAMS_SOLVER_BEAM_MODEL is not supported (supported: MDI_ADAMS_CONTACT_OUT = OFF)",
        ),
    ] {
        let e = read_acf_str(&format!("\n{text}"), "t.acf").unwrap_err();
        assert_eq!(e.to_string(), want, "{text}");
    }
}

/// Commands, their sub-keywords and arguments resolve against the Adams
/// reference names: the full name or any unique prefix (DYNAMIC is a
/// prefix of DYNAMICS); an ambiguous prefix lists the candidates.
#[test]
fn command_keywords_resolve_by_the_adams_prefix_rule() {
    use mbsolve_adm::read_acf_str;
    use mbsolve_model::{Command, ElementRef, SimulateMode};
    let modes = [
        (
            "SIMULATE/DYNAMICS, END = 1, STEPS = 2",
            SimulateMode::Dynamic,
        ),
        (
            "SIMULATE/DYNAMIC, END = 1, STEPS = 2",
            SimulateMode::Dynamic,
        ),
        ("sim/dyn, end = 1, dtout = .5", SimulateMode::Dynamic),
        (
            "SIMULATE/KINEMATICS, END = 1, STEPS = 2",
            SimulateMode::Kinematic,
        ),
        (
            "SIMULATE/KINEMATIC, END = 1, STEPS = 2",
            SimulateMode::Kinematic,
        ),
        ("SIMULATE/STATICS", SimulateMode::Static),
        ("sim/stat", SimulateMode::Static),
        (
            "SIMULATE/TRANSIENT, END = 1, STEPS = 2",
            SimulateMode::Transient,
        ),
        (
            "SIMULATE/INITIAL_CONDITIONS",
            SimulateMode::InitialConditions,
        ),
        (
            "SIMULATE/INITIAL_CONDITIONS, ACCELERATION",
            SimulateMode::InitialConditions,
        ),
        ("SIMU/INIT", SimulateMode::InitialConditions),
    ];
    for (text, mode) in modes {
        let acf =
            read_acf_str(&format!("\n{text}\n"), "t.acf").unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(
            matches!(acf.commands[..], [Command::Simulate { mode: m, .. }] if m == mode),
            "{text}: {:?}",
            acf.commands
        );
    }
    let acf = read_acf_str(
        "\nDEACT/JOINT, RANGE = 1301, 1321\nACTIVATE/MOT, RANGE = 5, 5\n",
        "t.acf",
    )
    .unwrap();
    assert_eq!(
        acf.commands,
        [
            Command::ActivateRange {
                first: ElementRef::Joint(1301),
                last: 1321,
                active: false,
                origin: "t.acf:2".into(),
            },
            Command::ActivateRange {
                first: ElementRef::Motion(5),
                last: 5,
                active: true,
                origin: "t.acf:3".into(),
            },
        ]
    );
    let cases: &[(&str, &str)] = &[
        ("SIMULATE/S", "t.acf:2:10: SIMULATE: ambiguous keyword abbreviation S (STATICS, STEPS)"),
        ("SIMULATE/D, END = 1, STEPS = 2", "t.acf:2:10: SIMULATE: ambiguous keyword abbreviation D (DISPLACEMENT, DTOUT, DURATION, DYNAMICS)"),
        ("S/DYN, END = 1, STEPS = 2", "t.acf:2:1: ambiguous command abbreviation S (SAVE, SENSOR, SFORCE, SHOW, SIMULATE, SPLINE, SPRINGDAMPER, STOP, STRING)"),
        (
            "SIMULATE/INITIAL_CONDITIONS, DISPLACEMENT",
            "t.acf:2:30: SIMULATE: INITIAL_CONDITIONS, DISPLACEMENT: a partial initial-conditions analysis is not supported (mbsolve solves displacements, velocities and accelerations together: give ACCELERATION or nothing)",
        ),
        (
            "SIMULATE/DYNAMICS, VELOCITY, END = 1, STEPS = 2",
            "t.acf:2:20: SIMULATE: VELOCITY chooses the initial-conditions analyses: it applies to INITIAL_CONDITIONS only",
        ),
        (
            "PREFERENCES/SOLVERBIAS = C++",
            "t.acf:2:13: PREFERENCES: SOLVERBIAS is not supported: it chooses between Adams' own solvers",
        ),
        (
            "REQUEST/3, F2 = DX(2, 1, 1)\nSIMULATE/STATICS\nREQUEST/3, F3 = 1",
            "t.acf:4:1: REQUEST/3: redefining request components after a SIMULATE is not supported: mbsolve fixes the output columns when the run starts (give the REQUEST command before the first SIMULATE)",
        ),
        (
            "REQUEST/3, FUNCTION = 2",
            "t.acf:2:12: REQUEST/3: FUNCTION on a REQUEST command passes constants to a REQSUB user subroutine (FUNCTION = USER(…)); give the components as F2, F3, F4, F6, F7, F8 = expressions",
        ),
        ("REQUEST/3, F1 = 2", "t.acf:2:12: REQUEST/3: unknown keyword F1"),
        (
            "UNITS/LENGTH = FURLONG",
            "t.acf:2:16: UNITS: LENGTH = FURLONG is not an Adams unit (one of",
        ),
    ];
    for (text, want) in cases {
        let e = read_acf_str(&format!("\n{text}\n"), "t.acf").unwrap_err();
        assert!(e.to_string().starts_with(want), "{text}: {e}");
        if !want.ends_with("(one of") {
            assert_eq!(e.to_string(), *want, "{text}");
        }
    }
}

/// OUTPUT, DEBUG, PREFERENCES and LIST commands are accepted and named,
/// one run-log line each, as changing nothing mbsolve computes.
#[test]
fn commands_without_effect_are_named_for_the_run_log() {
    use mbsolve_adm::read_acf_str;
    let acf = read_acf_str(
        "\noutput/noseparator\nDEBUG/EPRINT, DUMP\nPREFERENCES/NTHREADS = 4, CONTACT_GEOMETRY_LIBRARY = Default_library\nMOTION/1, LIST\nREQUEST/2, LIST\nSIMULATE/STATICS\n",
        "t.acf",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(acf.commands.len(), 1);
    assert_eq!(
        acf.without_effect,
        [
            "t.acf:2: OUTPUT/NOSEPARATOR: no effect in mbsolve (it chooses which of Adams' own files are written and their layout)",
            "t.acf:3: DEBUG/EPRINT, DUMP: no effect in mbsolve (Adams' diagnostic printout only)",
            "t.acf:4: PREFERENCES/NTHREADS, CONTACT_GEOMETRY_LIBRARY: no effect in mbsolve (Adams' contact faceting and geometry library, thread count and status messages; mbsolve has its own contact geometry and no result depends on them)",
            "t.acf:5: MOTION/LIST: no effect in mbsolve (LIST prints the motion's data in Adams' message file)",
            "t.acf:6: REQUEST/LIST: no effect in mbsolve (LIST prints the request's data in Adams' message file)",
        ]
    );
}

/// A REQUEST command before the first SIMULATE respecifies the components
/// it gives of a function REQUEST; the others stay. A displacement request
/// or a missing one is refused naming it; a late MOTION command on a
/// VELOCITY motion is refused (its displacement integrates from t = 0).
#[test]
fn request_and_motion_commands_edit_the_dataset() {
    use mbsolve_adm::{read_acf_str, resolve_redefinitions};
    let adm = format!(
        "{BASE}JOINT/1, REVOLUTE, I = 0202, J = 0101\nREQUEST/3, F2 = DX(0201), F3 = 7\nREQUEST/4, DISPLACEMENT, I = 0201\nMOTION/5, JOINT = 1, ROTATION, VELOCITY, FUNCTION = 1\nEND\n"
    );
    let mut acf = read_acf_str(
        "\nREQUEST/3, F3 = DY(0201)*2, F8 = TIME\nsim/stat\n",
        "r.acf",
    )
    .unwrap();
    let m =
        resolve_redefinitions(&adm, "m.adm", &mut acf, "r.acf").unwrap_or_else(|e| panic!("{e}"));
    let r = m.function_requests.iter().find(|r| r.id == 3).unwrap();
    assert_eq!(r.components[1].as_deref(), Some("DX(0201)"));
    assert_eq!(r.components[2].as_deref(), Some("DY(0201)*2"));
    assert_eq!(r.components[7].as_deref(), Some("TIME"));
    for (text, want) in [
        (
            "\nREQUEST/4, F2 = 1\n",
            "r.acf:2:1: REQUEST/4: REQUEST/4 is a DISPLACEMENT, VELOCITY, ACCELERATION or FORCE request; F2 … F8 respecify the components of a function request (REQUEST/4, F1 = …, …)",
        ),
        (
            "\nREQUEST/9, F2 = 1\n",
            "r.acf:2:1: REQUEST/9: REQUEST/9 does not exist in the dataset, so it cannot be redefined",
        ),
        (
            "\nsim/stat\nMOTION/5, FUNCTION = 2\n",
            "r.acf:3:1: MOTION/5: redefining a VELOCITY or ACCELERATION motion after a SIMULATE is not supported: its displacement is integrated from ICDISP (and ICVEL) at t = 0, so it would not continue from the current displacement (give the command before the first SIMULATE)",
        ),
        (
            "\nMOTION/5, DISPLACEMENT, ICDISP = 1\n",
            "r.acf:2:25: MOTION/5: ICDISP applies to a VELOCITY or ACCELERATION motion",
        ),
    ] {
        let mut acf = read_acf_str(text, "r.acf").unwrap_or_else(|e| panic!("{text}: {e}"));
        let e = resolve_redefinitions(&adm, "m.adm", &mut acf, "r.acf").unwrap_err();
        assert_eq!(e.to_string(), want, "{text}");
    }
}
