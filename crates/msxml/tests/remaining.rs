//! Issue 18's remaining MotionSolve XML items, as read and written: a
//! Force_Vector_OneBody and a Force_Vector_TwoBody sharing an id,
//! Sensor_Evaluate, Reference_Variable `ic`, Force_Scalar_TwoBody
//! `is_action_only`, Constraint_General and the Reference_Array /
//! Sensor_Event modify commands, all in tests/data/more.xml (the fuzzer's
//! seed, reader.rs). Their runs against closed forms and their refusals
//! are in crates/cli/tests/msxml_commands.rs.

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_msxml::{read_xml_str, write_xml};

mod common;
use common::vector_forces;

/// Ground with markers 10 and 12, body 2 with marker 20: the start of the
/// vector-force decks below (close with [`END`]).
const BODIES: &str = r#"<MultiBodySystem><Model>
<Body_Rigid id="1" IsGround="TRUE"/><Reference_Marker id="10" body_id="1"/><Reference_Marker id="12" body_id="1"/>
<Body_Rigid id="2" cg_id="20" mass="1" inertia_xx="1" inertia_yy="1" inertia_zz="1"/><Reference_Marker id="20" body_id="2"/>
"#;
const END: &str = "</Model></MultiBodySystem>";

/// `forces` after [`BODIES`] read as the vector forces `want`, and both
/// writers keep them.
fn vector_forces_round_trip(forces: &str, want: &[&str]) {
    let m = read_xml_str(&format!("{BODIES}{forces}{END}"), "v.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    let lines = vector_forces(&m, &[]);
    assert_eq!(lines, want);
    let x = read_xml_str(&write_xml(&m).unwrap(), "back.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    assert_eq!(vector_forces(&x, &[]), lines);
    let a = read_adm_str(&write_adm(&m).unwrap(), "back.adm").unwrap();
    assert_eq!(vector_forces(&a, &[]), lines);
}

/// Both vector forces with id 3 survive: the OneBody one is VFORCE/4 (above
/// every vector force id) with a floating marker on ground above every
/// marker id (21), and both writers keep them.
#[test]
fn one_body_and_two_body_forces_with_one_id_round_trip() {
    vector_forces_round_trip(
        r#"<Force_Vector_OneBody id="3" type="ForceOnly" marker_id="20" ref_marker_id="10" fz_expression="2"/>
<Force_Vector_TwoBody id="3" type="ForceOnly" i_marker_id="20" j_floating_marker_id="12" ref_marker_id="10" fz_expression="1"/>
"#,
        &[
            "VFORCE/4 I=20 JFLOAT=21 on part 1 RM=10 [None, None, Some(\"2\"), None, None, None]",
            "VFORCE/3 I=20 JFLOAT=12 on part 1 RM=10 [None, None, Some(\"1\"), None, None, None]",
        ],
    );
}

/// `adams_id` (the mbsolve extension write_xml adds when a VTORQUE and a
/// VFORCE share an Adams id) sets a Force_Vector_TwoBody's Adams id; a
/// OneBody sharing that Adams id and kind moves above it; on a
/// Force_Vector_OneBody the attribute is refused by name.
#[test]
fn adams_id_keeps_a_vector_forces_adams_id() {
    let two = r#"<Force_Vector_TwoBody id="1" type="ForceOnly" i_marker_id="20" j_floating_marker_id="12" ref_marker_id="10" fx_expression="1"/>
<Force_Vector_TwoBody id="2" adams_id="1" type="TorqueOnly" i_marker_id="20" j_floating_marker_id="12" ref_marker_id="10" tx_expression="3"/>
"#;
    vector_forces_round_trip(
        &format!("{two}<Force_Vector_OneBody id=\"1\" type=\"TorqueOnly\" marker_id=\"20\" ref_marker_id=\"10\" tz_expression=\"5\"/>\n"),
        &[
            "VFORCE/1 I=20 JFLOAT=12 on part 1 RM=10 [Some(\"1\"), None, None, None, None, None]",
            "VTORQUE/1 I=20 JFLOAT=12 on part 1 RM=10 [None, None, None, Some(\"3\"), None, None]",
            "VTORQUE/3 I=20 JFLOAT=21 on part 1 RM=10 [None, None, None, None, None, Some(\"5\")]",
        ],
    );
    let bad = format!(
        "{BODIES}{two}<Force_Vector_OneBody id=\"4\" adams_id=\"7\" type=\"TorqueOnly\" marker_id=\"20\" ref_marker_id=\"10\" tz_expression=\"5\"/>\n{END}"
    );
    let e = read_xml_str(&bad, "bad.xml").err().map(|e| e.to_string());
    assert!(
        e.as_deref()
            .is_some_and(|e| e.contains("attribute adams_id is not supported")),
        "{e:?}"
    );
}

/// tests/data/more.xml holds one of each element above: it reads, and its
/// model survives write_xml.
#[test]
fn more_deck_reads_and_round_trips() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/more.xml");
    let text = std::fs::read_to_string(&path).unwrap();
    let read = read_xml_str(&text, "more.xml").unwrap_or_else(|e| panic!("{e}"));
    let m = &read.model;
    assert_eq!((m.gcons.len(), m.gcons[0].i), (1, 10));
    assert_eq!(m.implicit_variables.len(), 1);
    assert_eq!(m.implicit_variables[0].ic, 0.4);
    assert_eq!(m.sensors.len(), 1);
    assert_eq!(m.sensors[0].evaluate.as_deref(), Some("TIME"));
    assert_eq!(vector_forces(m, &[]).len(), 2);
    assert!(m
        .forces
        .iter()
        .any(|f| f.kind.sforce().is_some_and(|(_, _, only)| only)));
    // The Reference_Array command, before the first Simulate, changed the
    // model; the Sensor_Event one, after it, is a redefinition between
    // the two Simulates.
    assert_eq!(m.arrays.iter().find(|a| a.id == 7).unwrap().numbers, [1.0]);
    assert_eq!(read.commands.len(), 3, "{:?}", read.commands);
    assert!(matches!(
        read.commands[1],
        mbsolve_model::Command::Redefine { .. }
    ));
    let back = read_xml_str(&write_xml(m).unwrap(), "back.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    assert_eq!(vector_forces(&back, &[]), vector_forces(m, &[]));
    assert_eq!(back.sensors, m.sensors);
    assert_eq!(back.gcons[0].i, m.gcons[0].i);
    assert_eq!(back.implicit_variables[0].ic, m.implicit_variables[0].ic);
}
