//! BUSHING, FIELD and BEAM statements: what the builder makes of their
//! arguments, its exact errors, and the writer's round trip.

mod common;

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::{
    BeamFormulation, Elastic, ElasticDamping, ElasticStatement, ElementRef, ForceKind, Model,
};

const BASE: &str = "elastic\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
PART/2, MASS = 2, CM = 20, IP = 1, 2, 3\n\
MARKER/20, PART = 2, QP = 1, 0, 0\n";

fn elastic(m: &Model, e: ElementRef) -> &Elastic {
    let f = m.forces.iter().find(|f| f.element() == e).expect("element");
    match &f.kind {
        ForceKind::Elastic(x) => x,
        other => panic!("{e}: {other:?}"),
    }
}

const DECK: &str = "BUSHING/1, I = 20, J = 10, K = 1, 2, 3, C = 4, 5, 6, KT = 7, 8, 9\n\
, CT = 10, 11, 12, FORCE = 13, 14, 15, TORQUE = 16, 17, 18\n\
FIELD/1, I = 20, J = 10, K = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18\n\
, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36\n\
, CRATIO = 0.02, LENGTH = 1, 0, 0, 0, 0, 0.1, FORCE = 1, 2, 3, 4, 5, 6\n\
BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, ASY = 1.2\n\
, EMOD = 100, GMOD = 40, CMATRIX = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16\n\
, 17, 18, 19, 20, 21, FORMULATION = LINEAR\n";

/// Ids are per statement type: BUSHING/1, FIELD/1 and BEAM/1 side by side
/// (Adams decks have them). Matrices are read by columns; CMATRIX is the
/// lower half by columns; the BEAM's K is Adams' Timoshenko matrix.
#[test]
fn arguments_become_the_law() {
    let m = common::build_on(BASE, DECK);
    let b = elastic(&m, ElementRef::Bushing(1));
    assert_eq!(b.statement, ElasticStatement::Bushing);
    assert_eq!(
        b.stiffness.diagonal().as_slice(),
        &[1.0, 2.0, 3.0, 7.0, 8.0, 9.0]
    );
    assert_eq!(
        b.damping_matrix().diagonal().as_slice(),
        &[4.0, 5.0, 6.0, 10.0, 11.0, 12.0]
    );
    assert_eq!(b.preload.as_slice(), &[13.0, 14.0, 15.0, 16.0, 17.0, 18.0]);
    let f = elastic(&m, ElementRef::Field(1));
    assert_eq!(f.stiffness[(1, 0)], 2.0, "K by columns");
    assert_eq!(f.stiffness[(0, 1)], 7.0);
    assert_eq!(f.damping, ElasticDamping::Ratio(0.02));
    assert_eq!(f.reference[5], 0.1);
    let beam = elastic(&m, ElementRef::Beam(1));
    let c = beam.damping_matrix();
    assert_eq!(
        (c[(0, 0)], c[(5, 0)], c[(1, 1)], c[(5, 5)]),
        (1.0, 6.0, 7.0, 21.0)
    );
    assert_eq!(c[(0, 5)], 6.0, "symmetric");
    let k = beam.stiffness;
    // L = 1, E = 100, A = 10: EA/L = 1000; P_y = 12·100·3·1.2/(40·10) = 10.8.
    let py: f64 = 12.0 * 100.0 * 3.0 * 1.2 / (40.0 * 10.0);
    assert_eq!(k[(0, 0)], 1000.0);
    assert!((k[(1, 1)] - 12.0 * 100.0 * 3.0 / (1.0 + py)).abs() < 1e-12);
    assert!((k[(5, 5)] - (4.0 + py) * 300.0 / (1.0 + py)).abs() < 1e-12);
    assert!(
        (k[(2, 2)] - 12.0 * 100.0 * 2.0).abs() < 1e-12,
        "ASZ = 0: no shear"
    );
    assert_eq!(k[(3, 3)], 40.0 * 4.0);
    assert_eq!(beam.reference[0], 1.0);
}

/// LINEAR is the default, and Adams reads any abbreviation of it: "LIN"
/// and no FORMULATION give the same beam.
#[test]
fn linear_formulation_is_the_default_and_may_be_abbreviated() {
    let beam = "BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, EMODULUS = 100, GMODULUS = 40";
    let plain = common::build_on(BASE, &format!("{beam}\n"));
    let abbreviated = common::build_on(BASE, &format!("{beam}, FORMULATION = LIN\n"));
    let (a, b) = (
        elastic(&plain, ElementRef::Beam(1)),
        elastic(&abbreviated, ElementRef::Beam(1)),
    );
    assert_eq!(a.stiffness, b.stiffness);
    assert_eq!(a.beam, b.beam);
    // EA/L = 100·10/1: the Timoshenko matrix, not zeros.
    assert_eq!(a.stiffness[(0, 0)], 1000.0);
}

