//! Reference_Spline and Reference_String: read as SPLINE and STRING (a
//! Reference_Variable's AKISPL reads the spline), written back by
//! write_xml, and their errors.

use mbsolve_msxml::{read_xml_str, write_xml};

fn deck(model: &str) -> String {
    // the ground and its marker on line 2; `model` from line 3
    let ground = r#"<Body_Rigid id="1" IsGround="TRUE"/><Reference_Marker id="10" body_id="1"/>"#;
    format!("<MultiBodySystem><Model>\n{ground}\n{model}\n</Model></MultiBodySystem>\n")
}

const DATA: &str = r#"  <Reference_Variable id="3" type="EXPRESSION" expr="AKISPL(TIME, 0, 303003)"/>
  <Reference_Spline id="303003" label="ratio" num_x="5" linear_extrap="TRUE">
    -1.0E+00  1.0E+00
     0.0E+00  0.0E+00
     1.0E+00  1.0E+00
     2.0E+00  4.0E+00
     3.0E+00  9.0E+00
  </Reference_Spline>
  <Reference_String id="7" string="prop_files/tire.tpf"/>"#;

#[test]
fn splines_and_strings_are_read_and_written_back() {
    let m = read_xml_str(&deck(DATA), "deck.xml").unwrap().model;
    let s = &m.splines[0];
    assert_eq!(s.id, 303003);
    assert_eq!(s.x, [-1.0, 0.0, 1.0, 2.0, 3.0]);
    assert_eq!(s.y[0], [1.0, 0.0, 1.0, 4.0, 9.0]);
    assert!(s.linear_extrapolate);
    assert_eq!(m.strings[0].text, "prop_files/tire.tpf");
    let text = write_xml(&m).unwrap();
    let back = read_xml_str(&text, "back.xml")
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .model;
    assert_eq!(back.splines, m.splines);
    assert_eq!(back.strings, m.strings);
    assert_eq!(back.variables[0].function, "AKISPL(TIME, 0, 303003)");
}

#[test]
fn spline_errors_are_named() {
    for (model, want) in [
        (
            r#"<Reference_Spline id="5" num_x="3">0 0 1 1 2</Reference_Spline>"#,
            "deck.xml:3:1: Reference_Spline id=5: num_x = 3 needs 6 numbers (x y pairs), found 5",
        ),
        (
            r#"<Reference_Spline id="5" num_x="2" num_z="2">0 0 1 1</Reference_Spline>"#,
            "deck.xml:3:43: Reference_Spline id=5: attribute num_z is not supported",
        ),
        (
            r#"<Reference_Spline id="5" num_x="4">0 0 1 1 2 x 3 3</Reference_Spline>"#,
            "deck.xml:3:1: Reference_Spline id=5: 'x' in the x y pairs is not a number",
        ),
    ] {
        let e = read_xml_str(&deck(model), "deck.xml")
            .unwrap_err()
            .to_string();
        assert_eq!(e, want, "for {model}");
    }
}
