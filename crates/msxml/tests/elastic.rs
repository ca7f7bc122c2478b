//! Force_Bushing, Force_Field and Force_Beam read as the Adams BUSHING,
//! FIELD and BEAM they mean, and written back by write_xml.

use mbsolve_model::{BeamFormulation, Elastic, ElasticDamping, ElementRef, ForceKind, Model};
use mbsolve_msxml::{read_xml_str, write_xml};

/// Ground with marker 10 and body 2 whose CM marker 20 sits at x = 1,
/// plus `model`.
fn deck(model: &str) -> String {
    let head = concat!(
        "<?xml version=\"1.0\"?>\n<MultiBodySystem>\n<Model>\n",
        "<Reference_Marker id=\"10\" body_id=\"1\" body_type=\"RigidBody\"/>\n",
        "<Reference_Marker id=\"20\" body_id=\"2\" body_type=\"RigidBody\" pos_x=\"1.\"/>\n",
        "<Body_Rigid id=\"1\" IsGround=\"TRUE\"/>\n",
        "<Body_Rigid id=\"2\" cg_id=\"20\" mass=\"2.\" inertia_xx=\"1\" inertia_yy=\"2\" inertia_zz=\"3\"/>\n",
    );
    format!("{head}{model}\n</Model>\n</MultiBodySystem>\n")
}

fn elastic(m: &Model, e: ElementRef) -> &Elastic {
    let f = m.forces.iter().find(|f| f.element() == e).expect("element");
    match &f.kind {
        ForceKind::Elastic(x) => x,
        other => panic!("{e}: {other:?}"),
    }
}

const ELEMENTS: &str = r#"  <Force_Bushing id="1" i_marker_id="20" j_marker_id="10" kx="1" ky="2" kz="3" ktx="4" kty="5" ktz="6" cx="0.1" cy="0.2" cz="0.3" ctx="0.4" cty="0.5" ctz="0.6" preload_x="7" preload_tz="8"/>
  <Force_Field id="1" i_marker_id="20" j_marker_id="10" K11="10" K12="1" K21="1" K22="20" K33="30" K44="4" K55="5" K66="6" K16="0.5" cratio="0.01" length_x="1" preload_ty="2"/>
  <Force_Beam id="1" i_marker_id="20" j_marker_id="10" length="1" E="100" G="40" area="10" ixx="4" iyy="2" izz="3" ASY="1.2" ASZ="1.1" cratio="0.02"/>"#;

const ADAMS: &str = "elastic\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
PART/2, MASS = 2, CM = 20, IP = 1, 2, 3\n\
MARKER/20, PART = 2, QP = 1, 0, 0\n\
BUSHING/1, I = 20, J = 10, K = 1, 2, 3, KT = 4, 5, 6, C = 0.1, 0.2, 0.3, CT = 0.4, 0.5, 0.6\n\
, FORCE = 7, 0, 0, TORQUE = 0, 0, 8\n\
BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, ASY = 1.2, ASZ = 1.1\n\
, EMODULUS = 100, GMODULUS = 40, CRATIO = 0.02\n\
END\n";

