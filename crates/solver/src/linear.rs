//! Saddle-point solves shared by assembly, kinematics and initial conditions:
//! [D Φ_qᵀ; Φ_q 0] [x; μ] = [r1; r2], with D the identity or the mass matrix.

use crate::formulation::AsmSink;
use mbsolve_integrate::{SlotAssembler, SparseLu};
use mbsolve_mech::{MechData, System};

#[derive(Clone, Copy)]
pub enum Block<'a> {
    Identity,
    /// diag(`System::projection_weight`): with r1 = W·target, the solution
    /// is the target's nearest point in metres and radians-like Euler
    /// parameters, whatever the deck's length unit ([`Kkt::project`]).
    Weighted,
    /// Mass matrix M(q) (∂R/∂a) at the given velocities.
    Mass {
        u: &'a [f64],
    },
}

/// Reusable saddle-point solver for one system.
pub struct Kkt {
    asm: SlotAssembler,
    lu: SparseLu,
}

impl Kkt {
    pub fn new(sys: &System) -> Self {
        Kkt {
            asm: SlotAssembler::new(sys.nq() + sys.neq()),
            lu: SparseLu::new(),
        }
    }

    /// Returns (x, μ); Err(row) names the first unknown that was singular.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        sys: &System,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        block: Block,
        r1: &[f64],
        r2: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>), usize> {
        let n = sys.nq();
        loop {
            self.asm.begin();
            let mut s = AsmSink(&mut self.asm);
            match block {
                Block::Identity => {
                    for i in 0..n {
                        mbsolve_mech::Sink::add(&mut s, i, i, 1.0);
                    }
                }
                Block::Weighted => {
                    for i in 0..n {
                        mbsolve_mech::Sink::add(&mut s, i, i, sys.projection_weight(i));
                    }
                }
                Block::Mass { u } => {
                    let zero_a = vec![0.0; n];
                    sys.body_jacobian(data, q, u, &zero_a, None, t, &mut s, 0, None, 0, 0.0, 1.0);
                }
            }
            sys.constraint_jacobian(data, q, t, &mut s, n, 0, Some((0, n)), Some(n));
            if self.asm.finish() {
                break;
            }
        }
        self.lu.factor(&self.asm).map_err(|s| s.row)?;
        self.solve_again(r1, r2)
    }

    /// The x nearest `target` in the weighted norm of
    /// [`Block::Weighted`] with Φ_q x = `rhs` (velocities: the least change
    /// of the integrator's or the input's velocities), and μ.
    pub fn project(
        &mut self,
        sys: &System,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        target: &[f64],
        rhs: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>), usize> {
        let r1: Vec<f64> = target
            .iter()
            .enumerate()
            .map(|(i, v)| v * sys.projection_weight(i))
            .collect();
        self.solve(sys, data, q, t, Block::Weighted, &r1, rhs)
    }

    /// `solve` with the matrix of the last successful `solve` (the same
    /// system, active set, q and block): no assembly, no factorization.
    pub fn solve_again(&mut self, r1: &[f64], r2: &[f64]) -> Result<(Vec<f64>, Vec<f64>), usize> {
        let mut rhs: Vec<f64> = r1.iter().chain(r2.iter()).copied().collect();
        self.lu.solve(&mut rhs).map_err(|s| s.row)?;
        let mu = rhs.split_off(r1.len());
        Ok((rhs, mu))
    }
}
