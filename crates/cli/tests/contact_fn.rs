//! CONTACT() read by force functions (DIFF, SFORCE), against closed forms.
//! Three 2 kg balls (radius 0.2) on a ground box, IMPACT k = 1e6,
//! exponent 1.5, DAMPING 500 over DMAX 1 mm:
//! - ball 2 rests at the penetration where k δ^1.5 = m g: DIFF/1 integrates
//!   CONTACT − m g (stays 0) and DIFF/2 lags CONTACT with τ = 0.01, so
//!   DIF(2) = m g (1 − e^(−t/τ));
//! - ball 3 is dropped from 5 cm: DIFF/3 integrates CONTACT − m g, which is
//!   the momentum change m (v_z − 0) through the impacts;
//! - ball 4 is pulled down by an SFORCE of half the contact force, so it
//!   rests where CONTACT = 2 m g (k δ^1.5 = 2 m g): the SFORCE's law and
//!   Jacobian read the contact.
//!
//! (The Jacobian columns of CONTACT() are checked in
//! mech/tests/contact_jacobian.rs.)

mod common;

const M: f64 = 2.0;
const G: f64 = 9.81;
const K: f64 = 1e6;
const R: f64 = 0.2;

fn deck() -> String {
    let depth = |f: f64| (f / K).powf(1.0 / 1.5);
    let z2 = R - depth(M * G);
    let z3 = R + 0.05;
    let z4 = R - depth(2.0 * M * G);
    let ball = |p: u32, x: f64, z: f64| {
        format!(
            "PART/{p}, MASS = 2, CM = {p}0, IP = 1, 1, 1\n\
             MARKER/{p}0, PART = {p}, QP = {x}, 0, {z}\n\
             GRAPHICS/{p}, ELLIPSOID, CM = {p}0, XSCALE = 0.4, YSCALE = 0.4, ZSCALE = 0.4\n\
             CONTACT/{c}, IGEOM = {p}, JGEOM = 1, IMPACT, STIFFNESS = 1E6, DAMPING = 500, DMAX = 1E-3, EXPONENT = 1.5\n",
            c = p - 1
        )
    };
    format!(
        "contact in force functions\n\
         UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
         ACCGRAV/KGRAV = -9.81\n\
         PART/1, GROUND\n\
         MARKER/10, PART = 1, QP = -1, -1, -0.5\n\
         MARKER/11, PART = 1, QP = 0.6, 0, 0\n\
         GRAPHICS/1, BOX, CORNER = 10, X = 2, Y = 2, Z = 0.5\n\
         {}{}{}\
         DIFF/1, FUNCTION = CONTACT(1, 0, 4, 0) - 2*9.81\n\
         DIFF/2, FUNCTION = (CONTACT(1, 0, 4, 0) - DIF(2))/0.01\n\
         DIFF/3, FUNCTION = CONTACT(2, 0, 4, 0) - 2*9.81\n\
         SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 40, J = 11, FUNCTION = -0.5*CONTACT(3, 0, 4, 0)\n\
         REQUEST/1, F2 = DIF(1)\\F3 = DIF(2)\\F4 = DIF(3) - 2*VZ(30)\\F5 = CONTACT(3, 0, 4, 0)\\F6 = DZ(40)\\F7 = VZ(30)\n\
         END\n",
        ball(2, -0.6, z2),
        ball(3, 0.0, z3),
        ball(4, 0.6, z4),
    )
}

/// At ERROR 1e-7 over 0.5 s (100 outputs): DIF(1) within 1e-6 N·s of 0,
/// DIF(2) within 1e-4 N of m g (1 − e^(−t/τ)), the impulse DIF(3) within
/// 1e-3 N·s of m v_z (about 2 N·s at impact), ball 4's CONTACT within 1e-4 N
/// of 2 m g and its height unchanged to 1e-9 m.
#[test]
fn contact_in_force_functions_matches_closed_forms() {
    let d = common::scratch("contact", "fn");
    let (h, rows, _) = common::run_deck(
        &d,
        "contact_fn",
        &deck(),
        "integrator/gstiff, error = 1e-7, hmax = 1e-3\nsimulate/dynamic, end = 0.5, steps = 100\nstop\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.len(), 7);
    assert_eq!(rows.len(), 101);
    let z4 = rows[0][5];
    let mut worst = [0.0f64; 5];
    for r in &rows {
        let t = r[0];
        let errs = [
            r[1].abs(),
            (r[2] - M * G * (1.0 - (-t / 0.01).exp())).abs(),
            r[3].abs(),
            (r[4] - 2.0 * M * G).abs(),
            (r[5] - z4).abs(),
        ];
        for (w, e) in worst.iter_mut().zip(errs) {
            *w = w.max(e);
        }
    }
    println!(
        "largest errors {:.2e} {:.2e} {:.2e} {:.2e} {:.2e}",
        worst[0], worst[1], worst[2], worst[3], worst[4]
    );
    for (w, bound) in worst.iter().zip([1e-6, 1e-4, 1e-3, 1e-4, 1e-9]) {
        assert!(w < &bound, "{worst:?}");
    }
    // the dropped ball did hit and rebound (about 1 m/s at impact)
    assert!(rows.iter().any(|r| r[6] < -0.9) && rows.iter().any(|r| r[6] > 0.1));
}

/// What a force function cannot read of CONTACT() is refused by name: the
/// torque components, rm on a moving part, and (for a force element,
/// whose generalized force lives on its I and J parts) a CONTACT between
/// other parts.
#[test]
fn unsupported_contact_reads_are_refused_by_name() {
    let d = common::scratch("contact", "fn_refused");
    let cases = [
        (
            "SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 40, J = 11, FUNCTION = CONTACT(3, 0, 6, 0)\n",
            "CONTACT: torque components (5–8) are not supported yet in a force function",
        ),
        (
            "SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 40, J = 11, FUNCTION = CONTACT(3, 0, 2, 20)\n",
            "CONTACT(3, 0, 2, 20): rm on a moving part is not supported yet in a force function (use rm = 0 or a ground marker)",
        ),
        (
            "SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 40, J = 11, FUNCTION = CONTACT(1, 0, 2, 0)\n",
            "CONTACT(1, …) reads PART/2, which is on neither marker of the element; a force function reading a CONTACT between other parts is not supported yet",
        ),
    ];
    for (k, (sforce, want)) in cases.iter().enumerate() {
        let adm = deck()
            .lines()
            .filter(|l| !l.starts_with("SFORCE/1") && !l.starts_with("REQUEST/1"))
            .map(|l| {
                if l == "END" {
                    format!("{sforce}END")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let e = common::run_deck(
            &d,
            &format!("r{k}"),
            &adm,
            "simulate/dynamic, end = 0.01, steps = 1\nstop\n",
        )
        .err()
        .unwrap_or_else(|| panic!("case {k} ran"));
        assert!(e.contains(want), "case {k}: {e}");
    }
}
