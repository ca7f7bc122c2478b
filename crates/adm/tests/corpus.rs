//! The reader on every deck of the third-party corpus (`../shared/corpus`,
//! read in place, never copied). Skips with a note when the corpus is absent.

use mbsolve_adm::{parse_acf, read_acf_str, read_adm_full, syntax::parse_adm};
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if root.is_dir() {
        Some(root)
    } else {
        println!("note: corpus not found at {}, skipping", root.display());
        None
    }
}

/// (relative path, text) of every .adm and .acf file, sorted.
fn files(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for d in dirs.into_iter().filter(|d| d.is_dir()) {
        let mut fs: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        fs.sort();
        for f in fs {
            let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext == "adm" || ext == "acf" {
                let rel = f.strip_prefix(root).unwrap().display().to_string();
                let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
                out.push((rel, text));
            }
        }
    }
    out
}

#[test]
fn corpus_parses_and_builds_or_names_the_first_unsupported_element() {
    let Some(root) = corpus() else { return };
    let mut built = Vec::new();
    println!("{:<60} result", "file");
    for (rel, text) in files(&root) {
        if rel.ends_with(".adm") {
            let syn = parse_adm(&text, &rel);
            assert!(
                syn.is_ok(),
                "parse layer rejects {rel}: {}",
                syn.unwrap_err()
            );
            match read_adm_full(&text, &rel) {
                Ok(r) => {
                    let m = &r.model;
                    println!(
                        "{rel:<60} BUILT: {} parts, {} markers, {} joints, {} motions, {} forces, {} requests, {} function requests",
                        m.parts.len(),
                        m.markers.len(),
                        m.joints.len(),
                        m.motions.len(),
                        m.forces.len(),
                        m.requests.len(),
                        m.function_requests.len()
                    );
                    built.push(rel.clone());
                }
                Err(e) => println!("{rel:<60} {e}"),
            }
        } else {
            let syn = parse_acf(&text, &rel);
            assert!(
                syn.is_ok(),
                "parse layer rejects {rel}: {}",
                syn.unwrap_err()
            );
            match read_acf_str(&text, &rel) {
                Ok(a) => println!("{rel:<60} BUILT: {} commands", a.commands.len()),
                Err(e) => println!("{rel:<60} {e}"),
            }
        }
    }
    println!("{} dataset(s) build", built.len());
    for kind in [
        "cylindrical-case01",
        "cylindrical-case02",
        "cylindrical-case03",
        "prismatic-case01",
        "prismatic-case02",
        "prismatic-case03",
        "revolute-case01",
        "revolute-case02",
        "spherical-case01",
        "spherical-case02",
        "universal-case01",
        "universal-case02",
        "universal-case03",
    ] {
        assert!(
            built
                .iter()
                .any(|b| b.starts_with(&format!("chrono-{kind}/"))),
            "chrono-{kind} does not build"
        );
    }
}

#[test]
fn chrono_command_files_build() {
    let Some(root) = corpus() else { return };
    for (rel, text) in files(&root) {
        if rel.starts_with("chrono-") && rel.ends_with(".acf") {
            let acf = read_acf_str(&text, &rel).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                acf.model_file.as_deref().unwrap_or("").ends_with(".adm"),
                "{rel}"
            );
            assert_eq!(acf.commands.len(), 2, "{rel}");
        }
    }
}

/// Random byte mutations of corpus files never panic the reader.
#[test]
fn mutated_corpus_files_never_panic() {
    let Some(root) = corpus() else { return };
    let all = files(&root);
    let small: Vec<_> = all.iter().filter(|(_, t)| t.len() < 40_000).collect();
    // xorshift64: deterministic, no dependency
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    const ALPHABET: &[u8] = b",;&!\\=()/:*-+.D 0123456789\n\r\tEFIJKQPRX\"'";
    for round in 0..2000 {
        let (rel, text) = small[(next() % small.len() as u64) as usize];
        let mut bytes = text.as_bytes().to_vec();
        let n_mut = 1 + next() % 8;
        for _ in 0..n_mut {
            if bytes.is_empty() {
                break;
            }
            let at = (next() % bytes.len() as u64) as usize;
            match next() % 4 {
                0 => bytes[at] = ALPHABET[(next() % ALPHABET.len() as u64) as usize],
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, ALPHABET[(next() % ALPHABET.len() as u64) as usize]),
                _ => bytes[at] = (next() & 0xff) as u8,
            }
        }
        let mutated = String::from_utf8_lossy(&bytes).into_owned();
        let name = format!("{rel}#{round}");
        let result = std::panic::catch_unwind(|| {
            let _ = read_adm_full(&mutated, &name);
            let _ = read_acf_str(&mutated, &name);
        });
        assert!(
            result.is_ok(),
            "reader panicked on mutation {round} of {rel}"
        );
    }
}
