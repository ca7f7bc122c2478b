//! The `mbsolve` command: `run`, `check`, `--help`.

mod args;
mod check;
mod run;

use std::process::ExitCode;

const HELP: &str = "\
mbsolve — multibody-dynamics solver for Adams datasets

USAGE:
    mbsolve run MODEL.adm [--acf FILE.acf] [--out DIR] [--quiet]
    mbsolve check MODEL.adm
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

OPTIONS:
    --acf FILE   Adams command file to execute
    --out DIR    output directory
    --quiet      print nothing but errors
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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mbsolve: error: {e}");
            ExitCode::from(1)
        }
    }
}
