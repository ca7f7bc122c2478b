//! Discrete LSE (SAMPLE_PERIOD, SAMPLE_OFFSET): the states follow the
//! difference equation x_{k+1} = A x_k + B u(t_k) at t_k = offset + k·T
//! and are held in between; y = C x + D u. Checked against the difference
//! equation iterated by hand, at every output (outputs at a sample
//! instant show the value before that instant's update).

mod common;

/// Two states, one input u = sin(2t) + 0.3 t (VARIABLE/1), one output y = x1 − x2;
/// T = 0.1, offset 0.05; A = [0.5 0.1; −0.2 0.9], B = [1; 0.5], IC (1, −1).
const DECK: &str = "discrete LSE\n\
PART/1, GROUND\n\
VARIABLE/1, FUNCTION = SIN(2*TIME) + 0.3*TIME\n\
ARRAY/10, U, SIZE = 1, VARIABLES = 1\n\
ARRAY/11, X, SIZE = 2\n\
ARRAY/12, Y, SIZE = 1\n\
ARRAY/13, IC, SIZE = 2, NUMBERS = 1, -1\n\
MATRIX/1, FULL = RORDER, ROWS = 2, COLUMNS = 2, VALUES = 0.5, 0.1, -0.2, 0.9\n\
MATRIX/2, FULL = RORDER, ROWS = 2, COLUMNS = 1, VALUES = 1, 0.5\n\
MATRIX/3, FULL = RORDER, ROWS = 1, COLUMNS = 2, VALUES = 1, -1\n\
LSE/1, X = 11, A = 1, B = 2, C = 3, U = 10, Y = 12, IC = 13, SAMPLE_PERIOD = 0.1, SAMPLE_OFFSET = 0.05\n\
REQUEST/1, F2 = ARYVAL(11,1)\\F3 = ARYVAL(11,2)\\F4 = ARYVAL(12,1)\n\
END\n";

/// (x1, x2) after every sample instant t_k = offset + 0.1 k < t.
fn expected(t: f64, offset: f64) -> [f64; 2] {
    let mut x = [1.0f64, -1.0];
    let mut k = 0;
    loop {
        let tk = offset + 0.1 * k as f64;
        if tk >= t - 1e-9 {
            return x;
        }
        let u = (2.0 * tk).sin() + 0.3 * tk;
        x = [
            0.5 * x[0] + 0.1 * x[1] + u,
            -0.2 * x[0] + 0.9 * x[1] + 0.5 * u,
        ];
        k += 1;
    }
}

/// Two SIMULATEs (to 0.5 and 1.0, outputs every 0.01, GSTIFF and SI2):
/// x and y equal the difference equation to 1e-12 at all 101 outputs.
/// With offset 0 the first sample is at the start and one falls on the
/// end of the first SIMULATE.
#[test]
fn discrete_lse_follows_its_difference_equation() {
    for (form, offset) in [("I3", 0.05), ("SI2", 0.05), ("I3", 0.0)] {
        let deck = DECK.replace("SAMPLE_OFFSET = 0.05", &format!("SAMPLE_OFFSET = {offset}"));
        let acf = format!(
            "t.adm\nt\nINTEGRATOR/GSTIFF, {form}, ERROR = 1E-6\nSIMULATE/DYNAMIC, END = 0.5, DTOUT = 0.01\nSIMULATE/DYNAMIC, END = 1.0, DTOUT = 0.01\n"
        );
        let (sim, r) = common::run_in_process(&deck, &acf);
        r.unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(sim.frames.len(), 101, "{form}");
        let mut worst = 0.0f64;
        for f in &sim.frames {
            let x = expected(f.t, offset);
            worst = worst
                .max((f.w[0] - x[0]).abs())
                .max((f.w[1] - x[1]).abs())
                .max((f.w[2] - (x[0] - x[1])).abs());
        }
        println!("discrete LSE {form}, offset {offset}: worst deviation {worst:.1e}");
        assert!(worst < 1e-12, "{form}: {worst}");
        // The states moved: ten samples changed them.
        let last = sim.frames.last().unwrap();
        assert!((last.w[0] - 1.0).abs() > 0.1, "{form}: {}", last.w[0]);
    }
}

/// The written dataset keeps SAMPLE_PERIOD and SAMPLE_OFFSET.
#[test]
fn written_dataset_keeps_the_sampling() {
    let m = mbsolve_adm::read_adm_str(DECK, "d.adm").unwrap();
    let text = mbsolve_adm::write_adm(&m).unwrap();
    assert!(
        text.contains("SAMPLE_PERIOD = 1e-1, SAMPLE_OFFSET = 5e-2"),
        "{text}"
    );
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap();
    assert_eq!(back.samplings, m.samplings);
}
