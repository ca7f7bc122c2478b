//! Sensor_Event: read as SENSOR (compare LT read as LE), written back by
//! write_xml, and its refusals by name.

use mbsolve_model::{SensorAction, SensorCompare};
use mbsolve_msxml::{read_xml_str, write_xml};

fn deck(model: &str) -> String {
    // the ground and its marker on line 2; `model` from line 3
    let ground = r#"<Body_Rigid id="1" IsGround="TRUE"/><Reference_Marker id="10" body_id="1"/>"#;
    format!("<MultiBodySystem><Model>\n{ground}\n{model}\n</Model></MultiBodySystem>\n")
}

#[test]
fn sensor_events_are_read_and_written_back() {
    let m = read_xml_str(
        &deck(
            r#"<Sensor_Event id="5" label="stop" type="EXPRESSION" expr="DX(10) - 0.5" value="0.25" compare="LT" error_tol="1e-4" return="TRUE" stepsize="1e-3" dt="0.01" verbose="FALSE"/>
<Sensor_Event id="6" expr="TIME" value="2" compare="GE" error_tol="0." halt="TRUE"/>"#,
        ),
        "deck.xml",
    )
    .unwrap()
    .model;
    let s = &m.sensors[0];
    assert_eq!((s.id, s.function.as_str()), (5, "DX(10) - 0.5"));
    assert_eq!((s.value, s.error), (0.25, 1e-4));
    assert_eq!(s.compare, SensorCompare::Le);
    assert_eq!(s.action, SensorAction::Return);
    assert_eq!((s.stepsize, s.dt), (Some(1e-3), Some(0.01)));
    let h = &m.sensors[1];
    assert_eq!(
        (h.compare, h.action, h.error),
        (SensorCompare::Ge, SensorAction::Halt, 0.0)
    );
    let text = write_xml(&m).unwrap();
    let back = read_xml_str(&text, "back.xml")
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .model;
    assert_eq!(back.sensors, m.sensors);
}

#[test]
fn sensor_event_refusals_are_named() {
    for (model, want) in [
        (
            r#"<Sensor_Event id="5" expr="TIME" value="1" error_tol="0" halt="TRUE" evaluate_id="3"/>"#,
            "deck.xml:3:83: Sensor_Event id=5: evaluate_id = 3: no Sensor_Evaluate with this id (of type EXPRESSION)",
        ),
        (
            r#"<Sensor_Event id="5" expr="TIME" value="1" error_tol="0" halt="TRUE" zero_crossing="1e-3"/>"#,
            "Sensor_Event id=5: zero_crossing: is not supported",
        ),
        (
            r#"<Sensor_Event id="5" expr="TIME" value="1" halt="TRUE"/>"#,
            "Sensor_Event id=5: needs error_tol (its MotionSolve default is not documented in the grammar mbsolve follows)",
        ),
        (
            r#"<Sensor_Event id="5" expr="TIME" value="1" error_tol="0" compare="GT" halt="TRUE"/>"#,
            "Sensor_Event id=5: compare = \"GT\" is not supported (GE, LT, EQ)",
        ),
        (
            r#"<Sensor_Event id="5" expr="TIME" value="1" error_tol="0" halt="TRUE" verbose="TRUE"/>"#,
            "Sensor_Event id=5: verbose = \"TRUE\" is not supported (FALSE: one message per trip)",
        ),
        (
            r#"<Sensor_Event id="5" expr="TIME" value="1" error_tol="0" print="TRUE"/>"#,
            "Sensor_Event id=5: attribute print is not supported",
        ),
    ] {
        let e = read_xml_str(&deck(model), "deck.xml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "for {model}: {e}");
    }
}

/// A sensor with an option that has no verified Sensor_Event attribute is
/// not written, naming the option; EVALUATE is written as a
/// Sensor_Evaluate with the sensor's id and reads back the same.
#[test]
fn sensors_with_adams_only_options_are_not_written() {
    let adm = "m\nPART/1, GROUND\nMARKER/10, PART = 1\nSENSOR/4, FUNCTION = TIME, VALUE = 1, GE, RETURN, EVALUATE = TIME\nEND\n";
    let m = mbsolve_adm::read_adm_str(adm, "m.adm").unwrap();
    let text = write_xml(&m).unwrap();
    assert!(
        text.contains("<Sensor_Evaluate id=\"4\" type=\"EXPRESSION\" expr=\"TIME\"/>"),
        "{text}"
    );
    let back = read_xml_str(&text, "back.xml").unwrap().model;
    assert_eq!(back.sensors, m.sensors);
    let adm = "m\nPART/1, GROUND\nMARKER/10, PART = 1\nSENSOR/4, FUNCTION = TIME, VALUE = 1, GE, RETURN, BISECTION\nEND\n";
    let m = mbsolve_adm::read_adm_str(adm, "m.adm").unwrap();
    let e = write_xml(&m).unwrap_err();
    assert_eq!(
        e,
        "SENSOR/4: BISECTION has no Sensor_Event attribute mbsolve has verified; the sensor is not written to MotionSolve XML"
    );
}
