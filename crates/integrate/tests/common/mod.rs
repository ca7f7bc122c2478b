//! Test problems shared by the integrator tests: linear problems written
//! as G = y' − f(t, y) = 0 with their exact solutions, and uncoupled
//! mass-spring modes (optionally tied) as a second-order problem.
#![allow(dead_code)]

use mbsolve_integrate::{
    BdfParams, DaeProblem, Hht, HhtParams, ProblemError, SecondOrderProblem, SlotAssembler,
    VarClass,
};

/// Linear test problems written as G = y' − f(t, y) = 0.
#[derive(Clone, Copy)]
pub enum Linear {
    /// y1' = y2, y2' = −y1; y = (cos t, −sin t).
    Oscillator,
    /// Prothero–Robinson y' = λ (y − sin t) + cos t; y = sin t.
    ProtheroRobinson(f64),
}

pub struct TestProblem {
    pub kind: Linear,
    pub classes: Vec<VarClass>,
    /// structure_holds answers false from this time on.
    pub structure_until: f64,
}

impl TestProblem {
    pub fn new(kind: Linear) -> Self {
        let n = match kind {
            Linear::Oscillator => 2,
            Linear::ProtheroRobinson(_) => 1,
        };
        TestProblem {
            kind,
            classes: vec![VarClass::Displacement; n],
            structure_until: f64::INFINITY,
        }
    }
}

/// j-th derivative of the exact solution at t.
pub fn exact(kind: Linear, j: usize, t: f64) -> Vec<f64> {
    // d^j/dt^j of (cos, −sin) and of sin, through the phase shift jπ/2.
    let s = t + j as f64 * std::f64::consts::FRAC_PI_2;
    match kind {
        Linear::Oscillator => vec![s.cos(), -s.sin()],
        Linear::ProtheroRobinson(_) => vec![s.sin()],
    }
}

impl DaeProblem for TestProblem {
    fn size(&self) -> usize {
        self.classes.len()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        match self.kind {
            Linear::Oscillator => {
                out[0] = yp[0] - y[1];
                out[1] = yp[1] + y[0];
            }
            Linear::ProtheroRobinson(lam) => {
                out[0] = yp[0] - lam * (y[0] - t.sin()) - t.cos();
            }
        }
        Ok(())
    }
    fn jacobian(
        &mut self,
        _t: f64,
        _y: &[f64],
        _yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        match self.kind {
            Linear::Oscillator => {
                a.add(0, 0, c);
                a.add(0, 1, -1.0);
                a.add(1, 0, 1.0);
                a.add(1, 1, c);
            }
            Linear::ProtheroRobinson(lam) => a.add(0, 0, c - lam),
        }
        Ok(())
    }
    fn structure_holds(&mut self, t: f64, _y: &[f64]) -> bool {
        t < self.structure_until
    }
    fn describe_variable(&self, i: usize) -> String {
        format!("y{i}")
    }
    fn describe_equation(&self, i: usize) -> String {
        format!("eq{i}")
    }
}

pub fn params(error: f64, k: usize, hmax: f64) -> BdfParams {
    BdfParams {
        error,
        hmax,
        hmin: 1e-12,
        hinit: hmax,
        kmax: k,
        maxit: 10,
        pattern: vec![true],
        error_classes: vec![VarClass::Displacement],
        corrector_classes: vec![VarClass::Displacement],
        adaptivity: 0.0,
        fixed: None,
        constant_step: false,
        interpolate: false,
    }
}

/// Linear M a + C u + K q = 0 with diagonal M, C, K (uncoupled modes) and
/// an optional linear constraint q_0 − q_1 = 0 (m = 1).
pub struct Modes {
    pub m: Vec<f64>,
    pub c: Vec<f64>,
    pub k: Vec<f64>,
    pub tie: bool,
}
impl SecondOrderProblem for Modes {
    fn nq(&self) -> usize {
        self.m.len()
    }
    fn nm(&self) -> usize {
        usize::from(self.tie)
    }
    fn body_residual(
        &mut self,
        _t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        for i in 0..q.len() {
            out[i] = self.m[i] * a[i] + self.c[i] * u[i] + self.k[i] * q[i];
        }
        if self.tie {
            out[0] += lam[0];
            out[1] -= lam[0];
        }
        Ok(())
    }
    fn constraint_residual(
        &mut self,
        _t: f64,
        q: &[f64],
        _u: &[f64],
        _lam: &[f64],
        scale: f64,
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        if self.tie {
            out[0] = scale * (q[0] - q[1]);
        }
        Ok(())
    }
    fn jacobian(
        &mut self,
        _t: f64,
        _q: &[f64],
        _u: &[f64],
        _a: &[f64],
        _lam: &[f64],
        cq: f64,
        cu: f64,
        ca: f64,
        asm: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        let n = self.m.len();
        for i in 0..n {
            asm.add(i, i, cq * self.k[i] + cu * self.c[i] + ca * self.m[i]);
        }
        if self.tie {
            asm.add(0, n, 1.0);
            asm.add(1, n, -1.0);
            asm.add(n, 0, 1.0);
            asm.add(n, 1, -1.0);
        }
        Ok(())
    }
    fn describe_coordinate(&self, i: usize) -> String {
        format!("q{i}")
    }
    fn describe_equation(&self, i: usize) -> String {
        format!("eq{i}")
    }
}

