//! The one step loop, seen through `DaeIntegrator` for every method: HMAX
//! at output landing, HHT's (y, y') layout, multipliers, INTERPOLATE and
//! the temporary corrector switch, ADAPTIVITY for WSTIFF.

mod common;

use common::{exact, oscillator, params, tied_pair, Linear, Modes, TestProblem};
use mbsolve_integrate::{
    BdfParams, DaeIntegrator, Event, Gstiff, Hht, HhtParams, VarClass, Wstiff,
};

/// Outputs every 0.104 with HMAX = 0.1: landing on each output would take
/// a step 4% over HMAX; every method takes two equal steps instead, lands
/// exactly on the output and never exceeds HMAX (GSTIFF and HHT took the
/// 0.104 step before the loop was shared).
#[test]
fn every_method_honours_hmax_when_landing() {
    let kind = Linear::Oscillator;
    let check = |name: &str, integ: &mut dyn DaeIntegrator| {
        for i in 1..=20 {
            let t = 0.104 * i as f64;
            integ.advance_to(t).unwrap();
            assert_eq!(integ.time(), t, "{name}");
        }
        let st = integ.statistics();
        println!("{name}: {} steps, largest {:.6}", st.steps, st.max_step);
        assert!(
            st.max_step <= 0.1 * (1.0 + 1e-6),
            "{name}: step {}",
            st.max_step
        );
    };
    let (y0, yp0) = (exact(kind, 0, 0.0), exact(kind, 1, 0.0));
    let mut p = TestProblem::new(kind);
    check(
        "GSTIFF",
        &mut Gstiff::new(&mut p, params(1e-2, 6, 0.1), 0.0, &y0, &yp0),
    );
    let mut p = TestProblem::new(kind);
    check(
        "WSTIFF",
        &mut Wstiff::new(&mut p, params(1e-2, 6, 0.1), 0.0, &y0, &yp0),
    );
    let mut p = oscillator(&[1.0]);
    let hht = HhtParams::hht(-0.1, 1e-2, 0.1);
    check(
        "HHT",
        &mut Hht::new(&mut p, hht, 0.0, &[1.0], &[0.0], &[-1.0], &[]).unwrap(),
    );
}

/// HHT as the driver sees it: y = [q; u], y' = [u; a] (length 2·nq), the
/// accepted state equal to y, and λ through `multipliers` (the tie force
/// λ = −K q0/2 of the pair, to the accuracy of the run).
#[test]
fn hht_presents_q_u_a_and_multipliers() {
    let mut p = Modes {
        tie: true,
        ..oscillator(&[4.0, 0.0])
    };
    let mut g = tied_pair(HhtParams::hht(-0.1, 1e-6, 0.01), &mut p);
    DaeIntegrator::advance_to(&mut g, 0.5).unwrap();
    let (q, u, a, lam) = (
        g.q().to_vec(),
        g.u().to_vec(),
        g.acceleration().to_vec(),
        g.lambda().to_vec(),
    );
    let integ: &dyn DaeIntegrator = &g;
    let (y, yp) = integ.solution();
    assert_eq!(y, [q.as_slice(), u.as_slice()].concat());
    assert_eq!(yp, [u.as_slice(), a.as_slice()].concat());
    assert_eq!(integ.accepted(), y);
    assert_eq!(integ.multipliers(), Some(lam.as_slice()));
    let expected = -2.0 * (2f64.sqrt() * 0.5).cos();
    println!("λ(0.5) = {:.6}, closed form {expected:.6}", lam[0]);
    assert!((lam[0] - expected).abs() < 1e-3, "{}", lam[0]);
}

/// INTERPOLATE = ON for HHT: `advance_past` steps over output times and the
/// cubic Hermite interpolant of (q, u) and (u, q̈) gives the solution there.
/// On x'' = −x at h = 0.01 (HMAX; ERROR never binding) the interpolated q
/// and u stay within the error of the step ends (the interpolant adds
/// O(h⁴) = 1e-8/384), y' within HHT's own acceleration error, and at a
/// step end the interpolant is that step's solution.
#[test]
fn hht_interpolates_within_the_step() {
    let mut p = oscillator(&[1.0]);
    let params = HhtParams::hht(-0.1, 1e3, 0.01);
    let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-1.0], &[]).unwrap();
    let (mut y, mut yp) = (vec![0.0; 2], vec![0.0; 2]);
    let (mut node_err, mut interp_err, mut deriv_err) = (0.0f64, 0.0f64, 0.0f64);
    for k in 1..=40 {
        let t = 0.0237 * k as f64;
        g.advance_past(t).unwrap();
        assert!(g.time() >= t && g.time() < t + 0.01 + 1e-12);
        let tn = g.time();
        node_err = node_err.max((g.q()[0] - tn.cos()).abs().max((g.u()[0] + tn.sin()).abs()));
        assert!(DaeIntegrator::interpolate(&g, t, &mut y, &mut yp));
        let e = (y[0] - t.cos()).abs().max((y[1] + t.sin()).abs());
        interp_err = interp_err.max(e);
        deriv_err = deriv_err.max((yp[0] + t.sin()).abs().max((yp[1] + t.cos()).abs()));
        assert!(DaeIntegrator::interpolate(&g, tn, &mut y, &mut yp));
        assert!((y[0] - g.q()[0]).abs() < 1e-14 && (yp[1] - g.acceleration()[0]).abs() < 1e-14);
    }
    println!("HHT INTERPOLATE: step-end error {node_err:.3e}, interpolated {interp_err:.3e}, derivatives {deriv_err:.3e}");
    assert!(
        interp_err < 1.1 * node_err + 1e-8,
        "{interp_err} vs {node_err}"
    );
}

