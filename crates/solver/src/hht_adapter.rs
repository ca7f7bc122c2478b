//! TEMPORARY: HHT/NEWMARK behind `DaeIntegrator` until `integrate`'s step
//! skeleton makes `Hht` implement it itself (issue 12, item 1). Delete this
//! file at that merge; `formulation::Integrator` then becomes
//! `mbsolve_integrate::DaeIntegrator` and the HHT arm of
//! `formulation::I3Segment::integrator` builds `Hht` directly.
//!
//! Contract (the one `Hht` will implement): y = [q; u], y' = [u; a]
//! (2·nq), `accepted()` = [q; u] of the last accepted step, λ through
//! `multipliers()`. The adapter cannot interpolate (INTERPOLATE stays
//! rejected for HHT/NEWMARK in the settings table) and has no temporary
//! corrector switch (`use_corrector_classes` returns false).

use crate::analysis::Frame;
use crate::second_order::I3SecondOrder;
use mbsolve_integrate::{
    DaeIntegrator, DaeProblem, Event, Gstiff, Hht, HhtParams, IntegrationError, RtiMeter,
    Statistics, Wstiff,
};

/// `DaeIntegrator` plus the multipliers of integrators that keep them
/// outside y (the trait method `integrate` will get, default None).
pub trait WithMultipliers: DaeIntegrator {
    fn multipliers(&self) -> Option<&[f64]> {
        None
    }
}
impl<P: DaeProblem> WithMultipliers for Gstiff<'_, P> {}
impl<P: DaeProblem> WithMultipliers for Wstiff<'_, P> {}

pub struct HhtAdapter<'a, 'p> {
    inner: Hht<'a, I3SecondOrder<'p>>,
    y: Vec<f64>,
    yp: Vec<f64>,
}

impl<'a, 'p> HhtAdapter<'a, 'p> {
    /// Start from the consistent state `s`.
    pub fn new(
        problem: &'a mut I3SecondOrder<'p>,
        params: HhtParams,
        s: &Frame,
    ) -> Result<Self, IntegrationError> {
        let n = s.q.len();
        let inner = Hht::new(problem, params, s.t, &s.q, &s.u, &s.a, &s.lambda)?;
        let mut me = HhtAdapter {
            inner,
            y: vec![0.0; 2 * n],
            yp: vec![0.0; 2 * n],
        };
        me.refresh();
        Ok(me)
    }

    /// Copy the integrator's accepted (q, u, a) into y, y'.
    fn refresh(&mut self) {
        let n = self.inner.q().len();
        self.y[..n].copy_from_slice(self.inner.q());
        self.y[n..].copy_from_slice(self.inner.u());
        self.yp[..n].copy_from_slice(self.inner.u());
        self.yp[n..].copy_from_slice(self.inner.a());
    }
}

impl DaeIntegrator for HhtAdapter<'_, '_> {
    fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let r = self.inner.advance_to(tout);
        self.refresh();
        r
    }
    fn time(&self) -> f64 {
        self.inner.t
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.y, &self.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.y
    }
    fn statistics(&mut self) -> Statistics {
        self.inner.sync_stats();
        self.inner.stats.clone()
    }
    fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.inner.events)
    }
    fn put_rti(&mut self, meter: Option<RtiMeter>) {
        self.inner.rti = meter;
    }
    fn take_rti(&mut self) -> Option<RtiMeter> {
        self.inner.rti.take()
    }
    fn max_local_error(&self) -> f64 {
        self.inner.max_local_error
    }
}

impl WithMultipliers for HhtAdapter<'_, '_> {
    fn multipliers(&self) -> Option<&[f64]> {
        Some(self.inner.lambda())
    }
}
