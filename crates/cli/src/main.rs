//! The `mbsolve` command: `run`, `check`, `sweep`, `plot`, `convert`, `completions`.

mod args;
mod check;
mod convert;
mod input;
mod plot;
mod plt;
mod progress;
mod run;
mod sweep;

use clap::{CommandFactory, Parser};
use std::process::ExitCode;
use std::sync::Mutex;

/// A command's failure: the message for stderr and the exit status
/// (1 error, 2 internal error, 128 + signal).
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure { message, code: 1 }
    }
}

/// The last panic's message and location, recorded by the panic hook so
/// the "internal error" report can say what and where.
static PANIC: Mutex<Option<String>> = Mutex::new(None);

pub fn panic_context() -> String {
    PANIC
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .unwrap_or_else(|| "a panic without a message".into())
}

fn record_panics() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        *PANIC.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(format!("{what}{at} (please report this)"));
    }));
}

fn main() -> ExitCode {
    // Usage errors print to stderr and exit 2; --help and --version print
    // to stdout and exit 0; no arguments prints the usage and exits 2.
    let cli = args::Cli::parse();
    record_panics();
    let outcome = std::panic::catch_unwind(|| match cli.command {
        args::Cmd::Check { model } => check::check(&model).map_err(Failure::from),
        args::Cmd::Run(opts) => input::command_file_as_model(opts)
            .map_err(Failure::from)
            .and_then(|o| run::run(&o)),
        args::Cmd::Sweep(opts) => {
            sweep::sweep(&opts).map(|out| println!("wrote {}", out.display()))
        }
        args::Cmd::Convert { model, output } => convert::convert(&model, &output)
            .map(|out| println!("wrote {}", out.display()))
            .map_err(Failure::from),
        args::Cmd::Plot(opts) => plot::plot(&opts)
            .map(|out| println!("wrote {}", out.display()))
            .map_err(Failure::from),
        args::Cmd::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut args::Cli::command(),
                "mbsolve",
                &mut std::io::stdout(),
            );
            Ok(())
        }
    });
    let result = outcome.unwrap_or_else(|_| {
        Err(Failure {
            message: format!("internal error: {}", panic_context()),
            code: 2,
        })
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if f.message.starts_with("internal error") || f.code > 2 {
                eprintln!("mbsolve: {}", f.message);
            } else {
                eprintln!("mbsolve: error: {}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}
