//! The MotionSolve ASCII `.plt` result file (MS-XML-GRAMMAR.md §7), written
//! beside the CSV when a deck's ResOutput asks for it (`plt_file="TRUE"`):
//!
//! ```text
//! <title line>
//! Generated on <date>, mbsolve
//!     N     <unit code>  <length units per metre, %.15e>
//! then per request: id, type code, I, J, name length (%11d then 4×%14d)
//!                   and the name (the request's comment)
//! then per output time: ' %13.5E' (time), and per request, in directory
//!                   order, ' ' + 6×'%13.5E'
//! ```
//!
//! Type codes 1 = MARKER_DISPLACEMENT, 2 = MARKER_VELOCITY, 5 =
//! EXPRESSION were observed; 3 (acceleration) and 4 (force) are presumed
//! (the grammar says so). The six slots are components 2, 3, 4, 6, 7, 8 of
//! the 8-component request: X Y Z and the rotational ones (yaw, pitch,
//! roll in radians for displacements, angle_type YPR). Values are in model
//! units, angles in radians.

use mbsolve_mech::rotation::rot;
use mbsolve_mech::System;
use mbsolve_model::{Id, Model, RequestKind};
use mbsolve_solver::analysis::Frame;
use nalgebra::{Matrix3, Vector4};
use std::fmt::Write as _;

/// C's `%.{prec}E`/`%.{prec}e`: mantissa, sign and at least two exponent
/// digits ("1.00000E+03").
pub fn c_exp(v: f64, prec: usize, upper: bool) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let s = format!("{v:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    let mark = if upper { 'E' } else { 'e' };
    format!("{mant}{mark}{sign}{:02}", e.abs())
}

/// The `%13.5E` field.
fn field(v: f64) -> String {
    format!("{:>13}", c_exp(v, 5, true))
}

/// What one request writes.
enum Slot {
    Standard(mbsolve_model::Request),
    /// Column indices (in the CSV row, time at 0) of components
    /// 2, 3, 4, 6, 7, 8 of a function request; None = not given (0).
    Function([Option<usize>; 6]),
}

/// The request directory and the per-frame writer.
pub struct Plt {
    slots: Vec<Slot>,
}

fn unit_code(model: &Model) -> (String, f64) {
    let u = &model.units;
    let up = |s: &str| s.trim().to_ascii_uppercase();
    let (length, per_metre) = match up(&u.length).as_str() {
        "METER" | "M" => ("M", 1.0),
        "MILLIMETER" | "MM" => ("MM", 1e3),
        "CENTIMETER" | "CM" => ("CM", 1e2),
        "KILOMETER" | "KM" => ("KM", 1e-3),
        "INCH" | "IN" => ("IN", 1.0 / 0.0254),
        "FOOT" | "FT" => ("FT", 1.0 / 0.3048),
        _ => ("L", 1.0),
    };
    let mass = match up(&u.mass).as_str() {
        "KILOGRAM" | "KG" => "KG",
        "GRAM" | "G" => "G",
        "MEGAGRAM" => "MG",
        "POUND_MASS" => "LBM",
        "SLUG" => "SLUG",
        _ => "M",
    };
    let time = match up(&u.time).as_str() {
        "SECOND" | "S" => "S",
        "MILLISECOND" | "MS" => "MS",
        "MINUTE" => "MIN",
        "HOUR" => "H",
        _ => "T",
    };
    let force = match up(&u.force).as_str() {
        "NEWTON" | "N" => "N",
        "KNEWTON" => "KN",
        "MILLINEWTON" => "MN",
        "POUND_FORCE" => "LBF",
        "DYNE" => "DYNE",
        _ => "F",
    };
    (format!("{length}{mass}{time}_{force}_RACA"), per_metre)
}

