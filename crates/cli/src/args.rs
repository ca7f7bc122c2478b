//! Command-line parsing (clap derive): `--out=DIR` and `--out DIR` both
//! work, a repeated single-valued option is an error, usage errors exit 2.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

pub const AFTER_HELP: &str = "\
The progress bar (simulated time against END) is drawn on stderr when it is
a terminal, once an analysis has run for a second; MBSOLVE_PROGRESS=always
or never overrides that.

Output: every file goes into --out DIR when given (an output prefix with
directory parts is reduced to its file name, and the log says so); else
beside the model, as Adams does, never over the model or command file.
A SIMULATE may ask for at most 1e7 output steps.

Exit status: 0 on success; 1 on any error (results computed before the
error are still written); 2 on a usage error or an internal error;
130 after SIGINT (Ctrl-C), 143 after SIGTERM and 129 after SIGHUP (results
computed before the signal are written; the run stops within a step).";

#[derive(Debug, Parser)]
#[command(
    name = "mbsolve",
    version,
    about = "mbsolve — multibody-dynamics solver for Adams datasets",
    arg_required_else_help = true,
    override_usage = "mbsolve run MODEL.adm [--acf FILE.acf] [--out DIR] [--quiet]
       mbsolve check MODEL.adm
       mbsolve sweep MODEL.adm --set ELEMENT/id.ARG=V1,V2,… [--zip] [--workers N] [--out DIR]
       mbsolve plot PREFIX.csv [COLUMN…] [-o FILE.svg|FILE.png]
       mbsolve convert MODEL -o OUT.adm|OUT.xml
       mbsolve completions bash|zsh|fish",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Read the dataset, execute the command file (or, without one,
    /// initial conditions and SIMULATE/DYNAMIC, END=1, STEPS=100) and write
    /// PREFIX.csv (time and request columns) and PREFIX.msg (message log)
    /// into DIR (default: the model's directory). PREFIX is the command
    /// file's output prefix or the model file's stem.
    Run(RunOptions),
    /// Read and validate the dataset, assemble initial conditions and print
    /// a summary: parts, constraints, degrees of freedom, redundant
    /// constraints.
    Check {
        /// The model: an Adams dataset (.adm) or a MotionSolve deck (.xml), told apart by content
        model: PathBuf,
    },
    /// Draw columns of a results file against time. A COLUMN is a header
    /// name (request_1.x) or a request (request_1: all its components);
    /// none = every column. The image is SVG or PNG by the extension of -o
    /// (default: PREFIX.svg beside the CSV).
    Plot(PlotOptions),
    /// Run the dataset once per variant of the --set parameters (every
    /// combination; side by side with --zip) and write PREFIX_NNN.csv and
    /// .msg per variant plus summary.csv into DIR (default:
    /// MODEL_sweep beside the model). Exit status 1 when a variant fails
    /// (the others still run; the summary says which and why).
    Sweep(SweepOptions),
    /// Write the model in the other format (or its own): an Adams dataset
    /// (-o OUT.adm) or a MotionSolve XML deck (-o OUT.xml), chosen by the
    /// output's extension. Reading the result back gives the same model.
    Convert {
        /// The model: an Adams dataset (.adm) or a MotionSolve deck (.xml), told apart by content
        model: PathBuf,
        /// The file to write (.adm or .xml); never the model itself
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
    /// Print a shell completion script (bash, zsh, fish, …) to stdout.
    Completions { shell: clap_complete::Shell },
}

#[derive(Debug, PartialEq, Args)]
pub struct RunOptions {
    /// The model: an Adams dataset (.adm) or a MotionSolve deck (.xml), told apart by content
    pub model: PathBuf,
    /// Adams command file to execute
    #[arg(long, value_name = "FILE")]
    pub acf: Option<PathBuf>,
    /// Output directory
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print nothing but errors: no summary, no progress bar
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, PartialEq, Args)]
pub struct SweepOptions {
    /// The Adams dataset (.adm)
    pub model: PathBuf,
    /// Adams command file to execute for every variant
    #[arg(long, value_name = "FILE")]
    pub acf: Option<PathBuf>,
    /// A parameter and its values, written as in a dataset: PART/2.MASS=1,2,3,
    /// SFORCE/1.FUNCTION=-10*DM(2,1),-20*DM(2,1), INTEGRATOR.ERROR=1E-3,1E-4
    /// (values split at commas outside parentheses). Repeat for more.
    #[arg(long = "set", value_name = "KEY=V1,V2", required = true)]
    pub set: Vec<String>,
    /// Pair the value lists (all of one length) instead of every combination
    #[arg(long)]
    pub zip: bool,
    /// Variants run at once (default: the number of CPUs; never more than
    /// the variants)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub workers: Option<u16>,
    /// Output directory
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, PartialEq, Args)]
pub struct PlotOptions {
    /// The results file (PREFIX.csv)
    pub csv: PathBuf,
    /// Column names or request names (`request_3` = all its components);
    /// none = every column.
    pub columns: Vec<String>,
    /// Output image, .svg or .png (default: the CSV's path with `.svg`)
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::error::ErrorKind;

    fn parse(s: &[&str]) -> Result<Cmd, clap::Error> {
        Cli::try_parse_from(std::iter::once("mbsolve").chain(s.iter().copied())).map(|c| c.command)
    }

    #[test]
    fn parses_run_with_options() {
        let expect = RunOptions {
            model: "m.adm".into(),
            acf: Some("m.acf".into()),
            out: Some("o".into()),
            quiet: true,
        };
        for argv in [
            &["run", "m.adm", "--acf", "m.acf", "--out", "o", "--quiet"][..],
            &["run", "--out=o", "m.adm", "--acf=m.acf", "-q"][..],
        ] {
            match parse(argv).unwrap() {
                Cmd::Run(r) => assert_eq!(r, expect),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn parses_plot_columns_and_output() {
        match parse(&["plot", "r.csv", "request_1.x", "-o", "p.png", "request_2"]).unwrap() {
            Cmd::Plot(p) => assert_eq!(
                p,
                PlotOptions {
                    csv: "r.csv".into(),
                    columns: vec!["request_1.x".into(), "request_2".into()],
                    out: Some("p.png".into()),
                }
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rejects_bad_usage() {
        let kind = |argv: &[&str]| parse(argv).unwrap_err().kind();
        assert_eq!(kind(&["run"]), ErrorKind::MissingRequiredArgument);
        assert_eq!(kind(&["run", "a", "b"]), ErrorKind::UnknownArgument);
        assert_eq!(kind(&["run", "a", "--acf"]), ErrorKind::InvalidValue);
        assert_eq!(
            kind(&["check", "a", "--acf", "x"]),
            ErrorKind::UnknownArgument
        );
        assert_eq!(kind(&["frobnicate", "a"]), ErrorKind::InvalidSubcommand);
        assert_eq!(kind(&["plot"]), ErrorKind::MissingRequiredArgument);
        assert_eq!(
            kind(&["plot", "r.csv", "--quiet"]),
            ErrorKind::UnknownArgument
        );
        // A single-valued option given twice is an error, not "last wins".
        assert_eq!(
            kind(&["run", "m.adm", "--out", "a", "--out", "b"]),
            ErrorKind::ArgumentConflict
        );
        assert_eq!(
            kind(&[]),
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        );
        assert_eq!(kind(&["--help"]), ErrorKind::DisplayHelp);
        assert_eq!(kind(&["--version"]), ErrorKind::DisplayVersion);
    }
}
