//! `mbsolve plot`: columns of a results CSV (`time` first, as `mbsolve run`
//! writes it) drawn against time, as SVG or PNG.
//!
//! Text is laid out with DejaVu Sans embedded in the binary (plotters'
//! `ab_glyph` feature), so no system font library is needed.

use crate::args::PlotOptions;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 650;
const LEGEND_FONT: u32 = 14;
const LEGEND_ROW: u32 = 20;

/// A results table, stored by column.
#[derive(Debug)]
pub struct Table {
    pub header: Vec<String>,
    pub columns: Vec<Vec<f64>>,
}

/// Read a CSV written by `mbsolve run`: a header line starting with `time`,
/// then one line of numbers per output time.
pub fn read_table(path: &Path) -> Result<Table, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, head) = lines.next().ok_or(format!("{name} is empty"))?;
    let header: Vec<String> = head.split(',').map(|h| h.trim().to_string()).collect();
    if header[0] != "time" {
        return Err(format!(
            "{name}:1: the first column is '{}', not 'time' (expected a results file written by `mbsolve run`)",
            header[0]
        ));
    }
    let mut columns = vec![Vec::new(); header.len()];
    for (k, line) in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != header.len() {
            return Err(format!(
                "{name}:{}: {} values, but the header has {} columns",
                k + 1,
                cells.len(),
                header.len()
            ));
        }
        for (j, cell) in cells.iter().enumerate() {
            let v = cell.trim().parse::<f64>().map_err(|_| {
                format!(
                    "{name}:{}: column {}: '{}' is not a number",
                    k + 1,
                    header[j],
                    cell.trim()
                )
            })?;
            columns[j].push(v);
        }
    }
    if columns[0].is_empty() {
        return Err(format!("{name} has a header but no rows"));
    }
    Ok(Table { header, columns })
}

/// Indices of the columns to draw: each name is a column (`request_1.x`)
/// or a request (`request_1`: all its components), matched ignoring case;
/// no names = every column but time.
pub fn select(table: &Table, names: &[String], file: &Path) -> Result<Vec<usize>, String> {
    if names.is_empty() {
        if table.header.len() < 2 {
            return Err(format!("{} has no columns besides time", file.display()));
        }
        return Ok((1..table.header.len()).collect());
    }
    let mut chosen = Vec::new();
    for name in names {
        if name.eq_ignore_ascii_case("time") {
            return Err(
                "'time' is the horizontal axis; name the columns to draw against it".into(),
            );
        }
        let exact: Vec<usize> = (1..table.header.len())
            .filter(|&j| table.header[j].eq_ignore_ascii_case(name))
            .collect();
        let group: Vec<usize> = (1..table.header.len())
            .filter(|&j| {
                let h = &table.header[j];
                h.len() > name.len()
                    && h.as_bytes()[name.len()] == b'.'
                    && h[..name.len()].eq_ignore_ascii_case(name)
            })
            .collect();
        let found = if exact.is_empty() { group } else { exact };
        if found.is_empty() {
            return Err(format!(
                "no column '{name}' in {}; available: {}",
                file.display(),
                table.header[1..].join(", ")
            ));
        }
        for j in found {
            if !chosen.contains(&j) {
                chosen.push(j);
            }
        }
    }
    Ok(chosen)
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Format {
    Svg,
    Png,
}

pub fn format_of(path: &Path) -> Result<Format, String> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("svg") => Ok(Format::Svg),
        Some("png") => Ok(Format::Png),
        _ => Err(format!(
            "cannot tell the image format of {}: the output file must end in .svg or .png",
            path.display()
        )),
    }
}

/// Tableau's 10 colours, then their light variants.
const PALETTE: [RGBColor; 20] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(174, 199, 232),
    RGBColor(255, 187, 120),
    RGBColor(152, 223, 138),
    RGBColor(255, 152, 150),
    RGBColor(197, 176, 213),
    RGBColor(196, 156, 148),
    RGBColor(247, 182, 210),
    RGBColor(199, 199, 199),
    RGBColor(219, 219, 141),
    RGBColor(158, 218, 229),
];

pub fn series_color(k: usize) -> RGBColor {
    PALETTE[k % PALETTE.len()]
}

fn register_font() -> Result<(), String> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        if plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_err()
        {
            result = Err("the embedded DejaVu Sans font could not be loaded".to_string());
        }
    });
    result
}

/// Largest axis magnitude drawn: plotters' key-point search does not end
/// on ranges whose ends or width overflow (e.g. ±1.8e308), so such data
/// is refused with a message instead.
const MAX_AXIS: f64 = 1e300;

