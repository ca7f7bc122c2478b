//! Progress of simulated time on stderr for `mbsolve run`.
//!
//! Hand-rolled rather than indicatif: one line redrawn with `\r`, fed by
//! `Simulation::progress` with each output time — a few dozen lines, no
//! dependencies, and the line format is a pure function that is tested.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Whether and when the bar is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Show {
    Never,
    /// Once an analysis has run for a second (short runs stay silent).
    AfterASecond,
    /// From the first output time.
    Always,
}

impl Show {
    /// `--quiet` → never; otherwise `MBSOLVE_PROGRESS=always|never` if set,
    /// else after a second when stderr is a terminal.
    pub fn choose(quiet: bool) -> Show {
        let env = std::env::var("MBSOLVE_PROGRESS").ok();
        Show::decide(quiet, env.as_deref(), std::io::stderr().is_terminal())
    }

    /// The choice as a pure function of its inputs (tested without a
    /// terminal).
    pub fn decide(quiet: bool, env: Option<&str>, terminal: bool) -> Show {
        match (quiet, env) {
            (true, _) => Show::Never,
            (_, Some("always")) => Show::Always,
            (_, Some("never")) => Show::Never,
            _ if terminal => Show::AfterASecond,
            _ => Show::Never,
        }
    }
}

const BAR_CELLS: usize = 30;
/// Redraws are at most this often (the last output time always draws).
const REDRAW: Duration = Duration::from_millis(100);

