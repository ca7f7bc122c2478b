//! Bounded diagnostics for one dynamic analysis: the integrator's events
//! (DESIGN.md: "Diagnostics are data") go to the message log in full for
//! the first [`FULL_EVENTS_PER_KIND`] of each kind; the rest are counted
//! per kind with their time range and summarised once at the end, so the
//! log grows with information, not with repetitions. And a stall watch:
//! many steps with many failures and no progress in time end the analysis
//! with a diagnosis instead of spinning.

use mbsolve_integrate::Event;

/// Events of one kind written to the log in full; later ones are counted.
pub const FULL_EVENTS_PER_KIND: usize = 20;

const KINDS: [&str; 7] = [
    "integration failures (rejected steps)",
    "corrector failures",
    "singular matrices",
    "symbolic refactorizations",
    "corrector switches",
    "stiffness reports",
    "repartitions",
];

fn kind(e: &Event) -> (usize, f64) {
    match e {
        Event::IntegrationFailure { t, .. } => (0, *t),
        Event::CorrectorFailure { t, .. } => (1, *t),
        Event::SingularMatrix { t, .. } => (2, *t),
        Event::SymbolicRefactorization { t } => (3, *t),
        Event::CorrectorSwitch { t, .. } => (4, *t),
        Event::StiffnessDetected { t, .. } => (5, *t),
        Event::Repartition { t, .. } => (6, *t),
    }
}

#[derive(Clone, Copy, Default)]
struct Count {
    logged: usize,
    /// Events beyond the ones logged, and their first and last times.
    more: u64,
    first: f64,
    last: f64,
}

/// The events of one analysis, logged in full up to a cap per kind.
#[derive(Default)]
pub(crate) struct EventLog {
    counts: [Count; KINDS.len()],
}

impl EventLog {
    /// Log `e` in full, or count it once its kind has had its lines.
    pub fn record(&mut self, e: &Event, log: &mut Vec<String>) {
        let (k, t) = kind(e);
        let c = &mut self.counts[k];
        if c.logged < FULL_EVENTS_PER_KIND {
            c.logged += 1;
            log.push(e.to_string());
            if c.logged == FULL_EVENTS_PER_KIND {
                log.push(format!(
                    "(the first {FULL_EVENTS_PER_KIND} {} are logged in full; later ones are counted and summarised at the end of the analysis)",
                    KINDS[k]
                ));
            }
            return;
        }
        if c.more == 0 {
            c.first = t;
        }
        c.more += 1;
        c.last = t;
    }

    /// One line per kind with events beyond the ones logged.
    pub fn finish(&mut self, log: &mut Vec<String>) {
        for (k, c) in self.counts.iter_mut().enumerate() {
            if c.more > 0 {
                log.push(format!(
                    "{} more {} from t = {:.6e} to t = {:.6e} (not logged one by one)",
                    c.more, KINDS[k], c.first, c.last
                ));
            }
            *c = Count::default();
        }
    }
}

/// Accepted steps in one stall window.
pub const STALL_WINDOW: u64 = 10_000;
/// Failed attempts (corrector failures and rejected steps) within a window
/// that, with too little progress, make a stall: one per ten steps.
pub const STALL_FAILURES: u64 = 1_000;
/// Progress in time over a window, as a fraction of the analysis span,
/// below which a window with many failures is a stall: at that pace the
/// span would need more than STALL_WINDOW / STALL_SPAN_FRACTION = 1e9
/// steps. A run that is only slow (a small HMAX) fails rarely and is never
/// stopped.
pub const STALL_SPAN_FRACTION: f64 = 1e-5;

/// Watches the accepted steps of one analysis for a stall.
pub(crate) struct StallWatch {
    span: f64,
    end: f64,
    t0: f64,
    steps: u64,
    corrector: u64,
    rejected: u64,
}

impl StallWatch {
    pub fn new(t_start: f64, end: f64) -> StallWatch {
        StallWatch {
            span: end - t_start,
            end,
            t0: t_start,
            steps: 0,
            corrector: 0,
            rejected: 0,
        }
    }

