//! Compliance matrix at the static equilibrium (Param_Static
//! `compliance_delta`): the displacement of every part per unit load.
//!
//! Column j is found by applying a load of magnitude `compliance_delta` in
//! direction j (a force along a ground axis at a part's CM, or a torque about
//! a ground axis, Q_p = 2Eᵀ(p) n), solving the force balance again and
//! dividing the part displacements (Δr, and small rotations Δθ = 2E(p)Δp about
//! ground axes) by the load. Both the loaded and the unloaded equilibria are
//! converged to rounding so that the quotient is accurate.

use super::{static_params, ForceBalance, NewtonOptions, StaticAnalysis, StaticSettings};
use crate::analysis::{Simulation, SolverError};
use mbsolve_mech::rotation::e_mat;
use nalgebra::{DMatrix, Vector4};

/// The compliance matrix with its row/column labels ("PART/2 x", … "PART/2
/// rz"), six per part: translations then rotations about ground axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Compliance {
    pub labels: Vec<String>,
    /// Length per force and radian per torque (and the cross terms).
    pub matrix: DMatrix<f64>,
}

fn p_of(q: &[f64], b: usize) -> Vector4<f64> {
    Vector4::new(q[7 * b + 3], q[7 * b + 4], q[7 * b + 5], q[7 * b + 6])
}

impl Simulation {
    /// Compliance matrix at the current state, which should be a static
    /// equilibrium (call after `static_equilibrium`). Uses the FIM settings'
    /// `compliance_delta`, `stability` and `max_num_iter`.
    pub fn compliance_matrix(
        &mut self,
        settings: &StaticSettings,
    ) -> Result<Compliance, SolverError> {
        let p = static_params(settings, StaticAnalysis::Static).map_err(SolverError::Settings)?;
        if p.method == mbsolve_model::StaticMethod::Mkeam {
            return Err(SolverError::Settings(
                "Param_Static: the compliance matrix is computed with the force imbalance method; give method = FIM_S or FIM_D".into(),
            ));
        }
        let sys = &self.sys;
        let (n, nb) = (sys.nq(), sys.nb());
        let t = self.state.t;
        let delta = p.compliance_delta;
        // Converged to rounding: Newton stops when the change is at the
        // level of the coordinates' precision.
        let scale = self.state.q.iter().fold(1.0f64, |a, v| a.max(v.abs()));
        let tight = NewtonOptions {
            max_imbalance: f64::INFINITY,
            max_error: 1e-12 * scale,
            stability: p.stability,
            max_iter: p.max_num_iter,
            min_iter: 1,
            load: None,
            label: "compliance",
            verbose: false,
            limits: [f64::INFINITY; 2],
            stop: self.output.stop.as_deref(),
        };
        let mut fb = ForceBalance::new(sys, &self.data);
        let mut scratch = Vec::new();
        let base = fb
            .solve(
                sys,
                t,
                &self.state.q,
                &self.state.lambda,
                &tight,
                &mut scratch,
            )
            .map_err(|f| SolverError::Statics(format!("compliance matrix: {}", f.message)))?;
        let mut labels = Vec::with_capacity(6 * nb);
        for b in &sys.bodies {
            for a in ["x", "y", "z", "rx", "ry", "rz"] {
                let body = mbsolve_model::point_mass::body_label(b.part);
                labels.push(format!("{body} {a}"));
            }
        }
        let mut c = DMatrix::zeros(6 * nb, 6 * nb);
        let mut load = vec![0.0; n];
        for b in 0..nb {
            let e = e_mat(&p_of(&base.q, b));
            for d in 0..6 {
                load.iter_mut().for_each(|v| *v = 0.0);
                if d < 3 {
                    load[7 * b + d] = delta;
                } else {
                    let mut nvec = nalgebra::Vector3::zeros();
                    nvec[d - 3] = delta;
                    let qp = 2.0 * e.transpose() * nvec;
                    for k in 0..4 {
                        load[7 * b + 3 + k] = qp[k];
                    }
                }
                let eq = fb
                    .solve(
                        sys,
                        t,
                        &base.q,
                        &base.lam,
                        &NewtonOptions {
                            load: Some(&load),
                            ..tight
                        },
                        &mut scratch,
                    )
                    .map_err(|f| {
                        SolverError::Statics(format!(
                            "compliance matrix, load {}: {}",
                            labels[6 * b + d],
                            f.message
                        ))
                    })?;
                for r in 0..nb {
                    let o = 7 * r;
                    for k in 0..3 {
                        c[(6 * r + k, 6 * b + d)] = (eq.q[o + k] - base.q[o + k]) / delta;
                    }
                    let pm = 0.5 * (p_of(&eq.q, r) + p_of(&base.q, r));
                    let dth = 2.0 * e_mat(&pm) * (p_of(&eq.q, r) - p_of(&base.q, r));
                    for k in 0..3 {
                        c[(6 * r + 3 + k, 6 * b + d)] = dth[k] / delta;
                    }
                }
            }
        }
        self.log.push(format!(
            "compliance matrix ({0}×{0}) at t = {t} with compliance_delta = {delta:e}",
            6 * nb
        ));
        Ok(Compliance { labels, matrix: c })
    }
}
