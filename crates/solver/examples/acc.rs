//! Accuracy probe (experiment): global error vs ERROR.
use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::{models, Simulation};

fn run(
    model: &Model,
    end: f64,
    steps: u64,
    s: &IntegratorSettings,
) -> Result<(Vec<f64>, u64, u64), String> {
    let mut sim = Simulation::new(model).map_err(|e| e.to_string())?;
    let st = sim
        .dynamic(end, Some(steps), None, s)
        .map_err(|e| e.to_string())?;
    let f = sim.frames.last().unwrap();
    Ok((f.q.clone(), st.steps, st.rejected_steps))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(|s| s.as_str()).unwrap_or("spring");
    let kind = match args.get(2).map(|s| s.as_str()).unwrap_or("gstiff") {
        "wstiff" => IntegratorKind::Wstiff,
        "hht" => IntegratorKind::Hht,
        _ => IntegratorKind::Gstiff,
    };
    let si2 = args.get(3).map(|s| s == "si2").unwrap_or(false);
    let (model, end, probe): (Model, f64, Box<dyn Fn(&[f64]) -> f64>) = match which {
        "pendulum" => (models::pendulum(1.0, 9.81), 1.0, Box::new(|q: &[f64]| q[0])),
        "fourbar" => {
            let mut m = models::four_bar();
            // spinning crank: give crank part (id 2) angular velocity about z;
            // assembly fixes the rest of the velocities.
            m.parts[1].angular_velocity = nalgebra::Vector3::new(0.0, 0.0, 6.0);
            // crank angle from its Euler parameters (rotation about z)
            (m, 3.0, Box::new(|q: &[f64]| 2.0 * q[6].atan2(q[3])))
        }
        "chain1" => (models::chain(1), 1.0, Box::new(|q: &[f64]| q[0])),
        "chain2" => (models::chain(2), 1.0, Box::new(|q: &[f64]| q[7])),
        "slider" => (
            models::slider_crank(0.5, 1.5, 2.0 * std::f64::consts::PI),
            1.0,
            Box::new(|q: &[f64]| q[14]),
        ),
        "sliderfree" => (
            models::free_slider_crank(0.5, 1.5, 2.0 * std::f64::consts::PI),
            1.0,
            Box::new(|q: &[f64]| q[14]),
        ),
        _ => (
            models::spring_mass(1.0, 1e4, 2.0, 0.01),
            1.0,
            Box::new(|q: &[f64]| q[0] - 1.0),
        ),
    };
    let steps: u64 = std::env::var("STEPS")
        .map(|s| s.parse().unwrap())
        .unwrap_or(100);
    let settings = |e: f64| IntegratorSettings {
        kind,
        error: Some(e),
        formulation: if si2 { Some(Formulation::Si2) } else { None },
        alpha: std::env::var("ALPHA").ok().map(|a| a.parse().unwrap()),
        hmax: std::env::var("HMAX").ok().map(|a| a.parse().unwrap()),
        ..Default::default()
    };
    let reference = if which == "spring" {
        models::spring_mass_exact(1.0, 1e4, 2.0, 0.01, end)
    } else {
        let r = run(
            &model,
            end,
            steps,
            &IntegratorSettings {
                kind: IntegratorKind::Wstiff,
                error: Some(1e-11),
                formulation: Some(Formulation::Si2),
                ..Default::default()
            },
        )
        .unwrap();
        let r2 = run(
            &model,
            end,
            steps,
            &IntegratorSettings {
                kind: IntegratorKind::Wstiff,
                error: Some(1e-10),
                formulation: Some(Formulation::Si2),
                ..Default::default()
            },
        )
        .unwrap();
        eprintln!(
            "reference uncertainty {:.2e}",
            (probe(&r.0) - probe(&r2.0)).abs()
        );
        probe(&r.0)
    };
    let mut pts = vec![];
    let kr: Vec<i32> = std::env::var("KS")
        .map(|s| s.split(",").map(|x| x.parse().unwrap()).collect())
        .unwrap_or((2..=9).collect());
    for k in kr {
        let e = 10f64.powi(-k);
        match run(&model, end, steps, &settings(e)) {
            Ok((q, st, rej)) => {
                let err = (probe(&q) - reference).abs();
                println!("ERROR 1e-{k}: err {err:.3e}  steps {st} rejected {rej}");
                pts.push((e.log10(), err.log10()));
            }
            Err(m) => println!("ERROR 1e-{k}: FAILED {m}"),
        }
    }
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / n, sy / n);
    let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
        / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    println!("slope {slope:.3}");
}
