//! MotionSolve `<Command>` modify commands by id (Motion_Joint,
//! Force_Scalar_TwoBody, Force_SpringDamper, Reference_Variable,
//! Reference_Marker, Body_Rigid), the
//! Param_Transient / Param_Static command forms and Param_Simulation:
//! before the first Simulate they edit the model, after it they switch the
//! running model from the next analysis on.

use mbsolve_model::{Command, ElementRef};
use mbsolve_solver::analysis::{Frame, Simulation};
use mbsolve_solver::commands::CommandRunner;

/// A 1 kg slider on a translational joint along z at z = 1, pushed by
/// Force_Scalar_TwoBody 1 with VARVAL(5) = 2 N; no gravity.
fn slider(commands: &str) -> String {
    slider_with(
        r#"    <Reference_Variable id="5" type="EXPRESSION" expr="2"/>
    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="VARVAL(5)"/>"#,
        commands,
    )
}

/// The slider (ground marker 10 at the origin, body marker 20 at z = 1,
/// the joint) with `model` from line 10 on in place of the force.
fn slider_with(model: &str, commands: &str) -> String {
    format!(
        r#"<MultiBodySystem>
  <Model>
    <Param_Transient integrator_type="DSTIFF" integr_tol="1.0E-8" h_max="0.01"/>
    <Param_Unit force_unit="NEWTON" mass_unit="KILOGRAM" length_unit="METER" time_unit="SECOND"/>
    <Body_Rigid id="1" IsGround="TRUE"/>
    <Reference_Marker id="10" body_id="1"/>
    <Body_Rigid id="2" cg_id="20" im_id="20" mass="1." inertia_xx="1" inertia_yy="1" inertia_zz="1"/>
    <Reference_Marker id="20" body_id="2" pos_z="1."/>
    <Constraint_Joint id="1" type="TRANSLATIONAL" i_marker_id="20" j_marker_id="10"/>
{model}
  </Model>
  <Command>
{commands}
  </Command>
</MultiBodySystem>
"#
    )
}

fn run(text: &str) -> Result<Simulation, String> {
    run_named(text, "c.xml")
}

/// Read a deck and run its commands with its Param_Transient, as `run` does.
fn run_named(text: &str, file: &str) -> Result<Simulation, String> {
    let read = mbsolve_msxml::read_xml_str(text, file).map_err(|e| e.to_string())?;
    let mut sim = Simulation::new(&read.model).unwrap();
    let mut runner = CommandRunner::new(&sim);
    let attrs: Vec<(&str, &str, &str)> = read
        .transient
        .iter()
        .flatten()
        .map(|a| (a.name.as_str(), a.value.as_str(), a.origin.as_str()))
        .collect();
    runner.transient =
        Some(mbsolve_solver::settings::ParamTransient::from_attributes(&attrs).unwrap());
    for c in &read.commands {
        runner
            .execute(&mut sim, c, &mut |_, _, _, _| {})
            .map_err(|e| e.to_string())?;
    }
    Ok(sim)
}

fn worst(frames: &[Frame], z: impl Fn(f64) -> f64) -> f64 {
    frames
        .iter()
        .map(|f| (f.q[2] - z(f.t)).abs())
        .fold(0.0, f64::max)
}

/// val_expression changed to 0 at t = 1: z = 1 + t² then 2 + 2 (t − 1).
#[test]
fn force_expression_modified_between_runs() {
    let sim = run(&slider(
        r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    <Force_Scalar_TwoBody id="1" val_expression="0"/>
    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>"#,
    ))
    .unwrap();
    assert_eq!(sim.frames.len(), 21);
    let w = worst(&sim.frames, |t| {
        if t <= 1.0 {
            1.0 + t * t
        } else {
            2.0 + 2.0 * (t - 1.0)
        }
    });
    assert!(w < 1e-6, "deviation {w:e}");
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("Force_Scalar_TwoBody id=1 modified by the command at c.xml:15:5")));
}