/// A range narrower than this, relative to its magnitude, is drawn as a
/// constant: its tick labels could not be told apart in f64.
const MIN_RELATIVE_SPAN: f64 = 1e-12;

/// The range covering `values` (finite ones), padded by 5 %; a constant
/// (or a range too narrow for its magnitude) gets ±1 (or ±10 % of its
/// size).
fn padded_range(values: impl Iterator<Item = f64>, pad: bool) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        return None;
    }
    if hi - lo <= MIN_RELATIVE_SPAN * lo.abs().max(hi.abs()) {
        let d = if lo == 0.0 { 1.0 } else { 0.1 * lo.abs() };
        return Some((lo - d, hi + d));
    }
    let d = if pad { 0.05 * (hi - lo) } else { 0.0 };
    Some((lo - d, hi + d))
}

/// An axis range plotters can draw: finite ends and width within
/// ±MAX_AXIS, else a message naming the axis.
fn drawable(axis: &str, (lo, hi): (f64, f64)) -> Result<(f64, f64), String> {
    if lo.abs().max(hi.abs()) <= MAX_AXIS && (hi - lo).is_finite() {
        Ok((lo, hi))
    } else {
        Err(format!(
            "cannot plot: the {axis} axis would span {lo:e} to {hi:e}; values beyond ±{MAX_AXIS:e} cannot be drawn"
        ))
    }
}

