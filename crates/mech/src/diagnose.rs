//! Which element made the equations non-finite (issue 11): a NaN or an
//! infinity from a MOTION, GCON or force function, or a force direction
//! that is undefined, named with the element, its function and the time,
//! so that the failure is not reported as a singular matrix or a step-size
//! collapse somewhere downstream. Called on a failure path (and before an
//! assembly), it evaluates each element once.

use crate::constraints::{evaluate, general_values};
use crate::system::{Primitive, System};
use mbsolve_model::readable;

impl System {
    /// The first element whose value at (q, u, t) is not finite, or whose
    /// geometry leaves its force undefined, as "MOTION/1 (m.adm:12):
    /// FUNCTION = LOG(TIME): LOG of a non-positive number (0), at t = 0".
    /// None when every element evaluates to finite values.
    pub fn diagnose_non_finite(&self, q: &[f64], u: &[f64], t: f64) -> Option<String> {
        let at = |element, cause: String| {
            format!(
                "{}: {cause}, at t = {}",
                self.describe(element),
                readable(t)
            )
        };
        for (k, eq) in self.equations.iter().enumerate() {
            let bodies = eq.bodies();
            let poses = [
                bodies[0].map(|b| crate::system::pose(q, b)),
                bodies[1].map(|b| crate::system::pose(q, b)),
            ];
            let time_function = match &eq.prim {
                Primitive::TranslationMotion { f, .. }
                | Primitive::AngleMotion { f, .. }
                | Primitive::SineMotion { f, .. }
                | Primitive::RotationMotion { f, .. } => Some(f),
                _ => None,
            };
            if let Some(f) = time_function {
                let v = f.eval(t);
                if !v.iter().all(|x| x.is_finite()) {
                    let cause = f
                        .explain(t)
                        .unwrap_or_else(|| format!("its function gives {v:?}"));
                    return Some(at(eq.element, cause));
                }
                continue;
            }
            let gcon = match &eq.prim {
                Primitive::General { measures, f, .. }
                | Primitive::VelocityGeneral { measures, f, .. } => {
                    Some((general_values(measures, &poses), f.as_ref()))
                }
                Primitive::GeneralMulti(g) => Some((g.measure_values(q), g.function())),
                _ => None,
            };
            if let Some((m, f)) = gcon {
                if let Some(k) = m.iter().position(|v| !v.is_finite()) {
                    let cause = format!("measure {} of its FUNCTION is {}", k + 1, m[k]);
                    return Some(at(eq.element, cause));
                }
                let n = m.len() + 1;
                let (mut g, mut h) = (vec![0.0; n], vec![0.0; n * n]);
                let v = f.eval2(t, &m, &mut g, &mut h);
                let finite = v.is_finite() && g.iter().chain(&h).all(|x| x.is_finite());
                if !finite {
                    let cause = f
                        .explain(t, &m)
                        .unwrap_or_else(|| format!("its function value is {v}"));
                    return Some(at(eq.element, cause));
                }
                continue;
            }
            // A COUPLER's row may span two pairs of bodies: `equation`
            // evaluates both.
            let v = match &eq.prim {
                Primitive::Coupler(_) => self.equation::<crate::local::NoHess>(k, q, t),
                _ => evaluate::<crate::local::NoHess>(&eq.prim, &poses, t),
            };
            if !v.s.val.is_finite() {
                let cause = format!("constraint equation {} is {}", eq.name, v.s.val);
                return Some(at(eq.element, cause));
            }
        }
        self.forces
            .iter()
            .find_map(|fe| fe.diagnose(q, u, t).map(|cause| at(fe.element, cause)))
    }
}
