//! Element results of the elastic and spring force elements, BUSH, BEAM,
//! FIELD and SPDP (id, jflag, comp, rm), through the whole chain (`.adm` →
//! reader → solver → CSV), against closed-form static loads (Adams:
//! comp 1 force magnitude, 2–4 force x y z, 5 torque magnitude, 6–8
//! torque x y z, in the axes of marker rm; jflag 0 the wrench on I about
//! I, jflag 1 the wrench on J about J).

mod common;

/// Writes `adm` and an `.acf` with `commands`, runs it; the request
/// columns of the first output frame, or the error text.
fn first_frame(name: &str, adm: &str, commands: &str) -> Result<Vec<f64>, String> {
    let d = common::scratch("elres", name);
    let (header, rows, _) = common::run_deck(&d, name, adm, commands)?;
    assert_eq!(header[0], "time");
    Ok(rows[0][1..].to_vec())
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "F{}: {g} vs {w} (tol {tol})", k + 1);
    }
}

/// A 2 kg part hung from ground by a BUSHING (or the same law as a FIELD)
/// at its origin, marker 20; its CM, marker 21, is 0.5 m along x, so
/// the element carries m g = 19.62 N up and the torque 0.5 m g cos θ
/// about z (θ = −0.5 m g / KT ≈ −1e-4: cos θ = 1 − 5e-9). The preload
/// FORCE = 50 along x sets δx = 50/K = 0.05 m, so the reaction torque on
/// J about J is −(T_I + δx F_y) = −(0.5 + 0.05) m g. Marker 30 is ground
/// turned 90° about z: its x axis is ground y, its y axis is −ground x.
const HUNG: &str = "hung part\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
ACCGRAV/JGRAV = -9.81\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
MARKER/30, PART = 1, REULER = 90D, 0D, 0D\n\
PART/2, MASS = 2, CM = 21, IP = 1, 1, 1\n\
MARKER/20, PART = 2\n\
MARKER/21, PART = 2, QP = 0.5, 0, 0\n";

fn hung_requests(f: &str) -> String {
    format!(
        "REQUEST/1, F1 = {f}(1,0,3,0)\\F2 = {f}(1,0,8,0)\\F3 = {f}(1,1,3,0)\\F4 = {f}(1,1,8,0)\\\
         F5 = {f}(1,0,2,30)\\F6 = {f}(1,0,3,30)\\F7 = {f}(1,0,2,0)\\F8 = DX(20,10)\nEND\n"
    )
}

const STATIC: &str = "SIMULATE/STATIC\nSTOP\n";

fn hung_expected() -> [f64; 8] {
    let mg = 2.0 * 9.81;
    [
        mg,
        0.5 * mg,
        -mg,
        -(0.5 + 0.05) * mg,
        mg,  // F·x_30 = F_y
        0.0, // F·y_30 = −F_x
        0.0,
        0.05,
    ]
}

/// Measured (BUSHING and FIELD alike): forces within 2.3e-13 N of the
/// closed form, torques within 4.8e-8 N m (the neglected cos θ).
#[test]
fn bush_on_a_hung_part_equals_its_static_load() {
    let adm = format!(
        "{HUNG}BUSHING/1, I = 20, J = 10, K = 1000, 1000, 1000, KT = 1e5, 1e5, 1e5, \
         C = 10, 10, 10, CT = 10, 10, 10, FORCE = 50, 0, 0\n{}",
        hung_requests("BUSH")
    );
    let got = first_frame("bush", &adm, STATIC).unwrap();
    assert_close(&got, &hung_expected(), 1e-6);
}

/// The same law written as a FIELD (diagonal K, preload 50 along x).
#[test]
fn field_on_a_hung_part_equals_its_static_load() {
    let k = [1e3, 1e3, 1e3, 1e5, 1e5, 1e5];
    let mut m = vec!["0".to_string(); 36];
    for (n, v) in k.iter().enumerate() {
        m[7 * n] = v.to_string();
    }
    let adm = format!(
        "{HUNG}FIELD/1, I = 20, J = 10, K = {}, FORCE = 50, 0, 0, 0, 0, 0\n{}",
        m.join(", "),
        hung_requests("FIELD")
    );
    let got = first_frame("field", &adm, STATIC).unwrap();
    assert_close(&got, &hung_expected(), 1e-6);
}

