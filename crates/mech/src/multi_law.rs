//! A user-state function (DIFF, LSE/TFSISO rows, implicit VARIABLE) that
//! reads markers or contacts on more than two moving parts. A state's row
//! is a scalar equation, so nothing ties it to two bodies: each measure is
//! evaluated on its own pair of bodies (a measure reads at most I, J and
//! K, and CONTACT() its two parts) and the chain rule
//! ∇f = Σ_k ∂f/∂m_k ∇m_k puts each measure's gradient into the columns of
//! its own bodies. A force element keeps the two-part limit: its
//! generalized force lives on the bodies of its I and J markers.

use crate::contact_fn;
use crate::forces::{function_law, Law};
use crate::local::{Grad, NL};
use crate::scratch::Scratch;
use crate::states::StateContext;
use crate::system::{gather, global_index, pose, MarkerFrame, System};
use mbsolve_model::{ElementRef, Measure, Model, ModelError, StateFunction};
use nalgebra::Vector3;
use std::sync::Arc;

/// The identity function of one measure: evaluating it through a [`Law`]
/// gives that measure's value and gradients.
#[derive(Debug)]
struct OneMeasure([Measure; 1]);

impl StateFunction for OneMeasure {
    fn measures(&self) -> &[Measure] {
        &self.0
    }
    fn eval(&self, _t: f64, m: &[f64], dm: &mut [f64]) -> (f64, f64) {
        dm[0] = 1.0;
        (m[0], 0.0)
    }
}

/// One measure on its own bodies.
#[derive(Clone, Debug)]
struct Part {
    bodies: [Option<usize>; 2],
    law: Law,
    kind: Measure,
}

/// A function law over any number of moving parts.
#[derive(Clone, Debug)]
pub(crate) struct MultiLaw {
    f: Arc<dyn StateFunction>,
    parts: Vec<Part>,
    /// Per-measure values, gradients and ∂f/∂m of an evaluation, kept so
    /// that evaluations in the step loop allocate nothing.
    work: Scratch<Work>,
}

#[derive(Debug, Default)]
struct Work {
    vals: Vec<f64>,
    grads: Vec<(Grad, Grad)>,
    dm: Vec<f64>,
}

/// The distinct moving bodies a measure reads: its markers' and, for
/// CONTACT(), the contact's parts. Err names a missing marker.
pub(crate) fn measure_bodies(sys: &System, m: &Measure) -> Result<Vec<usize>, u32> {
    let mut out = Vec::new();
    for id in m.markers() {
        let mf = sys.markers.iter().find(|x| x.id == id).ok_or(id)?;
        out.extend(mf.body);
    }
    out.extend(contact_fn::contact_bodies(sys, m));
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

impl MultiLaw {
    pub(crate) fn build(
        sys: &System,
        model: &Model,
        e: ElementRef,
        f: &Arc<dyn StateFunction>,
    ) -> Result<Self, ModelError> {
        let fail = |message: String| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        };
        let anchor = MarkerFrame {
            id: 0,
            body: None,
            s: Vector3::zeros(),
            axes: nalgebra::Matrix3::identity(),
        };
        let mut parts = Vec::with_capacity(f.measures().len());
        for m in f.measures() {
            let bs = measure_bodies(sys, m).map_err(|id| {
                fail(format!(
                    "function refers to marker {id}, which does not exist"
                ))
            })?;
            if bs.len() > 2 {
                return Err(fail(format!(
                    "a measure of the function ({m:?}) reads markers on three moving parts (its reference-frame marker on a third part); this is not supported yet"
                )));
            }
            let bodies = [bs.first().copied(), bs.get(1).copied()];
            let slot_of = |id: u32| -> Result<(MarkerFrame, usize), ModelError> {
                let mf = *sys.marker(id);
                let s = match mf.body {
                    Some(b) if bodies[1] == Some(b) => 1,
                    _ => 0,
                };
                Ok((mf, s))
            };
            let one: Arc<dyn StateFunction> = Arc::new(OneMeasure([*m]));
            let mut law = function_law(&one, &slot_of, (anchor, 0))?;
            contact_fn::attach(sys, model, e, &mut law, bodies)?;
            crate::orient_measure::attach(sys, &mut law);
            parts.push(Part {
                bodies,
                law,
                kind: *m,
            });
        }
        Ok(MultiLaw {
            f: f.clone(),
            parts,
            work: Scratch::default(),
        })
    }

    /// f at (q, u, t); with a seeded `st`, ∂f/∂w_j + c ∂f/∂w'_j instead
    /// (as `Law::value`). Unseeded, `grad` receives (global coordinate,
    /// ∂f/∂q, ∂f/∂u) per measure and local coordinate (repeated indices
    /// add up), the same sequence on every call.
    pub(crate) fn value(
        &self,
        q: &[f64],
        u: &[f64],
        t: f64,
        st: &StateContext,
        grad: Option<&mut dyn FnMut(usize, f64, f64)>,
    ) -> f64 {
        let plain = st.unseeded();
        let mut work = self.work.lock();
        let Work { vals, grads, dm } = &mut *work;
        vals.clear();
        grads.clear();
        for p in &self.parts {
            let poses = [
                p.bodies[0].map(|b| pose(q, b)),
                p.bodies[1].map(|b| pose(q, b)),
            ];
            let ul = gather(&p.bodies, u);
            let (v, gq, gu) = p.law.value(&poses, &ul, t, None, &plain);
            vals.push(v);
            grads.push((gq, gu));
        }
        dm.clear();
        dm.resize(self.parts.len(), 0.0);
        let (val, _) = self.f.eval(t, vals, dm);
        if st.seed.is_some() {
            return self
                .parts
                .iter()
                .zip(dm.iter())
                .map(|(p, d)| st.seed_weight(&p.kind) * d)
                .sum();
        }
        if let Some(emit) = grad {
            for ((p, (gq, gu)), d) in self.parts.iter().zip(grads.iter()).zip(dm.iter()) {
                for l in 0..NL {
                    if let Some(g) = global_index(&p.bodies, l) {
                        emit(g, d * gq[l], d * gu[l]);
                    }
                }
            }
        }
        val
    }
}
