//! The MotionSolve XML reader: the examples against their Adams twins,
//! the XML's own conventions (global marker poses, direction cosines,
//! global angular velocities, the inertia frame), the command section, and
//! exact messages for bad decks.

use mbsolve_model::{Command, IntegratorSettings, Model, OutputSpec, SimulateMode};
use mbsolve_msxml::{is_motionsolve_xml, read_xml, read_xml_str};
use std::path::Path;

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn adm(name: &str) -> Model {
    mbsolve_adm::read_adm(&example(name)).unwrap()
}

/// Parts, markers (pose in ground), joints, motions and requests agree.
fn assert_same_model(x: &Model, a: &Model) {
    assert_eq!(x.gravity, a.gravity);
    assert_eq!(x.units, a.units);
    assert_eq!(x.parts.len(), a.parts.len());
    for (p, q) in x.parts.iter().zip(&a.parts) {
        assert_eq!(
            (p.id, p.ground, p.mass, p.cm),
            (q.id, q.ground, q.mass, q.cm)
        );
        assert_eq!(p.inertia, q.inertia, "PART/{}", p.id);
    }
    assert_eq!(x.markers.len(), a.markers.len());
    for m in &x.markers {
        let (g, h) = (
            x.marker_in_ground(m.id).unwrap(),
            a.marker_in_ground(m.id).unwrap(),
        );
        assert!((g.origin - h.origin).norm() < 1e-12, "MARKER/{}", m.id);
        assert!(
            (g.rotation - h.rotation).abs().max() < 1e-12,
            "MARKER/{} axes {} vs {}",
            m.id,
            g.rotation,
            h.rotation
        );
    }
    let joints = |m: &Model| -> Vec<String> {
        m.joints
            .iter()
            .map(|j| format!("{} {:?} {} {}", j.id, j.kind, j.i, j.j))
            .collect()
    };
    assert_eq!(joints(x), joints(a));
    let motions = |m: &Model| -> Vec<String> {
        m.motions
            .iter()
            .map(|j| format!("{} {:?}", j.id, j.target))
            .collect()
    };
    assert_eq!(motions(x), motions(a));
    let requests = |m: &Model| -> Vec<String> {
        m.requests
            .iter()
            .map(|r| {
                format!(
                    "{} {:?} {} {:?} {:?} {}",
                    r.id, r.kind, r.i, r.j, r.rm, r.comment
                )
            })
            .collect()
    };
    assert_eq!(requests(x), requests(a));
}

/// Run both models with the same settings; the largest difference of any
/// coordinate over the run.
fn run_difference(x: &Model, a: &Model, end: f64, steps: u64) -> f64 {
    let s = IntegratorSettings {
        error: Some(1e-7),
        ..Default::default()
    };
    let mut sx = mbsolve_solver::Simulation::new(x).unwrap();
    let mut sa = mbsolve_solver::Simulation::new(a).unwrap();
    sx.dynamic(end, Some(steps), None, &s).unwrap();
    sa.dynamic(end, Some(steps), None, &s).unwrap();
    assert_eq!(sx.frames.len(), sa.frames.len());
    let mut worst = 0.0f64;
    for (f, g) in sx.frames.iter().zip(&sa.frames) {
        for (u, v) in f.q.iter().zip(&g.q) {
            worst = worst.max((u - v).abs());
        }
    }
    worst
}

/// The pendulum and the slider-crank read from XML are the models of their
/// `.adm` twins (marker poses to 1e-12), and run to the same results: the
/// pendulum within 1e-9 (identical models and settings; the difference is
/// round-off in the marker poses), the kinematic slider-crank likewise.
#[test]
fn examples_match_their_adams_twins() {
    for (xml, adm_name, end, steps) in [
        ("pendulum.xml", "pendulum.adm", 1.0, 100),
        ("slider_crank.xml", "slider_crank.adm", 1.0, 100),
    ] {
        let read = read_xml(&example(xml)).unwrap();
        let twin = adm(adm_name);
        assert_same_model(&read.model, &twin);
        let d = run_difference(&read.model, &twin, end, steps);
        println!("{xml}: largest coordinate difference {d:.2e}");
        assert!(d < 1e-9, "{xml}: {d}");
    }
}

