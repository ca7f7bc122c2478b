//! `mbsolve plot` on the results of the bundled pendulum.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mbsolve"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mbsolve-plot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// pendulum.csv from running examples/pendulum.adm once per test binary.
fn pendulum_csv() -> &'static Path {
    static CSV: OnceLock<PathBuf> = OnceLock::new();
    CSV.get_or_init(|| {
        let d = scratch("results");
        let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let o = bin()
            .arg("run")
            .arg(ex.join("pendulum.adm"))
            .arg("--acf")
            .arg(ex.join("pendulum.acf"))
            .arg("--out")
            .arg(&d)
            .arg("--quiet")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        d.join("pendulum.csv")
    })
}

fn header() -> Vec<String> {
    let text = std::fs::read_to_string(pendulum_csv()).unwrap();
    text.lines()
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect()
}

fn plot(args: &[&str], out: &Path) -> Output {
    bin()
        .arg("plot")
        .arg(pendulum_csv())
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// The series of an SVG: (stroke colour, number of points) of each
/// polyline drawn 2 px wide (axes and ticks are 1 px; the legend uses
/// filled rectangles).
fn svg_series(svg: &str) -> Vec<(String, usize)> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke-width=\"2\""))
        .map(|p| {
            let colour = p.split("stroke=\"").nth(1).unwrap()[..7].to_string();
            let points = p.split("points=\"").nth(1).unwrap();
            let points = &points[..points.find('"').unwrap()];
            (colour, points.split_whitespace().count())
        })
        .collect()
}

/// The texts of an SVG's `<text …>…</text>` elements.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let body = &t[t.find('>').unwrap() + 1..];
            body[..body.find("</text>").unwrap()].trim().to_string()
        })
        .collect()
}

#[test]
fn svg_has_one_line_and_one_legend_entry_per_column() {
    let d = scratch("svg");
    let out = d.join("p.svg");
    let o = plot(&["request_1", "request_3.fy"], &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&out).unwrap();
    let cols = [
        "request_1.x",
        "request_1.y",
        "request_1.z",
        "request_1.psi",
        "request_1.theta",
        "request_1.phi",
        "request_3.fy",
    ];
    let series = svg_series(&svg);
    assert_eq!(series.len(), cols.len(), "{series:?}");
    // Every line runs through all 251 output times, each in its own colour.
    for (colour, n) in &series {
        assert_eq!(*n, 251, "series {colour}");
    }
    let mut colours: Vec<&String> = series.iter().map(|s| &s.0).collect();
    colours.dedup();
    assert_eq!(colours.len(), cols.len());
    let texts = svg_texts(&svg);
    for c in cols {
        assert!(texts.iter().any(|t| t == c), "no legend '{c}' in {texts:?}");
    }
    for axis in ["time", "value", "pendulum.csv"] {
        assert!(texts.iter().any(|t| t == axis), "no '{axis}' in {texts:?}");
    }
}

#[test]
fn no_columns_draws_every_column() {
    let d = scratch("all");
    let out = d.join("all.svg");
    let o = plot(&[], &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&out).unwrap();
    let h = header();
    assert_eq!(h.len(), 25);
    assert_eq!(svg_series(&svg).len(), h.len() - 1);
    let texts = svg_texts(&svg);
    for c in &h[1..] {
        assert!(texts.contains(c), "no legend '{c}'");
    }
}

#[test]
fn png_has_the_right_size_and_draws_the_series() {
    let d = scratch("png");
    let out = d.join("p.png");
    let o = plot(&["request_1.x", "request_3.fy"], &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1100, 650));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
    let background = pixels.iter().filter(|p| **p == [255, 255, 255]).count();
    let count = |rgb: [u8; 3]| pixels.iter().filter(|p| **p == rgb).count();
    // Not blank, mostly white, and both series colours (tab:blue and
    // tab:orange) cover at least a line's worth of pixels each.
    assert!(background < pixels.len() * 99 / 100, "{background}");
    assert!(background > pixels.len() / 2, "{background}");
    assert!(count([31, 119, 180]) > 1000, "{}", count([31, 119, 180]));
    assert!(count([255, 127, 14]) > 1000, "{}", count([255, 127, 14]));
    // Text was rasterized: dark grey anti-aliased glyph pixels exist
    // (neither white, black nor a series colour).
    let grey = pixels
        .iter()
        .filter(|p| p[0] == p[1] && p[1] == p[2] && p[0] > 0 && p[0] < 200)
        .count();
    assert!(grey > 200, "{grey} glyph pixels");
}

#[test]
fn unknown_column_is_an_error_listing_the_columns() {
    let d = scratch("unknown");
    let out = d.join("p.svg");
    let o = plot(&["request_1.x", "request_9.q"], &out);
    assert_eq!(o.status.code(), Some(1));
    let h = header();
    assert_eq!(
        stderr(&o),
        format!(
            "mbsolve: error: no column 'request_9.q' in {}; available: {}\n",
            pendulum_csv().display(),
            h[1..].join(", ")
        )
    );
    assert!(!out.exists());
}

#[test]
fn other_image_formats_are_rejected() {
    let d = scratch("jpg");
    let out = d.join("p.jpg");
    let o = plot(&[], &out);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "mbsolve: error: cannot tell the image format of {}: the output file must end in .svg or .png\n",
            out.display()
        )
    );
    assert!(!out.exists());
}

#[test]
fn unwritable_output_is_a_file_error_naming_it() {
    let d = scratch("unwritable");
    for name in ["p.svg", "p.png"] {
        let out = d.join("no-such-dir").join(name);
        let o = plot(&["request_1.x"], &out);
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        let prefix = format!("mbsolve: error: cannot write {}: ", out.display());
        assert!(e.starts_with(&prefix), "{e}");
        assert!(!e.contains("backend"), "{e}");
    }
}
