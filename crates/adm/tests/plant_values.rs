//! PINVAL(id, n) / POUVAL(id, n) read the n-th VARIABLE of PINPUT/id or
//! POUTPUT/id: each call becomes VARVAL of that VARIABLE (so it reads the
//! same value), the lists read ahead of the statements; an unknown id or an
//! n out of range is refused naming the element, file, line and column.

mod common;

/// One free part (CM marker 20) and two VARIABLEs for the lists to name.
const BASE: &str = "plant values\n\
VARIABLE/3, FUNCTION = 2*TIME\n\
PART/1, GROUND\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
MARKER/20, PART = 2, QP = 0, 1, 0\n\
VARIABLE/32, FUNCTION = DX(20)\n";

#[test]
fn pinval_and_pouval_read_the_variable_they_name() {
    // The PINPUT/POUTPUT come after the function that reads them.
    let m = common::build_on(
        BASE,
        "VARIABLE/5, FUNCTION = PINVAL(1, 2) + pouval ( 2,1 )*PINVAL(1,1)\n\
         PINPUT/1, VARIABLES = 32, 3\nPOUTPUT/2, VARIABLES = 3\n",
    );
    let v5 = m.variables.iter().find(|v| v.id == 5).unwrap();
    let compact: String = v5.function.split_whitespace().collect();
    assert_eq!(compact, "VARVAL(3)+VARVAL(3)*VARVAL(32)");
    // Padded to the written length: later columns keep their place.
    assert_eq!(
        v5.function.len(),
        "PINVAL(1, 2) + pouval ( 2,1 )*PINVAL(1,1)".len()
    );
}

#[test]
fn bad_pinval_and_pouval_calls_are_refused_by_name() {
    let lists = "PINPUT/1, VARIABLES = 32, 3\nPOUTPUT/2, VARIABLES = 3\n";
    let cases = [
        (
            "VARIABLE/5, FUNCTION = 1 + PINVAL(7, 1)\n",
            "m.adm:9:28: VARIABLE/5: PINVAL(7,1): PINPUT/7 does not exist",
        ),
        (
            "VARIABLE/5, FUNCTION = POUVAL(1, 1)\n",
            "m.adm:9:24: VARIABLE/5: POUVAL(1,1): POUTPUT/1 does not exist",
        ),
        (
            "VARIABLE/5, FUNCTION = PINVAL(1, 3)\n",
            "m.adm:9:24: VARIABLE/5: PINVAL(1,3): PINPUT/1 has 2 VARIABLES, so n must be 1…2, got 3",
        ),
        (
            "VARIABLE/5, FUNCTION = POUVAL(2, 0)\n",
            "m.adm:9:24: VARIABLE/5: POUVAL(2,0): the arguments must be the PINPUT/POUTPUT id and n ≥ 1, both integers",
        ),
        (
            "VARIABLE/5, FUNCTION = PINVAL(1, TIME)\n",
            "m.adm:9:24: VARIABLE/5: PINVAL(1,TIME): the arguments must be the PINPUT/POUTPUT id and n ≥ 1, both integers",
        ),
        (
            "VARIABLE/5, FUNCTION = 2*PINVAL\n",
            "m.adm:9:26: VARIABLE/5: PINVAL must be called as PINVAL(id, n)",
        ),
    ];
    for (extra, want) in cases {
        assert_eq!(
            common::error_on(BASE, &format!("{lists}{extra}")),
            want,
            "{extra}"
        );
    }
}
