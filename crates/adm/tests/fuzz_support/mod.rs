//! A mutation fuzzer for the reader that needs no nightly toolchain: seeds
//! are the `.adm`/`.acf` files of `examples/` and `../shared/corpus`; each
//! input is a seed with a few random line, character and token mutations;
//! the reader (parse + build, then model validation; or the command-file
//! reader) runs under `catch_unwind`. Every input is derived from
//! (seed, iteration) alone, so any one can be replayed.
//!
//! Shared by `examples/fuzz_reader.rs` (long runs) and
//! `tests/fuzz_reader.rs` (a short fixed-seed run).
#![allow(dead_code)]

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// SplitMix64: small, fast, good enough to pick mutations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Adm,
    Acf,
}

#[derive(Clone, Debug)]
pub struct Seed {
    pub name: String,
    pub kind: Kind,
    pub text: String,
}

/// Tokens worth inserting: the separators of the grammar, numbers at the
/// edges of f64/u32/i64, non-finite values, odd characters, keywords.
const TOKENS: &[&str] = &[
    "=",
    "==",
    ",",
    ", ",
    "&",
    " &",
    "(",
    ")",
    "((((((((",
    "))))",
    ";",
    "\\",
    "!",
    "/",
    ":",
    "::",
    "\"",
    "'",
    "*",
    "**",
    "-",
    "+",
    ".",
    "e",
    "D",
    "E+",
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "1D",
    "90D",
    "1E308",
    "1E309",
    "-1E309",
    "1E-320",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999999999999",
    "0.000000000000000000000000001",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "1/0",
    "0/0",
    "é",
    "∞",
    "ÿ",
    "\u{0}",
    "\u{202e}",
    "\u{feff}",
    "\u{fffd}",
    "😀",
    "\t",
    "\r",
    "\n",
    "\n,",
    "\r\n",
    " ",
    "END",
    "PART/",
    "MARKER/",
    "JOINT/",
    "GROUND",
    "QP",
    "REULER",
    "XP",
    "ZP",
    "CM",
    "MASS",
    "IP",
    "I",
    "J",
    "FUNCTION = ",
    "FUNCTION",
    "TIME",
    "PI",
    "DTOR",
    "STEP(TIME,0,0,1,1)",
    "IF(TIME:1,2,3)",
    "DM(",
    "DX(1,2,3)",
    "ORIENT(27,1,2,3)",
    "VARVAL(",
    "VARIABLE/",
    "JPRIM/",
    "INPLANE",
    "ATPOINT",
    "SIN(",
    "ABS",
    "T:F",
    "T",
    "F",
    "UNITS/",
    "FORCE = ",
    "ANGLE = ",
    "INTEGRATOR/",
    "SIMULATE/",
    "EQUILIBRIUM/",
    "OUTPUT/",
    "REQUEST/",
    "DYNAMIC",
    "STATIC",
    "END = ",
    "STEPS = ",
    "DTOUT = ",
];

fn char_boundaries(s: &str) -> Vec<usize> {
    s.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .collect()
}

/// A random char boundary of `s` and a second one at or after it.
fn span(rng: &mut Rng, s: &str) -> (usize, usize) {
    let b = char_boundaries(s);
    let i = rng.below(b.len());
    let len = if rng.chance(2) {
        rng.below(4)
    } else {
        rng.below(64)
    };
    let j = (i + len).min(b.len() - 1);
    (b[i], b[j])
}

/// A number-looking token (digits, sign, dot, exponent) around a random
/// position, if any.
fn number_span(rng: &mut Rng, s: &str) -> Option<(usize, usize)> {
    let bytes = s.as_bytes();
    let starts: Vec<usize> = (0..bytes.len())
        .filter(|&i| bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()))
        .collect();
    if starts.is_empty() {
        return None;
    }
    let mut i = *rng.pick(&starts);
    while i > 0 && matches!(bytes[i - 1], b'-' | b'+' | b'.') {
        i -= 1;
    }
    let mut j = i;
    while j < bytes.len()
        && (bytes[j].is_ascii_alphanumeric() || matches!(bytes[j], b'.' | b'+' | b'-'))
    {
        j += 1;
    }
    Some((i, j))
}

fn lines_of(s: &str) -> Vec<String> {
    s.split('\n').map(str::to_string).collect()
}

