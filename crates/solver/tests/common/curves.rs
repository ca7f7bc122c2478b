//! Curve data shared by the PTCV and CVCV tests.

use mbsolve_model::{Id, Matrix};
use nalgebra::Vector3;

/// The circle of radius `r` about the origin in the x-y plane through `n`
/// points starting at (0, −r), the first repeated last (Adams: a CLOSED
/// curve's first and last points are the same). A closed interpolating
/// cubic through them departs from the circle by about
/// 2e-3·r·(12/n)⁴ (1.2e-7 m for r = 0.5, n = 64).
pub fn circle(r: f64, n: usize) -> Vec<Vector3<f64>> {
    (0..=n)
        .map(|k| {
            let th = std::f64::consts::TAU * k as f64 / n as f64;
            Vector3::new(r * th.sin(), -r * th.cos(), 0.0)
        })
        .collect()
}

/// MATRIX/`id` holding the points, one row each (x, y, z).
pub fn matrix(id: Id, points: &[Vector3<f64>]) -> Matrix {
    Matrix {
        id,
        rows: points.len(),
        columns: 3,
        values: points.iter().flat_map(|p| [p.x, p.y, p.z]).collect(),
        sparse: false,
    }
}
