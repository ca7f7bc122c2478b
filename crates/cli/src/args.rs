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
pub struct PlotOptions {
    pub csv: PathBuf,
    /// Column names or request names (`request_3` = all its components);
    /// empty = every column.
    pub columns: Vec<String>,
    /// Output image; its extension (.svg or .png) picks the format.
    /// Default: the CSV's path with `.svg`.
    pub out: Option<PathBuf>,
}

#[derive(Debug, PartialEq)]
pub enum Cli {
    Help,
    Check { model: PathBuf },
    Run(RunOptions),
    Plot(PlotOptions),
}

pub fn parse(argv: &[String]) -> Result<Cli, String> {
    if argv.is_empty() || argv.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Cli::Help);
    }
    let sub = argv[0].as_str();
    if !matches!(sub, "run" | "check" | "plot") {
        return Err(format!(
            "unknown command `{sub}` (expected run, check or plot)"
        ));
    }
    let mut positional: Vec<String> = Vec::new();
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
        match (sub, a.as_str()) {
            ("run", "--acf") => acf = Some(value("--acf")?),
            ("run", "--out") => out = Some(value("--out")?),
            ("run", "--quiet" | "-q") => quiet = true,
            ("plot", "-o" | "--output") => out = Some(value(a)?),
            (_, s) if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s} for `{sub}`"))
            }
            (_, s) => positional.push(s.to_string()),
        }
    }
    let mut positional = positional.into_iter();
    let first = positional.next();
    if sub == "plot" {
        return Ok(Cli::Plot(PlotOptions {
            csv: first
                .map(PathBuf::from)
                .ok_or("`plot` needs a results file (PREFIX.csv)")?,
            columns: positional.collect(),
            out,
        }));
    }
    let model = PathBuf::from(first.ok_or_else(|| format!("`{sub}` needs a MODEL file"))?);
    if let Some(extra) = positional.next() {
        return Err(format!("unexpected argument {extra}"));
    }
    Ok(match sub {
        "run" => Cli::Run(RunOptions {
            model,
            acf,
            out,
            quiet,
        }),
        _ => Cli::Check { model },
    })
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
    fn parses_plot_columns_and_output() {
        let c = parse(&v(&[
            "plot",
            "r.csv",
            "request_1.x",
            "-o",
            "p.png",
            "request_2",
        ]))
        .unwrap();
        assert_eq!(
            c,
            Cli::Plot(PlotOptions {
                csv: "r.csv".into(),
                columns: vec!["request_1.x".into(), "request_2".into()],
                out: Some("p.png".into()),
            })
        );
        assert_eq!(
            parse(&v(&["plot", "r.csv"])).unwrap(),
            Cli::Plot(PlotOptions {
                csv: "r.csv".into(),
                columns: vec![],
                out: None,
            })
        );
    }

    #[test]
    fn rejects_bad_usage() {
        assert!(parse(&v(&["run"])).is_err());
        assert!(parse(&v(&["run", "a", "b"])).is_err());
        assert!(parse(&v(&["run", "a", "--acf"])).is_err());
        assert!(parse(&v(&["check", "a", "--acf", "x"])).is_err());
        assert_eq!(
            parse(&v(&["frobnicate", "a"])).unwrap_err(),
            "unknown command `frobnicate` (expected run, check or plot)"
        );
        assert_eq!(
            parse(&v(&["plot"])).unwrap_err(),
            "`plot` needs a results file (PREFIX.csv)"
        );
        assert_eq!(
            parse(&v(&["plot", "r.csv", "-o"])).unwrap_err(),
            "-o needs a value"
        );
        assert_eq!(
            parse(&v(&["plot", "r.csv", "--quiet"])).unwrap_err(),
            "unknown option --quiet for `plot`"
        );
        assert_eq!(parse(&v(&["--help"])).unwrap(), Cli::Help);
    }
}
