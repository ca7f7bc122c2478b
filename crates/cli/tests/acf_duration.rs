//! `.acf` SIMULATE with DURATION = d (Adams SIMULATE command: the length of
//! this simulation): the run ends d after the time the previous SIMULATE
//! reached, which a SENSOR with RETURN may have made earlier than the END
//! that SIMULATE asked for.

mod common;

const G: f64 = 9.81;

/// POINT_MASS/1 (1 kg, CM marker 20) starts at y = 1 and falls under
/// gravity: y(t) = 1 − g t²/2; `extra` holds the SENSOR.
fn falling(extra: &str) -> String {
    format!(
        "falling point mass
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
POINT_MASS/1, MASS = 1, CM = 20, QG = 0, 1, 0
MARKER/20, POINT_MASS = 1
{extra}
END
"
    )
}

/// RETURN at TIME = 0.3 ends `END = 1`; `DURATION = 0.4` then runs from
/// 0.3 to 0.7 (not to 1.4, the END the command file planned), and its
/// STEPS = 4 outputs are 0.1 apart from the time reached. The height at
/// the end follows the free fall to 1e-5 m.
#[test]
fn duration_after_an_early_return_counts_from_the_time_reached() {
    let adm =
        falling("SENSOR/5, FUNCTION = TIME, VALUE = 0.3, ERROR = 1E-12, GE, RETURN, TERROR = 1E-9");
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSIMULATE/DYNAMIC, DURATION = 0.4, STEPS = 4\n";
    let (sim, r) = common::run_in_process(&adm, acf);
    r.unwrap();
    let last = sim.frames.last().unwrap();
    assert!((last.t - 0.7).abs() < 1e-8, "ended at {}", last.t);
    let y = last.q[1];
    let want = 1.0 - G * 0.7 * 0.7 / 2.0;
    assert!((y - want).abs() < 1e-5, "y = {y}, free fall {want}");
    // The second SIMULATE's outputs: 0.4, 0.5, 0.6, 0.7 after the trip.
    let after: Vec<f64> = sim
        .frames
        .iter()
        .map(|f| f.t)
        .filter(|t| *t > 0.3 + 1e-6)
        .collect();
    assert_eq!(after.len(), 4, "{after:?}");
    for (k, t) in after.iter().enumerate() {
        let want = 0.3 + 0.1 * (k + 1) as f64;
        assert!((t - want).abs() < 1e-8, "output {k} at {t}, want {want}");
    }
}

/// Without a sensor, DURATION continues from the previous END: 0.5 + 0.25.
#[test]
fn duration_continues_from_the_previous_end() {
    let adm = falling("");
    let acf = "t.adm\nt\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\nSIMULATE/DYNAMIC, DURATION = 0.25, STEPS = 5\n";
    let (sim, r) = common::run_in_process(&adm, acf);
    r.unwrap();
    let last = sim.frames.last().unwrap();
    assert!((last.t - 0.75).abs() < 1e-12, "ended at {}", last.t);
}
