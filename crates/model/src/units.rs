//! The deck's unit system (Adams UNITS statement, MotionSolve Param_Unit).
//!
//! Values stay in model units everywhere: positions in the deck's length
//! unit, forces in its force unit, masses in its mass unit. Adams solves
//! `Force · UCF = Mass · Acceleration` with the units consistency factor
//! UCF of the unit system (Adams Solver C++ reference, UNITS), so the one
//! place the factor enters is the inertia: the kernel's bodies carry
//! `mass / UCF` and `inertia / UCF` (see `mbsolve_mech::System::new`), which
//! turns `m·a` (model mass × model acceleration) into model force units.
//! Gravity (ACCGRAV, an acceleration in model units) acts through the same
//! scaled mass, so a weight reads `m·g/UCF` in the deck's force unit, as
//! Adams reports it. Every output (positions, velocities, accelerations,
//! forces, reactions) is then in the deck's own units, as Adams writes
//! them; [`Units::to_si`] converts for the reader who wants SI.
//!
//! UCF = F_u · T_u² / (M_u · L_u) with the SI sizes of the four units
//! (1 N on 1 kg in a MILLIMETER deck: UCF = 1000, a = 1000 mm/s²; IPS:
//! 386.088; FPS with POUND_MASS: 32.174; MKS, CGS and FOOT/SLUG/POUND_FORCE:
//! 1).

/// Which quantity a unit measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    Force,
    Mass,
    Length,
    Time,
}

impl Dimension {
    /// The UNITS argument naming it.
    pub fn keyword(self) -> &'static str {
        match self {
            Dimension::Force => "FORCE",
            Dimension::Mass => "MASS",
            Dimension::Length => "LENGTH",
            Dimension::Time => "TIME",
        }
    }
}

const LBF: f64 = 4.448_221_615_260_5;
const LBM: f64 = 0.453_592_37;
const INCH: f64 = 0.0254;
const FOOT: f64 = 0.3048;

/// (reference name, SI size, symbol) of each unit Adams Solver (C++) lists
/// on its UNITS statement, plus MEGAGRAM (the tonne by its SI name).
const FORCE: &[(&str, f64, &str)] = &[
    ("CENTINEWTON", 1e-2, "cN"),
    ("DYNE", 1e-5, "dyn"),
    ("KILOGRAM_FORCE", 9.806_65, "kgf"),
    ("KNEWTON", 1e3, "kN"),
    ("KPOUND_FORCE", 1e3 * LBF, "kip"),
    ("MEGANEWTON", 1e6, "MN"),
    ("MICRONEWTON", 1e-6, "uN"),
    ("MILLINEWTON", 1e-3, "mN"),
    ("NANONEWTON", 1e-9, "nN"),
    ("NEWTON", 1.0, "N"),
    ("OUNCE_FORCE", LBF / 16.0, "ozf"),
    ("POUND_FORCE", LBF, "lbf"),
    ("POUNDAL", LBM * FOOT, "pdl"),
];
const MASS: &[(&str, f64, &str)] = &[
    ("GRAM", 1e-3, "g"),
    ("KILOGRAM", 1.0, "kg"),
    ("KPOUND_MASS", 1e3 * LBM, "klbm"),
    ("MEGAGRAM", 1e3, "Mg"),
    ("MICROGRAM", 1e-9, "ug"),
    ("MILLIGRAM", 1e-6, "mg"),
    ("NANOGRAM", 1e-12, "ng"),
    ("OUNCE_MASS", LBM / 16.0, "oz"),
    ("POUND_MASS", LBM, "lbm"),
    ("SLINCH", LBF / INCH, "slinch"),
    ("SLUG", LBF / FOOT, "slug"),
    ("TONNE", 1e3, "t"),
    ("US_TON", 2000.0 * LBM, "ton"),
];
const LENGTH: &[(&str, f64, &str)] = &[
    ("ANGSTROM", 1e-10, "A"),
    ("CENTIMETER", 1e-2, "cm"),
    ("FOOT", FOOT, "ft"),
    ("INCH", INCH, "in"),
    ("KILOMETER", 1e3, "km"),
    ("METER", 1.0, "m"),
    ("MICROINCH", 1e-6 * INCH, "uin"),
    ("MICROMETER", 1e-6, "um"),
    ("MILE", 1609.344, "mi"),
    ("MILLIMETER", 1e-3, "mm"),
    ("MILS", 1e-3 * INCH, "mil"),
    ("NANOMETER", 1e-9, "nm"),
    ("YARD", 3.0 * FOOT, "yd"),
];
const TIME: &[(&str, f64, &str)] = &[
    ("DAY", 86_400.0, "d"),
    ("HOUR", 3600.0, "h"),
    ("MICROSECOND", 1e-6, "us"),
    ("MILLISECOND", 1e-3, "ms"),
    ("MINUTE", 60.0, "min"),
    ("NANOSECOND", 1e-9, "ns"),
    ("SECOND", 1.0, "s"),
];

