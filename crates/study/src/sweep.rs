//! A parameter table expanded into variants: the full factorial
//! (`Product`, the first key varying slowest) or the values taken side by
//! side (`Zip`, all lists of one length).

use crate::changes::Change;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Product,
    Zip,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s.to_ascii_lowercase().as_str() {
            "product" => Ok(Mode::Product),
            "zip" => Ok(Mode::Zip),
            _ => Err(format!("mode '{s}': expected product or zip")),
        }
    }
}

/// Most variants one sweep may have: each is a whole run with its own
/// files, so the count is bounded before anything is built or started
/// (like the 1e7 output-step limit of one SIMULATE).
pub const MAX_VARIANTS: u64 = 100_000;

/// A sweep's variants, built one at a time from their index: the table
/// holds each key's checked values once, so memory does not grow with the
/// number of combinations.
#[derive(Clone, Debug)]
pub struct Variants {
    table: Vec<Vec<Change>>,
    mode: Mode,
    count: usize,
}

impl Variants {
    /// The variants of a sweep over `params` (key `PART/2.MASS`, values as
    /// written in a dataset). Every key and value is checked first; a key
    /// given twice and more than [`MAX_VARIANTS`] variants are refused.
    pub fn new(params: &[(String, Vec<String>)], mode: Mode) -> Result<Variants, String> {
        if params.is_empty() {
            return Err("a sweep needs at least one parameter".into());
        }
        let mut table: Vec<Vec<Change>> = Vec::new();
        for (key, values) in params {
            if values.is_empty() {
                return Err(format!("{key}: no values"));
            }
            let changes = values
                .iter()
                .map(|v| Change::parse(key, v))
                .collect::<Result<Vec<_>, _>>()?;
            let same = |c: &Change| same_target(c, &changes[0]);
            if let Some(k) = table.iter().position(|col| same(&col[0])) {
                return Err(format!(
                    "{}.{} is set twice ('{}' and '{key}'): give all its values in one list",
                    table[k][0].element, table[k][0].argument, params[k].0
                ));
            }
            table.push(changes);
        }
        let count = match mode {
            Mode::Zip => {
                let n = table[0].len();
                if let Some((k, v)) = params.iter().find(|(_, v)| v.len() != n) {
                    return Err(format!(
                        "zip needs lists of one length: {} has {n} values, {k} has {}",
                        params[0].0,
                        v.len()
                    ));
                }
                n as u64
            }
            Mode::Product => table
                .iter()
                .try_fold(1u64, |n, c| n.checked_mul(c.len() as u64))
                .unwrap_or(u64::MAX),
        };
        if count > MAX_VARIANTS {
            let sizes: Vec<String> = table.iter().map(|c| c.len().to_string()).collect();
            let count = if count == u64::MAX {
                "more than 1.8e19".to_string()
            } else {
                count.to_string()
            };
            return Err(format!(
                "the sweep has {count} variants ({} values); the limit is {MAX_VARIANTS} variants per sweep",
                sizes.join(" × ")
            ));
        }
        Ok(Variants {
            table,
            mode,
            count: count as usize,
        })
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Variant `i` (< `len()`): in `Product` the last key varies fastest.
    pub fn get(&self, i: usize) -> Vec<Change> {
        match self.mode {
            Mode::Zip => self.table.iter().map(|c| c[i].clone()).collect(),
            Mode::Product => {
                let mut out = Vec::with_capacity(self.table.len());
                let mut rest = i;
                for column in self.table.iter().rev() {
                    out.push(column[rest % column.len()].clone());
                    rest /= column.len();
                }
                out.reverse();
                out
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Vec<Change>> + '_ {
        (0..self.count).map(|i| self.get(i))
    }
}

/// Whether two changes set the same argument of the same element
/// (`PART/02` is `PART/2`; names are already upper case).
fn same_target(a: &Change, b: &Change) -> bool {
    let id = |e: &str| {
        e.split_once('/')
            .map(|(n, i)| (n.to_string(), i.parse::<u32>().ok()))
            .unwrap_or((e.to_string(), None))
    };
    a.argument == b.argument && id(&a.element) == id(&b.element)
}

/// Every variant of a sweep over `params`, built at once ([`Variants`]
/// builds them one at a time).
pub fn variants(params: &[(String, Vec<String>)], mode: Mode) -> Result<Vec<Vec<Change>>, String> {
    Ok(Variants::new(params, mode)?.iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(k: &str, v: &[&str]) -> (String, Vec<String>) {
        (k.into(), v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn product_varies_the_last_key_fastest_and_zip_pairs() {
        let params = [
            p("PART/2.MASS", &["1", "2"]),
            p("PART/3.MASS", &["5", "6", "7"]),
        ];
        let v = variants(&params, Mode::Product).unwrap();
        assert_eq!(v.len(), 6);
        let vals = |i: usize| (v[i][0].value.clone(), v[i][1].value.clone());
        assert_eq!(vals(0), ("1".into(), "5".into()));
        assert_eq!(vals(2), ("1".into(), "7".into()));
        assert_eq!(vals(3), ("2".into(), "5".into()));
        assert_eq!(
            variants(&params, Mode::Zip).unwrap_err(),
            "zip needs lists of one length: PART/2.MASS has 2 values, PART/3.MASS has 3"
        );
        let z = variants(
            &[p("PART/2.MASS", &["1", "2"]), p("PART/3.MASS", &["5", "6"])],
            Mode::Zip,
        )
        .unwrap();
        assert_eq!(z.len(), 2);
        assert_eq!(z[1][1].value, "6");
    }

    /// Six lists of 20 values (64 million combinations) are refused before
    /// any is built, with the count and the limit; a key given twice (also
    /// as PART/02 or in lower case) is refused by name; the lazy variants
    /// are the ones the full expansion gives, in its order.
    #[test]
    fn sweeps_are_bounded_and_keys_unique() {
        let twenty: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
        let params: Vec<(String, Vec<String>)> = (2..8)
            .map(|k| (format!("PART/{k}.MASS"), twenty.clone()))
            .collect();
        assert_eq!(
            Variants::new(&params, Mode::Product).unwrap_err(),
            "the sweep has 64000000 variants (20 × 20 × 20 × 20 × 20 × 20 values); the limit is 100000 variants per sweep"
        );
        let huge: Vec<(String, Vec<String>)> = (2..30)
            .map(|k| (format!("PART/{k}.MASS"), twenty.clone()))
            .collect();
        assert!(Variants::new(&huge, Mode::Product)
            .unwrap_err()
            .starts_with("the sweep has more than 1.8e19 variants"));
        for second in ["PART/2.MASS", "part/02.mass"] {
            assert_eq!(
                Variants::new(&[p("PART/2.MASS", &["1"]), p(second, &["2", "3"])], Mode::Product)
                    .unwrap_err(),
                format!("PART/2.MASS is set twice ('PART/2.MASS' and '{second}'): give all its values in one list")
            );
        }
        // Different arguments or elements are different keys.
        assert!(Variants::new(
            &[p("PART/2.MASS", &["1"]), p("PART/2.CM", &["3"])],
            Mode::Zip
        )
        .is_ok());
        let params = [
            p("PART/2.MASS", &["1", "2"]),
            p("PART/3.MASS", &["5", "6", "7"]),
            p("PART/4.MASS", &["8", "9"]),
        ];
        let lazy = Variants::new(&params, Mode::Product).unwrap();
        assert_eq!(lazy.len(), 12);
        let got: Vec<String> = lazy
            .iter()
            .map(|v| {
                v.iter()
                    .map(|c| c.value.as_str())
                    .collect::<Vec<_>>()
                    .join("")
            })
            .collect();
        let mut want = Vec::new();
        for a in ["1", "2"] {
            for b in ["5", "6", "7"] {
                for c in ["8", "9"] {
                    want.push(format!("{a}{b}{c}"));
                }
            }
        }
        assert_eq!(got, want);
    }
}
