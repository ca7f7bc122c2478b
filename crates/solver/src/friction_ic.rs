//! Consistent accelerations and multipliers with joint friction: friction's
//! load is the joint reaction λ, which the same solve produces, so the
//! saddle-point system [M Φ_qᵀ; Φ_q 0][a; λ] = [−R(q, u, 0; λ); γ] is solved
//! by fixed-point iteration on λ (friction evaluated with the previous λ).
//! The map contracts when μ times the arm ratios is below 1 (always for
//! realistic joints); without FRICTION it is the single solve it replaces.
//! Starting HHT/Newmark (whose Newmark formulas carry a_n) or any BDF from
//! the friction-free acceleration would leave a lasting velocity offset.

use crate::linear::{Block, Kkt};
use mbsolve_mech::{MechData, System};

/// Fixed-point iterations at most (each one solve of the factored system's
/// size); the last iterate is used if they do not settle.
const MAX_FRICTION_ITERATIONS: usize = 50;

/// Relative change of λ at which the iteration stops.
const FRICTION_TOLERANCE: f64 = 1e-12;

/// (a, λ) at (q, u, t) with `gamma` the acceleration right-hand side;
/// Err(row) names a singular unknown.
#[allow(clippy::too_many_arguments)]
pub(crate) fn accelerations(
    kkt: &mut Kkt,
    sys: &System,
    data: &mut MechData,
    q: &[f64],
    u: &[f64],
    t: f64,
    gamma: &[f64],
) -> Result<(Vec<f64>, Vec<f64>), usize> {
    let (n, m) = (sys.nq(), sys.neq());
    let zero_a = vec![0.0; n];
    let mut lambda = vec![0.0; m];
    let mut r0 = vec![0.0; n];
    let mut result = None;
    for _ in 0..MAX_FRICTION_ITERATIONS {
        data.set_multipliers(&lambda);
        r0.iter_mut().for_each(|v| *v = 0.0);
        sys.applied_residual(data, q, u, &zero_a, t, &mut r0);
        r0.iter_mut().for_each(|v| *v = -*v);
        let (a, next) = kkt.solve(sys, data, q, t, Block::Mass { u }, &r0, gamma)?;
        let change = next
            .iter()
            .zip(&lambda)
            .map(|(x, y)| (x - y).abs() / (1.0 + x.abs()))
            .fold(0.0, f64::max);
        lambda.clone_from(&next);
        result = Some((a, next));
        if sys.frictions.is_empty() || change <= FRICTION_TOLERANCE {
            break;
        }
    }
    Ok(result.expect("at least one iteration"))
}