/// A 10 kg tip mass at the free end (I, 1 m along ground x) of a BEAM
/// clamped at J (ground): the beam carries m g = 98.1 N up on I with no
/// torque about I (the CM is at I) and no axial force; on J it gives −m g
/// and the root moment −L m g about z. Marker 31 is ground turned 90°
/// about x (its y axis is ground z), so torque y in 31 is ground torque z.
/// A VARIABLE reading BEAM() (the root moment over the tip load: −L) is
/// read by the request. Measured: within 2e-14 of the closed forms.
#[test]
fn beam_cantilever_results_equal_the_tip_load() {
    let adm = "BEAM cantilever\n\
        UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
        ACCGRAV/JGRAV = -9.81\n\
        PART/1, GROUND\n\
        MARKER/10, PART = 1\n\
        MARKER/31, PART = 1, REULER = 0D, 90D, 0D\n\
        PART/2, MASS = 10, CM = 20, IP = 1, 1, 1, QG = 1, 0, 0\n\
        MARKER/20, PART = 2\n\
        BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 2e-6, IYY = 1e-6, IZZ = 1e-6, AREA = 1e-4, \
        EMODULUS = 2e11, GMODULUS = 8e10\n\
        VARIABLE/1, FUNCTION = BEAM(1,1,8,0) / BEAM(1,0,3,0)\n\
        REQUEST/1, F1 = BEAM(1,0,3,0)\\F2 = BEAM(1,0,2,0)\\F3 = BEAM(1,0,5,0)\\F4 = BEAM(1,1,3,0)\\\
        F5 = BEAM(1,1,8,0)\\F6 = BEAM(1,1,7,31)\\F7 = BEAM(1,1,1,0)\\F8 = VARVAL(1)\n\
        END\n";
    let got = first_frame("beam", adm, STATIC).unwrap();
    let w = 10.0 * 9.81;
    assert_close(&got, &[w, 0.0, 0.0, -w, -w, -w, w, -1.0], 1e-9);
}

/// SPDP reads the SPRINGDAMPER, not the SFORCE of the same id: at t = 0
/// the spring (K = 100, LENGTH = 1) is stretched to 1.5 m along (0.6,
/// 0.8), at rest, so I gets −100·0.5·(0.6, 0.8) and J the opposite, with
/// no moment about J (the force passes through it).
#[test]
fn spdp_is_the_springdamper_force() {
    let adm = "SPDP\n\
        UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
        PART/1, GROUND\n\
        MARKER/10, PART = 1\n\
        PART/2, MASS = 2, CM = 20, IP = 1, 1, 1, QG = 0.9, 1.2, 0\n\
        MARKER/20, PART = 2\n\
        SPRINGDAMPER/1, TRANSLATIONAL, I = 20, J = 10, K = 100, C = 5, LENGTH = 1\n\
        SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = 7\n\
        REQUEST/1, F1 = SPDP(1,0,1,0)\\F2 = SPDP(1,0,2,0)\\F3 = SPDP(1,0,3,0)\\F4 = SPDP(1,1,2,0)\\\
        F5 = SPDP(1,1,8,0)\\F6 = SFORCE(1,0,1,0)\n\
        END\n";
    let got = first_frame(
        "spdp",
        adm,
        "SIMULATE/DYNAMIC, END = 0.1, DTOUT = 0.1\nSTOP\n",
    )
    .unwrap();
    assert_close(&got, &[50.0, -30.0, -40.0, 30.0, 0.0, 7.0], 1e-12);
}

/// Wrong component, jflag and id (at read time, with file, line and
/// column, as Adams does), and a force function reading a result.
#[test]
fn bad_element_results_are_rejected_by_name() {
    let bushing = "BUSHING/1, I = 20, J = 10, K = 1000, 1000, 1000, KT = 1e5, 1e5, 1e5\n";
    let cases = [
        (
            "REQUEST/1, F1 = BUSH(1,0,9,0)\nEND\n",
            "bad.adm:11:17: REQUEST/1: illegal function expression BUSH(1,0,9,0): BUSH: component must be 1…8 (1 force magnitude, 2–4 force x y z, 5 torque magnitude, 6–8 torque x y z), got 9",
        ),
        (
            "REQUEST/1, F1 = BUSH(1,2,3,0)\nEND\n",
            "bad.adm:11:17: REQUEST/1: illegal function expression BUSH(1,2,3,0): BUSH: jflag must be 0 (I marker) or 1 (J marker), got 2",
        ),
        (
            "REQUEST/1, F1 = BUSH(7,0,3,0)\nEND\n",
            "bad.adm:11:17: REQUEST/1: BUSH(7,0,3,0): BUSHING 7 does not exist",
        ),
        (
            "REQUEST/1, F1 = BEAM(1,0,3,0)\nEND\n",
            "bad.adm:11:17: REQUEST/1: BEAM(1,0,3,0): BEAM 1 does not exist",
        ),
    ];
    for (tail, want) in cases {
        let adm = format!("{HUNG}{bushing}{tail}");
        let err = first_frame("bad", &adm, STATIC).unwrap_err();
        assert!(err.contains(want), "want {want:?} in {err:?}");
    }
}
