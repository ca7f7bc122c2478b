//! Massless parts (PART without MASS, or MASS = 0 with no inertia): Adams
//! accepts one when its constraints determine its motion. That holds when
//! no motion the constraints allow moves a massless part alone, i.e. when
//! the columns of Φ_q of the massless parts' coordinates have full column
//! rank (then the mass matrix is positive definite on the null space of
//! Φ_q and the acceleration equations [M Φ_qᵀ; Φ_q 0] are regular). The
//! check adds the parts one at a time, in model order, and names the first
//! whose coordinates the constraints leave free.

use crate::analysis::SolverError;
use mbsolve_mech::{MechData, System};
use nalgebra::DMatrix;

/// Relative singular-value threshold of the rank test.
const RANK_RTOL: f64 = 1e-9;

pub(crate) fn check_massless(
    sys: &System,
    model: &mbsolve_model::Model,
    data: &MechData,
    q: &[f64],
    t: f64,
) -> Result<(), SolverError> {
    let massless: Vec<usize> = (0..sys.nb())
        .filter(|&b| sys.bodies[b].mass == 0.0)
        .collect();
    if massless.is_empty() {
        return Ok(());
    }
    // Φ_q rows (active equations) restricted to the massless columns.
    let ncols = 7 * massless.len();
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for k in (0..sys.neq()).filter(|&k| data.active[k]) {
        let eqb = sys.equations[k].bodies();
        let extra = sys.equations[k].extra_bodies();
        let touches = |b: &usize| massless.contains(b);
        if !eqb
            .iter()
            .chain(extra.iter().flatten())
            .flatten()
            .any(touches)
        {
            continue;
        }
        let v = sys.equation::<mbsolve_mech::local::NoHess>(k, q, t);
        let mut row = vec![0.0; ncols];
        for l in 0..14 {
            if let Some(g) = mbsolve_mech::system::global_index(&eqb, l) {
                if let Some(p) = massless.iter().position(|b| *b == g / 7) {
                    row[7 * p + g % 7] = v.s.grad[l];
                }
            }
        }
        sys.for_extra_gradient(k, q, t, true, |g, d| {
            if let Some(p) = massless.iter().position(|b| *b == g / 7) {
                row[7 * p + g % 7] += d;
            }
        });
        rows.push(row);
    }
    for n in 1..=massless.len() {
        let cols = 7 * n;
        let a = DMatrix::from_fn(rows.len(), cols, |r, c| rows[r][c]);
        let rank = if rows.len() < cols {
            rows.len().min(rank_of(a))
        } else {
            rank_of(a)
        };
        if rank < cols {
            let part = mbsolve_model::ElementRef::Part(sys.bodies[massless[n - 1]].part);
            return Err(SolverError::Model(mbsolve_model::ModelError {
                element: Some(part),
                location: model.describe(part),
                message: format!(
                    "massless part (no MASS): its constraints leave {} of its 6 degrees of freedom free; Adams accepts a massless part only when its constraints determine its motion: constrain it, or give it mass and inertia",
                    cols - rank
                ),
            }));
        }
    }
    Ok(())
}

fn rank_of(a: DMatrix<f64>) -> usize {
    if a.nrows() == 0 {
        return 0;
    }
    let s = a.singular_values();
    let top = s.iter().fold(0.0f64, |m, v| m.max(*v));
    s.iter().filter(|v| **v > RANK_RTOL * top).count()
}