#[test]
fn the_command_section_runs_in_order_with_absolute_end_times() {
    let read = read_xml(&example("pendulum.xml")).unwrap();
    assert_eq!(
        read.commands,
        vec![Command::Simulate {
            mode: SimulateMode::Transient,
            output: Some(OutputSpec {
                end: 2.5,
                steps: Some(250),
                dtout: None,
                duration: None
            })
        }]
    );
    // end_time is absolute; duration continues; print_interval defaults
    // to 0.01; Stop (any case) ends the section.
    let text = deck(
        "",
        r#"<Simulate analysis_type="Static" end_time="0"/>
           <Simulate analysis_type="Transient" end_time="2." print_interval="0.1"/>
           <Simulate analysis_type="TRANSIENT" duration="1.5"/>
           <simulate analysis_type="transient" end_time="5"/>
           <stop/>
           <Simulate analysis_type="Transient" end_time="9"/>"#,
    );
    let read = read_xml_str(&text, "deck.xml").unwrap();
    let out = |end: f64, dtout: f64| {
        Some(OutputSpec {
            end,
            steps: None,
            dtout: Some(dtout),
            duration: None,
        })
    };
    assert_eq!(
        read.commands,
        vec![
            Command::Simulate {
                mode: SimulateMode::Static,
                output: None
            },
            Command::Simulate {
                mode: SimulateMode::Transient,
                output: out(2.0, 0.1)
            },
            Command::Simulate {
                mode: SimulateMode::Transient,
                // The run ends 1.5 after the time reached; 3.5 is the plan.
                output: Some(OutputSpec {
                    duration: Some(1.5),
                    ..out(3.5, 0.01).unwrap()
                })
            },
            Command::Simulate {
                mode: SimulateMode::Transient,
                output: out(5.0, 0.01)
            },
        ]
    );
}

/// A minimal deck: ground, one body with its CM marker, plus `model` and
/// `command` inserted.
fn deck(model: &str, command: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<MultiBodySystem>
 <Model>
  <Body_Rigid id="1" IsGround="TRUE"/>
  <Reference_Marker id="10" body_id="1" body_type="RigidBody"/>
  <Body_Rigid id="2" cg_id="20" mass="2." inertia_xx="1" inertia_yy="2" inertia_zz="3"/>
  <Reference_Marker id="20" body_id="2" body_type="RigidBody" pos_x="1."/>
{model}
 </Model>
 <Command>
{command}
 </Command>
</MultiBodySystem>
"#
    )
}

fn error_of(model: &str) -> String {
    read_xml_str(&deck(model, ""), "deck.xml")
        .expect_err("expected an error")
        .to_string()
}

#[test]
fn marker_y_axis_is_z_cross_x_and_poses_are_global() {
    // x axis along global y, z axis along global x: y = z × x = global z.
    let text = deck(
        r#"<Reference_Marker id="21" body_id="2" body_type="RigidBody" pos_x="3" pos_y="-1" pos_z="0.5"
             a00="0" a10="1" a20="0" a02="1" a12="0" a22="0"/>"#,
        "",
    );
    let m = read_xml_str(&text, "deck.xml").unwrap().model;
    let p = m.marker_in_ground(21).unwrap();
    assert!((p.origin - nalgebra::Vector3::new(3.0, -1.0, 0.5)).norm() < 1e-15);
    let want = nalgebra::Matrix3::new(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0);
    assert!((p.rotation - want).abs().max() < 1e-15, "{}", p.rotation);
}

