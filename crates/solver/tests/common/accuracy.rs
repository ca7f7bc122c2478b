//! The work-precision measurement shared by the conformance suite
//! (tests/conformance.rs) and `cargo run --release --example
//! work_precision`: the five problems of issue 12, their references, and
//! the global error of one (pair, ERROR) run.

use mbsolve_model::{IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::settings::{Family, Pair, PAIRS};
use mbsolve_solver::{models, Frame, Simulation};

/// The ERROR values of the sweep, 1e-2 … 1e-9.
pub const ERRORS: [f64; 8] = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9];

/// Settings that select `pair` with the given ERROR.
pub fn pair_settings(pair: &Pair, error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind: pair.kind,
        kind_given: true,
        formulation: Some(pair.formulation),
        error: Some(error),
        ..Default::default()
    }
}

/// "GSTIFF/I3".
pub fn pair_name(pair: &Pair) -> String {
    format!("{}/{:?}", pair.kind.name(), pair.formulation).to_uppercase()
}

/// Every pair the settings table accepts.
pub fn pairs() -> impl Iterator<Item = &'static Pair> {
    PAIRS.iter()
}

/// The least slope the proportionality criterion asks of a pair: p/(p+1)
/// of its order with per-step error control, rounded down (issue 12).
pub fn required_slope(pair: &Pair) -> f64 {
    if pair.family == Family::Hht {
        0.5
    } else {
        0.7
    }
}

/// How the exact answer of a problem is known.
pub enum Reference {
    /// Body-0 CM (x, y) in closed form or by a converged 1-DOF ODE.
    Exact(fn(f64) -> [f64; 2]),
    /// A run of WSTIFF/SI2 at ERROR = 1e-11 (its own difference to ERROR =
    /// 1e-10 is printed by the example).
    Tight,
}

pub struct Problem {
    pub name: &'static str,
    pub model: Model,
    pub end: f64,
    pub outputs: u64,
    pub reference: Reference,
}

/// A 1-DOF pendulum-like ODE θ'' = f(θ) released at rest from θ = 0,
/// integrated by classical RK4 (the reduced references of the pendulum and
/// the parallelogram chain).
pub struct ReducedPendulum<F: Fn(f64) -> f64> {
    f: F,
    t: f64,
    theta: f64,
    omega: f64,
}

impl<F: Fn(f64) -> f64> ReducedPendulum<F> {
    pub fn new(f: F) -> Self {
        ReducedPendulum {
            f,
            t: 0.0,
            theta: 0.0,
            omega: 0.0,
        }
    }

    /// θ at `target` (≥ the present time), in equal RK4 steps of at most `h`.
    pub fn theta_at(&mut self, target: f64, h: f64) -> f64 {
        let span = target - self.t;
        let n = (span / h).ceil().max(1.0) as usize;
        let h = span / n as f64;
        let f = &self.f;
        let (mut th, mut w) = (self.theta, self.omega);
        for _ in 0..n {
            let (k1t, k1w) = (w, f(th));
            let (k2t, k2w) = (w + 0.5 * h * k1w, f(th + 0.5 * h * k1t));
            let (k3t, k3w) = (w + 0.5 * h * k2w, f(th + 0.5 * h * k2t));
            let (k4t, k4w) = (w + h * k3w, f(th + h * k3t));
            th += h / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t);
            w += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
        }
        (self.t, self.theta, self.omega) = (target, th, w);
        th
    }
}

/// Pendulum of `models::pendulum(1, 9.81)` released horizontally: body-0 CM
/// by RK4 on I_O θ'' = −m g L cos θ (I_O = 1.001, h = 2e-4, error ≪ 1e-12).
pub fn pendulum_exact(t: f64) -> [f64; 2] {
    let (io, g) = (1.0 + 1e-3, 9.81);
    let th = ReducedPendulum::new(|th: f64| -g * th.cos() / io).theta_at(t, 2e-4);
    [th.cos(), th.sin()]
}

/// The seeds' soft spring pair (M = 1, K = 1e4, C = 2, released 0.01 m
/// from its free length 1): closed form.
pub fn soft_spring_exact(t: f64) -> [f64; 2] {
    [1.0 + models::spring_mass_exact(1.0, 1e4, 2.0, 0.01, t), 0.0]
}

/// `models::four_bar` with the crank (1 m, starting at 1 rad) spinning at
/// `omega` rad/s; the other links get the velocities the assembly finds
/// nearest to rest.
pub fn spinning_four_bar(omega: f64) -> Model {
    let mut m = models::four_bar();
    m.title = "four-bar, spinning crank".into();
    let th = 1.0f64;
    if let Some(crank) = m.parts.iter_mut().find(|p| p.id == 2) {
        crank.angular_velocity.z = omega;
        crank.velocity.x = -0.5 * th.sin() * omega;
        crank.velocity.y = 0.5 * th.cos() * omega;
    }
    m
}

