//! GRAPHICS solids and CONTACT from the reader: what is read into the
//! model, and every argument that is not honoured rejected by name with
//! the exact message.

use mbsolve_adm::read_adm_str;
use mbsolve_model::{NormalForce, Shape};

/// Ground with a BOX (GRAPHICS/1), a part with an ELLIPSOID (GRAPHICS/2)
/// and a display-only OUTLINE (GRAPHICS/3). Lines 1–8; a case is line 9.
const BASE: &str = "title\n\
PART/1, GROUND\n\
MARKER/10, PART = 1, QP = -1, -1, -0.5\n\
GRAPHICS/1, BOX, CORNER = 10, X = 2, Y = 2, Z = 0.5\n\
PART/2, MASS = 2, CM = 20, IP = 1, 1, 1\n\
MARKER/20, PART = 2, QP = 0, 0, 0.2\n\
GRAPHICS/2, ELLIPSOID, CM = 20, XSCALE = 0.4, YSCALE = 0.4, ZSCALE = 0.4\n\
GRAPHICS/3, OUTLINE, POINTS = 10, 20\n";

fn deck(contact: &str) -> String {
    format!("{BASE}{contact}\nEND\n")
}

fn error(contact: &str) -> String {
    match read_adm_str(&deck(contact), "m.adm") {
        Ok(_) => panic!("expected an error for {contact:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn contact_and_its_solids_are_read() {
    let m = read_adm_str(
        &deck("CONTACT/4, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 1E5, DAMPING = 10, DMAX = 1E-3, EXPONENT = 1.5, COULOMB_FRICTION = ON, MU_STATIC = 0.4, MU_DYNAMIC = 0.3, STICTION_TRANSITION_VELOCITY = 0.01, FRICTION_TRANSITION_VELOCITY = 0.02"),
        "m.adm",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.contacts.len(), 1);
    let c = &m.contacts[0];
    assert_eq!(
        (c.id, c.igeom.clone(), c.jgeom.clone()),
        (4, vec![2], vec![1])
    );
    assert_eq!(
        c.normal,
        NormalForce::Impact {
            stiffness: 1e5,
            exponent: 1.5,
            damping: 10.0,
            dmax: 1e-3
        }
    );
    let f = c.friction.expect("friction on");
    assert_eq!((f.mu_static, f.mu_dynamic), (0.4, 0.3));
    // only the solids a CONTACT uses become model geometry
    let mut ids: Vec<u32> = m.geometries.iter().map(|g| g.id).collect();
    ids.sort();
    assert_eq!(ids, vec![1, 2]);
    let b = m.geometries.iter().find(|g| g.id == 1).unwrap();
    assert_eq!(
        b.shape,
        Shape::Box {
            x: 2.0,
            y: 2.0,
            z: 0.5
        }
    );
    let p = read_adm_str(
        &deck("CONTACT/1, IGEOM = 2, JGEOM = 1, POISSON, PENALTY = 1E5, RESTITUTION_COEFFICIENT = 0.7"),
        "m.adm",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        p.contacts[0].normal,
        NormalForce::Poisson {
            penalty: 1e5,
            restitution: 0.7,
            normal_trans: 0.1
        }
    );
}

#[test]
fn arguments_not_honoured_are_rejected_by_name() {
    let cases = [
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, IFLIP, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5",
            "m.adm:9:34: CONTACT/1: IFLIP flips the normal of a 2D curve geometry; mbsolve supports 3D solid contact only",
        ),
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, POISSON, PENALTY = 1E5, RESTITUTION_COEFFICIENT = 0.5, STIFFNESS = 1E5",
            "m.adm:9:89: CONTACT/1: STIFFNESS belongs to the IMPACT normal force model",
        ),
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5, COULOMB_FRICTION = SOMETIMES",
            "m.adm:9:120: CONTACT/1: bad COULOMB_FRICTION 'SOMETIMES' (ON, OFF or DYNAMICS_ONLY)",
        ),
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5, MU_STATIC = 0.3",
            "m.adm:9:101: CONTACT/1: MU_STATIC needs COULOMB_FRICTION = ON or DYNAMICS_ONLY",
        ),
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5, STICTION = ON",
            "m.adm:9:112: CONTACT/1: STICTION = ON (a stiction deformation state) is not supported; the friction law is velocity-regularized",
        ),
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, NORMAL_FUNCTION = USER(1)",
            "m.adm:9:34: CONTACT/1: NORMAL_FUNCTION (a user-written contact law) is not supported; use IMPACT or POISSON",
        ),
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 0, EXPONENT = 1.5",
            "m.adm:9:72: CONTACT/1: DMAX must be > 0, found 0",
        ),
        (
            "CONTACT/1, IGEOM = 3, JGEOM = 1, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5",
            "m.adm:9:12: CONTACT/1: IGEOM = 3: there is no solid GRAPHICS/3 (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS or EXTERNAL)",
        ),
        (
            "CONTACT/1, IGEOM = 2, JGEOM = 1, TYPE = CURVE_TO_CURVE, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5",
            "m.adm:9:41: CONTACT/1: TYPE = CURVE_TO_CURVE is not supported (only SOLID_TO_SOLID)",
        ),
    ];
    let mut wrong = Vec::new();
    for (contact, want) in cases {
        let got = error(contact);
        if got != want {
            wrong.push(format!("{contact}\n  got:  {got}\n  want: {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // a solid that a CONTACT uses must be complete; a display-only one need not be
    let broken = "GRAPHICS/5, CYLINDER, CM = 20, LENGTH = 1\n";
    assert!(read_adm_str(&deck(broken), "m.adm").is_ok());
    assert_eq!(
        error(&format!("{broken}CONTACT/1, IGEOM = 5, JGEOM = 1, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5")),
        "m.adm:9:1: GRAPHICS/5: GRAPHICS/5 (used by CONTACT/1): CYLINDER needs RADIUS ="
    );
}

/// IGEOM and JGEOM on one part is no contact: refused naming both solids.
#[test]
fn contact_within_one_part_is_refused() {
    let r = read_adm_str(
        &deck("GRAPHICS/4, ELLIPSOID, CM = 20, XSCALE = 0.1, YSCALE = 0.1, ZSCALE = 0.1\nCONTACT/1, IGEOM = 2, JGEOM = 4, IMPACT, STIFFNESS = 1E5, DAMPING = 1, DMAX = 1E-3, EXPONENT = 1.5"),
        "m.adm",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        mbsolve_model::validate(&r).unwrap_err().to_string(),
        "CONTACT/1 (m.adm:10): IGEOM GRAPHICS/2 and JGEOM GRAPHICS/4 are both on PART/2; a contact acts between two parts"
    );
}