#[test]
fn angular_velocity_is_global_and_inertia_follows_its_marker() {
    // CM marker rotated 90° about z (x_cm = global y); ω given in global
    // axes is stored in CM axes; inertia given about im_id (global axes)
    // is rotated into the CM marker's axes.
    let text = r#"<MultiBodySystem><Model>
      <Body_Rigid id="1" IsGround="TRUE"/>
      <Reference_Marker id="20" body_id="2" a00="0" a10="1" a20="0" a02="0" a12="0" a22="1"/>
      <Reference_Marker id="21" body_id="2"/>
      <Body_Rigid id="2" cg_id="20" im_id="21" mass="1" inertia_xx="1" inertia_yy="2" inertia_zz="3"
         w_ic_x="5" w_ic_x_flag="TRUE" v_ic_y="7" v_ic_y_flag="TRUE" v_ic_z="9" v_ic_z_flag="FALSE"/>
    </Model></MultiBodySystem>"#;
    let m = read_xml_str(text, "deck.xml").unwrap().model;
    let p = m.part(2).unwrap();
    // Global x is the CM marker's −y.
    assert!((p.inertia.ixx - 2.0).abs() < 1e-12 && (p.inertia.iyy - 1.0).abs() < 1e-12);
    assert!((p.inertia.izz - 3.0).abs() < 1e-12);
    // The builder stores ω in ground axes again: global (5, 0, 0).
    assert!((p.angular_velocity - nalgebra::Vector3::new(5.0, 0.0, 0.0)).norm() < 1e-12);
    // v_ic_z has its flag FALSE: not imposed.
    assert_eq!(p.velocity, nalgebra::Vector3::new(0.0, 7.0, 0.0));
}

#[test]
fn names_and_enumerations_match_in_any_case() {
    let text = r#"<multibodysystem><MODEL>
      <body_rigid ID="1" isground="true"/>
      <REFERENCE_MARKER Id="10" BODY_ID="1" body_type="RIGIDBODY"/>
      <Body_Rigid id="2" CG_ID="20" mass="1"/>
      <reference_marker id="20" body_id="2" body_type="rigidbody"/>
      <Constraint_Joint id="1" TYPE="revolute" i_marker_id="20" j_marker_id="10"/>
    </MODEL></multibodysystem>"#;
    let m = read_xml_str(text, "deck.xml").unwrap().model;
    assert_eq!(m.joints.len(), 1);
    assert_eq!(m.joints[0].kind, mbsolve_model::JointKind::Revolute);
}

#[test]
fn ids_are_per_element_type() {
    // Body 2 and joint 2 and request 2: fine. Two joints 2: an error.
    let ok = deck(
        r#"<Constraint_Joint id="2" type="SPHERICAL" i_marker_id="20" j_marker_id="10"/>
           <Post_Request id="2" type="MARKER_DISPLACEMENT" i_marker_id="20"/>"#,
        "",
    );
    assert!(read_xml_str(&ok, "deck.xml").is_ok());
    let e = error_of(
        r#"<Constraint_Joint id="2" type="SPHERICAL" i_marker_id="20" j_marker_id="10"/>
           <Constraint_Joint id="2" type="SPHERICAL" i_marker_id="20" j_marker_id="10"/>"#,
    );
    assert_eq!(
        e,
        "deck.xml:9:12: Constraint_Joint id=2: duplicate id: JOINT/2 is already defined at deck.xml:8"
    );
}