fn table(d: Dimension) -> &'static [(&'static str, f64, &'static str)] {
    match d {
        Dimension::Force => FORCE,
        Dimension::Mass => MASS,
        Dimension::Length => LENGTH,
        Dimension::Time => TIME,
    }
}

/// Every unit name Adams accepts for `d`, in reference order.
pub fn unit_names(d: Dimension) -> Vec<&'static str> {
    table(d).iter().map(|u| u.0).collect()
}

/// The reference name of the unit `word` (any case) names for `d`, by the
/// Adams rule: the full name or a unique prefix of it; `MILLISECONDS` (the
/// Adams reference's spelling of the millisecond) is read as MILLISECOND,
/// MotionSolve's `MILLS` and `MilliInch` as MILS. An
/// unknown or ambiguous word gives the message to report.
pub fn resolve_unit(d: Dimension, word: &str) -> Result<&'static str, String> {
    let w = word.trim().to_ascii_uppercase();
    // Other spellings of the reference lists: Adams' MILLISECONDS,
    // MotionSolve's MILLS and MilliInch for the mil.
    let w = match w.as_str() {
        "MILLISECONDS" => "MILLISECOND".to_string(),
        "MILLS" | "MILLIINCH" => "MILS".to_string(),
        _ => w,
    };
    let t = table(d);
    if let Some(u) = t.iter().find(|u| u.0 == w) {
        return Ok(u.0);
    }
    let hits: Vec<&'static str> = t
        .iter()
        .filter(|u| !w.is_empty() && u.0.starts_with(&w))
        .map(|u| u.0)
        .collect();
    match hits.as_slice() {
        [one] => Ok(one),
        [] => Err(format!(
            "{} = {word} is not an Adams unit (one of {})",
            d.keyword(),
            unit_names(d).join(", ")
        )),
        many => Err(format!(
            "{} = {word} is ambiguous ({})",
            d.keyword(),
            many.join(", ")
        )),
    }
}

/// A predefined Adams unit SYSTEM: (name, force, mass, length, time); NONE
/// is handled apart (nondimensional, UCF = 1).
pub const SYSTEMS: &[(&str, &str, &str, &str, &str)] = &[
    ("CGS", "DYNE", "GRAM", "CENTIMETER", "SECOND"),
    ("FPS", "POUND_FORCE", "POUND_MASS", "FOOT", "SECOND"),
    ("IPS", "POUND_FORCE", "POUND_MASS", "INCH", "SECOND"),
    ("MKS", "NEWTON", "KILOGRAM", "METER", "SECOND"),
];

/// Unit system. Values are stored in model units; see the module docs for
/// where the units consistency factor enters.
#[derive(Clone, Debug, PartialEq)]
pub struct Units {
    pub force: String,
    pub mass: String,
    pub length: String,
    pub time: String,
    pub angle: String,
    /// A factor given as such (`UNITS/UCF = r`, or 1 for `SYSTEM = NONE`):
    /// it replaces the factor of the four units, which then only label the
    /// outputs.
    pub ucf: Option<f64>,
}

impl Default for Units {
    fn default() -> Self {
        Units {
            force: "NEWTON".into(),
            mass: "KILOGRAM".into(),
            length: "METER".into(),
            time: "SECOND".into(),
            angle: "RADIAN".into(),
            ucf: None,
        }
    }
}

impl Units {
    /// The four named units of a predefined SYSTEM (None: not one of them).
    pub fn system(name: &str) -> Option<Units> {
        let n = name.trim().to_ascii_uppercase();
        SYSTEMS
            .iter()
            .find(|s| s.0 == n)
            .map(|&(_, f, m, l, t)| Units {
                force: f.into(),
                mass: m.into(),
                length: l.into(),
                time: t.into(),
                ..Units::default()
            })
    }