/// One random mutation of `text`; `donor` is another seed for splicing.
fn mutate_once(rng: &mut Rng, text: &str, donor: &str) -> String {
    let mut lines = lines_of(text);
    let n = lines.len();
    match rng.below(16) {
        // Line-level: delete, duplicate, swap, splice a donor's statement,
        // truncate the file.
        0 => {
            lines.remove(rng.below(n));
            if lines.is_empty() {
                lines.push(String::new());
            }
            lines.join("\n")
        }
        1 => {
            let k = rng.below(n);
            let l = lines[k].clone();
            lines.insert(rng.below(n + 1), l);
            lines.join("\n")
        }
        2 => {
            let (a, b) = (rng.below(n), rng.below(n));
            lines.swap(a, b);
            lines.join("\n")
        }
        3 | 4 => {
            let d = lines_of(donor);
            let k = rng.below(d.len());
            let take = 1 + rng.below(4);
            let at = rng.below(n + 1);
            for (m, l) in d[k..(k + take).min(d.len())].iter().enumerate() {
                lines.insert(at + m, l.clone());
            }
            lines.join("\n")
        }
        5 => {
            let b = char_boundaries(text);
            text[..*rng.pick(&b)].to_string()
        }
        // Character-level: delete, duplicate, replace with a token or a
        // random character, change case.
        6 => {
            let (i, j) = span(rng, text);
            format!("{}{}", &text[..i], &text[j..])
        }
        7 => {
            let (i, j) = span(rng, text);
            format!("{}{}{}", &text[..j], &text[i..j], &text[j..])
        }
        8..=10 => {
            let (i, j) = span(rng, text);
            let j = if rng.chance(2) { i } else { j };
            format!("{}{}{}", &text[..i], rng.pick(TOKENS), &text[j..])
        }
        11 => {
            let (i, _) = span(rng, text);
            let c = match rng.below(3) {
                0 => (b' ' + rng.below(95) as u8) as char,
                1 => char::from_u32(rng.below(0x800) as u32).unwrap_or('?'),
                _ => char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('\u{fffd}'),
            };
            let b = char_boundaries(&text[i..]);
            let next = i + b.get(1).copied().unwrap_or(0);
            format!("{}{c}{}", &text[..i], &text[next..])
        }
        12 => {
            let (i, j) = span(rng, text);
            let mid = if rng.chance(2) {
                text[i..j].to_lowercase()
            } else {
                text[i..j].to_uppercase()
            };
            format!("{}{mid}{}", &text[..i], &text[j..])
        }
        // Token-level: a number becomes an edge value; a line gets a
        // continuation mark or a trailing '&'.
        13 | 14 => match number_span(rng, text) {
            Some((i, j)) => format!("{}{}{}", &text[..i], rng.pick(TOKENS), &text[j..]),
            None => text.to_string(),
        },
        _ => {
            let k = rng.below(n);
            match rng.below(3) {
                0 => lines[k].push_str(" &"),
                1 => lines[k].insert(0, ','),
                _ => lines[k] = lines[k].replace(',', "\n,"),
            }
            lines.join("\n")
        }
    }
}

/// The input of one iteration: a seed (large ones cut to a window of
/// lines after the title) with one mutation (half the time) or 2–6.
pub fn input(rng: &mut Rng, seeds: &[Seed]) -> (Kind, String) {
    let seed = rng.pick(seeds);
    let donor = &rng.pick(seeds).text;
    let mut text = seed.text.clone();
    if text.len() > 16_000 {
        let lines = lines_of(&text);
        let start = 1 + rng.below(lines.len() - 1);
        let end = (start + 200).min(lines.len());
        text = format!("{}\n{}", lines[0], lines[start..end].join("\n"));
    }
    let n = if rng.chance(2) { 1 } else { 2 + rng.below(5) };
    for _ in 0..n {
        text = mutate_once(rng, &text, donor);
    }
    (seed.kind, text)
}

std::thread_local! {
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Record panics (message and location) instead of printing them.
fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        panic::set_hook(Box::new(|info| {
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let loc = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{loc}: {msg}")));
        }));
    });
}

/// How far an input got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A dataset read, built and validated.
    Valid,
    /// Read and built, rejected by model validation.
    Invalid,
    /// Rejected by the parser or the builder.
    ReadError,
    /// A command file read.
    CommandsRead,
    /// A command file rejected.
    CommandsError,
}

