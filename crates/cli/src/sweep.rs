//! `mbsolve sweep`: run a dataset once per variant of `--set` parameters
//! (every combination, or side by side with `--zip`) on `--workers`
//! threads, writing PREFIX_NNN.csv and PREFIX_NNN.msg per variant and
//! summary.csv (one row per variant: parameters, status, frames, final
//! time, step counts, error). The variants are built and run by
//! `mbsolve_study` (changes applied to the dataset text, so every value is
//! validated by the reader), exactly as the Python package runs them.

use crate::args::SweepOptions;
use crate::run::regular_file;
use crate::Failure;
use mbsolve_study::{Change, Mode, RunOutcome, Source};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `KEY=V1,V2,…` → (KEY, values); values split at commas outside
/// parentheses, so a FUNCTION such as `-k*DM(2,1)` stays whole.
pub fn parse_set(s: &str) -> Result<(String, Vec<String>), String> {
    let (key, values) = s
        .split_once('=')
        .ok_or_else(|| format!("--set '{s}': expected KEY=V1,V2,… (e.g. PART/2.MASS=1,2,3)"))?;
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in values.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(std::mem::take(&mut cur).trim().to_string());
        } else {
            cur.push(c);
        }
    }
    out.push(cur.trim().to_string());
    if out.iter().any(String::is_empty) {
        return Err(format!("--set '{s}': an empty value"));
    }
    Ok((key.trim().to_string(), out))
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// One variant's outcome for the summary.
struct Row {
    status: &'static str,
    frames: usize,
    t_end: Option<f64>,
    steps: u64,
    rejected: u64,
    jacobians: u64,
    error: String,
}

fn write_variant(dir: &Path, name: &str, out: &RunOutcome) -> Result<(), String> {
    let mut csv = out.header.join(",");
    csv.push('\n');
    let n = out.header.len().max(1);
    for row in out.data.chunks(n) {
        let line: Vec<String> = row.iter().map(|v| format!("{v:e}")).collect();
        csv.push_str(&line.join(","));
        csv.push('\n');
    }
    let mut msg = out.log.join("\n");
    msg.push('\n');
    for (path, text) in [
        (dir.join(format!("{name}.csv")), csv),
        (dir.join(format!("{name}.msg")), msg),
    ] {
        crate::run::write_output(&path, text.as_bytes())?;
    }
    Ok(())
}

impl Row {
    fn not_run(status: &'static str, error: String) -> Row {
        Row {
            status,
            frames: 0,
            t_end: None,
            steps: 0,
            rejected: 0,
            jacobians: 0,
            error,
        }
    }
}

/// One variant: its files written and its summary row. A signal before it
/// starts skips it; one while it runs stops it at the next step with its
/// frames kept ("stopped"); files that cannot be written fail the variant
/// (the summary is still written).
fn run_one(
    src: &Source,
    changes: &[Change],
    dir: &Path,
    name: &str,
    stop: &Arc<AtomicBool>,
) -> Row {
    if stop.load(Ordering::SeqCst) {
        return Row::not_run(
            "skipped",
            "not run: the sweep was stopped by a signal".into(),
        );
    }
    match mbsolve_study::run(src, changes, Some(stop.clone())) {
        Err(e) => Row {
            status: "invalid",
            frames: 0,
            t_end: None,
            steps: 0,
            rejected: 0,
            jacobians: 0,
            error: e.to_string(),
        },
        Ok(out) => {
            if let Err(e) = write_variant(dir, name, &out) {
                return Row::not_run("failed", e);
            }
            let rows = out.rows();
            let stopped = out.error.is_some() && stop.load(Ordering::SeqCst);
            Row {
                status: match &out.error {
                    _ if stopped => "stopped",
                    Some(_) => "failed",
                    None => "ok",
                },
                frames: rows,
                t_end: (rows > 0).then(|| out.data[(rows - 1) * out.header.len()]),
                steps: out.stats.iter().map(|s| s.steps).sum(),
                rejected: out.stats.iter().map(|s| s.rejected_steps).sum(),
                jacobians: out.stats.iter().map(|s| s.jacobian_evaluations).sum(),
                error: out.error.unwrap_or_default(),
            }
        }
    }
}

/// Threads for `variants` variants: never more than variants; the number
/// of CPUs unless `--workers` asks for more (its N is honoured up to the
/// variant count).
fn worker_count(asked: Option<u16>, variants: usize) -> usize {
    let n = asked.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    n.min(variants).max(1)
}

