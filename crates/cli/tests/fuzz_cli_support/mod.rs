//! A stable mutation fuzzer for the `mbsolve` binary as a user drives it:
//! mutated command lines, mutated `.acf` files run on the pendulum, and
//! mutated results files for `plot`. Each input runs the real binary in a
//! child process with a time limit; a finding is a panic (exit 101, or
//! "panicked"/"internal error" on stderr), a death by a signal, an exit
//! status other than 0, 1 and 2, or a run past the time limit. Every input
//! is derived from (seed, iteration) alone, so any one can be replayed.
//!
//! Shared by `examples/fuzz_cli.rs` (long runs) and `tests/fuzz_cli.rs`
//! (a short fixed-seed pass).
#![allow(dead_code)]

#[path = "../../../adm/tests/fuzz_support/mod.rs"]
mod adm_fuzz;

pub use adm_fuzz::{iteration_rng, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Mutated argument lists for every subcommand.
    Args,
    /// Mutated command files, run on the pendulum.
    Acf,
    /// Mutated results files and arguments for `plot`.
    Plot,
}

impl Target {
    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "args" => Some(Target::Args),
            "acf" => Some(Target::Acf),
            "plot" => Some(Target::Plot),
            _ => None,
        }
    }
}

/// Fixed files the inputs refer to, in a scratch directory.
pub struct Workspace {
    pub dir: PathBuf,
    pub model: PathBuf,
    pub acf_seeds: Vec<String>,
    pub csv_seed: String,
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

impl Workspace {
    pub fn new(dir: PathBuf) -> Workspace {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let model = dir.join("pendulum.adm");
        std::fs::copy(examples().join("pendulum.adm"), &model).expect("pendulum.adm");
        let _ = Command::new("mkfifo").arg(dir.join("fifo")).status();
        std::fs::create_dir_all(dir.join("subdir")).expect("subdir");
        let mut acf_seeds: Vec<String> = ["pendulum.acf", "slider_crank.acf"]
            .iter()
            .filter_map(|f| std::fs::read_to_string(examples().join(f)).ok())
            .collect();
        // Every command and the sequencing cases: INTEGRATOR changes, HHT
        // with inherited ERROR, EQUILIBRIUM limits, statics, TRANSIENT.
        acf_seeds.extend(
            [
                "pendulum.adm\nrun\nINTEGRATOR/HHT\nSIMULATE/DYNAMIC, END = 0.05, STEPS = 5\nINTEGRATOR/WSTIFF, SI2, ERROR = 1e-4, DEFAULT\nSIMULATE/DYNAMIC, END = 0.1, DTOUT = 0.01\nSTOP\n",
                "pendulum.adm\nrun\nEQUILIBRIUM/TLIMIT = 0.1, ALIMIT = 10D, MAXIT = 30\nSIMULATE/STATIC\nSIMULATE/TRANSIENT, END = 0.05, STEPS = 5\nSTOP\n",
                "\nFILE/OUTPUT_PREFIX = out\nSIMULATE/INITIAL_CONDITIONS\nSIMULATE/STATIC, END = 0.1, STEPS = 2\nINTEGRATOR/NEWMARK, HMAX = 1e-3\nSIMULATE/DYNAMIC, DURATION = 0.02, STEPS = 2\nSTOP\n",
                "pendulum.adm\nrun\nINTEGRATOR/GSTIFF, INTERPOLATE = ON, HMAX = 0.01, KMAX = 3\nSIMULATE/KINEMATIC, END = 0.1, STEPS = 2\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 10\nSTOP\n",
            ]
            .map(String::from),
        );
        let csv_seed = "time,request_1.x,request_1.y,request_2.vx\n0e0,1e0,0e0,0e0\n1e-1,9.9e-1,-4.9e-2,-9.8e-2\n2e-1,9.6e-1,-1.9e-1,-3.8e-1\n3e-1,9.1e-1,-4.2e-1,-8.1e-1\n".to_string();
        Workspace {
            dir,
            model,
            acf_seeds,
            csv_seed,
        }
    }
}

/// Values worth putting in a number's place: the edges of f64, u32 and
/// u64, non-finite values, and words.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "1e-300",
    "1e-20",
    "1e300",
    "-1e308",
    "1e308",
    "1.7976931348623157e308",
    "4.9e-324",
    "4294967296",
    "18446744073709551616",
    "1000000000",
    "10000000",
    "nan",
    "inf",
    "-inf",
    "NaN",
    "1e400",
    "",
    "x",
    "1D",
    "1e",
    "0.5",
    "2.5",
    "1E-6",
    "99999999999999999999",
];

