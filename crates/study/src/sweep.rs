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

/// The variants of a sweep over `params` (key `PART/2.MASS`, values as
/// written in a dataset). Every key and value is checked first.
pub fn variants(params: &[(String, Vec<String>)], mode: Mode) -> Result<Vec<Vec<Change>>, String> {
    if params.is_empty() {
        return Err("a sweep needs at least one parameter".into());
    }
    let mut table = Vec::new();
    for (key, values) in params {
        if values.is_empty() {
            return Err(format!("{key}: no values"));
        }
        let changes = values
            .iter()
            .map(|v| Change::parse(key, v))
            .collect::<Result<Vec<_>, _>>()?;
        table.push(changes);
    }
    match mode {
        Mode::Zip => {
            let n = table[0].len();
            if let Some((k, v)) = params.iter().find(|(_, v)| v.len() != n) {
                return Err(format!(
                    "zip needs lists of one length: {} has {n} values, {k} has {}",
                    params[0].0,
                    v.len()
                ));
            }
            Ok((0..n)
                .map(|i| table.iter().map(|c| c[i].clone()).collect())
                .collect())
        }
        Mode::Product => {
            let mut out: Vec<Vec<Change>> = vec![Vec::new()];
            for column in &table {
                out = out
                    .iter()
                    .flat_map(|prefix| {
                        column.iter().map(move |c| {
                            let mut v = prefix.clone();
                            v.push(c.clone());
                            v
                        })
                    })
                    .collect();
            }
            Ok(out)
        }
    }
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
}
