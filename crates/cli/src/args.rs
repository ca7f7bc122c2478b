//! Command-line parsing (std only).

use std::path::PathBuf;

#[derive(Debug, PartialEq)]
pub struct RunOptions {
    pub model: PathBuf,
    pub acf: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub quiet: bool,
}

#[derive(Debug, PartialEq)]
pub enum Cli {
    Help,
    Check { model: PathBuf },
    Run(RunOptions),
}

pub fn parse(argv: &[String]) -> Result<Cli, String> {
    if argv.is_empty() || argv.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Cli::Help);
    }
    let sub = argv[0].as_str();
    let mut model = None;
    let mut acf = None;
    let mut out = None;
    let mut quiet = false;
    let mut it = argv[1..].iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .map(PathBuf::from)
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--acf" if sub == "run" => acf = Some(value("--acf")?),
            "--out" if sub == "run" => out = Some(value("--out")?),
            "--quiet" | "-q" if sub == "run" => quiet = true,
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s} for `{sub}`"))
            }
            s => {
                if model.is_some() {
                    return Err(format!("unexpected argument {s}"));
                }
                model = Some(PathBuf::from(s));
            }
        }
    }
    let need_model = || format!("`{sub}` needs a MODEL file");
    match sub {
        "run" => Ok(Cli::Run(RunOptions {
            model: model.ok_or_else(need_model)?,
            acf,
            out,
            quiet,
        })),
        "check" => Ok(Cli::Check {
            model: model.ok_or_else(need_model)?,
        }),
        other => Err(format!("unknown command `{other}` (expected run or check)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn parses_run_with_options() {
        let c = parse(&v(&[
            "run", "m.adm", "--acf", "m.acf", "--out", "o", "--quiet",
        ]))
        .unwrap();
        assert_eq!(
            c,
            Cli::Run(RunOptions {
                model: "m.adm".into(),
                acf: Some("m.acf".into()),
                out: Some("o".into()),
                quiet: true,
            })
        );
    }

    #[test]
    fn rejects_bad_usage() {
        assert!(parse(&v(&["run"])).is_err());
        assert!(parse(&v(&["run", "a", "b"])).is_err());
        assert!(parse(&v(&["run", "a", "--acf"])).is_err());
        assert!(parse(&v(&["check", "a", "--acf", "x"])).is_err());
        assert!(parse(&v(&["frobnicate", "a"])).is_err());
        assert_eq!(parse(&v(&["--help"])).unwrap(), Cli::Help);
    }
}