const WORDS: &[&str] = &[
    "run",
    "check",
    "plot",
    "completions",
    "bash",
    "zsh",
    "fish",
    "elvish",
    "--acf",
    "--out",
    "--out=",
    "-o",
    "--output",
    "-q",
    "--quiet",
    "-h",
    "--help",
    "-V",
    "--version",
    "--",
    "-",
    "--acf=",
    "-qq",
    "--frobnicate",
    "",
    " ",
    "é",
    "\u{7f}",
    "a b",
    "x.svg",
    "x.png",
    "x.pdf",
    "request_1",
    "request_1.x",
    "time",
    "request_9",
];

/// A file name or path for an argument (inside the workspace, or odd).
fn path_arg(rng: &mut Rng, ws: &Workspace) -> String {
    let d = ws.dir.display();
    match rng.below(12) {
        0 => ws.model.display().to_string(),
        1 => format!("{d}/fifo"),
        2 => format!("{d}/subdir"),
        3 => "/dev/null".into(),
        4 => format!("{d}/missing.adm"),
        5 => format!("{d}/in.acf"),
        6 => format!("{d}/in.csv"),
        7 => format!("{d}/out"),
        8 => format!("{d}/out/x.svg"),
        9 => format!("{d}/in.csv.png"),
        10 => d.to_string(),
        _ => rng.pick(WORDS).to_string(),
    }
}

/// Replace numbers, drop or repeat pieces, insert words.
fn mutate_text(rng: &mut Rng, text: &str, separators: &[char]) -> String {
    let mut pieces: Vec<String> = text
        .split_inclusive(|c: char| separators.contains(&c))
        .map(String::from)
        .collect();
    if pieces.is_empty() {
        pieces.push(String::new());
    }
    let n = 1 + rng.below(4);
    for _ in 0..n {
        let k = rng.below(pieces.len());
        match rng.below(7) {
            0 | 1 => {
                // A number in this piece becomes an edge value.
                let p = &pieces[k];
                let start = p.find(|c: char| c.is_ascii_digit());
                if let Some(s) = start {
                    let end = p[s..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
                        .map_or(p.len(), |e| s + e);
                    pieces[k] = format!("{}{}{}", &p[..s], rng.pick(NUMBERS), &p[end..]);
                }
            }
            2 => {
                pieces.remove(k);
                if pieces.is_empty() {
                    pieces.push(String::new());
                }
            }
            3 => {
                let p = pieces[k].clone();
                pieces.insert(k, p);
            }
            4 => {
                let w = rng.pick(NUMBERS).to_string();
                pieces.insert(k, w);
            }
            5 => {
                let j = rng.below(pieces.len());
                pieces.swap(k, j);
            }
            _ => {
                let w = rng.pick(WORDS).to_string();
                pieces.insert(k, w);
            }
        }
    }
    pieces.concat()
}

/// One input: the arguments, and the files to write first.
#[derive(Clone, Debug)]
pub struct Input {
    pub args: Vec<String>,
    pub files: Vec<(PathBuf, String)>,
}

pub fn input(target: Target, rng: &mut Rng, ws: &Workspace) -> Input {
    let d = &ws.dir;
    let acf_path = d.join("in.acf");
    let csv_path = d.join("in.csv");
    match target {
        Target::Args => {
            let n = rng.below(7);
            let mut args: Vec<String> = Vec::new();
            if !rng.chance(8) {
                args.push(
                    rng.pick(&["run", "check", "plot", "completions"])
                        .to_string(),
                );
            }
            for _ in 0..n {
                if rng.chance(2) {
                    args.push(path_arg(rng, ws));
                } else {
                    let w = rng.pick(WORDS).to_string();
                    // --out=PATH and friends.
                    if w.ends_with('=') {
                        args.push(format!("{w}{}", path_arg(rng, ws)));
                    } else {
                        args.push(w);
                    }
                }
            }
            Input {
                args,
                files: vec![
                    (acf_path, ws.acf_seeds[0].clone()),
                    (csv_path, ws.csv_seed.clone()),
                ],
            }
        }
        Target::Acf => {
            let seed = rng.pick(&ws.acf_seeds).clone();
            let text = mutate_text(rng, &seed, &['\n', ',', '=', '/']);
            let mut args = vec![
                "run".to_string(),
                ws.model.display().to_string(),
                "--acf".into(),
                acf_path.display().to_string(),
                "--quiet".into(),
            ];
            if !rng.chance(4) {
                args.push(format!("--out={}", d.join("out").display()));
            }
            Input {
                args,
                files: vec![(acf_path, text)],
            }
        }
        Target::Plot => {
            let text = mutate_text(rng, &ws.csv_seed, &['\n', ',']);
            let mut args = vec!["plot".to_string(), csv_path.display().to_string()];
            for _ in 0..rng.below(3) {
                args.push(
                    rng.pick(&[
                        "request_1",
                        "request_1.x",
                        "request_2.vx",
                        "time",
                        "nope",
                        "",
                    ])
                    .to_string(),
                );
            }
            match rng.below(4) {
                0 => {}
                1 => args.extend(["-o".into(), d.join("out.png").display().to_string()]),
                2 => args.extend(["-o".into(), d.join("out.svg").display().to_string()]),
                _ => args.extend(["-o".into(), path_arg(rng, ws)]),
            }
            Input {
                args,
                files: vec![(csv_path, text)],
            }
        }
    }
}

/// How one input ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Exit 0, 1 or 2 without a panic: the status.
    Handled(i32),
    /// A finding, described.
    Finding(String),
    /// Still running at the time limit (killed). Long analyses asked for
    /// by mutated numbers (END = 1e300 with STEPS = 1e7) end up here.
    Slow,
}