/// Run the reader on one input; `Err("file:line:col: message")` if it
/// panicked (error messages are formatted too, so Display is covered).
pub fn check(kind: Kind, text: &str) -> Result<Outcome, String> {
    catch(|| match kind {
        Kind::Adm => match mbsolve_adm::read_adm_full(text, "fuzz.adm") {
            Ok(read) => match mbsolve_model::validate(&read.model) {
                Ok(()) => Outcome::Valid,
                Err(e) => {
                    let _ = e.to_string();
                    Outcome::Invalid
                }
            },
            Err(e) => {
                let _ = e.to_string();
                Outcome::ReadError
            }
        },
        Kind::Acf => match mbsolve_adm::read_acf_str(text, "fuzz.acf") {
            Ok(_) => Outcome::CommandsRead,
            Err(e) => {
                let _ = e.to_string();
                Outcome::CommandsError
            }
        },
    })
}

/// Run `f`; a panic becomes `Err("file:line:col: message")` (not printed).
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    quiet_panics();
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|_| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panic without a message".into())
    })
}

/// Every `.adm`/`.acf` under the given directories (recursively), sorted by
/// path; missing directories are skipped.
pub fn load_seeds(dirs: &[PathBuf]) -> Vec<Seed> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("adm" | "acf")) {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    for d in dirs {
        walk(d, &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let kind = if p.extension()? == "acf" {
                Kind::Acf
            } else {
                Kind::Adm
            };
            Some(Seed {
                name: p.display().to_string(),
                kind,
                text: String::from_utf8_lossy(&bytes).into_owned(),
            })
        })
        .collect()
}

/// Seeds that read cleanly four times over, so most inputs get past the
/// parser into the builder and validation.
pub fn prefer_readable(seeds: Vec<Seed>) -> Vec<Seed> {
    let mut out = Vec::new();
    for s in seeds {
        let readable = matches!(
            check(s.kind, &s.text),
            Ok(Outcome::Valid | Outcome::CommandsRead)
        );
        for _ in 0..if readable { 4 } else { 1 } {
            out.push(s.clone());
        }
    }
    out
}

/// `examples/` and `../shared/corpus` seen from the adm crate.
pub fn default_seed_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    vec![root.join("examples"), root.join("../shared/corpus")]
}

/// The generator for iteration `k` of a run with `seed`.
pub fn iteration_rng(seed: u64, k: u64) -> Rng {
    let mut r = Rng::new(seed ^ k.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    r.next_u64();
    r
}

/// A finding: where it panicked and the smallest input seen for it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// `file:line:col` of the panic.
    pub location: String,
    /// The panic message of the first occurrence.
    pub message: String,
    pub iteration: u64,
    pub kind: Kind,
    pub input: String,
    pub count: u64,
}

/// What a run did: inputs by outcome, and the panics.
#[derive(Debug, Default)]
pub struct Report {
    pub inputs: u64,
    /// Counts by outcome, in the order of [`Outcome`].
    pub outcomes: [u64; 5],
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn outcome_summary(&self) -> String {
        let o = &self.outcomes;
        format!(
            "datasets: {} valid, {} built but invalid, {} rejected by the reader; command files: {} read, {} rejected",
            o[0], o[1], o[2], o[3], o[4]
        )
    }
}

/// Run iterations `from..to` (or until `stop()` says so), one finding per
/// panic location.
pub fn run(
    seed: u64,
    from: u64,
    to: u64,
    seeds: &[Seed],
    mut stop: impl FnMut(u64) -> bool,
) -> Report {
    let mut report = Report::default();
    let findings = &mut report.findings;
    let mut k = from;
    while k < to && !stop(k) {
        let mut rng = iteration_rng(seed, k);
        let (kind, text) = input(&mut rng, seeds);
        let result = check(kind, &text);
        if let Ok(outcome) = result {
            report.outcomes[outcome as usize] += 1;
        }
        if let Err(msg) = result {
            // Group by the panic's source location (the message may
            // carry input-dependent values).
            let location = msg.split(": ").next().unwrap_or("").to_string();
            match findings.iter_mut().find(|f| f.location == location) {
                Some(f) => {
                    f.count += 1;
                    if text.len() < f.input.len() {
                        f.input = text;
                        f.kind = kind;
                        f.iteration = k;
                    }
                }
                None => findings.push(Finding {
                    location,
                    message: msg,
                    iteration: k,
                    kind,
                    input: text,
                    count: 1,
                }),
            }
        }
        k += 1;
    }
    report.inputs = k - from;
    report
}