/// `SIMULATE/DYNAMIC [#########.....]  30%  t = 0.75 / 2.5  (1.2 s, ~2.8 s left)`
pub fn line(label: &str, t0: f64, t: f64, end: f64, elapsed: f64) -> String {
    let span = end - t0;
    let f = if span > 0.0 {
        ((t - t0) / span).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let full = (f * BAR_CELLS as f64).floor() as usize;
    let bar: String = "#".repeat(full) + &".".repeat(BAR_CELLS - full);
    let left = if f > 0.0 && f < 1.0 {
        format!(", ~{:.1} s left", elapsed * (1.0 - f) / f)
    } else {
        String::new()
    };
    format!(
        "{label} [{bar}] {:>3.0}%  t = {} / {}  ({elapsed:.1} s{left})",
        100.0 * f,
        short(t),
        short(end)
    )
}

/// A time with at most 6 decimals and no trailing zeros; very large or
/// small magnitudes in exponent form.
fn short(t: f64) -> String {
    if t != 0.0 && !(1e-4..1e6).contains(&t.abs()) {
        return format!("{t:.3e}");
    }
    let s = format!("{t:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One analysis' bar; clears its line when dropped.
pub struct ProgressBar<W: Write> {
    out: W,
    label: String,
    t0: f64,
    end: f64,
    show: Show,
    started: Instant,
    last_draw: Option<Instant>,
}

impl<W: Write> ProgressBar<W> {
    pub fn new(out: W, show: Show, label: &str, t0: f64, end: f64) -> Self {
        ProgressBar {
            out,
            label: label.to_string(),
            t0,
            end,
            show,
            started: Instant::now(),
            last_draw: None,
        }
    }

    pub fn update(&mut self, t: f64) {
        self.update_at(t, Instant::now());
    }

    /// `update` on a given clock reading (tests use a fake clock).
    pub fn update_at(&mut self, t: f64, now: Instant) {
        let elapsed = now - self.started;
        let due = match self.show {
            Show::Never => false,
            Show::AfterASecond => elapsed >= Duration::from_secs(1),
            Show::Always => true,
        };
        let throttled = self.last_draw.is_some_and(|d| now - d < REDRAW) && t < self.end;
        if !due || throttled {
            return;
        }
        let text = line(&self.label, self.t0, t, self.end, elapsed.as_secs_f64());
        // Erase to the end of the line: the previous line may be longer.
        let _ = write!(self.out, "\r{text}\x1b[K");
        let _ = self.out.flush();
        self.last_draw = Some(now);
    }
}

impl<W: Write> Drop for ProgressBar<W> {
    fn drop(&mut self) {
        if self.last_draw.is_some() {
            let _ = write!(self.out, "\r\x1b[2K");
            let _ = self.out.flush();
        }
    }
}

/// A `Simulation::progress` hook drawing on stderr, or None when nothing
/// is to be shown.
pub fn hook(show: Show, label: &str, t0: f64, end: f64) -> Option<Box<dyn FnMut(f64) + Send>> {
    if show == Show::Never {
        return None;
    }
    let mut bar = ProgressBar::new(std::io::stderr(), show, label, t0, end);
    Some(Box::new(move |t| bar.update(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_format() {
        assert_eq!(
            line("SIMULATE/DYNAMIC", 0.0, 0.75, 2.5, 1.2),
            "SIMULATE/DYNAMIC [#########.....................]  30%  t = 0.75 / 2.5  (1.2 s, ~2.8 s left)"
        );
        // From a later start time, finished, and past the end.
        assert_eq!(
            line("SIMULATE/STATIC", 1.0, 3.0, 3.0, 12.34),
            "SIMULATE/STATIC [##############################] 100%  t = 3 / 3  (12.3 s)"
        );
        assert_eq!(
            line("X", 0.0, 1e9, 2e9, 0.0),
            "X [###############...............]  50%  t = 1.000e9 / 2.000e9  (0.0 s, ~0.0 s left)"
        );
        assert!(line("X", 0.0, 0.0, 1.0, 0.0)
            .contains("[..............................]   0%  t = 0 / 1"));
        assert!(line("X", 0.0, 2.5e-5, 1e-4, 0.0).contains("t = 2.500e-5 / 0.0001"));
    }

    fn drawn(show: Show, times: &[f64]) -> String {
        let mut buf = Vec::new();
        {
            let mut bar = ProgressBar::new(&mut buf, show, "S", 0.0, 1.0);
            for &t in times {
                bar.update(t);
            }
        }
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn draws_throttled_and_clears_when_done() {
        // The first time draws, the next ones within 100 ms do not, the
        // last output time does; dropping clears the line.
        let s = drawn(Show::Always, &[0.1, 0.2, 0.3, 1.0]);
        assert_eq!(s.matches('\r').count(), 3, "{s:?}");
        assert!(s.starts_with("\rS [###..."), "{s:?}");
        assert!(s.contains("\rS [##############################] 100%"));
        assert!(s.ends_with("\r\x1b[2K"));
        // Short runs and Never draw nothing, not even the clearing.
        assert_eq!(drawn(Show::AfterASecond, &[0.5, 1.0]), "");
        assert_eq!(drawn(Show::Never, &[0.5, 1.0]), "");
    }

    /// On a fake clock: AfterASecond stays silent before 1 s and draws
    /// from then on; the throttle lets one redraw through per 100 ms.
    #[test]
    fn after_a_second_on_a_fake_clock() {
        let mut buf = Vec::new();
        {
            let mut bar = ProgressBar::new(&mut buf, Show::AfterASecond, "S", 0.0, 1.0);
            let t0 = bar.started;
            let at = |ms: u64| t0 + Duration::from_millis(ms);
            bar.update_at(0.1, at(500));
            bar.update_at(0.2, at(999));
            assert!(bar.last_draw.is_none(), "drawn before a second");
            bar.update_at(0.3, at(1000));
            bar.update_at(0.4, at(1050));
            bar.update_at(0.5, at(1100));
            bar.update_at(1.0, at(1120));
        }
        let s = String::from_utf8(buf).unwrap();
        // 0.3 (first due), 0.5 (100 ms later), 1.0 (the end), then cleared.
        assert_eq!(s.matches('\r').count(), 4, "{s:?}");
        assert!(s.contains("t = 0.3 / 1  (1.0 s"), "{s:?}");
        assert!(!s.contains("t = 0.4 /"), "{s:?}");
        assert!(s.contains("t = 0.5 / 1  (1.1 s"), "{s:?}");
        assert!(s.ends_with("\r\x1b[2K"), "{s:?}");
    }

    #[test]
    fn show_follows_quiet_env_and_terminal() {
        use Show::*;
        assert_eq!(Show::decide(true, Some("always"), true), Never);
        assert_eq!(Show::decide(false, Some("always"), false), Always);
        assert_eq!(Show::decide(false, Some("never"), true), Never);
        assert_eq!(Show::decide(false, None, true), AfterASecond);
        assert_eq!(Show::decide(false, None, false), Never);
        assert_eq!(Show::decide(false, Some("sometimes"), false), Never);
    }
}
