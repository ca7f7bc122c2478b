//! `mbsolve sweep` end to end on the oscillator of the Python tests
//! (crates/python/tests/data): x(t) = 1 + 0.1 cos(sqrt(k/m) t).

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../python/tests/data")
        .join(name)
}

fn sweep(args: &[&str], out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("sweep")
        .arg(data("oscillator.adm"))
        .arg("--acf")
        .arg(data("oscillator.acf"))
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let (head, body) = text.split_once('\n').unwrap();
    let number = |v: &str| v.parse::<f64>().unwrap();
    (
        head.split(',').map(String::from).collect(),
        body.lines()
            .map(|l| l.split(',').map(number).collect())
            .collect(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn every_variant_gets_a_csv_and_a_summary_row() {
    let out = tmp("product");
    let r = sweep(
        &[
            "--set",
            "SFORCE/1.FUNCTION=-100*(DM(20,10)-1),-400*(DM(20,10)-1)",
            "--set",
            "PART/2.MASS=1,4",
            "--workers",
            "2",
        ],
        &out,
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(
        lines[0],
        "variant,file,SFORCE/1.FUNCTION,PART/2.MASS,status,frames,t_end,steps,rejected_steps,jacobian_evaluations,error"
    );
    assert_eq!(lines.len(), 5);
    for (i, (k, m)) in [(100.0f64, 1.0f64), (100.0, 4.0), (400.0, 1.0), (400.0, 4.0)]
        .iter()
        .enumerate()
    {
        let row = lines[i + 1];
        assert!(
            row.starts_with(&format!(
                "{i},oscillator_00{i}.csv,\"-{k}*(DM(20,10)-1)\",{m},ok,201,1e0,"
            )),
            "{row}"
        );
        let (header, rows) = csv(&out.join(format!("oscillator_00{i}.csv")));
        let x = header.iter().position(|h| h == "request_1.x").unwrap();
        let w: f64 = (k / m).sqrt();
        for r in &rows {
            // GSTIFF at ERROR = 1E-6 on a 0.1 m amplitude.
            let exact = 1.0 + 0.1 * (w * r[0]).cos();
            assert!(
                (r[x] - exact).abs() < 2e-4,
                "k {k} m {m} t {}: {} vs {exact}",
                r[0],
                r[x]
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_failing_variant_is_summarised_with_its_partial_csv_and_the_exit_status_is_1() {
    let out = tmp("zip");
    let r = sweep(
        &[
            "--set",
            "SFORCE/1.FUNCTION=-100*(DM(20,10)-1)+SQRT(0.5-TIME),-100*(DM(20,10)-1)",
            "--set",
            "PART/2.MASS=1,-1",
            "--zip",
        ],
        &out,
    );
    assert_eq!(r.status.code(), Some(1));
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&r.stderr).trim(),
        format!(
            "mbsolve: error: 2 of 2 variants did not finish; see {}",
            out.join("summary.csv").display()
        )
    );
    let rows: Vec<&str> = summary.lines().skip(1).collect();
    assert!(rows[0].contains(",failed,101,5e-1,"), "{}", rows[0]);
    assert!(rows[0].contains("SQRT of a negative number"), "{}", rows[0]);
    assert!(rows[1].contains(",invalid,0,,0,0,0,"), "{}", rows[1]);
    assert!(rows[1].contains("part has no positive mass"), "{}", rows[1]);
    let (_, partial) = csv(&out.join("oscillator_000.csv"));
    assert_eq!(partial.len(), 101);
    assert!(!out.join("oscillator_001.csv").exists());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_sweeps_are_refused_before_running() {
    let out = tmp("bad");
    for (args, want) in [
        (
            &["--set", "PART/2.MASS=1,2", "--set", "PART/2.IP=1,1,1", "--zip"][..],
            "mbsolve: error: zip needs lists of one length: PART/2.MASS has 2 values, PART/2.IP has 3",
        ),
        (
            &["--set", "MASS=1"][..],
            "mbsolve: error: 'MASS': a change is ELEMENT.ARGUMENT, e.g. PART/2.MASS or INTEGRATOR.ERROR",
        ),
        (
            &["--set", "PART/2.MASS"][..],
            "mbsolve: error: --set 'PART/2.MASS': expected KEY=V1,V2,… (e.g. PART/2.MASS=1,2,3)",
        ),
    ] {
        let r = sweep(args, &out);
        assert_eq!(r.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&r.stderr).trim(), want);
        assert!(!out.exists(), "{args:?} created the output directory");
    }
    let xml = std::env::temp_dir().join(format!("mbsolve-sweep-{}.xml", std::process::id()));
    std::fs::write(&xml, "<MultiBodySystem/>\n").unwrap();
    let r = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .args([
            "sweep",
            xml.to_str().unwrap(),
            "--set",
            "PART/2.MASS=1",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&r.stderr).trim(),
        format!("mbsolve: error: {}:1: no <Model> section", xml.display())
    );
    assert!(!out.exists());
    let _ = std::fs::remove_file(&xml);
    let r = sweep(&["--set", "PART/2.MASS=1", "--workers", "0"], &out);
    assert_eq!(r.status.code(), Some(2));
}