/// Run one input through the binary.
pub fn execute(bin: &Path, ws: &Workspace, inp: &Input, limit: Duration) -> Verdict {
    for (p, text) in &inp.files {
        if std::fs::write(p, text).is_err() {
            return Verdict::Finding(format!("cannot write {}", p.display()));
        }
    }
    let child = Command::new(bin)
        .args(&inp.args)
        .current_dir(&ws.dir)
        .env_remove("MBSOLVE_PROGRESS")
        .env_remove("MBSOLVE_PANIC_AFTER_FRAMES")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Verdict::Finding(format!("cannot start {}: {e}", bin.display())),
    };
    // stderr is read on a thread so a chatty child cannot block on it.
    let mut err = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    let stderr = reader.join().unwrap_or_default();
    let Some(status) = status else {
        return Verdict::Slow;
    };
    let code = status.code();
    if stderr.contains("panicked at") || stderr.contains("mbsolve: internal error") {
        return Verdict::Finding(format!("panic: {}", stderr.lines().next().unwrap_or("")));
    }
    match code {
        Some(c @ (0..=2)) => Verdict::Handled(c),
        Some(c) => Verdict::Finding(format!("exit status {c}: {}", stderr.trim())),
        None => Verdict::Finding(format!("killed by a signal: {status:?} {}", stderr.trim())),
    }
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    pub inputs: u64,
    /// Inputs by exit status 0, 1, 2.
    pub statuses: [u64; 3],
    pub slow: Vec<(u64, Input)>,
    /// (iteration, description, input).
    pub findings: Vec<(u64, String, Input)>,
}

impl Report {
    pub fn summary(&self) -> String {
        format!(
            "{} inputs: {} exit 0, {} exit 1, {} exit 2, {} over the time limit, {} findings",
            self.inputs,
            self.statuses[0],
            self.statuses[1],
            self.statuses[2],
            self.slow.len(),
            self.findings.len()
        )
    }
}

/// Iterations `from..` until `stop(k)`.
pub fn run(
    bin: &Path,
    ws: &Workspace,
    target: Target,
    seed: u64,
    from: u64,
    limit: Duration,
    mut stop: impl FnMut(u64) -> bool,
) -> Report {
    let mut report = Report::default();
    let mut k = from;
    while !stop(k) {
        let inp = input(target, &mut iteration_rng(seed, k), ws);
        match execute(bin, ws, &inp, limit) {
            Verdict::Handled(c) => report.statuses[c as usize] += 1,
            Verdict::Slow => report.slow.push((k, inp)),
            Verdict::Finding(f) => report.findings.push((k, f, inp)),
        }
        k += 1;
    }
    report.inputs = k - from;
    report
}
