//! Keyword resolution for one statement: exact name, then a per-statement
//! alias (REQUEST `D`, `C`, …), then a unique prefix (Adams abbreviation).
//! Every argument must be consumed by the builder; one that is recognised but
//! not consumed is reported as "not supported yet" by [`Args::finish`], so
//! nothing is silently dropped.

use crate::error::{AdmError, Pos};
use crate::syntax::{Arg, ExprText, Item, Statement, Value};

/// Resolve `name` against `table`: exact, alias, then unique prefix.
pub(crate) fn resolve(
    name: &str,
    table: &[&'static str],
    aliases: &[(&str, &'static str)],
) -> Result<&'static str, String> {
    if let Some(t) = table.iter().find(|t| **t == name) {
        return Ok(t);
    }
    if let Some((_, t)) = aliases.iter().find(|(a, _)| *a == name) {
        return Ok(t);
    }
    let hits: Vec<&'static str> = table
        .iter()
        .copied()
        .filter(|t| t.starts_with(name))
        .collect();
    match hits.len() {
        1 => Ok(hits[0]),
        0 => Err(String::new()),
        _ => Err(hits.join(", ")),
    }
}

pub(crate) struct Args<'a> {
    pub file: &'a str,
    pub st: &'a Statement,
    pub label: String,
    canon: Vec<&'static str>,
    used: Vec<bool>,
}

/// Arguments whose values are angles (or angular velocities), the only ones
/// where Adams reads a trailing `D` as degrees (ADM-GRAMMAR §2: `REULER =
/// 90D, 0, 0`, EQUILIBRIUM `ALIMIT = 2D`, SPRINGDAMPER `ANGLE = 30D`, PART
/// `WZ = 10D`). Elsewhere (`MASS = 1D`) a `D` is an error, not a silent
/// factor of π/180.
const ANGLE_KEYS: &[&str] = &["REULER", "ANGLE", "ALIMIT", "WX", "WY", "WZ", "ICROT"];

/// Why a value is not a number.
#[derive(Debug, PartialEq)]
pub(crate) enum NumberError {
    Malformed,
    /// A `D` suffix on an argument that is not an angle.
    Degrees,
    /// Overflows a double (`1e400`).
    NotFinite,
}

/// Parse a number as Adams writes it: `2`, `.8`, `-.4`, `1.0E-002`, `+10`,
/// and, when `angle`, a trailing `D` (optionally after a blank) for degrees
/// → radians.
pub(crate) fn parse_number(text: &str, angle: bool) -> Result<f64, NumberError> {
    let t = text.trim();
    let (body, degrees) = match t.strip_suffix('D').or_else(|| t.strip_suffix('d')) {
        Some(b) => (b.trim_end(), true),
        None => (t, false),
    };
    if body.is_empty()
        || !body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        || !body.chars().any(|c| c.is_ascii_digit())
    {
        return Err(NumberError::Malformed);
    }
    let v: f64 = body.parse().map_err(|_| NumberError::Malformed)?;
    if !v.is_finite() {
        return Err(NumberError::NotFinite);
    }
    if degrees && !angle {
        return Err(NumberError::Degrees);
    }
    Ok(if degrees { v.to_radians() } else { v })
}

/// The one rule for id 0, in statement ids (`MARKER/0`) and id arguments
/// (`CM = 0`, `I = 0`) alike: Adams identifies elements by positive
/// integers, so 0 names nothing. (Inside a FUNCTION an optional marker
/// argument of 0 keeps its Adams meaning, the ground origin: `DM(2, 0)`.)
pub(crate) const ID_RULE: &str = "ids are positive integers (Adams numbers elements from 1)";

/// An id as written: digits only (leading zeros allowed).
pub(crate) fn parse_id(text: &str) -> Option<u32> {
    let t = text.trim();
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

impl<'a> Args<'a> {
    pub fn new(
        file: &'a str,
        st: &'a Statement,
        label: String,
        known: &[&'static str],
        aliases: &[(&str, &'static str)],
    ) -> Result<Self, AdmError> {
        let mut canon = Vec::with_capacity(st.args.len());
        for (n, a) in st.args.iter().enumerate() {
            let c = match resolve(&a.key, known, aliases) {
                Ok(c) => c,
                Err(e) if e.is_empty() => {
                    return Err(AdmError::new(
                        file,
                        a.pos,
                        Some(label.clone()),
                        format!("{label}: unknown keyword {}", a.key),
                    ))
                }
                Err(e) => {
                    return Err(AdmError::new(
                        file,
                        a.pos,
                        Some(label.clone()),
                        format!("{label}: ambiguous keyword abbreviation {} ({e})", a.key),
                    ))
                }
            };
            if let Some(k) = canon.iter().position(|p| *p == c) {
                let first: &Arg = &st.args[k];
                return Err(AdmError::new(
                    file,
                    a.pos,
                    Some(label.clone()),
                    format!(
                        "{label}: {c} is given twice (first at line {}, column {})",
                        first.pos.line, first.pos.col
                    ),
                ));
            }
            let _ = n;
            canon.push(c);
        }
        let used = vec![false; canon.len()];
        Ok(Args {
            file,
            st,
            label,
            canon,
            used,
        })
    }

    pub fn err(&self, pos: Pos, msg: impl AsRef<str>) -> AdmError {
        AdmError::new(
            self.file,
            pos,
            Some(self.label.clone()),
            format!("{}: {}", self.label, msg.as_ref()),
        )
    }

    /// "file:line:column" of the statement, for messages raised later (the
    /// solver's range checks of INTEGRATOR and EQUILIBRIUM settings).
    pub fn origin(&self) -> String {
        format!("{}:{}:{}", self.file, self.st.pos.line, self.st.pos.col)
    }

    /// Error at the statement name.
    pub fn err_here(&self, msg: impl AsRef<str>) -> AdmError {
        self.err(self.st.pos, msg)
    }

    fn take(&mut self, key: &str) -> Option<&'a Arg> {
        let k = self.canon.iter().position(|c| *c == key)?;
        self.used[k] = true;
        Some(&self.st.args[k])
    }

    /// Whether `key` is present, without consuming it.
    pub fn has(&self, key: &str) -> bool {
        self.canon.contains(&key)
    }

    /// Position of `key` (or of the statement).
    pub fn pos_of(&self, key: &str) -> Pos {
        self.canon
            .iter()
            .position(|c| *c == key)
            .map(|k| self.st.args[k].pos)
            .unwrap_or(self.st.pos)
    }

    /// Accept and ignore these keys (documented at the call site).
    pub fn ignore(&mut self, keys: &[&str]) {
        for k in keys {
            let _ = self.take(k);
        }
    }

    pub fn flag(&mut self, key: &str) -> Result<bool, AdmError> {
        match self.take(key) {
            None => Ok(false),
            Some(a) if a.value == Value::Flag => Ok(true),
            Some(a) => Err(self.err(a.pos, format!("{key} takes no value"))),
        }
    }

    fn list(&mut self, key: &str) -> Result<Option<(&'a Arg, &'a [Item])>, AdmError> {
        match self.take(key) {
            None => Ok(None),
            Some(a) => match &a.value {
                Value::List(items) => Ok(Some((a, items))),
                Value::Text(i) => Ok(Some((a, std::slice::from_ref(i)))),
                _ => Err(self.err(a.pos, format!("{key} needs a value ({key} = …)"))),
            },
        }
    }

    /// Exactly `n` numbers.
    pub fn numbers(&mut self, key: &str, n: usize) -> Result<Option<Vec<f64>>, AdmError> {
        self.numbers_range(key, n, n)
    }

    pub fn numbers_range(
        &mut self,
        key: &str,
        lo: usize,
        hi: usize,
    ) -> Result<Option<Vec<f64>>, AdmError> {
        self.numbers_in(key, lo, hi, ANGLE_KEYS.contains(&key))
    }

    /// One number that is an angle (or an angular velocity) here although
    /// its key is not always one: a rotational MOTION's ICDISP and ICVEL
    /// take `D` for degrees (`ICDISP = 0D`).
    pub fn angle_number(&mut self, key: &str) -> Result<Option<f64>, AdmError> {
        Ok(self.numbers_in(key, 1, 1, true)?.map(|v| v[0]))
    }

    fn numbers_in(
        &mut self,
        key: &str,
        lo: usize,
        hi: usize,
        angle: bool,
    ) -> Result<Option<Vec<f64>>, AdmError> {
        let Some((a, items)) = self.list(key)? else {
            return Ok(None);
        };
        if items.len() < lo || items.len() > hi {
            let want = if lo == hi {
                format!("{lo}")
            } else if hi == usize::MAX {
                format!("at least {lo}")
            } else if hi == lo + 1 {
                format!("{lo} or {hi}")
            } else {
                format!("{lo} to {hi}")
            };
            let plural = if hi == 1 || (hi == usize::MAX && lo == 1) {
                "value"
            } else {
                "values"
            };
            return Err(self.err(
                a.pos,
                format!("{key} takes {want} {plural}, found {}", items.len()),
            ));
        }
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            let t = &it.text;
            match parse_number(t, angle) {
                Ok(v) => out.push(v),
                Err(NumberError::Malformed) => {
                    return Err(self.err(it.pos, format!("bad number '{t}' for {key}")))
                }
                Err(NumberError::Degrees) => {
                    return Err(self.err(
                        it.pos,
                        format!(
                            "'{t}' for {key}: the degree suffix D applies to angles only ({}, and a rotational MOTION's ICDISP and ICVEL)",
                            ANGLE_KEYS.join(", ")
                        ),
                    ))
                }
                Err(NumberError::NotFinite) => {
                    return Err(self.err(
                        it.pos,
                        format!("'{t}' for {key} is out of range (beyond ±1.8e308)"),
                    ))
                }
            }
        }
        Ok(Some(out))
    }

    pub fn number(&mut self, key: &str) -> Result<Option<f64>, AdmError> {
        Ok(self.numbers(key, 1)?.map(|v| v[0]))
    }

    pub fn vec3(&mut self, key: &str) -> Result<Option<nalgebra::Vector3<f64>>, AdmError> {
        Ok(self
            .numbers(key, 3)?
            .map(|v| nalgebra::Vector3::new(v[0], v[1], v[2])))
    }

    /// A non-negative integer (KMAX, MAXIT, STEPS …).
    pub fn integer(&mut self, key: &str) -> Result<Option<i64>, AdmError> {
        let Some((a, items)) = self.list(key)? else {
            return Ok(None);
        };
        if items.len() != 1 {
            return Err(self.err(a.pos, format!("{key} takes 1 value, found {}", items.len())));
        }
        let it = &items[0];
        let t = it.text.trim();
        let t = t.strip_prefix('+').unwrap_or(t);
        match t.parse::<i64>() {
            Ok(v) => Ok(Some(v)),
            Err(_) => Err(self.err(it.pos, format!("bad integer '{}' for {key}", it.text))),
        }
    }

    /// An element id (`I = 0102`).
    pub fn id(&mut self, key: &str) -> Result<Option<(u32, Pos)>, AdmError> {
        let Some((a, items)) = self.list(key)? else {
            return Ok(None);
        };
        if items.len() != 1 {
            return Err(self.err(a.pos, format!("{key} takes 1 value, found {}", items.len())));
        }
        let it = &items[0];
        match parse_id(&it.text) {
            Some(0) => Err(self.err(it.pos, format!("{key} = {}: {ID_RULE}", it.text))),
            Some(v) => Ok(Some((v, it.pos))),
            None => Err(self.err(it.pos, format!("bad id '{}' for {key}", it.text))),
        }
    }

    pub fn require<T>(&self, v: Option<T>, key: &str) -> Result<T, AdmError> {
        v.ok_or_else(|| self.err_here(format!("missing {key} =")))
    }

    /// One word (upper-cased), e.g. `FORCE = NEWTON`, `PATTERN = T:F`.
    pub fn word(&mut self, key: &str) -> Result<Option<(String, Pos)>, AdmError> {
        let Some((a, items)) = self.list(key)? else {
            return Ok(None);
        };
        if items.len() != 1 {
            return Err(self.err(a.pos, format!("{key} takes 1 value, found {}", items.len())));
        }
        Ok(Some((items[0].text.to_ascii_uppercase(), items[0].pos)))
    }

    /// Raw text as written (COMMENT=, TITLE=, file names).
    pub fn text(&mut self, key: &str) -> Result<Option<String>, AdmError> {
        let Some((_, items)) = self.list(key)? else {
            return Ok(None);
        };
        Ok(Some(
            items
                .iter()
                .map(|i| i.text.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ))
    }

    pub fn expr(&mut self, key: &str) -> Result<Option<&'a ExprText>, AdmError> {
        match self.take(key) {
            None => Ok(None),
            Some(a) => match &a.value {
                Value::Expr(e) if e.text.trim().is_empty() => {
                    Err(self.err(a.pos, format!("missing expression after {key} =")))
                }
                Value::Expr(e) => Ok(Some(e)),
                _ => Err(self.err(a.pos, format!("{key} needs an expression ({key} = …)"))),
            },
        }
    }

    /// Every argument must have been consumed; the first one left over is
    /// recognised Adams syntax that this reader does not support yet.
    pub fn finish(self) -> Result<(), AdmError> {
        for (k, used) in self.used.iter().enumerate() {
            if !used {
                let a = &self.st.args[k];
                return Err(self.err(a.pos, format!("{} is not supported yet", self.canon[k])));
            }
        }
        Ok(())
    }
}
