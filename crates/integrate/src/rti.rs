//! Real Time Index (seeds: "Real Time Index (RTI) reporting with the fixed
//! step integrator"): RTI = wall time to take one step / the step size in
//! seconds. The first step is excluded (it carries the initialization
//! overhead); a step too fast for the clock to measure gives RTI 0 and is
//! flagged.

use std::time::Duration;

/// Accumulates the RTI of every fixed step after the first.
#[derive(Clone, Debug)]
pub struct RtiMeter {
    /// The requested step in seconds (t_step).
    step_seconds: f64,
    first_skipped: bool,
    count: u64,
    sum: f64,
    min: (f64, f64),
    max: (f64, f64),
    zero_seen: bool,
}

/// The measured figures: RTI values with the simulation time they occurred.
#[derive(Clone, Debug, PartialEq)]
pub struct RtiSummary {
    pub steps_measured: u64,
    pub min: f64,
    pub min_time: f64,
    pub average: f64,
    pub max: f64,
    pub max_time: f64,
    pub zero_detected: bool,
}

impl RtiMeter {
    pub fn new(step_seconds: f64) -> Self {
        RtiMeter {
            step_seconds,
            first_skipped: false,
            count: 0,
            sum: 0.0,
            min: (f64::INFINITY, 0.0),
            max: (f64::NEG_INFINITY, 0.0),
            zero_seen: false,
        }
    }

    /// One step that ended at simulation time `t` took `elapsed`.
    pub fn record(&mut self, t: f64, elapsed: Duration) {
        if !self.first_skipped {
            self.first_skipped = true;
            return;
        }
        let rti = elapsed.as_secs_f64() / self.step_seconds;
        self.count += 1;
        self.sum += rti;
        if rti == 0.0 {
            self.zero_seen = true;
        }
        if rti < self.min.0 {
            self.min = (rti, t);
        }
        if rti > self.max.0 {
            self.max = (rti, t);
        }
    }

    /// None until a step after the first was measured.
    pub fn summary(&self) -> Option<RtiSummary> {
        (self.count > 0).then(|| RtiSummary {
            steps_measured: self.count,
            min: self.min.0,
            min_time: self.min.1,
            average: self.sum / self.count as f64,
            max: self.max.0,
            max_time: self.max.1,
            zero_detected: self.zero_seen,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// First step excluded; min/max carry their times; average over the
    /// rest; a zero measurement is flagged.
    #[test]
    fn first_step_excluded_and_extremes_timed() {
        let mut m = RtiMeter::new(0.01);
        assert!(m.summary().is_none());
        m.record(0.01, Duration::from_millis(50)); // initialization: ignored
        assert!(m.summary().is_none());
        m.record(0.02, Duration::from_millis(3));
        m.record(0.03, Duration::from_millis(6));
        m.record(0.04, Duration::from_millis(3));
        let s = m.summary().unwrap();
        assert_eq!(s.steps_measured, 3);
        assert!((s.min - 0.3).abs() < 1e-12 && s.min_time == 0.02);
        assert!((s.max - 0.6).abs() < 1e-12 && s.max_time == 0.03);
        assert!((s.average - 0.4).abs() < 1e-12);
        assert!(!s.zero_detected);
        m.record(0.05, Duration::ZERO);
        let s = m.summary().unwrap();
        assert!(s.zero_detected && s.min == 0.0 && s.min_time == 0.05);
    }
}
