//! The Real Time Index report of the fixed-step option, in the seeds'
//! layout ("Real Time Index (RTI) reporting with the fixed step
//! integrator"), for the message log and the terminal.

use mbsolve_integrate::RtiSummary;
use std::fmt::Write;

/// (symbol, name, seconds per unit) of an Adams TIME unit (UNITS/TIME =
/// SECOND, MILLISECOND, MINUTE, HOUR; abbreviations accepted).
pub fn time_unit(word: &str) -> (&'static str, &'static str, f64) {
    let w = word.to_ascii_uppercase();
    if w.starts_with("MILLI") || w == "MS" {
        ("ms", "milliseconds", 1e-3)
    } else if w.starts_with("MIN") {
        ("min", "minutes", 60.0)
    } else if w.starts_with('H') {
        ("h", "hours", 3600.0)
    } else {
        ("s", "seconds", 1.0)
    }
}

/// C-style `%.{prec}e` (two-digit signed exponent), as Adams prints it.
pub fn c_exp(v: f64, prec: usize) -> String {
    let s = format!("{v:.prec$e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// The report; `step` is the fixed step in model time units.
pub fn rti_report(
    integrator: &str,
    time_units: &str,
    hratio: i64,
    step: f64,
    s: &RtiSummary,
) -> String {
    let (sym, name, to_s) = time_unit(time_units);
    let step_s = step * to_s;
    let hz = |rti: f64| {
        if rti > 0.0 {
            format!("{:.0} Hz", 1.0 / (rti * step_s))
        } else {
            "unmeasurable".to_string()
        }
    };
    let rule = "--------------------------------";
    let mut r = String::new();
    let _ = writeln!(r, "{rule}\nReal Time Index (RTI) statistics\n{rule}");
    let _ = writeln!(r, "Integrator name : {integrator}");
    let _ = writeln!(r, "Time units : {sym} ({name})");
    let _ = writeln!(r, "HRATIO : {hratio}");
    if sym == "s" {
        let _ = writeln!(r, "Time step : {} s", c_exp(step, 5));
    } else {
        let _ = writeln!(
            r,
            "Time step : {} {sym} ({} s)",
            c_exp(step, 5),
            c_exp(step_s, 5)
        );
    }
    let _ = writeln!(r, "Requested frequency : {:.2} Hz", 1.0 / step_s);
    let _ = writeln!(
        r,
        "Minimum RTI index : {:.5} ({}) (at time {} {sym})",
        s.min,
        hz(s.min),
        c_exp(s.min_time, 6)
    );
    let _ = writeln!(
        r,
        "Average RTI index : {:.5} ({})",
        s.average,
        hz(s.average)
    );
    let _ = writeln!(
        r,
        "Maximum RTI index : {:.5} ({}) (at time {} {sym})",
        s.max,
        hz(s.max),
        c_exp(s.max_time, 6)
    );
    let _ = writeln!(r, "Notes:");
    let _ = writeln!(
        r,
        "1. Minimum, Average and Maximum RTI are computed after the first integration step."
    );
    let _ = write!(
        r,
        "2. The frequency (Hz) is measured as the inverse of the time (seconds) required to step one whole step."
    );
    if s.zero_detected {
        let _ = write!(
            r,
            "\n3. A zero RTI was detected. This is a limitation of the OS granularity in measuring CPU time."
        );
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeds' example figures render in the seeds' layout, with the
    /// frequencies recomputed from the RTI and the step.
    #[test]
    fn layout_matches_the_seed() {
        let s = RtiSummary {
            steps_measured: 10,
            min: 0.29999,
            min_time: 0.02,
            average: 0.38838,
            max: 0.60001,
            max_time: 0.03,
            zero_detected: false,
        };
        let r = rti_report("Fixed Step HHT/I3", "SECOND", 2, 0.01, &s);
        let expected = "\
--------------------------------
Real Time Index (RTI) statistics
--------------------------------
Integrator name : Fixed Step HHT/I3
Time units : s (seconds)
HRATIO : 2
Time step : 1.00000e-02 s
Requested frequency : 100.00 Hz
Minimum RTI index : 0.29999 (333 Hz) (at time 2.000000e-02 s)
Average RTI index : 0.38838 (257 Hz)
Maximum RTI index : 0.60001 (167 Hz) (at time 3.000000e-02 s)
Notes:
1. Minimum, Average and Maximum RTI are computed after the first integration step.
2. The frequency (Hz) is measured as the inverse of the time (seconds) required to step one whole step.";
        assert_eq!(r, expected);
        let ms = rti_report(
            "Fixed Step HHT/I3",
            "MILLISECOND",
            1,
            5.0,
            &RtiSummary {
                zero_detected: true,
                min: 0.0,
                ..s
            },
        );
        assert!(ms.contains("Time units : ms (milliseconds)"), "{ms}");
        assert!(
            ms.contains("Time step : 5.00000e+00 ms (5.00000e-03 s)"),
            "{ms}"
        );
        assert!(ms.contains("Requested frequency : 200.00 Hz"), "{ms}");
        assert!(
            ms.contains("Minimum RTI index : 0.00000 (unmeasurable)"),
            "{ms}"
        );
        assert!(ms.ends_with("3. A zero RTI was detected. This is a limitation of the OS granularity in measuring CPU time."));
    }
}
