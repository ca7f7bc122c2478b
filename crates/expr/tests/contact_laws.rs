//! IMPACT() and BISTOP(): hand values from Adams' definitions, exact first
//! and second derivatives against central differences, the closed-form work
//! of the spring part, and the domain errors.

use mbsolve_expr::Expr;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

/// The cubic STEP shape h(u) = u²(3 − 2u) on [0, 1].
fn cubic(u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

/// Adams' IMPACT written out by hand (the reference the tests compare to).
fn impact_ref(x: f64, xd: f64, x1: f64, k: f64, e: f64, c: f64, d: f64) -> f64 {
    if x >= x1 {
        return 0.0;
    }
    let delta = x1 - x;
    (k * delta.powf(e) - c * cubic(delta / d) * xd).max(0.0)
}

fn bistop_ref(x: f64, xd: f64, (x1, x2): (f64, f64), k: f64, e: f64, c: f64, d: f64) -> f64 {
    if x < x1 {
        impact_ref(x, xd, x1, k, e, c, d)
    } else if x > x2 {
        let delta = x - x2;
        (-k * delta.powf(e) - c * cubic(delta / d) * xd).min(0.0)
    } else {
        0.0
    }
}

/// Expression of two measures: m0 = x (DX(1)), m1 = ẋ (VX(1)).
fn law(src: &str) -> Expr {
    Expr::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

#[test]
fn impact_values_follow_adams_definition() {
    let e = law("IMPACT(DX(1), VX(1), 1.0, 1.0E5, 1.5, 50.0, 0.01)");
    for &(x, xd) in &[
        (1.2, -3.0),    // free: 0
        (1.0, -3.0),    // touching: 0 for every exponent
        (0.999, -3.0),  // inside the damping ramp
        (0.995, 2.0),   // ramp, separating
        (0.98, -1.0),   // beyond d: full damping
        (0.98, 1000.0), // damper would pull: clipped to 0
    ] {
        let got = e.value(0.0, &[x, xd]).unwrap();
        let want = impact_ref(x, xd, 1.0, 1.0e5, 1.5, 50.0, 0.01);
        assert!(
            close(got, want, 1e-13),
            "IMPACT at x={x}, ẋ={xd}: {got} vs {want}"
        );
    }
    // closed form beyond d with ẋ = 0: k δ^e exactly
    let v = e.value(0.0, &[0.96, 0.0]).unwrap();
    assert!(close(v, 1.0e5 * 0.04f64.powf(1.5), 1e-14), "{v}");
    // an exponent below 1 (softening) is allowed; the force is 0 at δ = 0
    let soft = law("IMPACT(DX(1), VX(1), 0, 200, 0.5, 0, 0.1)");
    assert_eq!(soft.value(0.0, &[0.0, -1.0]).unwrap(), 0.0);
    let v = soft.value(0.0, &[-0.04, -1.0]).unwrap();
    assert!(close(v, 200.0 * 0.2, 1e-14), "{v}");
}

#[test]
fn bistop_values_follow_adams_definition() {
    let e = law("BISTOP(DX(1), VX(1), -0.5, 0.5, 2.0E4, 2.0, 10.0, 0.02)");
    for &(x, xd) in &[
        (0.0, 5.0),
        (-0.5, 1.0),
        (0.5, 1.0),
        (-0.51, -2.0),
        (-0.6, 1.0),
        (0.51, 2.0),
        (0.6, -1.0),
        (0.6, -1.0e6), // damper would pull towards the stop: clipped to 0
    ] {
        let got = e.value(0.0, &[x, xd]).unwrap();
        let want = bistop_ref(x, xd, (-0.5, 0.5), 2.0e4, 2.0, 10.0, 0.02);
        assert!(
            close(got, want, 1e-13),
            "BISTOP at x={x}, ẋ={xd}: {got} vs {want}"
        );
    }
    // sign: the upper stop pushes back towards −x
    assert!(e.value(0.0, &[0.6, 0.0]).unwrap() < 0.0);
    assert!(e.value(0.0, &[-0.6, 0.0]).unwrap() > 0.0);
}

#[test]
fn derivatives_match_central_differences_in_every_smooth_regime() {
    let cases = [
        "IMPACT(DX(1), VX(1), 1.0, 1.0E5, 1.5, 50.0, 0.01)",
        "IMPACT(DX(1), VX(1), 1.0, 1.0E5, 1.0, 50.0, 0.01)",
        "IMPACT(DX(1), VX(1), 1.0, 1.0E5, 0.7, 50.0, 0.01)",
        "BISTOP(DX(1), VX(1), 0.5, 1.5, 2.0E4, 2.2, 10.0, 0.02)",
        // parameters that are themselves expressions of time
        "IMPACT(DX(1), VX(1), 1.0 + 0.01*TIME, 1.0E5*(1+TIME), 1.5, 50.0, 0.01)",
    ];
    // points away from the kinks (δ = 0, δ = d, force = 0)
    let points = [
        (0.995, -0.7),
        (0.97, -0.2),
        (0.97, 0.3),
        (1.535, 0.4),
        (1.51, -0.1),
    ];
    let h = 1e-7;
    for src in cases {
        let e = law(src);
        for &(x, xd) in &points {
            let m = [x, xd];
            let t = 0.3;
            let mut g = [0.0; 2];
            let (v, dt) = e.eval_with_gradient(t, &m, &mut g).unwrap();
            if v == 0.0 {
                continue;
            }
            for k in 0..2 {
                let (mut p, mut q) = (m, m);
                p[k] += h;
                q[k] -= h;
                let fd = (e.value(t, &p).unwrap() - e.value(t, &q).unwrap()) / (2.0 * h);
                assert!(
                    (g[k] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                    "{src} at {m:?}: ∂/∂m{k} = {} vs FD {fd}",
                    g[k]
                );
            }
            let fd_t = (e.value(t + h, &m).unwrap() - e.value(t - h, &m).unwrap()) / (2.0 * h);
            assert!(
                (dt - fd_t).abs() <= 1e-6 * (1.0 + fd_t.abs()),
                "{src}: ∂/∂t {dt} vs {fd_t}"
            );
            // second derivative along (1, 1) against a central second difference
            let dir = [1.0, 1.0];
            let [_, _, dd] = e.eval_directional(t, &m, 0.0, &dir).unwrap();
            let h2 = 1e-5;
            let f = |s: f64| e.value(t, &[x + s, xd + s]).unwrap();
            let fd2 = (f(h2) - 2.0 * v + f(-h2)) / (h2 * h2);
            assert!(
                (dd - fd2).abs() <= 1e-4 * (1.0 + fd2.abs()),
                "{src} at {m:?}: second derivative {dd} vs FD {fd2}"
            );
        }
    }
}

#[test]
fn spring_work_integrates_to_the_closed_form() {
    // ∫₀^δm k δ^e dδ = k δm^(e+1)/(e+1): the energy an undamped IMPACT stores,
    // which fixes the rebound of a ball (see crates/solver/tests/contact.rs).
    for &ex in &[1.0, 1.5, 0.6] {
        let e = law(&format!("IMPACT(DX(1), VX(1), 0, 3.0E4, {ex}, 0, 0.01)"));
        let dm = 0.02;
        let n = 2000;
        let hstep = dm / n as f64;
        // Simpson's rule in δ = −x
        let mut sum = 0.0;
        for i in 0..=n {
            let w = if i == 0 || i == n {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            sum += w * e.value(0.0, &[-(i as f64) * hstep, 0.0]).unwrap();
        }
        let work = sum * hstep / 3.0;
        let exact = 3.0e4 * dm.powf(ex + 1.0) / (ex + 1.0);
        assert!(close(work, exact, 1e-6), "e = {ex}: {work} vs {exact}");
    }
}

#[test]
fn bad_parameters_are_named_errors() {
    let msg = |src: &str| {
        law(src)
            .value(0.0, &[0.0, 0.0])
            .map(|v| panic!("{src}: expected an error, got {v}"))
            .unwrap_err()
            .message
    };
    assert_eq!(
        msg("IMPACT(DX(1), VX(1), 1, -1, 1.5, 0, 0.1)"),
        "IMPACT needs a stiffness k ≥ 0 (got -1)"
    );
    assert_eq!(
        msg("IMPACT(DX(1), VX(1), 1, 1, 0, 0, 0.1)"),
        "IMPACT needs an exponent e > 0 (got 0)"
    );
    assert_eq!(
        msg("IMPACT(DX(1), VX(1), 1, 1, 1, 0, 0)"),
        "IMPACT needs a penetration depth d > 0 (got 0)"
    );
    assert_eq!(
        msg("BISTOP(DX(1), VX(1), 1, 1, 1, 1, 0, 0.1)"),
        "BISTOP needs x1 < x2 (x1 = 1, x2 = 1)"
    );
    let e = Expr::parse("IMPACT(DX(1), VX(1), 1)").unwrap_err();
    assert!(e.to_string().contains("IMPACT"), "{e}");
}