/// Unit masses, no damping, no tie: x_i'' = −k_i x_i.
pub fn oscillator(k: &[f64]) -> Modes {
    Modes {
        m: vec![1.0; k.len()],
        c: vec![0.0; k.len()],
        k: k.to_vec(),
        tie: false,
    }
}

/// The tied pair of `Modes` with K = (4, 0) oscillates at ω = √2 from
/// q = (1, 1) at rest: a0 = −2, λ0 = −2.
pub fn tied_pair(params: HhtParams, p: &mut Modes) -> Hht<'_, Modes> {
    Hht::new(
        p,
        params,
        0.0,
        &[1.0, 1.0],
        &[0.0, 0.0],
        &[-2.0, -2.0],
        &[-2.0],
    )
    .unwrap()
}

/// Advance `w` on `Linear::ProtheroRobinson` to t = 0.1, 0.2, …, 1.0; the
/// largest |y − sin t| at those outputs (WSTIFF's and HASTIFF's stiff tests).
pub fn prothero_robinson_error(w: &mut dyn mbsolve_integrate::DaeIntegrator) -> f64 {
    let mut worst = 0.0f64;
    for i in 1..=10 {
        let t = 0.1 * i as f64;
        w.advance_to(t).unwrap();
        worst = worst.max((w.solution().0[0] - t.sin()).abs());
    }
    worst
}

/// Result of a run through a list of output times.
pub struct Run {
    /// Largest global error (2-norm) over the outputs.
    pub error: f64,
    pub steps: u64,
    /// Lowest and highest order seen at the outputs.
    pub orders: (usize, usize),
}

impl Default for Run {
    fn default() -> Self {
        Run {
            error: 0.0,
            steps: 0,
            orders: (usize::MAX, 0),
        }
    }
}

impl Run {
    /// Account the solution `y` of order `order` at output time t.
    pub fn record(&mut self, kind: Linear, t: f64, y: &[f64], order: usize) {
        let e = exact(kind, 0, t);
        let d = y
            .iter()
            .zip(&e)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt();
        self.error = self.error.max(d);
        self.orders = (self.orders.0.min(order), self.orders.1.max(order));
    }
}

/// The methods on the divided-difference history.
#[derive(Clone, Copy)]
pub enum DividedDifferenceBdf {
    Wstiff,
    Hastiff,
}

/// `method` at order k = KMAX from the exact history at step h0 = HMAX,
/// through `outputs`.
pub fn exact_history_run(
    kind: Linear,
    p: BdfParams,
    outputs: &[f64],
    method: DividedDifferenceBdf,
) -> Run {
    let (k, h0) = (p.kmax, p.hmax);
    let mut prob = TestProblem::new(kind);
    let (y0, yp0) = (exact(kind, 0, 0.0), exact(kind, 1, 0.0));
    let past: Vec<Vec<f64>> = (0..=k + 1)
        .map(|j| exact(kind, 0, -(j as f64) * h0))
        .collect();
    let mut run = Run::default();
    // Wstiff and Hastiff share these inherent methods but no trait.
    macro_rules! through_outputs {
        ($w:expr) => {{
            let mut w = $w;
            w.set_exact_history(&past, h0, k);
            for &t in outputs {
                w.advance_to(t).unwrap();
                run.record(kind, t, w.y(), w.order());
            }
            run.steps = w.stats.steps;
        }};
    }
    match method {
        DividedDifferenceBdf::Wstiff => {
            through_outputs!(mbsolve_integrate::Wstiff::new(&mut prob, p, 0.0, &y0, &yp0))
        }
        DividedDifferenceBdf::Hastiff => {
            through_outputs!(mbsolve_integrate::Hastiff::new(
                &mut prob, p, 0.0, &y0, &yp0
            ))
        }
    }
    run
}