#[test]
fn xml_elements_are_the_adams_statements() {
    let x = read_xml_str(&deck(ELEMENTS), "deck.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    let a = mbsolve_adm::read_adm_str(ADAMS, "m.adm").unwrap();
    for e in [ElementRef::Bushing(1), ElementRef::Beam(1)] {
        assert_eq!(elastic(&x, e), elastic(&a, e), "{e}");
    }
    let f = elastic(&x, ElementRef::Field(1));
    // Kij is row i, column j.
    assert_eq!((f.stiffness[(0, 5)], f.stiffness[(5, 0)]), (0.5, 0.0));
    assert_eq!(f.stiffness[(1, 1)], 20.0);
    assert_eq!(f.damping, ElasticDamping::Ratio(0.01));
    assert_eq!((f.reference[0], f.preload[4]), (1.0, 2.0));
}

#[test]
fn writer_round_trip_and_refusals() {
    let x = read_xml_str(&deck(ELEMENTS), "deck.xml").unwrap().model;
    let text = write_xml(&x).unwrap();
    let back = read_xml_str(&text, "back.xml")
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .model;
    for e in [
        ElementRef::Bushing(1),
        ElementRef::Field(1),
        ElementRef::Beam(1),
    ] {
        assert_eq!(elastic(&back, e), elastic(&x, e), "{e}");
    }
    let err = read_xml_str(
        &deck(r#"  <Force_Beam id="2" i_marker_id="20" j_marker_id="10" length="1" E="1" G="1" area="1" ixx="1" iyy="1" izz="1" preload_x="3"/>"#),
        "deck.xml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("preload_x = 3: a preload on a beam is not supported"),
        "{err}"
    );
}

/// MotionSolve's Force_Beam has no formulation attribute (MotionSolve
/// reference, Force_Beam: a Timoshenko beam with small rotational
/// deflections; MS-XML-GRAMMAR.md lists its attributes). One written as if
/// it had Adams' FORMULATION is refused by its name, not read as LINEAR.
#[test]
fn force_beam_formulation_attribute_is_refused_by_name() {
    for attr in ["formulation", "beam_type"] {
        let err = read_xml_str(
            &deck(&format!(r#"  <Force_Beam id="2" i_marker_id="20" j_marker_id="10" length="1" E="1" G="1" area="1" ixx="1" iyy="1" izz="1" {attr}="STRING"/>"#)),
            "deck.xml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.ends_with(&format!("attribute {attr} is not supported")),
            "{err}"
        );
    }
}

/// A BEAM with FORMULATION = NONLINEAR or STRING (mbsolve's own laws)
/// cannot be a Force_Beam, which is the linear beam only: write_xml
/// refuses it naming the element and the formulation; LINEAR is written.
#[test]
fn write_xml_refuses_nonlinear_and_string_beams_by_name() {
    let x = read_xml_str(&deck(ELEMENTS), "deck.xml").unwrap().model;
    for law in [BeamFormulation::Nonlinear, BeamFormulation::String] {
        let mut m = x.clone();
        let f = m
            .forces
            .iter_mut()
            .find(|f| f.element() == ElementRef::Beam(1))
            .unwrap();
        if let ForceKind::Elastic(e) = &mut f.kind {
            e.formulation = law;
        }
        let err = write_xml(&m).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "BEAM/1: FORMULATION = {}: MotionSolve's Force_Beam is the linear beam and has no formulation attribute",
                law.name()
            )),
            "{err}"
        );
    }
    assert!(write_xml(&x).is_ok());
}

/// Constraint_Coupler is the COUPLER with JOINTS, TYPE and SCALES from
/// joint<k>_id, freedom_<k> and coefficients; write_xml writes it back.
#[test]
fn constraint_coupler_is_the_adams_coupler() {
    let joints = r#"  <Reference_Marker id="11" body_id="1" body_type="RigidBody"/>
  <Body_Rigid id="3" cg_id="30" mass="1." inertia_xx="1" inertia_yy="1" inertia_zz="1"/>
  <Reference_Marker id="30" body_id="3" body_type="RigidBody" pos_x="2."/>
  <Reference_Marker id="12" body_id="1" body_type="RigidBody" pos_x="2."/>
  <Constraint_Joint id="1" type="REVOLUTE" i_marker_id="20" j_marker_id="10"/>
  <Constraint_Joint id="2" type="TRANSLATIONAL" i_marker_id="30" j_marker_id="12"/>
  <Constraint_Coupler id="4" joint1_id="1" freedom_1="R" joint2_id="2" freedom_2="T" coefficients="1. 8.5"/>"#;
    let m = read_xml_str(&deck(joints), "deck.xml")
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    use mbsolve_model::CouplerFreedom::{Rotation, Translation};
    assert_eq!(m.couplers.len(), 1);
    assert_eq!(m.couplers[0].id, 4);
    assert_eq!(
        m.couplers[0].joints,
        vec![(1, Rotation, 1.0), (2, Translation, 8.5)]
    );
    let text = write_xml(&m).unwrap();
    let back = read_xml_str(&text, "back.xml").unwrap().model;
    assert_eq!(back.couplers, m.couplers);
}
