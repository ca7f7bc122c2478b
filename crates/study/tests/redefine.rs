//! Command-file FUNCTION redefinitions in a study run as in `mbsolve run`:
//! before the first SIMULATE they edit the dataset, after it they act from
//! the next analysis on.

use mbsolve_study::{run, Source};

const SLIDER: &str = include_str!("data/slider.adm");

/// SFORCE/1 = 4 N from the start, 0 from t = 1: z = 1 + 2 t², then
/// 3 + 4 (t − 1).
#[test]
fn redefinitions_before_and_after_the_first_simulate() {
    let src = Source {
        adm: SLIDER.into(),
        adm_name: "s.adm".into(),
        acf: Some("s.adm\ns\nSFORCE/1, FUNCTION = 4\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSFORCE/1, FUNCTION = 0\nSIMULATE/DYNAMIC, END = 2, STEPS = 10\n".into()),
        acf_name: "s.acf".into(),
    };
    let out = run(&src, &[], None).unwrap();
    assert_eq!(out.error, None);
    let n = out.header.len();
    let z = out.header.iter().position(|h| h == "request_1.z").unwrap();
    assert_eq!(out.rows(), 21);
    let mut worst = 0.0f64;
    for row in out.data.chunks(n) {
        let t = row[0];
        let want = if t <= 1.0 {
            1.0 + 2.0 * t * t
        } else {
            3.0 + 4.0 * (t - 1.0)
        };
        worst = worst.max((row[z] - want).abs());
    }
    assert!(worst < 1e-6, "deviation {worst:e}");
}
