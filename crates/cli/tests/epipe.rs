//! A closed stdout pipe (issue 38, Unix manners). Alone in its test binary:
//! a child spawned by a concurrent test in the same process could inherit
//! the pipe's read end between its fork and exec, keeping the pipe open
//! and the write successful.

use std::process::Stdio;

mod common;
use common::{bin, pendulum};

/// A closed stdout pipe (`mbsolve check … | head -1` once head has gone)
/// ends the program quietly with the broken-pipe status 141 (128 +
/// SIGPIPE), not an internal error.
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    let d = std::env::temp_dir().join(format!("mbsolve-epipe-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let mut check = bin();
    check.arg("check").arg(pendulum());
    let mut completions = bin();
    completions.args(["completions", "bash"]);
    let mut run = bin();
    run.arg("run").arg(pendulum()).arg("--out").arg(&d);
    for mut c in [check, completions, run] {
        // A pipe whose read end is closed before the program starts: its
        // first write to stdout fails with EPIPE, whatever the timing.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = c.stdout(writer).stderr(Stdio::piped()).output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(141), "{c:?}: {e}");
        assert_eq!(e, "", "{c:?}");
    }
}