    /// A failed attempt reported by an event.
    pub fn failure(&mut self, e: &Event) {
        match e {
            Event::CorrectorFailure { .. } => self.corrector += 1,
            Event::IntegrationFailure { .. } => self.rejected += 1,
            _ => {}
        }
    }

    /// An accepted step ending at `t` with step size `h`; Some(diagnosis)
    /// when the window it closes is a stall.
    pub fn step(&mut self, t: f64, h: f64) -> Option<String> {
        self.steps += 1;
        if self.steps < STALL_WINDOW {
            return None;
        }
        let advanced = t - self.t0;
        let failures = self.corrector + self.rejected;
        let stalled = failures >= STALL_FAILURES && advanced < STALL_SPAN_FRACTION * self.span;
        let diagnosis = stalled.then(|| {
            format!(
                "the integration stalled: its last {STALL_WINDOW} steps advanced t by only {advanced:.3e} (from {:.6e}), with {} corrector failures and {} rejected steps, and the step size is {h:.3e}; at this pace END = {} would take more than {:.0e} further steps. A different ERROR, integrator or formulation may pass this point",
                self.t0,
                self.corrector,
                self.rejected,
                self.end,
                ((self.end - t) / advanced.max(f64::MIN_POSITIVE) * STALL_WINDOW as f64).min(f64::MAX)
            )
        });
        (self.t0, self.steps, self.corrector, self.rejected) = (t, 0, 0, 0);
        diagnosis
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(t: f64) -> Event {
        Event::CorrectorFailure {
            t,
            h: 1e-9,
            iterations: 10,
            equation: "e".into(),
            variable: "v".into(),
        }
    }

    #[test]
    fn repeated_events_are_logged_a_few_times_then_counted() {
        let (mut events, mut log) = (EventLog::default(), Vec::new());
        for k in 0..1000 {
            events.record(&failure(k as f64), &mut log);
        }
        events.record(&Event::SymbolicRefactorization { t: 7.0 }, &mut log);
        events.finish(&mut log);
        assert_eq!(log.len(), FULL_EVENTS_PER_KIND + 3);
        assert_eq!(log[0], failure(0.0).to_string());
        assert_eq!(
            log[FULL_EVENTS_PER_KIND],
            "(the first 20 corrector failures are logged in full; later ones are counted and summarised at the end of the analysis)"
        );
        assert_eq!(
            log[FULL_EVENTS_PER_KIND + 1],
            "symbolic refactorization at t = 7.000000e0"
        );
        assert_eq!(
            log[FULL_EVENTS_PER_KIND + 2],
            "980 more corrector failures from t = 2.000000e1 to t = 9.990000e2 (not logged one by one)"
        );
    }

    #[test]
    fn a_stall_needs_many_failures_and_no_progress() {
        // No failures: tiny steps are only slow.
        let mut w = StallWatch::new(0.0, 10.0);
        assert!((1..=2 * STALL_WINDOW).all(|k| w.step(k as f64 * 1e-9, 1e-9).is_none()));
        // Failures with progress (1e-2 of the span per window): not a stall.
        let mut w = StallWatch::new(0.0, 10.0);
        for k in 1..=STALL_WINDOW {
            w.failure(&failure(0.0));
            assert!(w.step(k as f64 * 1e-5, 1e-5).is_none());
        }
        // One failure per ten steps and 1e-5 s over a 10 s span: a stall.
        let mut w = StallWatch::new(5.0, 15.0);
        let mut got = None;
        for k in 1..=STALL_WINDOW {
            if k % 10 == 0 {
                w.failure(&failure(0.0));
            }
            got = got.or(w.step(5.0 + k as f64 * 1e-9, 1e-9));
        }
        assert_eq!(
            got.unwrap(),
            "the integration stalled: its last 10000 steps advanced t by only 1.000e-5 (from 5.000000e0), with 1000 corrector failures and 0 rejected steps, and the step size is 1.000e-9; at this pace END = 15 would take more than 1e10 further steps. A different ERROR, integrator or formulation may pass this point"
        );
    }
}