    fn entry(&self, d: Dimension) -> Option<&'static (&'static str, f64, &'static str)> {
        let name = match d {
            Dimension::Force => &self.force,
            Dimension::Mass => &self.mass,
            Dimension::Length => &self.length,
            Dimension::Time => &self.time,
        };
        let name = resolve_unit(d, name).ok()?;
        table(d).iter().find(|u| u.0 == name)
    }

    /// The SI size of one model unit of `d` (1 when the name is not one of
    /// Adams' units, which the readers refuse).
    pub fn si(&self, d: Dimension) -> f64 {
        self.entry(d).map_or(1.0, |u| u.1)
    }

    /// The symbol of the model unit of `d` ("mm", "N", ...).
    pub fn symbol(&self, d: Dimension) -> &'static str {
        self.entry(d).map_or("?", |u| u.2)
    }

    /// The units consistency factor: `Force · UCF = Mass · Acceleration`.
    pub fn ucf(&self) -> f64 {
        if let Some(u) = self.ucf {
            return u;
        }
        let t = self.si(Dimension::Time);
        self.si(Dimension::Force) * t * t / (self.si(Dimension::Mass) * self.si(Dimension::Length))
    }

    /// "force N, mass kg, length mm, time s, angle rad; UCF = 1000": the
    /// units of every output column and the factor the equations use.
    pub fn describe(&self) -> String {
        format!(
            "force {} ({}), mass {} ({}), length {} ({}), time {} ({}), angle {}; UCF = {}{}",
            self.force,
            self.symbol(Dimension::Force),
            self.mass,
            self.symbol(Dimension::Mass),
            self.length,
            self.symbol(Dimension::Length),
            self.time,
            self.symbol(Dimension::Time),
            self.angle,
            crate::readable(self.ucf()),
            if self.ucf.is_some() { " (given)" } else { "" }
        )
    }

    /// The SI value of `v` model units of force^f · mass^m · length^l ·
    /// time^t (the test and report helper: a velocity is (0, 0, 1, -1)).
    pub fn to_si(&self, v: f64, f: i32, m: i32, l: i32, t: i32) -> f64 {
        v * self.si(Dimension::Force).powi(f)
            * self.si(Dimension::Mass).powi(m)
            * self.si(Dimension::Length).powi(l)
            * self.si(Dimension::Time).powi(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(f: &str, m: &str, l: &str, t: &str) -> Units {
        Units {
            force: f.into(),
            mass: m.into(),
            length: l.into(),
            time: t.into(),
            ..Units::default()
        }
    }

    /// The factors Adams documents or that follow from its definition.
    #[test]
    fn consistency_factors() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        assert!(close(
            units("NEWTON", "KILOGRAM", "MILLIMETER", "SECOND").ucf(),
            1000.0
        ));
        assert!(close(Units::system("MKS").unwrap().ucf(), 1.0));
        assert!(close(Units::system("CGS").unwrap().ucf(), 1.0));
        // g_c = 386.088 lbm·in/(lbf·s²), 32.174 lbm·ft/(lbf·s²)
        assert!((Units::system("IPS").unwrap().ucf() - 386.088_582_677).abs() < 1e-6);
        assert!((Units::system("FPS").unwrap().ucf() - 32.174_048_556).abs() < 1e-6);
        assert!(close(
            units("POUND_FORCE", "SLUG", "FOOT", "SECOND").ucf(),
            1.0
        ));
        assert!(close(
            units("POUND_FORCE", "SLINCH", "INCH", "SECOND").ucf(),
            1.0
        ));
        assert!(close(
            units("KNEWTON", "KILOGRAM", "METER", "SECOND").ucf(),
            1e3
        ));
        assert!(close(
            units("NEWTON", "KILOGRAM", "CENTIMETER", "SECOND").ucf(),
            100.0
        ));
        assert!(close(
            units("NEWTON", "TONNE", "MILLIMETER", "SECOND").ucf(),
            1.0
        ));
        assert!(close(
            units("NEWTON", "KILOGRAM", "METER", "MILLISECOND").ucf(),
            1e-6
        ));
        let given = Units {
            ucf: Some(2.5),
            ..units("NEWTON", "KILOGRAM", "MILLIMETER", "SECOND")
        };
        assert_eq!(given.ucf(), 2.5);
    }

    /// A factor the API sets to 0 is refused by `validate` before the
    /// kernel divides the masses by it.
    #[test]
    fn a_zero_ucf_is_refused_by_validation() {
        let mut m = crate::Model::default();
        m.units.ucf = Some(0.0);
        assert_eq!(
            crate::validate(&m).unwrap_err().message,
            "the units consistency factor must be positive and finite, found 0"
        );
    }

    #[test]
    fn unit_names_resolve_by_the_adams_rule() {
        assert_eq!(
            resolve_unit(Dimension::Length, "millimeter"),
            Ok("MILLIMETER")
        );
        assert_eq!(resolve_unit(Dimension::Length, "MILLIM"), Ok("MILLIMETER"));
        assert_eq!(
            resolve_unit(Dimension::Time, "MILLISECONDS"),
            Ok("MILLISECOND")
        );
        assert_eq!(resolve_unit(Dimension::Force, "KNEWTON"), Ok("KNEWTON"));
        assert_eq!(resolve_unit(Dimension::Length, "MilliInch"), Ok("MILS"));
        assert_eq!(
            resolve_unit(Dimension::Length, "MIL"),
            Err("LENGTH = MIL is ambiguous (MILE, MILLIMETER, MILS)".into())
        );
        assert!(resolve_unit(Dimension::Length, "FURLONG")
            .unwrap_err()
            .starts_with("LENGTH = FURLONG is not an Adams unit (one of ANGSTROM, CENTIMETER"));
    }
}