/// Force_Vector_TwoBody and Force_Vector_OneBody expressions changed
/// between runs (both 0 at first, beside the 2 N scalar force): the
/// TwoBody force to −2 at t = 1 cancels it, z = 2 + 2 (t − 1); the OneBody
/// force to 2 at t = 2 restores 2 N, z = 4 + 2 (t − 2) + (t − 2)². (Both
/// are VFORCEs here, so their ids must differ.)
#[test]
fn vector_force_expressions_modified_between_runs() {
    let text = slider(
        r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    <Force_Vector_TwoBody id="4" fz_expression="-2"/>
    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>
    <Force_Vector_OneBody id="5" fz_expression="2"/>
    <Simulate analysis_type="Transient" end_time="3." num_steps="10"/>"#,
    )
    .replace(
        "  </Model>",
        r#"    <Reference_Marker id="11" body_id="1"/>
    <Force_Vector_TwoBody id="4" type="ForceOnly" i_marker_id="20" j_floating_marker_id="11" ref_marker_id="10" fz_expression="0"/>
    <Force_Vector_OneBody id="5" type="ForceOnly" marker_id="20" ref_marker_id="10" fz_expression="0"/>
  </Model>"#,
    );
    let sim = run(&text).unwrap();
    assert_eq!(sim.frames.last().unwrap().t, 3.0);
    let w = worst(&sim.frames, |t| {
        if t <= 1.0 {
            1.0 + t * t
        } else if t <= 2.0 {
            2.0 + 2.0 * (t - 1.0)
        } else {
            4.0 + 2.0 * (t - 2.0) + (t - 2.0).powi(2)
        }
    });
    assert!(w < 1e-6, "deviation {w:e}");
    // A component the element's type does not have is named.
    let e = mbsolve_msxml::read_xml_str(
        &text.replace(r#"fz_expression="-2"/>"#, r#"tz_expression="1"/>"#),
        "c.xml",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "c.xml:18:49: Force_Vector_TwoBody id=4: tz_expression does not apply to type = \"ForceOnly\""
    );
}

/// A Reference_Variable modified before the first Simulate edits the model:
/// VARVAL(5) = 4 from the start, z = 1 + 2 t². After a Simulate it acts
/// from then on: 6 N from t = 1, z = 3 + 4 (t − 1) + 3 (t − 1)².
#[test]
fn variable_modified_before_and_after_the_first_simulate() {
    let sim = run(&slider(
        r#"    <Reference_Variable id="5" expr="4"/>
    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    <Reference_Variable id="5" expr="6"/>
    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>"#,
    ))
    .unwrap();
    let w = worst(&sim.frames, |t| {
        if t <= 1.0 {
            1.0 + 2.0 * t * t
        } else {
            3.0 + 4.0 * (t - 1.0) + 3.0 * (t - 1.0).powi(2)
        }
    });
    assert!(w < 1e-6, "deviation {w:e}");
}

/// A Motion_Joint driving the pendulum's revolute: expr = 0.5 time, then
/// from t = 1 the command's 0.5 + 2 (time − 1); the bob sits at angle θ on
/// its unit circle (kinematic analysis: 0 DOF).
#[test]
fn motion_expression_modified_between_runs() {
    let ex = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(ex.join("pendulum.xml")).unwrap();
    let text = text
        .replace(
            "<Post_Request id=\"1\"",
            "<Motion_Joint id=\"7\" type=\"EXPRESSION\" val_type=\"D\" joint_id=\"1\" motion_type=\"R\" expr=\"0.5*TIME\"/>\n    <Post_Request id=\"1\"",
        )
        .replace(
            r#"<Simulate analysis_type="Transient" end_time="2.5" num_steps="250"/>"#,
            r#"<Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    <Motion_Joint id="7" expr="0.5 + 2*(TIME - 1)"/>
    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>"#,
        );
    let sim = run(&text).unwrap();
    for f in &sim.frames {
        let theta = if f.t <= 1.0 + 1e-12 {
            0.5 * f.t
        } else {
            0.5 + 2.0 * (f.t - 1.0)
        };
        assert!(
            (f.q[0] - theta.cos()).abs() < 1e-8 && (f.q[1] - theta.sin()).abs() < 1e-8,
            "t = {}: ({}, {}) vs θ = {theta}",
            f.t,
            f.q[0],
            f.q[1]
        );
    }
    assert!((sim.frames.last().unwrap().t - 2.0).abs() < 1e-12);
}

/// A Force_SpringDamper's stiffness changed by a command before the run.
#[test]
fn springdamper_values_modified() {
    let text = slider(
        r#"    <Force_SpringDamper id="3" stiffness="9."/>
    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>"#,
    )
    .replace(
        "<Reference_Variable id=\"5\" type=\"EXPRESSION\" expr=\"2\"/>",
        "<Reference_Variable id=\"5\" type=\"EXPRESSION\" expr=\"0\"/>\n    <Force_SpringDamper id=\"3\" type=\"TRANSLATIONAL\" i_marker_id=\"20\" j_marker_id=\"10\" stiffness=\"4.\" damping=\"0.\" length=\"2.\"/>",
    );
    let sim = run(&text).unwrap();
    // k = 9, free length 2, z0 = 1: z = 2 − cos(3 t).
    let w = worst(&sim.frames, |t| 2.0 - (3.0 * t).cos());
    assert!(w < 1e-5, "deviation {w:e}");
}

/// The slider on a spring (k = 9, free length 2, no damping) from z = 1,
/// running `commands`.
fn spring(commands: &str) -> String {
    slider(commands).replace(
        "<Reference_Variable id=\"5\" type=\"EXPRESSION\" expr=\"2\"/>",
        "<Reference_Variable id=\"5\" type=\"EXPRESSION\" expr=\"0\"/>\n    <Force_SpringDamper id=\"3\" type=\"TRANSLATIONAL\" i_marker_id=\"20\" j_marker_id=\"10\" stiffness=\"9.\" damping=\"0.\" length=\"2.\"/>",
    )
}

/// Free oscillation about `centre` at angular frequency `w` from (z1, v1)
/// at t1.
fn oscillation(centre: f64, w: f64, t1: f64, z1: f64, v1: f64) -> impl Fn(f64) -> f64 {
    move |t| centre + (z1 - centre) * (w * (t - t1)).cos() + v1 / w * (w * (t - t1)).sin()
}

/// Runs the spring slider to t = 1 (z = 2 − cos 3t), then `command`, then
/// on to t = 3, and returns the largest deviation from the free
/// oscillation about `centre` at `w` from the state at t = 1.
fn modified_at_one(command: &str, centre: f64, w: f64) -> (f64, Simulation) {
    let sim = run(&spring(&format!(
        r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    {command}
    <Simulate analysis_type="Transient" end_time="3." num_steps="20"/>"#
    )))
    .unwrap();
    assert_eq!(sim.frames.last().unwrap().t, 3.0);
    let (z1, v1) = (2.0 - 3f64.cos(), 3.0 * 3f64.sin());
    let after = oscillation(centre, w, 1.0, z1, v1);
    let d = worst(&sim.frames, |t| {
        if t <= 1.0 {
            2.0 - (3.0 * t).cos()
        } else {
            after(t)
        }
    });
    (d, sim)
}

/// Body_Rigid mass 1 → 4 at t = 1: the oscillation goes on at
/// ω = √(9/4) = 1.5. Before the first Simulate the command changes the
/// model itself: ω = 1.5 from t = 0.
#[test]
fn body_mass_modified() {
    let (w, sim) = modified_at_one(r#"<Body_Rigid id="2" mass="4."/>"#, 2.0, 1.5);
    assert!(w < 1e-5, "deviation {w:e}");
    assert!(
        sim.log
            .iter()
            .any(|l| l.contains("Body_Rigid id=2 modified")),
        "{:?}",
        sim.log
    );
    let sim = run(&spring(
        r#"    <Body_Rigid id="2" mass="4."/>
    <Simulate analysis_type="Transient" end_time="2." num_steps="20"/>"#,
    ))
    .unwrap();
    let w = worst(&sim.frames, |t| 2.0 - (1.5 * t).cos());
    assert!(w < 1e-5, "deviation {w:e}");
}

/// The ground end of the spring (marker 10, also the joint's J marker, so
/// the joint still holds) moved from z = 0 to z = 0.5 at t = 1: the
/// oscillation is about z = 2.5 from then on. Ground markers only: the
/// command's position is global, and a moving body's pose at that time is
/// not known when the deck is read.
#[test]
fn marker_moved_between_runs() {
    let (w, _) = modified_at_one(r#"<Reference_Marker id="10" pos_z="0.5"/>"#, 2.5, 3.0);
    assert!(w < 1e-5, "deviation {w:e}");
    // Before the first Simulate any marker may move (the body frames are
    // still the global frame): body 2's CM marker to z = 1.5 starts the
    // oscillation there, z = 2 − 0.5 cos 3t.
    let sim = run(&spring(
        r#"    <Reference_Marker id="20" pos_z="1.5"/>
    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>"#,
    ))
    .unwrap();
    let w = worst(&sim.frames, |t| 2.0 - 0.5 * (3.0 * t).cos());
    assert!(w < 1e-5, "deviation {w:e}");
}

fn read_err(commands: &str) -> String {
    mbsolve_msxml::read_xml_str(&slider(commands), "c.xml")
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_modify_commands_are_named() {
    assert_eq!(
        read_err(r#"    <Force_Scalar_TwoBody id="9" val_expression="0"/>"#),
        "c.xml:14:5: Force_Scalar_TwoBody id=9: no Force_Scalar_TwoBody with id 9 in the model"
    );
    assert_eq!(
        read_err(r#"    <Force_Scalar_TwoBody id="1" i_marker_id="10"/>"#),
        "c.xml:14:47: Force_Scalar_TwoBody id=1: attribute i_marker_id cannot be changed by a command (it can change: val_expression)"
    );
    assert_eq!(
        read_err(r#"    <Force_Scalar_TwoBody val_expression="0"/>"#),
        "c.xml:14:5: Force_Scalar_TwoBody: a modify command needs the id of the element it changes"
    );
    let simulate = r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>"#;
    for (command, want) in [
        (
            r#"    <Force_Bushing id="2" kx="3"/>"#.to_string(),
            "c.xml:14:5: Force_Bushing id=2: <Force_Bushing> as a command is not supported yet (modify commands: Motion_Joint, Motion_Marker, Force_Scalar_TwoBody, Force_SpringDamper, Force_Vector_TwoBody, Force_Vector_OneBody, Reference_Variable, Reference_Marker, Reference_Array, Body_Rigid, Sensor_Event)",
        ),
        (
            r#"    <Post_Request id="1" comment="x"/>"#.to_string(),
            "c.xml:14:5: Post_Request id=1: <Post_Request> as a command is not supported: the result file's columns are fixed when the run starts",
        ),
        (
            r#"    <Body_Rigid id="2" cg_id="10"/>"#.to_string(),
            "c.xml:14:31: Body_Rigid id=2: attribute cg_id cannot be changed by a command (it can change: mass, inertia_xx, inertia_yy, inertia_zz, inertia_xy, inertia_xz, inertia_yz)",
        ),
        (
            r#"    <Reference_Marker id="10" body_id="2"/>"#.to_string(),
            "c.xml:14:40: Reference_Marker id=10: attribute body_id cannot be changed by a command (it can change: pos_x, pos_y, pos_z, a00, a01, a02, a10, a11, a12, a20, a21, a22)",
        ),
        // Marker 20 is on the moving body 2.
        (
            format!("{simulate}\n    <Reference_Marker id=\"20\" pos_z=\"3.\"/>"),
            "c.xml:15:5: Reference_Marker id=20: marker 20 is on Body_Rigid 2: after a Simulate only markers on ground can be moved (the command's position is global, and where the body is then is known only while running)",
        ),
        (
            r#"    <Reference_Marker id="10" a00="0." a10="1." a20="0."/>"#.to_string(),
            "c.xml:14:5: Reference_Marker id=10: the orientation needs the x axis (a00 a10 a20) and the z axis (a02 a12 a22)",
        ),
        // x and z along the same line: not a rotation.
        (
            r#"    <Reference_Marker id="10" a00="0." a10="1." a20="0." a02="0." a12="1." a22="0."/>"#.to_string(),
            "c.xml:14:5: Reference_Marker id=10: the direction cosines a00…a22 are not a rotation (orthonormality off by 1.0e0)",
        ),
    ] {
        assert_eq!(read_err(&command), want, "for {command}");
    }
    // An expression naming a missing marker, after a Simulate: the error
    // points into the command.
    assert_eq!(
        read_err(
            r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    <Force_Scalar_TwoBody id="1" val_expression="DZ(99)"/>"#
        ),
        "c.xml:15:50: Force_Scalar_TwoBody id=1: DZ(99): MARKER 99 does not exist"
    );
    assert_eq!(
        read_err(r#"    <Param_Simulation constr_tol="1e-12"/>"#),
        "c.xml:14:35: Param_Simulation: constr_tol = 1e-12 is tighter than the 1e-10 to which mbsolve assembles constraints; not supported"
    );
    assert_eq!(
        read_err(r#"    <Param_Simulation implicit_diff_tol="1e-6"/>"#),
        "c.xml:14:42: Param_Simulation: attribute implicit_diff_tol is not supported"
    );
}

/// Param_Transient as a command: merged with the deck's attributes and
/// validated when it runs, naming the attribute and where it was written;
/// Param_Simulation with a constr_tol mbsolve meets is accepted.
#[test]
fn param_commands() {
    let e = run(&slider(
        r#"    <Param_Simulation constr_tol="1e-8"/>
    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    <Param_Transient integr_tol="-1"/>
    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>"#,
    ))
    .err()
    .unwrap();
    assert_eq!(
        e,
        "c.xml:16:34: Param_Transient: integr_tol = -1 must be > 0"
    );
    let sim = run(&slider(
        r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>
    <Param_Transient h_max="0.001"/>
    <Param_Static max_num_iter="77"/>
    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>"#,
    ))
    .unwrap();
    assert!(sim.log.iter().any(|l| l.contains(
        "Param_Transient command: integrator_type = DSTIFF, integr_tol = 1.0E-8, h_max = 0.001"
    )));
    assert_eq!(sim.model.equilibrium.max_num_iter, Some(77));
}

/// The MotionSolve spelling: `<Deactivate>` of the
/// pendulum's joint between two Transient runs; the reader reports an
/// unknown id with its line.
#[test]
fn xml_deactivate_runs_and_bad_ids_are_named() {
    let ex = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(ex.join("pendulum.xml")).unwrap();
    let text = text.replace(
        r#"<Simulate analysis_type="Transient" end_time="2.5" num_steps="250"/>"#,
        r#"<Simulate analysis_type="Transient" end_time="0.5" num_steps="50"/>
    <Deactivate element_type="Constraint_Joint" element_id="1"/>
    <Simulate analysis_type="Transient" end_time="1.0" num_steps="50"/>"#,
    );
    let read = mbsolve_msxml::read_xml_str(&text, "p.xml").unwrap();
    assert_eq!(
        read.commands[1],
        Command::Activate {
            element: ElementRef::Joint(1),
            active: false,
            origin: "p.xml:23:5".into(),
        }
    );
    let sim = run_named(&text, "p.xml").unwrap();
    let s = sim
        .frames
        .iter()
        .find(|f| (f.t - 0.5).abs() < 1e-9)
        .unwrap()
        .clone();
    let last = sim.frames.last().unwrap();
    let want_y = s.q[1] + s.u[1] * 0.5 - 0.5 * 9.81 * 0.25;
    assert!(
        (last.q[1] - want_y).abs() < 1e-5,
        "{} vs {want_y}",
        last.q[1]
    );
    let bad = text.replace(r#"element_id="1"/>"#, r#"element_id="7"/>"#);
    let e = mbsolve_msxml::read_xml_str(&bad, "p.xml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.xml:23:61: Deactivate: no Constraint_Joint with id 7 in the model"
    );
    let bad = text.replace(r#""Constraint_Joint""#, r#""Control_Diff""#);
    let e = mbsolve_msxml::read_xml_str(&bad, "p.xml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.xml:23:31: Deactivate: element_type = \"Control_Diff\" cannot be switched (supported: Constraint_Joint, Constraint_Jprim, Motion_Joint, Motion_Marker, Force_Scalar_TwoBody, Force_SpringDamper, Force_Bushing, Force_Field, Force_Beam)"
    );
}

/// `read_err` for a slider with `model` in place of its force.
fn read_err_with(model: &str, commands: &str) -> String {
    mbsolve_msxml::read_xml_str(&slider_with(model, commands), "c.xml")
        .unwrap_err()
        .to_string()
}

const SIM1: &str = r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>"#;
const SIM2: &str = r#"    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>"#;

/// A linear Control_StateEqn x' = 0·x + 0·u, y = x, starting from its IC
/// array (Reference_Array 7 = 2): the force y pushes the slider. The
/// command before the first Simulate sets the IC to 1: z = 1 + t²/2.
/// After a Simulate nothing reads an IC array any more (the states start
/// from it once), so the command is refused there, by name.
#[test]
fn reference_array_modified_before_the_first_simulate() {
    let model = r#"    <Reference_Variable id="4" type="EXPRESSION" expr="0"/>
    <Reference_Array id="6" type="U" num_element="1">4</Reference_Array>
    <Reference_Array id="7" type="IC" num_element="1">2.</Reference_Array>
    <Reference_Array id="8" type="X" num_element="1"/>
    <Reference_Array id="9" type="Y" num_element="1"/>
    <Reference_Matrix id="51" nrow="1" ncol="1">0.</Reference_Matrix>
    <Reference_Matrix id="53" nrow="1" ncol="1">1.</Reference_Matrix>
    <Control_StateEqn id="1" type="LINEAR" x_array_id="8" u_array_id="6" y_array_id="9" ic_array_id="7"
       a_matrix_id="51" b_matrix_id="51" c_matrix_id="53" d_matrix_id="51"/>
    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="ARYVAL(9, 1)"/>"#;
    let unchanged = run(&slider_with(model, SIM1)).unwrap();
    let w = worst(&unchanged.frames, |t| 1.0 + t * t);
    assert!(w < 1e-6, "{w:e}");
    let changed = run(&slider_with(
        model,
        &format!("    <Reference_Array id=\"7\" type=\"IC\" num_element=\"1\">1.</Reference_Array>\n{SIM1}"),
    ))
    .unwrap();
    let w = worst(&changed.frames, |t| 1.0 + 0.5 * t * t);
    assert!(w < 1e-6, "{w:e}");
    for (command, want) in [
        (
            format!("{SIM1}\n    <Reference_Array id=\"7\" num_element=\"1\">1.</Reference_Array>"),
            "c.xml:23:5: Reference_Array id=7: after a Simulate nothing reads an IC array's values (the control states start from them once); a command can change them before the first Simulate only",
        ),
        (
            r#"    <Reference_Array id="7" type="RESTART" num_element="1">1.</Reference_Array>"#.to_string(),
            "c.xml:22:35: Reference_Array id=7: type = \"RESTART\" is not supported (integrator restarts and output times from an array are not run; IC only)",
        ),
        (
            r#"    <Reference_Array id="7" type="U" num_element="1">1.</Reference_Array>"#.to_string(),
            "c.xml:22:35: Reference_Array id=7: type = \"U\" must be IC (a command changes an IC array's values)",
        ),
        (
            r#"    <Reference_Array id="6" num_element="1">5</Reference_Array>"#.to_string(),
            "c.xml:22:5: Reference_Array id=6: Reference_Array 6 is of type U: a command changes the values of an IC array only",
        ),
        (
            r#"    <Reference_Array id="7" num_element="1"/>"#.to_string(),
            "c.xml:22:5: Reference_Array id=7: gives no values (the new values are the element's text)",
        ),
        (
            r#"    <Reference_Array id="7">1. 2.</Reference_Array>"#.to_string(),
            "c.xml:12:52: Reference_Array id=7: num_element = 1 but 2 values are given",
        ),
    ] {
        assert_eq!(read_err_with(model, &command), want, "{command}");
    }
}

/// A Sensor_Event halting at z ≥ 10 (never reached) is changed to z ≥ 3
/// at t = 1: the run halts at 1 + t² = 3, t = √2.
#[test]
fn sensor_event_modified_between_runs() {
    let model = r#"    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="2"/>
    <Sensor_Event id="4" type="EXPRESSION" expr="DZ(20, 10)" value="10." compare="GE" error_tol="1e-8" halt="TRUE"/>"#;
    let commands = format!("{SIM1}\n    <Sensor_Event id=\"4\" value=\"3.\"/>\n{SIM2}");
    let sim = run(&slider_with(model, &commands)).unwrap();
    let last = sim.frames.last().unwrap();
    assert!(sim.halted);
    assert!(
        (last.t - 2f64.sqrt()).abs() < 1e-5,
        "halted at t = {}",
        last.t
    );
    assert!((last.q[2] - 3.0).abs() < 1e-5, "z = {}", last.q[2]);
    assert_eq!(
        read_err_with(model, r#"    <Sensor_Event id="4" halt="FALSE"/>"#),
        "c.xml:14:32: Sensor_Event id=4: attribute halt cannot be changed by a command (it can change: type, expr, compare, value, error_tol, verbose)"
    );
}

/// Sensor_Evaluate 2 (TIME) serves Sensor_Event 3 (z ≥ 2); the force
/// 2 − SENVAL(2) drops to 1 N when the sensor trips at t = 1:
/// z = 1 + t², then 2 + 2 (t − 1) + (t − 1)²/2.
#[test]
fn sensor_evaluate_is_read_by_senval_with_its_own_id() {
    let model = r#"    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="2 - SENVAL(2)"/>
    <Sensor_Evaluate id="2" type="EXPRESSION" expr="TIME"/>
    <Sensor_Event id="3" type="EXPRESSION" expr="DZ(20, 10)" value="2." compare="GE" error_tol="1e-9" evaluate_id="2"/>"#;
    let text = slider_with(model, SIM2);
    let m = mbsolve_msxml::read_xml_str(&text, "c.xml").unwrap().model;
    assert_eq!(m.sensors.len(), 1);
    assert_eq!(
        (m.sensors[0].id, m.sensors[0].evaluate.as_deref()),
        (2, Some("TIME"))
    );
    let sim = run(&text).unwrap();
    let w = worst(&sim.frames, |t| {
        if t <= 1.0 {
            1.0 + t * t
        } else {
            2.0 + 2.0 * (t - 1.0) + 0.5 * (t - 1.0) * (t - 1.0)
        }
    });
    assert!(w < 1e-5, "{w:e}");
    // Written back: a Sensor_Evaluate with the sensor's id.
    let back = mbsolve_msxml::read_xml_str(&mbsolve_msxml::write_xml(&m).unwrap(), "back.xml")
        .unwrap()
        .model;
    assert_eq!(back.sensors, m.sensors);
    let event = |id: u32, eval: u32| {
        format!(
            r#"    <Sensor_Event id="{id}" expr="TIME" value="5" error_tol="0" halt="TRUE" evaluate_id="{eval}"/>"#
        )
    };
    let evaluate = r#"    <Sensor_Evaluate id="2" type="EXPRESSION" expr="TIME"/>"#;
    for (model, want) in [
        (
            format!("{evaluate}\n{}\n{}", event(3, 2), event(4, 2)),
            "c.xml:11:87: Sensor_Event id=3: evaluate_id = 2: Sensor_Event 4 names the same Sensor_Evaluate; mbsolve keeps one SENVAL per sensor, so each Sensor_Evaluate may serve one Sensor_Event",
        ),
        (
            format!("{evaluate}\n{}\n{}", event(3, 2), event(2, 9)),
            "c.xml:11:87: Sensor_Event id=3: evaluate_id = 2: mbsolve gives this sensor the Sensor_Evaluate's id (SENVAL reads it), and Sensor_Event 2 already has it",
        ),
        (
            r#"    <Sensor_Evaluate id="2" type="USERSUB" expr="TIME"/>"#.to_string(),
            "c.xml:10:35: Sensor_Evaluate id=2: type = \"USERSUB\" is not supported (EXPRESSION; a user subroutine cannot run)",
        ),
        (
            r#"    <Sensor_Evaluate id="2" type="EXPRESSION"/>"#.to_string(),
            "c.xml:10:5: Sensor_Evaluate id=2: needs expr",
        ),
    ] {
        let e = read_err_with(&model, "");
        assert!(e.starts_with(want), "{model}\n{e}");
    }
}

/// v = 0.5 cos v (an implicit Reference_Variable, guess ic = 0.4) pushes
/// the slider: z = 1 + v t²/2 with v the fixed point. `ic` is kept by
/// both writers; is_implicit = TRUE (a residual form) is refused.
#[test]
fn reference_variable_ic_is_the_implicit_guess() {
    let model = r#"    <Reference_Variable id="5" type="EXPRESSION" ic="0.4" expr="0.5 * COS(VARVAL(5))"/>
    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="VARVAL(5)"/>"#;
    let text = slider_with(model, SIM1);
    let m = mbsolve_msxml::read_xml_str(&text, "c.xml").unwrap().model;
    assert_eq!(m.implicit_variables.len(), 1);
    assert_eq!(m.implicit_variables[0].ic, 0.4);
    let mut v = 0.4f64;
    for _ in 0..200 {
        v = 0.5 * v.cos();
    }
    let sim = run(&text).unwrap();
    let w = worst(&sim.frames, |t| 1.0 + 0.5 * v * t * t);
    assert!(w < 1e-6, "{w:e}");
    let x = mbsolve_msxml::read_xml_str(&mbsolve_msxml::write_xml(&m).unwrap(), "back.xml")
        .unwrap()
        .model;
    let a = mbsolve_adm::read_adm_str(&mbsolve_adm::write_adm(&x).unwrap(), "back.adm").unwrap();
    for back in [&x, &a] {
        assert_eq!(back.implicit_variables.len(), 1);
        assert_eq!(back.implicit_variables[0].ic, 0.4);
    }
    assert_eq!(
        read_err_with(
            r#"    <Reference_Variable id="5" type="EXPRESSION" is_implicit="TRUE" expr="VARVAL(5) - 1"/>"#,
            ""
        ),
        "c.xml:10:63: Reference_Variable id=5: is_implicit = TRUE is not supported (an expr reading its own VARVAL is solved as v = expr)"
    );
}

/// Force_Vector_TwoBody 3 and Force_Vector_OneBody 3 are different
/// elements (ids are per element type): both push the slider, 1 N + 2 N,
/// z = 1 + 1.5 t²; the OneBody force becomes VFORCE/4. Of different kinds
/// they keep their ids (VFORCE/3 and VTORQUE/3).
#[test]
fn one_body_and_two_body_forces_may_share_an_id() {
    let forces = |one: &str| {
        format!(
            r#"    <Reference_Marker id="12" body_id="1"/>
    <Force_Vector_TwoBody id="3" type="ForceOnly" i_marker_id="20" j_floating_marker_id="12" ref_marker_id="10" fz_expression="1"/>
    <Force_Vector_OneBody id="3" type="{one}" marker_id="20" ref_marker_id="10" {}="2"/>"#,
            if one == "ForceOnly" {
                "fz_expression"
            } else {
                "tz_expression"
            }
        )
    };
    let text = slider_with(&forces("ForceOnly"), SIM1);
    let ids = |text: &str| -> Vec<String> {
        let m = mbsolve_msxml::read_xml_str(text, "c.xml").unwrap().model;
        m.forces.iter().map(|f| f.element().to_string()).collect()
    };
    assert_eq!(ids(&text), ["VFORCE/3", "VFORCE/4"]);
    let sim = run(&text).unwrap();
    let w = worst(&sim.frames, |t| 1.0 + 1.5 * t * t);
    assert!(w < 1e-6, "{w:e}");
    assert_eq!(
        ids(&slider_with(&forces("TorqueOnly"), "")),
        ["VFORCE/3", "VTORQUE/3"]
    );
}

/// is_action_only = TRUE: the force acts on I along J's z axis with no
/// reaction (J = marker 11 on ground at z = 5, z axis up): z = 1 + t². The
/// action-reaction force repels I from J along the line of sight (down):
/// z = 1 − t². Both are written back as they were read.
#[test]
fn action_only_scalar_force_acts_along_j_z() {
    let model = |only: &str| {
        format!(
            r#"    <Reference_Marker id="11" body_id="1" pos_z="5."/>
    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="11" is_action_only="{only}" val_expression="2"/>"#
        )
    };
    for (only, sign) in [("TRUE", 1.0), ("FALSE", -1.0)] {
        let sim = run(&slider_with(&model(only), SIM1)).unwrap();
        let w = worst(&sim.frames, |t| 1.0 + sign * t * t);
        assert!(w < 1e-6, "is_action_only = {only}: {w:e}");
        let m = mbsolve_msxml::read_xml_str(&slider_with(&model(only), ""), "c.xml")
            .unwrap()
            .model;
        let text = mbsolve_msxml::write_xml(&m).unwrap();
        assert_eq!(text.contains("is_action_only=\"TRUE\""), only == "TRUE");
        let back = mbsolve_msxml::read_xml_str(&text, "back.xml")
            .unwrap()
            .model;
        assert_eq!(
            back.forces[0].kind.sforce().map(|(_, r, a)| (r, a)),
            Some((false, only == "TRUE"))
        );
    }
    assert_eq!(
        read_err_with(&model("maybe"), ""),
        "c.xml:11:97: Force_Scalar_TwoBody id=1: is_action_only = \"maybe\" must be TRUE or FALSE"
    );
}

/// A return sensor ends the first Simulate at z = 2 (1 + t² = 2, t = 1);
/// the next Simulate's `duration` = 0.5 continues from there and ends at
/// 1.5, not at the 2.5 the planned end_time of 2 would give.
#[test]
fn duration_continues_from_the_time_a_return_sensor_reached() {
    let model = r#"    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="2"/>
    <Sensor_Event id="4" type="EXPRESSION" expr="DZ(20, 10)" value="2." compare="GE" error_tol="1e-9" return="TRUE"/>"#;
    // The sensor trips only when its condition becomes true, so it does
    // not end the second Simulate at once.
    let commands = format!(
        r#"{SIM2}
    <Simulate analysis_type="Transient" duration="0.5" num_steps="5"/>"#
    );
    let sim = run(&slider_with(model, &commands)).unwrap();
    let last = sim.frames.last().unwrap();
    assert!((last.t - 1.5).abs() < 1e-5, "ended at t = {}", last.t);
    assert!(
        (last.q[2] - (1.0 + 1.5f64.powi(2))).abs() < 1e-5,
        "z = {}",
        last.q[2]
    );
}

/// A Static Simulate with end_time and num_steps runs quasi-statics (it
/// was one static solution with the time span dropped): the slider held by
/// a spring whose free length grows with time, F = −10 (z − 1 − t), is in
/// equilibrium at z = 1 + t at each of the four outputs.
#[test]
fn static_simulate_over_a_time_span_runs_quasi_statics() {
    let sim = run(&slider_with(
        r#"    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="-10*(DZ(20,10) - 1 - TIME)"/>
    <Param_Static method="FIM_S"/>"#,
        r#"    <Simulate analysis_type="Static" end_time="1." num_steps="4"/>"#,
    ))
    .unwrap();
    let timed: Vec<&Frame> = sim.frames.iter().filter(|f| f.t > 0.0).collect();
    assert_eq!(
        timed.len(),
        4,
        "{:?}",
        sim.frames.iter().map(|f| f.t).collect::<Vec<_>>()
    );
    for (k, f) in timed.iter().enumerate() {
        let t = 0.25 * (k + 1) as f64;
        assert!((f.t - t).abs() < 1e-12);
        assert!(
            (f.q[2] - (1.0 + t)).abs() < 1e-6,
            "z = {} at t = {t}",
            f.q[2]
        );
    }
    assert!(
        sim.log
            .iter()
            .any(|l| l.starts_with("SIMULATE/STATIC: FIM_S finished")),
        "{:?}",
        sim.log
    );
}