pub fn sweep(opts: &SweepOptions) -> Result<PathBuf, Failure> {
    regular_file(&opts.model, "model")?;
    if let Some(p) = &opts.acf {
        regular_file(p, "command")?;
    }
    let params = opts
        .set
        .iter()
        .map(|s| parse_set(s))
        .collect::<Result<Vec<_>, _>>()?;
    let mode = if opts.zip { Mode::Zip } else { Mode::Product };
    // Counted and checked (keys unique, at most MAX_VARIANTS) before
    // anything is read or started; each variant is built when it runs.
    let variants = mbsolve_study::Variants::new(&params, mode)?;
    let src = Source {
        adm: read(&opts.model)?,
        adm_name: opts.model.display().to_string(),
        acf: opts.acf.as_deref().map(read).transpose()?,
        acf_name: opts
            .acf
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    };
    // The unchanged model must load: otherwise every variant fails alike.
    let base = mbsolve_study::load(&src, &[]).map_err(|e| e.to_string())?;
    let stem = opts
        .model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mbsolve".into());
    let prefix = base
        .output_prefix
        .as_deref()
        .and_then(|p| Path::new(p).file_name())
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or(stem.clone());
    let dir = opts.out.clone().unwrap_or_else(|| {
        let parent = opts.model.parent().unwrap_or(Path::new(""));
        parent.join(format!("{stem}_sweep"))
    });
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot create output directory {}: {e}", dir.display()))?;
    let workers = worker_count(opts.workers, variants.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| format!("cannot start {workers} worker threads: {e}"))?;
    let width = variants.len().saturating_sub(1).to_string().len().max(3);
    let name = |i: usize| format!("{prefix}_{i:0width$}");
    let (stop, signal) = crate::run::catch_signals();
    let rows: Vec<Row> = pool.install(|| {
        (0..variants.len())
            .into_par_iter()
            .map(|i| run_one(&src, &variants.get(i), &dir, &name(i), &stop))
            .collect()
    });
    let mut summary = String::from("variant,file");
    for (key, _) in &params {
        summary.push(',');
        summary.push_str(&field(key));
    }
    summary.push_str(",status,frames,t_end,steps,rejected_steps,jacobian_evaluations,error\n");
    let mut failed = 0;
    for (i, row) in rows.into_iter().enumerate() {
        let _ = write!(summary, "{i},{}.csv", name(i));
        for c in variants.get(i) {
            let _ = write!(summary, ",{}", field(&c.value));
        }
        let _ = writeln!(
            summary,
            ",{},{},{},{},{},{},{}",
            row.status,
            row.frames,
            row.t_end.map(|t| format!("{t:e}")).unwrap_or_default(),
            row.steps,
            row.rejected,
            row.jacobians,
            field(&row.error)
        );
        failed += usize::from(row.status != "ok");
    }
    let path = dir.join("summary.csv");
    crate::run::write_output(&path, summary.as_bytes())?;
    if stop.load(Ordering::SeqCst) {
        let sig = signal.load(Ordering::SeqCst) as i32;
        return Err(Failure {
            message: format!(
                "stopped by {}: {failed} of {} variants did not finish; see {}",
                crate::run::signal_name(sig),
                variants.len(),
                path.display()
            ),
            code: 128 + sig as u8,
        });
    }
    if failed > 0 {
        return Err(format!(
            "{failed} of {} variants did not finish; see {}",
            variants.len(),
            path.display()
        )
        .into());
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_split_outside_parentheses() {
        assert_eq!(
            parse_set("SFORCE/1.FUNCTION=-10*DM(2,1), -20*DM(2,1)").unwrap(),
            (
                "SFORCE/1.FUNCTION".into(),
                vec!["-10*DM(2,1)".into(), "-20*DM(2,1)".into()]
            )
        );
        assert_eq!(
            parse_set("PART/2.MASS").unwrap_err(),
            "--set 'PART/2.MASS': expected KEY=V1,V2,… (e.g. PART/2.MASS=1,2,3)"
        );
        assert!(parse_set("PART/2.MASS=1,,2").is_err());
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("x\"y"), "\"x\"\"y\"");
    }

    #[test]
    fn workers_never_outnumber_variants() {
        assert_eq!(worker_count(Some(65535), 2), 2);
        assert_eq!(worker_count(Some(3), 10), 3);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(worker_count(None, 100_000), cores);
        assert_eq!(worker_count(None, 1), 1);
    }
}