#[test]
fn exact_messages_for_bad_decks() {
    let cases: &[(&str, &str)] = &[
        (
            r#"<Force_Frobnicate id="1"/>"#,
            "deck.xml:8:1: Force_Frobnicate id=1: unknown element <Force_Frobnicate>",
        ),
        (
            r#"<Constraint_Joint id="1" type="REVOLUTE" i_marker_id="20" j_marker_id="10" color="red"/>"#,
            "deck.xml:8:83: Constraint_Joint id=1: attribute color is not supported",
        ),
        (
            r#"<Constraint_Joint id="1" type="HINGE" i_marker_id="20" j_marker_id="10"/>"#,
            "deck.xml:8:32: Constraint_Joint id=1: type = \"HINGE\" is not supported (REVOLUTE, TRANSLATIONAL, SPHERICAL, FIXED, CYLINDRICAL, UNIVERSAL, HOOKE, PLANAR, RACK_PINION, INLINE, INPLANE, ORIENTATION, PARALLEL_AXES, PERPENDICULAR, ATPOINT)",
        ),
        (
            r#"<Constraint_Joint id="1" type="REVOLUTE" i_marker_id="20" j_marker_id="99"/>"#,
            "deck.xml:8:72: Constraint_Joint id=1: J marker 99 does not exist",
        ),
        (
            r#"<Force_Vector_TwoBody id="5" type="ForceAndTorque" i_marker_id="20" j_floating_marker_id="10" ref_marker_id="10" usrsub_param_string="USER(908,30301,30300100)" usrsub_fnc_name="mbdtire"/>"#,
            "deck.xml:8:1: Force_Vector_TwoBody id=5: needs a user subroutine (usrsub_param_string = \"USER(908,30301,30300100)\"), which mbsolve cannot run",
        ),
        (
            r#"<Body_Flexible id="3"/>"#,
            "deck.xml:8:1: Body_Flexible id=3: Body_Flexible is not supported yet",
        ),
        (
            r#"<Reference_Marker id="30" body_id="2" a00="1" a10="1" a20="0" a02="0" a12="0" a22="1"/>"#,
            "deck.xml:8:1: Reference_Marker id=30: the direction cosines a00…a22 are not a rotation (orthonormality off by 1.0e0)",
        ),
        (
            r#"<Motion_Joint id="1" type="EXPRESSION" val_type="V" joint_id="1" motion_type="R" expr="1"/>"#,
            "deck.xml:8:50: Motion_Joint id=1: val_type = \"V\" (velocity or acceleration) is not supported yet: displacement (D) only",
        ),
        (
            r#"<Force_SpringDamper id="1" type="TRANSLATIONAL" i_marker_id="20" j_marker_id="10" stiffness="1e3x"/>"#,
            "deck.xml:8:94: Force_SpringDamper id=1: stiffness = \"1e3x\" is not a number",
        ),
    ];
    for (model, want) in cases {
        assert_eq!(&error_of(model), want, "for {model}");
    }
}

#[test]
fn malformed_xml_and_wrong_roots_are_named() {
    let e = read_xml_str("<MultiBodySystem><Model></MultiBodySystem>", "bad.xml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("bad.xml:1:25: malformed XML: expected 'Model' tag, not 'MultiBodySystem'"),
        "{e}"
    );
    let e = read_xml_str("<Model/>", "bad.xml").unwrap_err().to_string();
    assert_eq!(
        e,
        "bad.xml:1:1: the root element is <Model>; a MotionSolve deck has <MultiBodySystem> with <Model> and <Command> inside"
    );
}

/// Every unsupported element is listed at once, not only the first.
#[test]
fn all_unsupported_elements_are_listed() {
    let e = error_of(
        r#"<Body_Flexible id="3"/>
<Body_Point id="4"/>
<Reference_Curve id="5"/>
<Reference_ParamCurve id="6"/>
<Constraint_PTCV id="7"/>"#,
    );
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 5, "{e}");
    assert!(lines[1].starts_with("deck.xml:9:1: Body_Point id=4"));
    assert!(lines[2].starts_with("deck.xml:10:1: Reference_Curve id=5"));
    assert_eq!(
        lines[3],
        "deck.xml:11:1: Reference_ParamCurve id=6: Reference_ParamCurve is not supported yet"
    );
    assert_eq!(
        lines[4],
        "deck.xml:12:1: Constraint_PTCV id=7: Constraint_PTCV is not supported yet"
    );
}

#[test]
fn readers_are_chosen_by_content() {
    assert!(is_motionsolve_xml(
        "\u{feff}<?xml version=\"1.0\"?>\n<!-- c -->\n<?xml-stylesheet x?><MultiBodySystem hw_version=\"1\">"
    ));
    assert!(is_motionsolve_xml("<multibodysystem>"));
    assert!(!is_motionsolve_xml("pendulum\nUNITS/FORCE = NEWTON"));
    assert!(!is_motionsolve_xml("<?xml version=\"1.0\"?><Model/>"));
}

