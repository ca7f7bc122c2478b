//! FE_PART (TYPE = 3DBEAM) decks run end to end: a straight cantilever of
//! N elements, clamped at node 1 by a FIXED joint on a node marker and
//! loaded at its tip marker (MARKER, FE_PART, NODE_LABEL) by a GFORCE in
//! ground axes. Against closed forms: small-load tip deflection in both
//! bending planes and tip twist (Euler–Bernoulli, Saint-Venant), the
//! elastica at PL²/EI = 2, the first bending frequency, and the decay
//! rate CRATIOK gives. (The element's Jacobian on a curved, damped FE part
//! is in mech/tests/fd_jacobian.rs's kitchen sink.) `write_xml` refuses an
//! FE part by name.

mod common;

use common::{run_deck, scratch};
use std::f64::consts::PI;

/// Section and material of the test beam (SI): E, ν, ρ, A, Iyy, Izz, Jxx.
#[derive(Clone, Copy)]
struct Beam {
    e: f64,
    nu: f64,
    rho: f64,
    area: f64,
    iyy: f64,
    izz: f64,
    jxx: f64,
}

const STEEL: Beam = Beam {
    e: 2e11,
    nu: 0.3,
    rho: 7850.0,
    area: 4e-4,
    iyy: 2e-8,
    izz: 1e-8,
    jxx: 1.5e-8,
};

/// A cantilever of `n` elements of total length 1 along ground x, tip
/// loaded by GFORCE components (FX, FY, FZ, TX, TY, TZ) in ground axes;
/// REQUEST/1 gives the tip's DX, DY, DZ and AX from the clamp.
fn cantilever(n: usize, b: Beam, cratiok: f64, load: [f64; 6]) -> String {
    let labels: Vec<String> = (1..=n + 1).map(|k| k.to_string()).collect();
    let coordinates: Vec<String> = (0..=n)
        .map(|k| format!("{}, {}, 0, 0, 0, 0, 0", k + 1, k as f64 / n as f64))
        .collect();
    let sections: Vec<String> = (0..=n)
        .map(|k| format!("{}, {}, {}, {}, 0, {}", k + 1, b.area, b.iyy, b.izz, b.jxx))
        .collect();
    format!(
        "fe cantilever
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
PART/1, GROUND
MARKER/10, PART = 1
MARKER/99, PART = 1, FLOATING
FE_PART/2, TYPE = 3DBEAM, NODE_LABELS = {labels}
, COORDINATES = {coordinates}
, SECTION = {sections}
, MATERIAL = 1, CRATIOK = {cratiok}
MATERIAL/1, NAME = steel, DENSITY = {rho}, YOUNGS_MODULUS = {e}, POISSONS_RATIO = {nu}
MARKER/11, FE_PART = 2, NODE_LABEL = 1
MARKER/20, FE_PART = 2, NODE_LABEL = {tip}
JOINT/1, FIXED, I = 11, J = 10
GFORCE/1, I = 20, JFLOAT = 99, RM = 10, FX = {fx}\\FY = {fy}\\FZ = {fz}\\TX = {tx}\\TY = {ty}\\TZ = {tz}
REQUEST/1, F2 = DX(20, 10)\\F3 = DY(20, 10)\\F4 = DZ(20, 10)\\F6 = AX(20, 10)
END
",
        labels = labels.join(", "),
        coordinates = coordinates.join(", "),
        sections = sections.join(", "),
        rho = b.rho,
        e = b.e,
        nu = b.nu,
        tip = n + 1,
        fx = load[0],
        fy = load[1],
        fz = load[2],
        tx = load[3],
        ty = load[4],
        tz = load[5],
    )
}

/// The tip's (DX, DY, DZ, AX) rows over time: column k of REQUEST/1.
fn tip_rows(header: &[String], rows: &[Vec<f64>]) -> Vec<(f64, [f64; 4])> {
    let col = |suffix: &str| {
        header
            .iter()
            .position(|h| h.starts_with("request_1") && h.ends_with(suffix))
            .unwrap_or_else(|| panic!("no request_1 column {suffix} in {header:?}"))
    };
    let cols = [col("f2"), col("f3"), col("f4"), col("f6")];
    rows.iter()
        .map(|r| (r[0], [r[cols[0]], r[cols[1]], r[cols[2]], r[cols[3]]]))
        .collect()
}