impl Plt {
    /// The directory for `model`'s requests (id order, as the CSV), with
    /// `header` the CSV header after `time`. Returns the writer and the
    /// file's head (title, units, directory).
    pub fn new(model: &Model, header: &[String], title: &str) -> (Plt, String) {
        let mut items: Vec<(Id, i32, Id, Id, String, Slot)> = Vec::new();
        for r in &model.requests {
            let code = match r.kind {
                RequestKind::Displacement => 1,
                RequestKind::Velocity => 2,
                RequestKind::Acceleration => 3,
                RequestKind::Force => 4,
            };
            items.push((
                r.id,
                code,
                r.i,
                r.j.unwrap_or(0),
                r.comment.clone(),
                Slot::Standard(r.clone()),
            ));
        }
        for f in &model.function_requests {
            let prefix = f
                .results_name
                .clone()
                .unwrap_or_else(|| format!("request_{}", f.id));
            let col = |k: usize| {
                let name = f.cnames[k - 1]
                    .clone()
                    .filter(|c| !c.is_empty())
                    .unwrap_or_else(|| format!("f{k}"));
                header
                    .iter()
                    .position(|h| *h == format!("{prefix}.{name}"))
                    .map(|p| p + 1)
            };
            let cols = [col(2), col(3), col(4), col(6), col(7), col(8)];
            items.push((f.id, 5, 0, 0, f.comment.clone(), Slot::Function(cols)));
        }
        items.sort_by_key(|it| it.0);
        let (code, scale) = unit_code(model);
        let mut head = String::new();
        let _ = writeln!(head, "{title}");
        let _ = writeln!(
            head,
            "Generated on {}, mbsolve {}",
            utc_now(),
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(
            head,
            "{:5}     {code}  {}",
            items.len(),
            c_exp(scale, 15, false)
        );
        for (id, ty, i, j, name, _) in &items {
            let _ = writeln!(
                head,
                "{id:11}{ty:14}{i:14}{j:14}{:14}",
                name.chars().count()
            );
            let _ = writeln!(head, "{name}");
        }
        let slots = items.into_iter().map(|it| it.5).collect();
        (Plt { slots }, head)
    }

    /// One output time: the time line and a line per request. `row` is the
    /// frame's CSV row (time first).
    pub fn frame(&self, sys: &System, model: &Model, frame: &Frame, row: &[f64]) -> String {
        let mut out = format!(" {}\n", field(frame.t));
        for s in &self.slots {
            let v: [f64; 6] = match s {
                Slot::Standard(r) => {
                    let mut v = mbsolve_solver::requests::evaluate(sys, model, frame, r);
                    if r.kind == RequestKind::Displacement {
                        let (yaw, pitch, roll) = ypr(sys, frame, r.i, r.j);
                        v[3] = yaw;
                        v[4] = pitch;
                        v[5] = roll;
                    }
                    v
                }
                Slot::Function(cols) => {
                    cols.map(|c| c.and_then(|c| row.get(c).copied()).unwrap_or(0.0))
                }
            };
            out.push(' ');
            for x in v {
                out.push_str(&field(x));
            }
            out.push('\n');
        }
        out
    }
}

/// Marker axes in ground at a frame.
fn axes(sys: &System, frame: &Frame, id: Id) -> Matrix3<f64> {
    let m = sys.marker(id);
    match m.body {
        None => m.axes,
        Some(b) => {
            let o = 7 * b;
            let p = Vector4::new(
                frame.q[o + 3],
                frame.q[o + 4],
                frame.q[o + 5],
                frame.q[o + 6],
            );
            rot(&p) * m.axes
        }
    }
}

/// Yaw, pitch, roll (body 3-2-1 angles, radians) of I's axes relative to
/// J's (ground when J is absent): R = Rz(yaw) Ry(pitch) Rx(roll).
pub fn ypr(sys: &System, frame: &Frame, i: Id, j: Option<Id>) -> (f64, f64, f64) {
    let ri = axes(sys, frame, i);
    let rj = j
        .map(|j| axes(sys, frame, j))
        .unwrap_or_else(Matrix3::identity);
    let r = rj.transpose() * ri;
    let pitch = (-r[(2, 0)]).clamp(-1.0, 1.0).asin();
    let yaw = r[(1, 0)].atan2(r[(0, 0)]);
    let roll = r[(2, 1)].atan2(r[(2, 2)]);
    (yaw, pitch, roll)
}

/// "24-NOV-2026 07:40:12" (UTC) from the system clock.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    const MONTHS: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    format!(
        "{d:2}-{}-{y} {:02}:{:02}:{:02}",
        MONTHS[(m - 1) as usize],
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_style_exponents() {
        assert_eq!(c_exp(1000.0, 15, false), "1.000000000000000e+03");
        assert_eq!(field(5555.556), "  5.55556E+03");
        assert_eq!(field(0.0), "  0.00000E+00");
        assert_eq!(field(-1.5e-12), " -1.50000E-12");
        assert_eq!(field(2.0e120), " 2.00000E+120");
    }
}
