//! The ASCII `.plt` result file of a MotionSolve deck with ResOutput
//! plt_file="TRUE", read back: the directory names every request, and each
//! output time holds the CSV's values in the MotionSolve slots.

use std::path::Path;
use std::process::Command;

/// A directory entry: request id, type code, I, J, name.
type Entry = (u32, u32, u32, u32, String);
/// One output time and its six slots per request.
type PltFrame = (f64, Vec<[f64; 6]>);

fn parse_plt(text: &str) -> (Vec<Entry>, Vec<PltFrame>) {
    let mut lines = text.lines();
    lines.next().unwrap(); // title
    assert!(lines.next().unwrap().starts_with("Generated on "));
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let n: usize = head[0].parse().unwrap();
    assert_eq!(head[1], "MKGS_N_RACA");
    assert_eq!(head[2], "1.000000000000000e+00");
    let mut dir = Vec::new();
    for _ in 0..n {
        let f: Vec<u32> = lines
            .next()
            .unwrap()
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        let name = lines.next().unwrap().to_string();
        assert_eq!(f[4] as usize, name.chars().count());
        dir.push((f[0], f[1], f[2], f[3], name));
    }
    let mut frames = Vec::new();
    while let Some(t) = lines.next() {
        // ' %13.5E'
        assert_eq!(t.len(), 14, "time line '{t}'");
        let t: f64 = t.trim().parse().unwrap();
        let mut rows = Vec::new();
        for _ in 0..n {
            let l = lines.next().unwrap();
            assert_eq!(l.len(), 1 + 6 * 13, "'{l}'");
            let v: Vec<f64> = (0..6)
                .map(|k| l[1 + 13 * k..1 + 13 * (k + 1)].trim().parse().unwrap())
                .collect();
            rows.push([v[0], v[1], v[2], v[3], v[4], v[5]]);
        }
        frames.push((t, rows));
    }
    (dir, frames)
}

#[test]
fn plt_file_is_written_and_reads_back() {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(ex.join("pendulum.xml"))
        .unwrap()
        .replace(
            "<Param_Unit",
            "<ResOutput plt_file=\"TRUE\" angle_type=\"YPR\"/>\n    <Param_Unit",
        )
        .replace(
            "  </Model>",
            "    <Post_Request id=\"9\" type=\"EXPRESSION\" comment=\"bob by expression\" expr1=\"NULL\" expr2=\"DX(20)\" expr3=\"DY(20)\" expr4=\"NULL\" expr5=\"NULL\" expr6=\"VX(20)\" expr7=\"NULL\" expr8=\"VY(20)\"/>\n  </Model>",
        )
        .replace("end_time=\"2.5\" num_steps=\"250\"", "end_time=\"1.\" num_steps=\"20\"");
    let dir = std::env::temp_dir().join(format!("mbsolve-plt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let deck = dir.join("pend.xml");
    std::fs::write(&deck, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .arg("run")
        .arg(&deck)
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plt = std::fs::read_to_string(dir.join("out/pend.plt")).unwrap();
    let (directory, frames) = parse_plt(&plt);
    assert_eq!(
        directory,
        vec![
            (1, 1, 20, 0, "bob position".to_string()),
            (2, 2, 20, 0, String::new()),
            (3, 4, 21, 10, "pivot reaction on the bob".to_string()),
            (4, 3, 20, 0, String::new()),
            (9, 5, 0, 0, "bob by expression".to_string()),
        ]
    );
    let csv = std::fs::read_to_string(dir.join("out/pend.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(frames.len(), rows.len());
    assert_eq!(frames.len(), 21);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    // %13.5E keeps 6 significant digits.
    let close = |a: f64, b: f64| (a - b).abs() <= 6e-6 * b.abs().max(1e-3);
    for ((t, plt), row) in frames.iter().zip(&rows) {
        assert!(close(*t, row[0]));
        // Displacement: x y z from the CSV; yaw = atan2(y, x) (the bob
        // turns about z with its CM marker), pitch = roll = 0.
        let (x, y) = (row[col("request_1.x")], row[col("request_1.y")]);
        assert!(close(plt[0][0], x) && close(plt[0][1], y), "t = {t}");
        assert!(close(plt[0][3], y.atan2(x)), "yaw {} at t = {t}", plt[0][3]);
        assert!(plt[0][4].abs() < 1e-9 && plt[0][5].abs() < 1e-9);
        for (k, c) in ["vx", "vy", "vz", "wx", "wy", "wz"].iter().enumerate() {
            assert!(close(plt[1][k], row[col(&format!("request_2.{c}"))]));
        }
        for (k, c) in ["fx", "fy", "fz", "tx", "ty", "tz"].iter().enumerate() {
            assert!(close(plt[2][k], row[col(&format!("request_3.{c}"))]));
        }
        // Expression request: slots are components 2, 3, 4, 6, 7, 8.
        let e = plt[4];
        assert!(close(e[0], x) && close(e[1], y));
        assert_eq!((e[2], e[4]), (0.0, 0.0));
        assert!(close(e[3], row[col("request_2.vx")]));
        assert!(close(e[5], row[col("request_2.vy")]));
    }
}