/// NONLINEAR and STRING (mbsolve's own laws), abbreviated as Adams
/// reads them, keep the LINEAR section matrix and record the formulation;
/// the writer gives it back.
#[test]
fn nonlinear_and_string_formulations_are_read_and_written_back() {
    let beam = "BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, EMODULUS = 100, GMODULUS = 40";
    let linear = common::build_on(BASE, &format!("{beam}\n"));
    for (word, law) in [
        ("NONLIN", BeamFormulation::Nonlinear),
        ("NONLINEAR", BeamFormulation::Nonlinear),
        ("STR", BeamFormulation::String),
        ("STRING", BeamFormulation::String),
    ] {
        let m = common::build_on(BASE, &format!("{beam}, FORMULATION = {word}\n"));
        let e = elastic(&m, ElementRef::Beam(1));
        assert_eq!(e.formulation, law, "{word}");
        assert_eq!(e.stiffness, elastic(&linear, ElementRef::Beam(1)).stiffness);
        let text = write_adm(&m).expect("writable");
        let line = text.lines().find(|l| l.starts_with("BEAM/1")).unwrap();
        assert!(
            line.ends_with(&format!("FORMULATION = {}", law.name())),
            "{line}"
        );
        let again = read_adm_str(&text, "again.adm").expect("reads back");
        assert_eq!(elastic(&again, ElementRef::Beam(1)), e);
    }
}

#[test]
fn exact_errors() {
    common::expect_errors(
        BASE,
        &[
            (
                "BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, EMODULUS = 1, GMODULUS = 1, FORMULATION = CABLE\n",
                "m.adm:6:117: BEAM/1: FORMULATION = CABLE: unknown formulation (Adams' BEAM takes LINEAR, NONLINEAR or STRING)",
            ),
            (
                "BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, EMODULUS = 1, GMODULUS = 1, CRATIO = 0.1, CMATRIX = 1\n",
                "m.adm:6:103: BEAM/1: give either CMATRIX or CRATIO, not both",
            ),
            (
                "BEAM/1, I = 20, J = 10, LENGTH = 0, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, EMODULUS = 1, GMODULUS = 1\n",
                "m.adm:6:25: BEAM/1: LENGTH must be positive, found 0",
            ),
            (
                "BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, AREA = 10, EMODULUS = 1, GMODULUS = 1\n",
                "m.adm:6:1: BEAM/1: missing IZZ =",
            ),
            (
                "FIELD/1, I = 20, J = 10, K = 1, 2, 3\n",
                "m.adm:6:26: FIELD/1: KMATRIX takes 36 values, found 3",
            ),
            (
                "FIELD/1, I = 20, J = 10, CRATIO = 0.1\n",
                "m.adm:6:26: FIELD/1: CRATIO multiplies KMATRIX, which is not given (Adams: do not use CRATIO without KMATRIX)",
            ),
            (
                "BUSHING/1, I = 20, J = 10, K = 1, 2\n",
                "m.adm:6:28: BUSHING/1: K takes 3 values, found 2",
            ),
            (
                "BUSHING/1, I = 20, J = 10, K = 1, 2, 3\nBUSHING/1, I = 20, J = 10\n",
                "m.adm:7:1: BUSHING/1: duplicate id: BUSHING/1 is already defined at m.adm:6",
            ),
        ],
    );
}

/// write_adm gives statements that read back to the same elements.
#[test]
fn writer_round_trip() {
    let m = common::build_on(BASE, DECK);
    let text = write_adm(&m).unwrap();
    let back = read_adm_str(&text, "back.adm").unwrap_or_else(|e| panic!("{e}\n{text}"));
    for e in [
        ElementRef::Bushing(1),
        ElementRef::Field(1),
        ElementRef::Beam(1),
    ] {
        assert_eq!(elastic(&back, e), elastic(&m, e), "{e}");
    }
    // A BUSHING with a coupling term is not a BUSHING: refused by name.
    let mut m2 = m.clone();
    if let ForceKind::Elastic(b) = &mut m2.forces[0].kind {
        b.stiffness[(0, 1)] = 1.0;
    }
    let err = write_adm(&m2).unwrap_err();
    assert!(
        err.starts_with("BUSHING/1: a BUSHING takes diagonal stiffness"),
        "{err}"
    );
}

/// FIELD with the reference keywords as FAST2ADAMS writes them: `KMATRIX =`
/// and `CMATRIX =` at the end of a line, six values a line, each line
/// starting with a comma. `C =` is ambiguous (CMATRIX, CRATIO) by Adams'
/// abbreviation rule; KMATRIX defaults to zeros.
#[test]
fn field_reference_keywords_and_generated_layout() {
    let mut rows = String::new();
    for c in 0..6 {
        rows.push(',');
        for r in 0..6 {
            let v = if r == c { 10.0 * (c + 1) as f64 } else { 0.0 };
            rows.push_str(&format!(" {v:.4E},"));
        }
        rows.pop();
        rows.push('\n');
    }
    let deck = format!("FIELD/1\n, I = 20\n, J = 10\n, CMATRIX = \n{rows}, KMATRIX = \n{rows}, LENGTH = 1, 0, 0, 0, 0, 0\n");
    let m = common::build_on(BASE, &deck);
    let f = elastic(&m, ElementRef::Field(1));
    assert_eq!(
        f.stiffness.diagonal().as_slice(),
        &[10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    );
    assert_eq!(f.damping_matrix()[(5, 5)], 60.0);
    assert_eq!(f.damping_matrix()[(0, 5)], 0.0);
    // only damping: KMATRIX defaults to zeros
    let m = common::build_on(
        BASE,
        &format!("FIELD/1, I = 20, J = 10, CMATRIX = \n{rows}"),
    );
    assert_eq!(
        elastic(&m, ElementRef::Field(1)).stiffness,
        nalgebra::Matrix6::zeros()
    );
    let e = read_adm_str(
        &format!("{BASE}FIELD/1, I = 20, J = 10, C = 1\nEND\n"),
        "m.adm",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "m.adm:6:26: FIELD/1: ambiguous keyword abbreviation C (CMATRIX, CRATIO)"
    );
}
