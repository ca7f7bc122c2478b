//! Where the third-party Adams corpus (`shared/corpus`, see its SOURCES.md)
//! lives, for the tests that read it. CI clones the repository with
//! `shared/` beside it; a developer's worktree may sit deeper, so every
//! ancestor of the crate is tried. A test that needs the corpus must fail
//! when it is missing (issue 12 item 6), so this returns an error message to
//! panic with rather than an `Option` to skip on.

use std::path::{Path, PathBuf};

/// Environment variable that overrides the search.
pub const CORPUS_ENV: &str = "MBSOLVE_CORPUS";

/// The corpus directory: `$MBSOLVE_CORPUS` if set, else the first
/// `shared/corpus` found in `start` or one of its ancestors.
pub fn locate(start: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(CORPUS_ENV) {
        let dir = PathBuf::from(dir);
        return if dir.is_dir() {
            Ok(dir)
        } else {
            Err(format!(
                "{CORPUS_ENV} = {} is not a directory: point it at the shared Adams corpus",
                dir.display()
            ))
        };
    }
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    start
        .ancestors()
        .map(|a| a.join("shared").join("corpus"))
        .find(|c| c.is_dir())
        .ok_or_else(|| {
            format!(
                "the shared Adams corpus was not found: no shared/corpus in {} or any \
                 directory above it; clone the repository with shared/ beside it or set {CORPUS_ENV}",
                start.display()
            )
        })
}

/// Whether the corpus tests can run, for a test to return early on when
/// not: true when the corpus is found. When it is missing, a CI run
/// (`CI` set, as CI machines set it) fails here with `locate`'s message,
/// since a skipped corpus must not pass there; on a plain clone the test
/// binary says once, on the terminal (not in the captured test output),
/// that its corpus tests are skipped, and returns false.
pub fn present(start: &Path) -> bool {
    match locate(start) {
        Ok(_) => true,
        Err(e) => {
            let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
            if ci {
                panic!("{e} (CI is set: the corpus tests must run)");
            }
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "note: the corpus tests of this test binary are skipped: {e}"
                );
            });
            false
        }
    }
}
