//! Issue 18's remaining MotionSolve XML items: Reference_Array and
//! Sensor_Event as modify commands, Sensor_Evaluate (SENVAL by its id),
//! Reference_Variable `ic`, a Force_Vector_OneBody and a
//! Force_Vector_TwoBody sharing an id, and Force_Scalar_TwoBody
//! `is_action_only`. Each runs against its closed form, round-trips
//! through write_xml, and its refusals are named exactly.

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::{ForceKind, Model};
use mbsolve_msxml::{read_xml_str, write_xml};
use mbsolve_solver::analysis::{Frame, Simulation};
use mbsolve_solver::commands::CommandRunner;

/// A 1 kg slider on a translational joint along z at z = 1 (ground marker
/// 10 at the origin, marker 11 on ground at z = 5), no gravity; `model`
/// adds elements (line 10 on), `commands` fills `<Command>`.
fn slider(model: &str, commands: &str) -> String {
    format!(
        r#"<MultiBodySystem>
  <Model>
    <Param_Transient integrator_type="DSTIFF" integr_tol="1.0E-8" h_max="0.01"/>
    <Body_Rigid id="1" IsGround="TRUE"/>
    <Reference_Marker id="10" body_id="1"/>
    <Reference_Marker id="11" body_id="1" pos_z="5."/>
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

/// Read a deck and run its commands with its Param_Transient.
fn run(text: &str) -> Simulation {
    let read = read_xml_str(text, "r.xml").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&read.model).unwrap_or_else(|e| panic!("{e}"));
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
            .unwrap_or_else(|e| panic!("{e}"));
    }
    sim
}

fn read_err(text: &str) -> String {
    read_xml_str(text, "r.xml").unwrap_err().to_string()
}

/// The largest |z(t) − want(t)| over the frames (z is the slider's third
/// coordinate).
fn worst(frames: &[Frame], want: impl Fn(f64) -> f64) -> f64 {
    frames
        .iter()
        .map(|f| (f.q[2] - want(f.t)).abs())
        .fold(0.0, f64::max)
}

const SIM1: &str = r#"    <Simulate analysis_type="Transient" end_time="1." num_steps="10"/>"#;
const SIM2: &str = r#"    <Simulate analysis_type="Transient" end_time="2." num_steps="10"/>"#;

/// A linear Control_StateEqn x' = 0·x + 0·u, y = x, starting from its
/// IC array (Reference_Array 7 = 2): the force y pushes the slider. The
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
    let unchanged = run(&slider(model, SIM1));
    let w = worst(&unchanged.frames, |t| 1.0 + t * t);
    assert!(w < 1e-6, "{w:e}");
    let changed = run(&slider(
        model,
        &format!("    <Reference_Array id=\"7\" type=\"IC\" num_element=\"1\">1.</Reference_Array>\n{SIM1}"),
    ));
    let w = worst(&changed.frames, |t| 1.0 + 0.5 * t * t);
    assert!(w < 1e-6, "{w:e}");
    for (command, want) in [
        (
            format!("{SIM1}\n    <Reference_Array id=\"7\" num_element=\"1\">1.</Reference_Array>"),
            "r.xml:23:5: Reference_Array id=7: after a Simulate nothing reads an IC array's values (the control states start from them once); a command can change them before the first Simulate only",
        ),
        (
            r#"    <Reference_Array id="7" type="RESTART" num_element="1">1.</Reference_Array>"#.to_string(),
            "r.xml:22:35: Reference_Array id=7: type = \"RESTART\" is not supported (integrator restarts and output times from an array are not run; IC only)",
        ),
        (
            r#"    <Reference_Array id="7" type="U" num_element="1">1.</Reference_Array>"#.to_string(),
            "r.xml:22:35: Reference_Array id=7: type = \"U\" must be IC (a command changes an IC array's values)",
        ),
        (
            r#"    <Reference_Array id="6" num_element="1">5</Reference_Array>"#.to_string(),
            "r.xml:22:5: Reference_Array id=6: Reference_Array 6 is of type U: a command changes the values of an IC array only",
        ),
        (
            r#"    <Reference_Array id="7" num_element="1"/>"#.to_string(),
            "r.xml:22:5: Reference_Array id=7: gives no values (the new values are the element's text)",
        ),
        (
            r#"    <Reference_Array id="7">1. 2.</Reference_Array>"#.to_string(),
            "r.xml:12:52: Reference_Array id=7: num_element = 1 but 2 values are given",
        ),
    ] {
        assert_eq!(read_err(&slider(model, &command)), want, "{command}");
    }
}

