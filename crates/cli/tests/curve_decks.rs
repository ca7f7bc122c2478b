//! CURVE, CURVE() and PTCV through the whole chain (`.adm` → reader →
//! solver → CSV): a bead on a circular wire whose VARIABLE reads CURVE()
//! before the CURVE and its MATRIX are defined (a forward reference), and
//! a function REQUEST reading CURVE() directly; the bead stays on the wire.

mod common;

use mbsolve_model::CurveShape;

fn col(h: &[String], name: &str) -> usize {
    h.iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn bead_on_a_wire_deck_with_curve_functions() {
    let r = 0.5;
    let values: Vec<String> = (0..=32)
        .map(|k| {
            let th = std::f64::consts::TAU * k as f64 / 32.0;
            format!("{:.17}, {:.17}, 0", r * th.sin(), -r * th.cos())
        })
        .collect();
    let adm = format!(
        "bead\n\
        UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
        ACCGRAV/JGRAV = -9.81\n\
        PART/1, GROUND\n\
        MARKER/11, PART = 1\n\
        MARKER/12, PART = 1, FLOATING\n\
        PART/2, MASS = 1, CM = 20, IP = 1e-3, 1e-3, 1e-3, QG = {x0}, {y0}, 0\n\
        MARKER/20, PART = 2\n\
        VARIABLE/1, FUNCTION = CURVE(TIME - 0.5, 1, 2, 1)\n\
        REQUEST/1, F2 = VARVAL(1)\\F3 = CURVE(TIME - 0.5, 0, 1, 1)\\F4 = DX(20)\\F5 = DY(20)\\F6 = DZ(20)\n\
        PTCV/1, I = 20, JFLOAT = 12, CURVE = 1, RM = 11\n\
        CURVE/1, CLOSED, MATRIX = 1, CURVE_POINTS\n\
        MATRIX/1, FULL = RORDER, ROWS = 33, COLUMNS = 3, VALUES = {values}\n\
        END\n",
        x0 = r * 0.7f64.sin(),
        y0 = -r * 0.7f64.cos(),
        values = values.join(", ")
    );
    let model = mbsolve_adm::read_adm_str(&adm, "bead.adm").unwrap();
    let shape = CurveShape::new(&model.curves[0], &model).unwrap();
    let d = common::scratch("curve", "bead");
    let (h, rows, _) = common::run_deck(
        &d,
        "bead",
        &adm,
        "integrator/gstiff, error = 1e-7\nsimulate/dynamic, end = 1, dtout = 0.01\nstop\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (t, f2, f3, x, y, z) = (
        col(&h, "time"),
        col(&h, "request_1.f2"),
        col(&h, "request_1.f3"),
        col(&h, "request_1.f4"),
        col(&h, "request_1.f5"),
        col(&h, "request_1.f6"),
    );
    assert!(rows.len() > 90, "{} rows", rows.len());
    let (mut worst_f, mut worst_gap) = (0.0f64, 0.0f64);
    for row in &rows {
        let j = shape.eval(row[t] - 0.5);
        worst_f = worst_f
            .max((row[f2] - j[1].y).abs())
            .max((row[f3] - j[0].x).abs());
        let p = nalgebra::Vector3::new(row[x], row[y], row[z]);
        worst_gap = worst_gap.max((shape.eval(shape.closest(&p))[0] - p).norm());
    }
    println!("CURVE() vs the curve: {worst_f:.1e}; bead off the wire: {worst_gap:.1e} m");
    // The CSV prints 17 significant digits or so; the constraint is held
    // to the corrector's tolerance.
    assert!(worst_f < 1e-12, "{worst_f}");
    assert!(worst_gap < 1e-6, "{worst_gap}");
}
