//! The `mbsolve` command: `run`, `check`, `plot`, `--help`.

mod args;
mod check;
mod plot;
mod progress;
mod run;

use std::process::ExitCode;

const HELP: &str = "\
mbsolve — multibody-dynamics solver for Adams datasets

USAGE:
    mbsolve run MODEL.adm [--acf FILE.acf] [--out DIR] [--quiet]
    mbsolve check MODEL.adm
    mbsolve plot PREFIX.csv [COLUMN…] [-o FILE.svg|FILE.png]
    mbsolve --help

COMMANDS:
    run     Read the dataset, execute the command file (or, without one,
            initial conditions and SIMULATE/DYNAMIC, END=1, STEPS=100) and
            write PREFIX.csv (time and request columns) and PREFIX.msg
            (message log) into DIR (default: the model's directory). PREFIX
            is the command file's output prefix or the model file's stem.
    check   Read and validate the dataset, assemble initial conditions and
            print a summary: parts, constraints, degrees of freedom,
            redundant constraints.
    plot    Draw columns of a results file against time. A COLUMN is a
            header name (request_1.x) or a request (request_1: all its
            components); none = every column. The image is SVG or PNG by
            the extension of -o (default: PREFIX.svg beside the CSV).

OPTIONS:
    --acf FILE   (run) Adams command file to execute
    --out DIR    (run) output directory
    --quiet      (run) print nothing but errors: no summary, no progress
                 bar. The progress bar (simulated time against END) is
                 drawn on stderr when it is a terminal, once an analysis
                 has run for a second; MBSOLVE_PROGRESS=always or never
                 overrides that.
    -o FILE      (plot) output image, .svg or .png
    -h, --help   this text

Exit status: 0 on success, 1 on any error (results computed before the
error are still written).
";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let cmd = match args::parse(&argv) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mbsolve: {e}\n(run `mbsolve --help` for usage)");
            return ExitCode::from(1);
        }
    };
    let result = match cmd {
        args::Cli::Help => {
            print!("{HELP}");
            Ok(())
        }
        args::Cli::Check { model } => check::check(&model),
        args::Cli::Run(opts) => run::run(&opts),
        args::Cli::Plot(opts) => plot::plot(&opts).map(|out| println!("wrote {}", out.display())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mbsolve: error: {e}");
            ExitCode::from(1)
        }
    }
}
