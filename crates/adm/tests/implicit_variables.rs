//! Implicit VARIABLEs as read: the VARIABLEs on an algebraic loop (a
//! cycle through VARVAL) become unknowns of the system with their IC as
//! the initial guess; a VARIABLE that only reads a loop stays explicit and
//! is inlined, and VARVAL of a loop variable in a force reads the unknown.

mod common;

use mbsolve_model::{ElementRef, ForceKind, Measure};

const BASE: &str = "title line\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
PART/01, GROUND\n\
MARKER/0101, PART = 01\n\
PART/02, MASS = 2, CM = 0201, IP = 1, 2, 3\n\
MARKER/0201, PART = 02, QP = 1, 0, 0\n";

#[test]
fn loop_variables_become_unknowns_and_readers_stay_explicit() {
    let m = common::build_on(
        BASE,
        "VARIABLE/1, IC = 0.5, FUNCTION = VARVAL(2) + DX(0201)\n\
         VARIABLE/2, FUNCTION = 2*VARVAL(1)*TIME\n\
         VARIABLE/3, FUNCTION = 3*VARVAL(1) + VARVAL(4)\n\
         VARIABLE/4, FUNCTION = 7\n\
         SFORCE/5, TRANSLATIONAL, I = 0201, J = 0101, FUNCTION = -VARVAL(3)\n",
    );
    // VARIABLE/1 and /2 form the loop; /3 reads it and /4 is constant.
    let ids: Vec<_> = m.implicit_variables.iter().map(|v| v.id).collect();
    assert_eq!(ids, [1, 2]);
    assert_eq!(m.implicit_variables[0].ic, 0.5);
    // Adams' default guess when IC is not given is 0.
    assert_eq!(m.implicit_variables[1].ic, 0.0);
    // All four stay in the dataset's VARIABLE list (writers, requests).
    assert_eq!(m.variables.len(), 4);
    // f of VARIABLE/1 reads the unknown v2 and DX; f of VARIABLE/2 reads v1.
    let reads = |k: usize| -> Vec<Measure> { m.implicit_variables[k].function.measures().to_vec() };
    let unknown = |id| Measure::UserState {
        element: ElementRef::Variable(id),
        component: 0,
        rate: false,
    };
    assert!(reads(0).contains(&unknown(2)), "{:?}", reads(0));
    assert_eq!(reads(0).len(), 2, "{:?}", reads(0));
    assert_eq!(reads(1), [unknown(1)]);
    // SFORCE/5 = −(3·v1 + 7): VARIABLE/3 and /4 inlined, v1 an unknown.
    let f = m
        .forces
        .iter()
        .find_map(|f| match &f.kind {
            ForceKind::TranslationalActionReaction { function } => Some(function.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(f.measures(), [unknown(1)]);
    let mut dm = [0.0];
    let (value, _) = f.eval(0.0, &[2.0], &mut dm);
    assert_eq!(value, -13.0);
    assert_eq!(dm[0], -3.0);
}

/// `write_adm` keeps an implicit VARIABLE's initial guess: the written
/// dataset reads back with the same loop and IC.
#[test]
fn written_dataset_keeps_the_initial_guess() {
    let m = common::build_on(
        BASE,
        "VARIABLE/1, IC = 0.75, FUNCTION = COS(VARVAL(1))\nVARIABLE/2, FUNCTION = 2*TIME\n",
    );
    let text = mbsolve_adm::write_adm(&m).unwrap();
    assert!(
        text.contains("VARIABLE/1, IC = 7.5e-1, FUNCTION = COS(VARVAL(1))"),
        "{text}"
    );
    assert!(text.contains("VARIABLE/2, FUNCTION = 2*TIME"), "{text}");
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.implicit_variables.len(), 1);
    assert_eq!(back.implicit_variables[0].id, 1);
    assert_eq!(back.implicit_variables[0].ic, 0.75);
}