/// The temporary switch to MODIFIED works for HHT as for the BDF family:
/// the multipliers stop being converged for the given accepted steps, an
/// event says so, and a second event says when ORIGINAL is back; the run
/// keeps the tie to round-off.
#[test]
fn hht_switches_to_modified_and_back() {
    let mut p = Modes {
        tie: true,
        ..oscillator(&[4.0, 0.0])
    };
    let mut g = tied_pair(HhtParams::hht(-0.3, 1e-6, 0.01), &mut p);
    assert!(DaeIntegrator::use_corrector_classes(
        &mut g,
        &[VarClass::Displacement],
        5
    ));
    DaeIntegrator::advance_to(&mut g, 0.2).unwrap();
    assert!((g.q()[0] - g.q()[1]).abs() < 1e-12);
    let events = DaeIntegrator::take_events(&mut g);
    let switches: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::CorrectorSwitch {
                to_modified, steps, ..
            } => Some((*to_modified, *steps)),
            _ => None,
        })
        .collect();
    assert_eq!(switches, vec![(true, 5), (false, 0)]);
}

/// ADAPTIVITY is honoured by WSTIFF too (the loop owns the tolerance): on
/// the oscillator at ERROR = 1e-12 with HMIN = 1e-5 and HMAX = 1e-3 the run
/// fails without ADAPTIVITY and completes with ADAPTIVITY = 1e-12.
#[test]
fn wstiff_honours_adaptivity() {
    let run = |adaptivity: f64| {
        let kind = Linear::Oscillator;
        let mut p = TestProblem::new(kind);
        let params = BdfParams {
            hmin: 1e-5,
            hinit: 1e-5,
            adaptivity,
            ..params(1e-12, 6, 1e-3)
        };
        let mut w = Wstiff::new(
            &mut p,
            params,
            0.0,
            &exact(kind, 0, 0.0),
            &exact(kind, 1, 0.0),
        );
        w.advance_to(1.0).map(|_| w.stats.steps)
    };
    let (off, on) = (run(0.0), run(1e-12));
    println!("WSTIFF at ERROR 1e-12, HMIN 1e-5: without ADAPTIVITY {off:?}, with {on:?}");
    assert!(off.unwrap_err().message.contains("fell below HMIN"));
    assert!(on.is_ok());
}

/// The fixed-step option is the loop's, so every method honours it: h =
/// HINIT throughout (the last step shortened to land), exactly FIXIT
/// corrector iterations per step, the RTI meter fed once per step after
/// the first, and the largest local error measure reported.
#[test]
fn fixed_step_option_for_every_method() {
    use mbsolve_integrate::{FixedStep, RtiMeter};
    let fixed = FixedStep {
        iterations: 3,
        maxerr: f64::INFINITY,
    };
    let check = |name: &str, integ: &mut dyn DaeIntegrator| {
        integ.put_rti(Some(RtiMeter::new(0.01)));
        integ.advance_to(0.995).unwrap();
        let st = integ.statistics();
        let rti = integ.take_rti().and_then(|m| m.summary()).unwrap();
        println!(
            "{name}: {} steps, {} iterations, steps {:.4}..{:.4}, largest local error {:.2e}",
            st.steps,
            st.corrector_iterations,
            st.min_step,
            st.max_step,
            integ.max_local_error()
        );
        assert_eq!(st.steps, 100, "{name}");
        assert_eq!(st.corrector_iterations, 3 * st.steps, "{name}");
        assert_eq!(st.rejected_steps + st.corrector_failures, 0, "{name}");
        assert!((st.max_step - 0.01).abs() < 1e-15, "{name}");
        assert!((st.min_step - 0.005).abs() < 1e-12, "{name}");
        assert_eq!(rti.steps_measured, st.steps - 1, "{name}");
        assert!(integ.max_local_error() > 0.0 && integ.max_local_error() < 1e-3);
    };
    let kind = Linear::Oscillator;
    let (y0, yp0) = (exact(kind, 0, 0.0), exact(kind, 1, 0.0));
    let bdf = BdfParams {
        hinit: 0.01,
        fixed: Some(fixed.clone()),
        ..params(1e-3, 6, 0.01)
    };
    let mut p = TestProblem::new(kind);
    check(
        "GSTIFF",
        &mut Gstiff::new(&mut p, bdf.clone(), 0.0, &y0, &yp0),
    );
    let mut p = TestProblem::new(kind);
    check("WSTIFF", &mut Wstiff::new(&mut p, bdf, 0.0, &y0, &yp0));
    let mut p = oscillator(&[1.0]);
    let hht = HhtParams {
        fixed: Some(fixed),
        ..HhtParams::hht(-0.1, 1e-3, 0.01)
    };
    check(
        "HHT",
        &mut Hht::new(&mut p, hht, 0.0, &[1.0], &[0.0], &[-1.0], &[]).unwrap(),
    );
}