/// A fixed-seed mutation pass: thousands of byte-level edits of the
/// example decks and of added.xml never panic the reader (each gives a
/// model or an error).
#[test]
fn mutated_decks_never_panic() {
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b"<>/=\"' 0123456789.eE-+aAzZ_!?&;\n";
    // added.xml holds one of each element read since stop 12 (vector
    // forces, contact and its graphics, arrays, matrices, controls).
    let added = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/added.xml");
    // more.xml: the elements read since stop 13 (Constraint_General,
    // is_action_only, shared vector-force ids, Reference_Variable ic,
    // Sensor_Evaluate, Reference_Array and Sensor_Event commands).
    let more = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/more.xml");
    for path in [
        example("pendulum.xml"),
        example("slider_crank.xml"),
        added,
        more,
    ] {
        let base = std::fs::read(path).unwrap();
        for _ in 0..1500 {
            let mut b = base.clone();
            for _ in 0..1 + next() % 4 {
                let k = (next() as usize) % b.len();
                match next() % 3 {
                    0 => b[k] = alphabet[(next() as usize) % alphabet.len()],
                    1 => {
                        b.remove(k);
                    }
                    _ => b.insert(k, alphabet[(next() as usize) % alphabet.len()]),
                }
            }
            let text = String::from_utf8_lossy(&b).into_owned();
            let r = std::panic::catch_unwind(|| read_xml_str(&text, "m.xml").map(|_| ()));
            assert!(r.is_ok(), "panic on:\n{text}");
        }
    }
}

/// A Static Simulate over a time span is a quasi-static simulation (seeds:
/// Param_Static covers "Static and Quasi-static analysis"): end_time after
/// the current time or a duration gives the output range, never dropped;
/// end_time at the current time stays one static solution.
#[test]
fn static_simulate_with_a_time_span_is_quasi_static() {
    let text = deck(
        "",
        r#"<Simulate analysis_type="Static" end_time="0"/>
           <Simulate analysis_type="Static" end_time="1." num_steps="4"/>
           <Simulate analysis_type="Static" duration="0.5" print_interval="0.1"/>"#,
    );
    let read = read_xml_str(&text, "deck.xml").unwrap();
    assert_eq!(
        read.commands,
        vec![
            Command::Simulate {
                mode: SimulateMode::Static,
                output: None
            },
            Command::Simulate {
                mode: SimulateMode::Static,
                output: Some(OutputSpec {
                    end: 1.0,
                    steps: Some(4),
                    dtout: None,
                    duration: None
                })
            },
            Command::Simulate {
                mode: SimulateMode::Static,
                output: Some(OutputSpec {
                    end: 1.5,
                    steps: None,
                    dtout: Some(0.1),
                    duration: Some(0.5)
                })
            },
        ]
    );
}

/// Param_Static (seed 002): max_residual, in the seed's FIM_S example, is
/// read as max_error (the attribute list's residual limit), never beside
/// it; compliance_delta is refused by name (no deck output uses the
/// compliance matrix, so it would be read without effect).
#[test]
fn param_static_max_residual_and_compliance_delta() {
    let read = read_xml_str(
        &deck(
            r#"<Param_Static method="FIM_S" max_residual="1.000E-04" max_imbalance="1.000E-04" max_num_iter="50"/>"#,
            "",
        ),
        "deck.xml",
    )
    .unwrap();
    assert_eq!(read.model.equilibrium.max_error, Some(1e-4));
    assert_eq!(read.model.equilibrium.max_num_iter, Some(50));
    let err = |attrs: &str| {
        read_xml_str(&deck(&format!("<Param_Static {attrs}/>"), ""), "deck.xml")
            .unwrap_err()
            .to_string()
    };
    let both = err(r#"max_residual="1e-4" max_error="1e-3""#);
    assert!(
        both.contains("give max_residual or max_error, not both (max_residual, in the seed's FIM_S example, is max_error)"),
        "{both}"
    );
    let cd = err(r#"compliance_delta="1e-3""#);
    assert!(
        cd.contains("compliance_delta is not supported: no deck output uses the compliance matrix"),
        "{cd}"
    );
}