/// Runs of consecutive points where both time and value are finite (NaN
/// or infinite outputs break the line instead of distorting the axes).
fn finite_runs(t: &[f64], v: &[f64]) -> Vec<Vec<(f64, f64)>> {
    let mut runs = Vec::new();
    let mut cur = Vec::new();
    for (&x, &y) in t.iter().zip(v) {
        if x.is_finite() && y.is_finite() {
            cur.push((x, y));
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    runs
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    table: &Table,
    cols: &[usize],
    title: &str,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing failed: {e}");
    root.fill(&WHITE).map_err(e)?;
    let names: Vec<&str> = cols.iter().map(|&j| table.header[j].as_str()).collect();
    // Legend at the right, in as many columns as the height needs.
    let per_column = ((HEIGHT - 60) / LEGEND_ROW).max(1) as usize;
    let legend_columns = cols.len().div_ceil(per_column);
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as u32;
    let column_width = 40 + longest * LEGEND_FONT * 6 / 10;
    let legend_width = (legend_columns as u32 * column_width + 10).min(WIDTH / 2);
    let (plot_area, legend_area) = root.split_horizontally(WIDTH - legend_width);

    let time = &table.columns[0];
    let (x0, x1) = drawable(
        "time",
        padded_range(time.iter().copied(), false).ok_or("the time column has no finite values")?,
    )?;
    let (y0, y1) = drawable(
        "value",
        padded_range(
            cols.iter().flat_map(|&j| table.columns[j].iter().copied()),
            true,
        )
        .ok_or_else(|| format!("the columns {} have no finite values", names.join(", ")))?,
    )?;
    let y_desc = if names.len() == 1 { names[0] } else { "value" };
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("time")
        .y_desc(y_desc)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(e)?;
    for (k, &j) in cols.iter().enumerate() {
        let style = series_color(k).stroke_width(2);
        for run in finite_runs(time, &table.columns[j]) {
            chart.draw_series(LineSeries::new(run, style)).map_err(e)?;
        }
    }
    // Legend: a filled swatch (not a line, so the only polylines in an SVG
    // are the series) and the column name.
    for (k, name) in names.iter().enumerate() {
        let x = 5 + (k / per_column) as i32 * column_width as i32;
        let y = 50 + (k % per_column) as i32 * LEGEND_ROW as i32;
        legend_area
            .draw(&Rectangle::new(
                [(x, y - 2), (x + 24, y + 2)],
                series_color(k).filled(),
            ))
            .map_err(e)?;
        legend_area
            .draw(&Text::new(
                name.to_string(),
                (x + 30, y - LEGEND_FONT as i32 / 2 - 1),
                ("sans-serif", LEGEND_FONT).into_font().color(&BLACK),
            ))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

/// The default image: the CSV's path with `.svg`.
fn default_output(csv: &Path) -> PathBuf {
    csv.with_extension("svg")
}

pub fn plot(opts: &PlotOptions) -> Result<PathBuf, String> {
    let out = opts
        .out
        .clone()
        .unwrap_or_else(|| default_output(&opts.csv));
    let format = format_of(&out)?;
    crate::run::regular_file(&opts.csv, "results")?;
    if let (Ok(a), Ok(b)) = (
        std::fs::canonicalize(&out),
        std::fs::canonicalize(&opts.csv),
    ) {
        if a == b {
            return Err(format!(
                "refusing to write {}: it is the input results file",
                out.display()
            ));
        }
    }
    let table = read_table(&opts.csv)?;
    let cols = select(&table, &opts.columns, &opts.csv)?;
    register_font()?;
    let title = opts
        .csv
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Drawn in memory, then written: a bad output path gets a plain
    // file-system error.
    let bytes = match format {
        Format::Svg => {
            let mut svg = String::new();
            draw(
                &SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area(),
                &table,
                &cols,
                &title,
            )?;
            svg.into_bytes()
        }
        Format::Png => {
            let mut rgb = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
            draw(
                &BitMapBackend::with_buffer(&mut rgb, (WIDTH, HEIGHT)).into_drawing_area(),
                &table,
                &cols,
                &title,
            )?;
            encode_png(&rgb, WIDTH, HEIGHT)?
        }
    };
    crate::run::write_output(&out, &bytes)?;
    Ok(out)
}

/// 8-bit RGB pixels → PNG file bytes.
fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(rgb))
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            columns: vec![vec![0.0]; header.len()],
        }
    }

    #[test]
    fn selects_columns_and_requests() {
        let t = table(&["time", "request_1.x", "request_1.y", "request_12.x"]);
        let f = Path::new("r.csv");
        let s = |n: &[&str]| select(&t, &n.iter().map(|s| s.to_string()).collect::<Vec<_>>(), f);
        assert_eq!(s(&[]).unwrap(), [1, 2, 3]);
        assert_eq!(s(&["request_1"]).unwrap(), [1, 2]);
        assert_eq!(s(&["REQUEST_1.Y", "request_1"]).unwrap(), [2, 1]);
        assert_eq!(s(&["request_12"]).unwrap(), [3]);
        assert_eq!(
            s(&["request_2"]).unwrap_err(),
            "no column 'request_2' in r.csv; available: request_1.x, request_1.y, request_12.x"
        );
        assert!(s(&["time"]).unwrap_err().contains("horizontal axis"));
    }

    #[test]
    fn format_follows_the_extension() {
        assert_eq!(format_of(Path::new("a/b.SVG")).unwrap(), Format::Svg);
        assert_eq!(format_of(Path::new("b.png")).unwrap(), Format::Png);
        assert_eq!(
            format_of(Path::new("b.jpg")).unwrap_err(),
            "cannot tell the image format of b.jpg: the output file must end in .svg or .png"
        );
        assert!(format_of(Path::new("plot")).is_err());
    }

    #[test]
    fn ranges_and_runs_skip_non_finite_values() {
        let r = padded_range([1.0, f64::NAN, 3.0].into_iter(), true).unwrap();
        assert!(
            (r.0 - 0.9).abs() < 1e-12 && (r.1 - 3.1).abs() < 1e-12,
            "{r:?}"
        );
        assert_eq!(padded_range([2.0].into_iter(), true), Some((1.8, 2.2)));
        assert_eq!(padded_range([f64::NAN].into_iter(), true), None);
        let runs = finite_runs(&[0.0, 1.0, 2.0, 3.0], &[1.0, f64::INFINITY, 2.0, 3.0]);
        assert_eq!(runs, vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]);
    }

    #[test]
    fn malformed_tables_name_the_line() {
        let d = std::env::temp_dir().join(format!("mbsolve-plot-unit-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("bad.csv");
        std::fs::write(&f, "time,a\n0,1\n1,x\n").unwrap();
        assert_eq!(
            read_table(&f).unwrap_err(),
            format!("{}:3: column a: 'x' is not a number", f.display())
        );
        std::fs::write(&f, "time,a\n0,1,2\n").unwrap();
        assert_eq!(
            read_table(&f).unwrap_err(),
            format!("{}:2: 3 values, but the header has 2 columns", f.display())
        );
        std::fs::write(&f, "t,a\n0,1\n").unwrap();
        assert!(read_table(&f).unwrap_err().contains("not 'time'"));
        std::fs::write(&f, "time,a\n0,1\n1,NaN\n").unwrap();
        let t = read_table(&f).unwrap();
        assert_eq!(t.columns[0], [0.0, 1.0]);
        assert!(t.columns[1][1].is_nan());
        let _ = std::fs::remove_dir_all(&d);
    }
}