/// Static equilibrium of `adm` to the force imbalance `imbalance` (N):
/// the tip's (DX, DY, DZ, AX).
fn static_tip(name: &str, adm: &str, imbalance: f64) -> [f64; 4] {
    let d = scratch("fe_part", name);
    let (header, rows, _) = run_deck(
        &d,
        name,
        adm,
        &format!("EQUILIBRIUM/IMBALANCE = {imbalance}, MAXIT = 200\nSIMULATE/STATIC\nSTOP\n"),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    tip_rows(&header, &rows).last().expect("a static frame").1
}

/// Small tip loads (deflection 1.7e-4 L) on 8 elements: the tip deflects
/// by F L³/(3 E Izz) along y, F L³/(3 E Iyy) along z and twists by
/// T L/(G Jxx) with G = E/(2(1+ν)), each to 1e-4 relative (the Hermite
/// element is exact for a tip load; what is left is the geometric
/// nonlinearity, of the order of the deflection, and the solver's
/// tolerance).
#[test]
fn small_tip_loads_give_the_euler_bernoulli_and_torsion_closed_forms() {
    let b = STEEL;
    let g = b.e / (2.0 * (1.0 + b.nu));
    let (f, t) = (1.0, 1.0);
    let y = static_tip(
        "bend_y",
        &cantilever(8, b, 0.0, [0.0, f, 0.0, 0.0, 0.0, 0.0]),
        1e-6,
    );
    let z = static_tip(
        "bend_z",
        &cantilever(8, b, 0.0, [0.0, 0.0, f, 0.0, 0.0, 0.0]),
        1e-6,
    );
    let x = static_tip(
        "twist",
        &cantilever(8, b, 0.0, [0.0, 0.0, 0.0, t, 0.0, 0.0]),
        1e-6,
    );
    let cases = [
        ("DY under FY", y[1], f / (3.0 * b.e * b.izz)),
        ("DZ under FZ", z[2], f / (3.0 * b.e * b.iyy)),
        ("AX under TX", x[3], t / (g * b.jxx)),
    ];
    for (what, got, want) in cases {
        println!("{what}: {got:.9e} against {want:.9e}");
        assert!((got / want - 1.0).abs() < 1e-4, "{what}: {got} vs {want}");
    }
    // No coupling: the y load leaves z and the twist alone.
    assert!(
        y[2].abs() < 1e-9 * y[1].abs() && y[3].abs() < 1e-6 * y[1].abs(),
        "{y:?}"
    );
}

/// TYPE = 2DBEAMXY: the same cantilever held in the XY plane. The in-plane
/// tip load gives the 3DBEAM's Euler–Bernoulli deflection (1e-4); a load
/// out of the plane (FZ) and a twisting torque (TX) move nothing out of
/// it (the nodes' PLANAR joints carry them).
#[test]
fn a_2d_beam_bends_in_its_plane_only() {
    let b = STEEL;
    let deck = cantilever(8, b, 0.0, [0.0, 1.0, 5.0, 2.0, 0.0, 0.0])
        .replace("TYPE = 3DBEAM", "TYPE = 2DBEAMXY");
    let tip = static_tip("planar", &deck, 1e-6);
    let want = 1.0 / (3.0 * b.e * b.izz);
    println!(
        "2D beam: DY {:.9e} against {want:.9e}, DZ {:.3e}, AX {:.3e}",
        tip[1], tip[2], tip[3]
    );
    assert!((tip[1] / want - 1.0).abs() < 1e-4, "{tip:?}");
    assert!(tip[2].abs() < 1e-12 && tip[3].abs() < 1e-12, "{tip:?}");
}

/// The elastica of a cantilever (length 1) under a transverse dead tip
/// load α = PL²/EI (Bisshopp & Drucker 1945), by shooting: θ'' = −α cos θ,
/// θ(0) = 0, θ'(1) = 0 (no moment at the free tip), integrated by RK4 with
/// x' = cos θ, y' = sin θ; the tip (x, y).
fn elastica_tip(alpha: f64) -> (f64, f64) {
    let shoot = |k0: f64| {
        let steps = 20000;
        let h = 1.0 / steps as f64;
        let f = |s: [f64; 4]| [s[1], -alpha * s[0].cos(), s[0].cos(), s[0].sin()];
        let mut s = [0.0, k0, 0.0, 0.0];
        for _ in 0..steps {
            let add = |a: [f64; 4], b: [f64; 4], c: f64| std::array::from_fn(|i| a[i] + c * b[i]);
            let k1 = f(s);
            let k2 = f(add(s, k1, h / 2.0));
            let k3 = f(add(s, k2, h / 2.0));
            let k4 = f(add(s, k3, h));
            s = std::array::from_fn(|i| {
                s[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
            });
        }
        s
    };
    // θ'(0) = α·x_tip lies in (0, α]; θ'(1) rises with θ'(0).
    let (mut lo, mut hi) = (0.0, alpha);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if shoot(mid)[1] < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let s = shoot(0.5 * (lo + hi));
    (s[2], s[3])
}

/// PL²/EI = 2 (tip slope ≈ 46°, deflection ≈ 0.49 L): the tip converges to
/// the elastica with refinement, at better than third order from 2 to 4
/// to 8 elements (the co-rotational element's fourth order), within 1e-5 L
/// at 8. The section's area is large (axial strain P/EA = 2e-7) so that
/// the extensible beam is the elastica's inextensible one. The elastica
/// routine itself gives PL³/(3EI) at α = 1e-4.
#[test]
fn a_large_tip_load_converges_to_the_elastica() {
    let (_, small) = elastica_tip(1e-4);
    assert!((small / (1e-4 / 3.0) - 1.0).abs() < 1e-4, "{small}");
    let b = Beam { area: 0.1, ..STEEL };
    let p = 2.0 * b.e * b.izz;
    let (x, y) = elastica_tip(2.0);
    println!("elastica tip ({x:.8}, {y:.8})");
    let mut errors = vec![];
    for n in [2, 4, 8] {
        let tip = static_tip(
            &format!("elastica{n}"),
            &cantilever(n, b, 0.0, [0.0, p, 0.0, 0.0, 0.0, 0.0]),
            1e-4,
        );
        let err = ((tip[0] - x).powi(2) + (tip[1] - y).powi(2)).sqrt();
        println!(
            "N = {n}: tip ({:.8}, {:.8}), error {err:.3e}",
            tip[0], tip[1]
        );
        errors.push(err);
    }
    for w in errors.windows(2) {
        assert!((w[0] / w[1]).log2() > 3.0, "{errors:?}");
    }
    assert!(errors[2] < 1e-5, "{errors:?}");
}

/// The tip's free vibration after a static tip load is removed
/// (DEACTIVATE/GFORCE), integrated by HHT (as the corpus FE deck is: its
/// numerical damping keeps the undamped axial and torsion modes, near
/// 1e5 rad/s, from holding the step down as they do GSTIFF's at high
/// order): its upward zero crossings (linear interpolation between output
/// samples), the peaks' magnitudes and the message log.
fn free_vibration(name: &str, cratiok: f64, end: f64) -> (Vec<f64>, Vec<f64>) {
    let (crossings, peaks, _) = free_vibration_with(name, cratiok, end, "HHT, ERROR = 1E-6");
    (crossings, peaks)
}

/// `free_vibration` under the INTEGRATOR statement `integrator`.
fn free_vibration_with(
    name: &str,
    cratiok: f64,
    end: f64,
    integrator: &str,
) -> (Vec<f64>, Vec<f64>, String) {
    let d = scratch("fe_part", name);
    let adm = cantilever(10, STEEL, cratiok, [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    let (header, rows, log) = run_deck(
        &d,
        name,
        &adm,
        &format!(
            "SIMULATE/STATIC\nDEACTIVATE/GFORCE, ID = 1\nINTEGRATOR/{integrator}\nSIMULATE/DYNAMIC, END = {end}, STEPS = {}\nSTOP\n",
            (end * 2000.0) as usize
        ),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let tip: Vec<(f64, f64)> = tip_rows(&header, &rows)
        .into_iter()
        .map(|(t, v)| (t, v[1]))
        .collect();
    let mut crossings = vec![];
    let mut peaks = vec![];
    for w in tip.windows(3) {
        let ((t0, y0), (t1, y1), (_, y2)) = (w[0], w[1], w[2]);
        if y0 < 0.0 && y1 >= 0.0 && t1 > t0 {
            crossings.push(t0 + (t1 - t0) * (-y0) / (y1 - y0));
        }
        // A sampled peak of |y|, refined by the parabola through three samples.
        if y1.abs() > y0.abs() && y1.abs() >= y2.abs() && t0 > 0.0 {
            let (a, c) = (y0.abs(), y2.abs());
            let m = y1.abs();
            peaks.push(m + (a - c).powi(2) / (8.0 * (2.0 * m - a - c)));
        }
    }
    (crossings, peaks, log)
}

/// 10 elements, no damping: the period between the first and the last
/// upward zero crossing of the tip over ≈ 7 cycles gives the first
/// bending frequency within 1 % of 1.8751²·√(EI/(ρAL⁴)) (lumped mass: it
/// is 0.52 % low at 10 elements, as the eigenvalue of the lumped chain
/// predicts).
#[test]
fn the_first_bending_frequency_matches_the_closed_form() {
    let b = STEEL;
    let want = 1.875104_f64.powi(2) * (b.e * b.izz / (b.rho * b.area)).sqrt();
    let (crossings, _) = free_vibration("frequency", 0.0, 0.5);
    assert!(crossings.len() >= 6, "{crossings:?}");
    let cycles = (crossings.len() - 1) as f64;
    let period = (crossings[crossings.len() - 1] - crossings[0]) / cycles;
    let omega = 2.0 * PI / period;
    println!(
        "ω = {omega:.6} rad/s against {want:.6} ({:+.3e})",
        omega / want - 1.0
    );
    assert!((omega / want - 1.0).abs() < 0.01, "{omega} vs {want}");
}

/// The undamped cantilever under the BDF integrators that stay stable on
/// it (measured, ERROR 1e-6, 0.5 s ≈ 7 periods): WSTIFF (1071 Jacobian
/// evaluations, orders 1–5, DASSL's order choice lowers the order when the
/// higher differences grow) and GSTIFF with KMAX = 2 (1008; BDF1–2 are
/// A-stable). Each gets the first bending frequency within 1 % and takes
/// fewer than 300 Jacobian evaluations per period (GSTIFF's default PATTERN
/// evaluates one per step). GSTIFF at KMAX 3–6 is not here on purpose: its
/// undamped axial and torsion modes (ω ≈ 1e5 rad/s) fall in the unstable
/// band of BDF3–6 near the imaginary axis and grow from 1.7e-8 m to the
/// tolerance, after which the step must resolve them (KMAX 6: 2368 steps
/// for 0.05 s; KMAX 3 stops at t = 0.21 s below HMIN). The seed's HHT
/// Remark 3 describes this of Adams' BDF on flexible bodies.
#[test]
fn wstiff_and_gstiff_kmax_2_stay_stable_on_the_undamped_cantilever() {
    let b = STEEL;
    let want = 1.875104_f64.powi(2) * (b.e * b.izz / (b.rho * b.area)).sqrt();
    for (name, integrator) in [
        ("bdf_wstiff", "WSTIFF, ERROR = 1E-6"),
        ("bdf_gstiff_kmax2", "GSTIFF, ERROR = 1E-6, KMAX = 2"),
    ] {
        let (crossings, _, log) = free_vibration_with(name, 0.0, 0.5, integrator);
        assert!(crossings.len() >= 6, "{name}: {crossings:?}");
        let cycles = (crossings.len() - 1) as f64;
        let period = (crossings[crossings.len() - 1] - crossings[0]) / cycles;
        let omega = 2.0 * PI / period;
        assert!(
            (omega / want - 1.0).abs() < 0.01,
            "{name}: {omega} vs {want}"
        );
        let jacobians: f64 = log
            .lines()
            .find_map(|l| l.trim().strip_prefix("Jacobian evaluations"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name}: no Jacobian count in the log:\n{log}"));
        let per_period = jacobians * period / 0.5;
        println!(
            "{name}: ω {:+.3e}, {jacobians} Jacobians, {per_period:.0} per period",
            omega / want - 1.0
        );
        assert!(
            per_period < 300.0,
            "{name}: {per_period} Jacobians per period"
        );
    }
}

/// CRATIOK = β gives C = βK, so the first mode decays with the damping
/// ratio ζ = βω/2: the logarithmic decrement between successive peaks of
/// the same sign, ln(aₖ/aₖ₊₂) = 2πζ/√(1 − ζ²), matches it within 1 %
/// (ζ = 0.02 here; the stiffer modes, damped ∝ ω, are gone after the
/// first cycle).
#[test]
fn cratiok_damps_the_first_mode_at_the_stiffness_proportional_ratio() {
    let b = STEEL;
    let omega = 1.875104_f64.powi(2) * (b.e * b.izz / (b.rho * b.area)).sqrt() * (1.0 - 0.005);
    let beta = 2.0 * 0.02 / omega;
    let (crossings, peaks) = free_vibration("damping", beta, 0.4);
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let omega_d = 2.0 * PI / period;
    // ω from the damped period: ω = ω_d/√(1 − ζ²), with ζ from βω/2 (one
    // fixed-point pass is exact to 1e-8 here).
    let zeta_guess = beta * omega_d / 2.0;
    let zeta_rule = beta * omega_d / (1.0 - zeta_guess * zeta_guess).sqrt() / 2.0;
    // Skip the first two peaks (higher modes still present), then average
    // the decrement over the next peaks of the same sign.
    let p = &peaks[2..];
    assert!(p.len() >= 5, "{peaks:?}");
    let n = p.len() - 1 - (p.len() - 1) % 2;
    let decrement = (p[0] / p[n]).ln() / (n as f64 / 2.0);
    let zeta = decrement / (4.0 * PI * PI + decrement * decrement).sqrt();
    println!("ζ measured {zeta:.6}, rule βω/2 = {zeta_rule:.6}");
    assert!(
        (zeta / zeta_rule - 1.0).abs() < 0.03,
        "{zeta} vs {zeta_rule}"
    );
}

/// An FE part has no MotionSolve XML form: `write_xml` names it.
#[test]
fn write_xml_refuses_an_fe_part_by_name() {
    let model = mbsolve_adm::read_adm_str(&cantilever(2, STEEL, 0.0, [0.0; 6]), "c.adm").unwrap();
    assert_eq!(
        mbsolve_msxml::write_xml(&model).unwrap_err(),
        "FE_PART/2: an Adams FE part has no MotionSolve XML form here"
    );
}