/// A Sensor_Event halting at z ≥ 10 (never reached) is changed to z ≥ 3
/// at t = 1: the run halts at 1 + t² = 3, t = √2.
#[test]
fn sensor_event_modified_between_runs() {
    let model = r#"    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="10" val_expression="2"/>
    <Sensor_Event id="4" type="EXPRESSION" expr="DZ(20, 10)" value="10." compare="GE" error_tol="1e-8" halt="TRUE"/>"#;
    let commands = format!("{SIM1}\n    <Sensor_Event id=\"4\" value=\"3.\"/>\n{SIM2}");
    let sim = run(&slider(model, &commands));
    let last = sim.frames.last().unwrap();
    assert!(sim.halted);
    assert!(
        (last.t - 2f64.sqrt()).abs() < 1e-5,
        "halted at t = {}",
        last.t
    );
    assert!((last.q[2] - 3.0).abs() < 1e-5, "z = {}", last.q[2]);
    assert_eq!(
        read_err(&slider(model, r#"    <Sensor_Event id="4" halt="FALSE"/>"#)),
        "r.xml:14:32: Sensor_Event id=4: attribute halt cannot be changed by a command (it can change: type, expr, compare, value, error_tol, verbose)"
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
    let text = slider(model, SIM2);
    let m = read_xml_str(&text, "r.xml").unwrap().model;
    assert_eq!(m.sensors.len(), 1);
    assert_eq!(
        (m.sensors[0].id, m.sensors[0].evaluate.as_deref()),
        (2, Some("TIME"))
    );
    let sim = run(&text);
    let w = worst(&sim.frames, |t| {
        if t <= 1.0 {
            1.0 + t * t
        } else {
            2.0 + 2.0 * (t - 1.0) + 0.5 * (t - 1.0) * (t - 1.0)
        }
    });
    assert!(w < 1e-5, "{w:e}");
    // Written back: a Sensor_Evaluate with the sensor's id.
    let back = read_xml_str(&write_xml(&m).unwrap(), "back.xml")
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
            "r.xml:11:87: Sensor_Event id=3: evaluate_id = 2: Sensor_Event 4 names the same Sensor_Evaluate; mbsolve keeps one SENVAL per sensor, so each Sensor_Evaluate may serve one Sensor_Event",
        ),
        (
            format!("{evaluate}\n{}\n{}", event(3, 2), event(2, 9)),
            "r.xml:11:87: Sensor_Event id=3: evaluate_id = 2: mbsolve gives this sensor the Sensor_Evaluate's id (SENVAL reads it), and Sensor_Event 2 already has it",
        ),
        (
            r#"    <Sensor_Evaluate id="2" type="USERSUB" expr="TIME"/>"#.to_string(),
            "r.xml:10:35: Sensor_Evaluate id=2: type = \"USERSUB\" is not supported (EXPRESSION; a user subroutine cannot run)",
        ),
        (
            r#"    <Sensor_Evaluate id="2" type="EXPRESSION"/>"#.to_string(),
            "r.xml:10:5: Sensor_Evaluate id=2: needs expr",
        ),
    ] {
        let e = read_err(&slider(&model, ""));
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
    let text = slider(model, SIM1);
    let m = read_xml_str(&text, "r.xml").unwrap().model;
    assert_eq!(m.implicit_variables.len(), 1);
    assert_eq!(m.implicit_variables[0].ic, 0.4);
    let mut v = 0.4f64;
    for _ in 0..200 {
        v = 0.5 * v.cos();
    }
    let sim = run(&text);
    let w = worst(&sim.frames, |t| 1.0 + 0.5 * v * t * t);
    assert!(w < 1e-6, "{w:e}");
    let x = read_xml_str(&write_xml(&m).unwrap(), "back.xml")
        .unwrap()
        .model;
    let a = read_adm_str(&write_adm(&x).unwrap(), "back.adm").unwrap();
    for back in [&x, &a] {
        assert_eq!(back.implicit_variables.len(), 1);
        assert_eq!(back.implicit_variables[0].ic, 0.4);
    }
    assert_eq!(
        read_err(&slider(
            r#"    <Reference_Variable id="5" type="EXPRESSION" is_implicit="TRUE" expr="VARVAL(5) - 1"/>"#,
            ""
        )),
        "r.xml:10:63: Reference_Variable id=5: is_implicit = TRUE is not supported (an expr reading its own VARVAL is solved as v = expr)"
    );
}

/// The vector forces as comparable lines (statement/id, markers,
/// components).
fn vector_forces(m: &Model) -> Vec<String> {
    m.forces
        .iter()
        .filter_map(|f| match &f.kind {
            ForceKind::Vector {
                statement,
                jfloat,
                reaction_part,
                components,
            } => Some(format!(
                "{}/{} I={} JFLOAT={jfloat} on {reaction_part} RM={} {:?}",
                statement.name(),
                f.id,
                f.i,
                f.j,
                components
                    .iter()
                    .map(|c| c.as_ref().and_then(|c| c.source()).map(str::to_string))
                    .collect::<Vec<_>>()
            )),
            _ => None,
        })
        .collect()
}

/// Force_Vector_TwoBody 3 and Force_Vector_OneBody 3 are different
/// elements (ids are per element type): both push the slider, 1 N + 2 N,
/// z = 1 + 1.5 t²; the OneBody force becomes VFORCE/4 (above every vector
/// force id) and both survive write_xml and write_adm.
#[test]
fn one_body_and_two_body_forces_may_share_an_id() {
    let model = r#"    <Reference_Marker id="12" body_id="1"/>
    <Force_Vector_TwoBody id="3" type="ForceOnly" i_marker_id="20" j_floating_marker_id="12" ref_marker_id="10" fz_expression="1"/>
    <Force_Vector_OneBody id="3" type="ForceOnly" marker_id="20" ref_marker_id="10" fz_expression="2"/>"#;
    let text = slider(model, SIM1);
    let m = read_xml_str(&text, "r.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    let lines = vector_forces(&m);
    assert_eq!(
        lines,
        vec![
            "VFORCE/3 I=20 JFLOAT=12 on 1 RM=10 [None, None, Some(\"1\"), None, None, None]",
            "VFORCE/4 I=20 JFLOAT=21 on 1 RM=10 [None, None, Some(\"2\"), None, None, None]",
        ]
    );
    let sim = run(&text);
    let w = worst(&sim.frames, |t| 1.0 + 1.5 * t * t);
    assert!(w < 1e-6, "{w:e}");
    let x = read_xml_str(&write_xml(&m).unwrap(), "back.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    assert_eq!(vector_forces(&x), lines);
    let a = read_adm_str(&write_adm(&m).unwrap(), "back.adm").unwrap();
    assert_eq!(vector_forces(&a), lines);
    // Different kinds keep their own ids (VFORCE/3 and VTORQUE/3).
    let kinds = r#"    <Reference_Marker id="12" body_id="1"/>
    <Force_Vector_TwoBody id="3" type="ForceOnly" i_marker_id="20" j_floating_marker_id="12" ref_marker_id="10" fz_expression="1"/>
    <Force_Vector_OneBody id="3" type="TorqueOnly" marker_id="20" ref_marker_id="10" tz_expression="2"/>"#;
    let k = read_xml_str(&slider(kinds, ""), "r.xml").unwrap().model;
    let ids: Vec<String> = k.forces.iter().map(|f| f.element().to_string()).collect();
    assert_eq!(ids, ["VFORCE/3", "VTORQUE/3"]);
}

/// is_action_only = TRUE: the force acts on I along J's z axis with no
/// reaction (J = marker 11 at z = 5, z axis up): z = 1 + t². The
/// action-reaction force repels I from J along the line of sight (down):
/// z = 1 − t².
#[test]
fn action_only_scalar_force_acts_along_j_z() {
    for (only, sign) in [("TRUE", 1.0), ("FALSE", -1.0)] {
        let model = format!(
            r#"    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="11" is_action_only="{only}" val_expression="2"/>"#
        );
        let sim = run(&slider(&model, SIM1));
        let w = worst(&sim.frames, |t| 1.0 + sign * t * t);
        assert!(w < 1e-6, "is_action_only = {only}: {w:e}");
        let m = read_xml_str(&slider(&model, ""), "r.xml").unwrap().model;
        let text = write_xml(&m).unwrap();
        assert_eq!(text.contains("is_action_only=\"TRUE\""), only == "TRUE");
        let back = read_xml_str(&text, "back.xml").unwrap().model;
        assert_eq!(
            back.forces[0].kind.sforce().map(|(_, r, a)| (r, a)),
            Some((false, only == "TRUE"))
        );
    }
    assert_eq!(
        read_err(&slider(
            r#"    <Force_Scalar_TwoBody id="1" type="Force" i_marker_id="20" j_marker_id="11" is_action_only="maybe" val_expression="2"/>"#,
            ""
        )),
        "r.xml:10:97: Force_Scalar_TwoBody id=1: is_action_only = \"maybe\" must be TRUE or FALSE"
    );
}

/// tests/data/more.xml holds one of each element above (the fuzzer's
/// seed, reader.rs): it reads, and its model survives write_xml.
#[test]
fn more_deck_reads_and_round_trips() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/more.xml");
    let text = std::fs::read_to_string(&path).unwrap();
    let read = read_xml_str(&text, "more.xml").unwrap_or_else(|e| panic!("{e}"));
    let m = &read.model;
    assert_eq!(m.gcons.len(), 1);
    assert_eq!(m.implicit_variables.len(), 1);
    assert_eq!(m.sensors.len(), 1);
    assert!(m.sensors[0].evaluate.is_some());
    assert_eq!(vector_forces(m).len(), 2);
    assert!(m
        .forces
        .iter()
        .any(|f| f.kind.sforce().is_some_and(|(_, _, only)| only)));
    // Commands: Simulate, the Sensor_Event modify (the Reference_Array
    // one, before the first Simulate, changed the model), Simulate.
    assert_eq!(m.arrays.iter().find(|a| a.id == 7).unwrap().numbers, [1.0]);
    assert_eq!(read.commands.len(), 3, "{:?}", read.commands);
    let back = read_xml_str(&write_xml(m).unwrap(), "back.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    assert_eq!(vector_forces(&back), vector_forces(m));
    assert_eq!(back.sensors, m.sensors);
    assert_eq!(back.gcons[0].i, m.gcons[0].i);
    assert_eq!(back.implicit_variables[0].ic, m.implicit_variables[0].ic);
}