/// The five problems of the proportionality criterion.
pub fn problems() -> Vec<Problem> {
    vec![
        Problem {
            name: "pendulum",
            model: models::pendulum(1.0, 9.81),
            end: 1.0,
            outputs: 10,
            reference: Reference::Exact(pendulum_exact),
        },
        Problem {
            name: "four-bar",
            model: spinning_four_bar(6.0),
            end: 3.0,
            outputs: 10,
            reference: Reference::Tight,
        },
        Problem {
            name: "slider-crank",
            model: models::free_slider_crank(0.5, 1.5, 2.0 * std::f64::consts::PI),
            end: 2.0,
            outputs: 10,
            reference: Reference::Tight,
        },
        Problem {
            name: "4-link chain",
            model: models::chain(4),
            end: 1.0,
            outputs: 10,
            reference: Reference::Tight,
        },
        Problem {
            name: "spring pair",
            model: models::spring_mass(1.0, 1e4, 2.0, 0.01),
            end: 1.0,
            outputs: 10,
            reference: Reference::Exact(soft_spring_exact),
        },
    ]
}

/// The body CM positions (x, y of every body) at each output of a run and
/// its step count, or the failure message.
pub fn positions(p: &Problem, s: &IntegratorSettings) -> Result<(Vec<Vec<f64>>, u64), String> {
    let mut sim = Simulation::new(&p.model).map_err(|e| e.to_string())?;
    let stats = sim
        .dynamic(p.end, Some(p.outputs), None, s)
        .map_err(|e| e.to_string())?;
    Ok((sim.frames.iter().map(cm_xy).collect(), stats.steps))
}

fn cm_xy(f: &Frame) -> Vec<f64> {
    (0..f.q.len() / 7)
        .flat_map(|b| [f.q[7 * b], f.q[7 * b + 1]])
        .collect()
}

/// The reference positions at the outputs of `p` (frame 0 = start).
pub fn reference(p: &Problem) -> Vec<Vec<f64>> {
    match p.reference {
        Reference::Exact(f) => (0..=p.outputs)
            .map(|k| f(p.end * k as f64 / p.outputs as f64).to_vec())
            .collect(),
        Reference::Tight => {
            let s = IntegratorSettings {
                kind: IntegratorKind::Wstiff,
                formulation: Some(mbsolve_model::Formulation::Si2),
                error: Some(1e-11),
                ..Default::default()
            };
            positions(p, &s).expect("the reference run").0
        }
    }
}

/// Largest deviation of the compared coordinates over all outputs
/// (`Exact` references give body 0 only).
pub fn max_error(run: &[Vec<f64>], reference: &[Vec<f64>]) -> f64 {
    run.iter()
        .zip(reference)
        .map(|(a, b)| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// Global error of `pair` on `p` at each ERROR of the sweep (NaN where the
/// run failed).
pub fn sweep(pair: &Pair, p: &Problem, reference: &[Vec<f64>]) -> Vec<f64> {
    sweep_with_steps(pair, p, reference)
        .into_iter()
        .map(|(e, _)| e)
        .collect()
}

/// `sweep` with the step count of each run (0 where it failed).
pub fn sweep_with_steps(pair: &Pair, p: &Problem, reference: &[Vec<f64>]) -> Vec<(f64, u64)> {
    ERRORS
        .iter()
        .map(|&e| match positions(p, &pair_settings(pair, e)) {
            Ok((run, steps)) => (max_error(&run, reference), steps),
            Err(_) => (f64::NAN, 0),
        })
        .collect()
}

/// Least-squares slope of log10(error) against log10(ERROR).
pub fn slope(errors: &[f64]) -> f64 {
    let pts: Vec<(f64, f64)> = ERRORS
        .iter()
        .zip(errors)
        .map(|(e, g)| (e.log10(), g.max(1e-15).log10()))
        .collect();
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

/// The worst growth factor from one ERROR decade to the next (the criterion
/// allows ≤ 2); infinite if a run failed.
pub fn worst_growth(errors: &[f64]) -> f64 {
    errors
        .windows(2)
        .map(|w| {
            if w[0].is_nan() || w[1].is_nan() {
                f64::INFINITY
            } else {
                w[1] / w[0].max(1e-300)
            }
        })
        .fold(0.0, f64::max)
}

/// One row of the printed table.
pub fn table_row(label: &str, errors: &[f64]) -> String {
    let cells: Vec<String> = errors
        .iter()
        .map(|e| {
            if e.is_nan() {
                "   fail".into()
            } else {
                format!("{e:7.1e}")
            }
        })
        .collect();
    format!(
        "| {label:<26} | {} | {:5.2} | {:6.1} |",
        cells.join(" | "),
        slope(errors),
        worst_growth(errors)
    )
}

/// The table header matching `table_row`.
pub fn table_header() -> String {
    let cols: Vec<String> = ERRORS.iter().map(|e| format!("{e:7.0e}")).collect();
    format!(
        "| {:<26} | {} | slope | growth |",
        "problem, pair",
        cols.join(" | ")
    )
}
