//! Hand-written SVG plots: performance profiles, execute times on a log scale, a failure heatmap, and the
//! convergence curves of streamed attempts.
//!
//! Each plot is one `<svg>` element with a `<title>` and `<desc>`, labelled axes with units, and one
//! `<g class="series" data-series="NAME">` per series, so that it reads without colour (each series has its own
//! marker shape and dash pattern, and the heatmap prints its counts) and a test can find its series. Colours are
//! the Okabe–Ito palette, distinguishable with the common colour-vision deficiencies; the heatmap's sequential
//! scale only darkens. Coordinates are written with one decimal, so the same data give the same bytes.

use std::fmt::Write;

use crate::curves::MetricCurves;
use crate::profile::Profile;
use crate::report::{CellRow, ProblemSection};
use crate::stats::quantile;

/// Okabe and Ito's palette, yellow last (it is faint on white).
pub const PALETTE: [&str; 8] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

/// Dash patterns, one per series after the palette's colours.
const DASHES: [&str; 6] = ["", "7 3", "2 3", "9 3 2 3", "4 2 1 2 1 2", "12 5"];

/// At most this many markers per row of a strip plot; larger samples are shown by evenly spaced order statistics.
pub const MAX_POINTS_PER_ROW: usize = 200;

/// Text escaped for XML and HTML (content and attribute values).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The colour of series `index`.
pub fn colour(index: usize) -> &'static str {
    PALETTE[index % PALETTE.len()]
}

fn dash(index: usize) -> &'static str {
    DASHES[index % DASHES.len()]
}

/// Marker `index`'s shape centred at (x, y): circle, square, triangle, diamond, plus, cross, down-triangle, star.
fn marker(out: &mut String, index: usize, x: f64, y: f64, fill: &str) {
    let r = 4.0;
    let stroke = format!(r#"stroke="{fill}" stroke-width="1.5""#);
    let _ = match index % 8 {
        0 => write!(out, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{fill}"/>"#),
        1 => write!(out, r#"<rect x="{:.1}" y="{:.1}" width="7.0" height="7.0" fill="{fill}"/>"#, x - 3.5, y - 3.5),
        2 => write!(
            out,
            r#"<path d="M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="{fill}"/>"#,
            y - r,
            x + r,
            y + r * 0.8,
            x - r,
            y + r * 0.8
        ),
        3 => write!(
            out,
            r#"<path d="M{x:.1} {:.1}L{:.1} {y:.1}L{x:.1} {:.1}L{:.1} {y:.1}Z" fill="{fill}"/>"#,
            y - r - 0.5,
            x + r,
            y + r + 0.5,
            x - r
        ),
        4 => write!(
            out,
            r#"<path d="M{:.1} {y:.1}H{:.1}M{x:.1} {:.1}V{:.1}" fill="none" {stroke}/>"#,
            x - r,
            x + r,
            y - r,
            y + r
        ),
        5 => write!(
            out,
            r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" fill="none" {stroke}/>"#,
            x - r,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r,
            x + r,
            y - r
        ),
        6 => write!(
            out,
            r#"<path d="M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="{fill}"/>"#,
            y + r,
            x + r,
            y - r * 0.8,
            x - r,
            y - r * 0.8
        ),
        _ => write!(
            out,
            r#"<path d="M{:.1} {y:.1}H{:.1}M{x:.1} {:.1}V{:.1}M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" fill="none" {stroke}/>"#,
            x - r,
            x + r,
            y - r,
            y + r,
            x - 3.0,
            y - 3.0,
            x + 3.0,
            y + 3.0,
            x - 3.0,
            y + 3.0,
            x + 3.0,
            y - 3.0
        ),
    };
}

fn open(out: &mut String, width: f64, height: f64, id: &str, title: &str, desc: &str) {
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-labelledby="{id}-title {id}-desc" font-family="sans-serif" font-size="12"><title id="{id}-title">{}</title><desc id="{id}-desc">{}</desc><rect width="100%" height="100%" fill="#ffffff"/>"##,
        escape(title),
        escape(desc)
    );
}

fn text(out: &mut String, x: f64, y: f64, anchor: &str, extra: &str, content: &str) {
    let _ = write!(out, r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}"{extra}>{}</text>"#, escape(content));
}

/// The room labels of `chars` characters need at the 12 px font (about 7 px a character, and a gap), at least
/// `least` and at most 560 px.
fn label_room(chars: usize, least: f64) -> f64 {
    (16.0 + 7.0 * chars as f64).clamp(least, 560.0)
}

/// A legend entry: a line sample with its dash and marker, and the name.
fn legend_entry(out: &mut String, index: usize, x: f64, y: f64, name: &str, line: bool) {
    let c = colour(index);
    if line {
        let _ = write!(
            out,
            r#"<path d="M{x:.1} {y:.1}h28" stroke="{c}" stroke-width="2" fill="none" stroke-dasharray="{}"/>"#,
            dash(index)
        );
    }
    marker(out, index, x + 14.0, y, c);
    text(out, x + 34.0, y + 4.0, "start", "", name);
}

/// The performance profile of one problem: ρ(τ) against τ on a log₂ axis.
pub fn profile(id: &str, section: &ProblemSection) -> String {
    let profile: &Profile = &section.profile;
    // The legend's room follows its longest name (rows split by program or worker have long ones), so no name is
    // cut off; the plot keeps its width.
    let longest = profile.series.iter().map(|series| series.implementation.chars().count()).max().unwrap_or(0);
    let right = label_room(longest, 200.0) + 24.0;
    let (left, top, bottom) = (64.0, 34.0, 56.0);
    let width = 520.0 + right;
    let height = 380.0;
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let max_log = profile.max_ratio().log2().max(1.0) * 1.05;
    let x_of = |tau: f64| left + tau.log2() / max_log * plot_w;
    // A curve at ρ = 1 or ρ = 0 would lie on the frame and vanish: the scale stops a little inside it.
    let y_of = |rho: f64| top + (0.03 + 0.94 * (1.0 - rho)) * plot_h;
    let mut out = String::new();
    open(
        &mut out,
        width,
        height,
        id,
        &format!("Performance profiles of problem {}", section.problem),
        &format!(
            "For each implementation, the fraction of the {} instances (dataset and seed) on which its median ranked \
             time to reached is within a factor tau of the best implementation's; not reached and failures count as \
             infinite.",
            profile.instances
        ),
    );
    text(&mut out, left, 20.0, "start", r#" font-weight="bold""#, &format!("Performance profile: {}", section.problem));
    // Axes, grid and ticks.
    let _ = write!(
        out,
        r##"<g class="axes" stroke="#444" fill="none"><path d="M{left:.1} {top:.1}V{:.1}H{:.1}"/></g>"##,
        top + plot_h,
        left + plot_w
    );
    let mut power = 0;
    while f64::from(power) <= max_log {
        let tau = 2f64.powi(power);
        let x = x_of(tau);
        let _ = write!(
            out,
            r##"<path d="M{x:.1} {top:.1}V{:.1}" stroke="#ddd"/><path d="M{x:.1} {:.1}v5" stroke="#444"/>"##,
            top + plot_h,
            top + plot_h
        );
        text(&mut out, x, top + plot_h + 18.0, "middle", "", &format!("{tau}"));
        power += 1;
    }
    for step in 0..=4 {
        let rho = f64::from(step) / 4.0;
        let y = y_of(rho);
        let _ = write!(
            out,
            r##"<path d="M{left:.1} {y:.1}H{:.1}" stroke="#ddd"/><path d="M{:.1} {y:.1}h5" stroke="#444"/>"##,
            left + plot_w,
            left - 5.0
        );
        text(&mut out, left - 8.0, y + 4.0, "end", "", &format!("{rho:.2}"));
    }
    text(
        &mut out,
        left + plot_w / 2.0,
        height - 14.0,
        "middle",
        "",
        "performance ratio τ = time / best time (log₂ scale)",
    );
    text(
        &mut out,
        16.0,
        top + plot_h / 2.0,
        "middle",
        &format!(r#" transform="rotate(-90 16 {:.1})""#, top + plot_h / 2.0),
        "fraction of instances ρ(τ)",
    );
    for (index, series) in profile.series.iter().enumerate() {
        let c = colour(index);
        let _ = write!(out, r#"<g class="series" data-series="{}">"#, escape(&series.implementation));
        let steps = series.steps();
        let mut d = format!("M{:.1} {:.1}", x_of(1.0), y_of(series.rho(1.0)));
        for (tau, rho) in &steps {
            if *tau > 1.0 {
                let _ = write!(d, "H{:.1}V{:.1}", x_of(*tau), y_of(*rho));
            }
        }
        let _ = write!(d, "H{:.1}", left + plot_w);
        let _ = write!(
            out,
            r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="2" stroke-dasharray="{}"/>"#,
            dash(index)
        );
        for (tau, rho) in &steps {
            marker(&mut out, index, x_of(*tau), y_of(*rho), c);
        }
        out.push_str("</g>");
        legend_entry(
            &mut out,
            index,
            left + plot_w + 16.0,
            top + 10.0 + 20.0 * index as f64,
            &series.implementation,
            true,
        );
    }
    out.push_str("</svg>");
    out
}

/// A horizontal log₁₀ axis of seconds over whole decades: the decades around the positive values it shows (1 ms to
/// 1 s without any), at least one, from `start` over `length` pixels.
struct SecondsAxis {
    low: f64,
    high: f64,
    start: f64,
    length: f64,
}

impl SecondsAxis {
    fn spanning(values: impl Iterator<Item = f64>, start: f64, length: f64) -> SecondsAxis {
        let (low, high) = values
            .filter(|value| *value > 0.0)
            .fold((f64::INFINITY, 0.0_f64), |(low, high), value| (low.min(value), high.max(value)));
        let (low, high) = if low.is_finite() { (low, high.max(low)) } else { (1e-3, 1.0) };
        let (axis_low, axis_high) = (10f64.powf(low.log10().floor()), 10f64.powf(high.log10().ceil()).max(low * 10.0));
        SecondsAxis { low: axis_low, high: axis_high, start, length }
    }

    /// Where `seconds` lies (values below the axis at its start).
    fn position(&self, seconds: f64) -> f64 {
        let span = (self.high / self.low).log10();
        self.start + (seconds.max(self.low).log10() - self.low.log10()) / span * self.length
    }

    /// The plot's frame (its left and bottom edges, from `top` to `bottom`), and the axis's ticks, grid lines and
    /// labels along the bottom.
    fn draw(&self, out: &mut String, top: f64, bottom: f64) {
        let (left, right) = (self.start, self.start + self.length);
        let _ = write!(
            out,
            r##"<g class="axes" stroke="#444" fill="none"><path d="M{left:.1} {top:.1}V{bottom:.1}H{right:.1}"/></g>"##
        );
        for (value, label) in log_ticks(self.low, self.high) {
            if value < self.low * 0.999 || value > self.high * 1.001 {
                continue;
            }
            let x = self.position(value);
            let _ = write!(
                out,
                r##"<path d="M{x:.1} {top:.1}V{bottom:.1}" stroke="#ddd"/><path d="M{x:.1} {bottom:.1}v5" stroke="#444"/>"##
            );
            text(out, x, bottom + 18.0, "middle", "", &label);
        }
    }
}

/// Tick values (powers of ten) spanning [low, high] seconds, and their labels with units.
fn log_ticks(low: f64, high: f64) -> Vec<(f64, String)> {
    let mut ticks = Vec::new();
    let mut exponent = low.log10().floor() as i32;
    while f64::from(exponent) <= high.log10().ceil() {
        let value = 10f64.powi(exponent);
        ticks.push((value, seconds_label(exponent)));
        exponent += 1;
    }
    ticks
}

/// `10^exponent` seconds, written with an SI unit.
fn seconds_label(exponent: i32) -> String {
    let (unit, base) = match exponent {
        e if e < -6 => ("ns", -9),
        e if e < -3 => ("µs", -6),
        e if e < 0 => ("ms", -3),
        _ => ("s", 0),
    };
    format!("{} {unit}", 10u64.pow((exponent - base).clamp(0, 12) as u32))
}

/// Execute time of each implementation on each dataset: one row per cell, a marker per attempt (at most
/// [`MAX_POINTS_PER_ROW`]), the box from the first to the third quartile and the median as a bar, on a log₁₀ axis.
pub fn execute_times(id: &str, section: &ProblemSection) -> String {
    let rows: Vec<&CellRow> = section.rows.iter().filter(|row| !row.times.is_empty()).collect();
    // Row labels are `implementation / dataset`: the left margin follows the longest, so none is cut off.
    let longest = rows.iter().map(|row| row.implementation.chars().count() + 3 + row.dataset.chars().count()).max();
    let left = label_room(longest.unwrap_or(0), 220.0);
    let (right, top, bottom, row_h) = (24.0, 34.0, 52.0, 24.0);
    let width = left + 476.0 + right;
    let height = top + bottom + row_h * rows.len().max(1) as f64;
    let plot_w = width - left - right;
    let axis = SecondsAxis::spanning(rows.iter().flat_map(|row| row.times.iter().copied()), left, plot_w);
    let x_of = |seconds: f64| axis.position(seconds);
    let mut out = String::new();
    open(
        &mut out,
        width,
        height,
        id,
        &format!("{} time per implementation and dataset, problem {}", section.timed, section.problem),
        "Each marker is one attempt with a verdict (at most 200 per row, evenly spaced by rank); the black box spans \
         the first to the third quartile and the black bar inside it is the median. The axis is logarithmic.",
    );
    text(
        &mut out,
        left,
        20.0,
        "start",
        r#" font-weight="bold""#,
        &format!("{} time: {}", section.timed, section.problem),
    );
    let bottom_y = top + row_h * rows.len().max(1) as f64;
    axis.draw(&mut out, top, bottom_y);
    text(
        &mut out,
        left + plot_w / 2.0,
        height - 12.0,
        "middle",
        "",
        &format!("{} time (seconds, log₁₀ scale)", section.timed),
    );
    for (position, row) in rows.iter().enumerate() {
        let index = section.implementations.iter().position(|name| *name == row.implementation).unwrap_or(0);
        let c = colour(index);
        let y = top + row_h * (position as f64 + 0.5);
        let name = format!("{} / {}", row.implementation, row.dataset);
        let _ = write!(out, r#"<g class="series" data-series="{}">"#, escape(&name));
        text(&mut out, left - 8.0, y + 4.0, "end", "", &name);
        // Markers a little transparent, so that dense rows show their density yet each stays readable; the box and
        // median drawn over them.
        out.push_str(r#"<g fill-opacity="0.7" stroke-opacity="0.9">"#);
        let shown = MAX_POINTS_PER_ROW.min(row.times.len());
        for point in 0..shown {
            let value = if row.times.len() <= MAX_POINTS_PER_ROW {
                row.times[point]
            } else {
                quantile(&row.times, point as f64 / (shown - 1) as f64).unwrap_or(0.0)
            };
            // A fixed vertical spread keeps equal times apart without randomness.
            let jitter = ((point % 7) as f64 - 3.0) * 1.6;
            marker(&mut out, index, x_of(value), y + jitter, c);
        }
        out.push_str("</g>");
        if let Some(summary) = &row.timed_seconds {
            let (x1, x3, xm) = (x_of(summary.q1), x_of(summary.q3), x_of(summary.median));
            let _ = write!(
                out,
                r##"<rect x="{x1:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#000000" stroke-width="1.2"/><path d="M{xm:.1} {:.1}V{:.1}" stroke="#000000" stroke-width="3"/>"##,
                y - 8.0,
                (x3 - x1).max(0.5),
                16.0,
                y - 9.0,
                y + 9.0
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

/// The share of failed attempts of each implementation (rows) on each dataset (columns): darker is more, and each
/// cell prints `failed/attempts` so the plot reads without colour.
pub fn failure_heatmap(id: &str, section: &ProblemSection) -> String {
    let longest = section.implementations.iter().map(|name| name.chars().count()).max().unwrap_or(0);
    let (left, top, cell_w, cell_h) = (label_room(longest, 200.0), 64.0, 96.0, 30.0);
    let width = left + cell_w * section.datasets.len().max(1) as f64 + 150.0;
    let height = top + cell_h * section.implementations.len().max(1) as f64 + 40.0;
    let mut out = String::new();
    open(
        &mut out,
        width,
        height,
        id,
        &format!("Failed attempts per implementation and dataset, problem {}", section.problem),
        "Each cell prints failed attempts over attempts with a terminal record; its shade darkens with the share \
         failed, from white (none) to dark orange (all). A dash marks a cell without records.",
    );
    text(&mut out, left, 20.0, "start", r#" font-weight="bold""#, &format!("Failures: {}", section.problem));
    text(&mut out, left + cell_w * section.datasets.len() as f64 / 2.0, 40.0, "middle", "", "dataset");
    text(&mut out, 14.0, top - 8.0, "start", "", "implementation");
    for (column, dataset) in section.datasets.iter().enumerate() {
        text(&mut out, left + cell_w * (column as f64 + 0.5), top - 8.0, "middle", "", dataset);
    }
    for (row_index, implementation) in section.implementations.iter().enumerate() {
        let y = top + cell_h * row_index as f64;
        let _ = write!(out, r#"<g class="series" data-series="{}">"#, escape(implementation));
        text(&mut out, left - 8.0, y + cell_h / 2.0 + 4.0, "end", "", implementation);
        for (column, dataset) in section.datasets.iter().enumerate() {
            let x = left + cell_w * column as f64;
            let row = section.rows.iter().find(|row| row.implementation == *implementation && row.dataset == *dataset);
            let (fill, label, dark) = match row {
                Some(row) if row.attempts > 0 => {
                    let share = row.failed as f64 / row.attempts as f64;
                    (shade(share), format!("{}/{}", row.failed, row.attempts), share > 0.55)
                }
                _ => ("#ffffff".to_owned(), "–".to_owned(), false),
            };
            let _ = write!(
                out,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{cell_w:.1}" height="{cell_h:.1}" fill="{fill}" stroke="#888"/>"##
            );
            let ink = if dark { r##" fill="#ffffff""## } else { r##" fill="#000000""## };
            text(&mut out, x + cell_w / 2.0, y + cell_h / 2.0 + 4.0, "middle", ink, &label);
        }
        out.push_str("</g>");
    }
    // The scale.
    let legend_x = left + cell_w * section.datasets.len() as f64 + 24.0;
    text(&mut out, legend_x, top - 8.0, "start", "", "share failed");
    for step in 0..=4 {
        let share = f64::from(step) / 4.0;
        let y = top + 18.0 * f64::from(step);
        let _ = write!(
            out,
            r##"<rect x="{legend_x:.1}" y="{y:.1}" width="16" height="14" fill="{}" stroke="#888"/>"##,
            shade(share)
        );
        text(&mut out, legend_x + 22.0, y + 11.0, "start", "", &format!("{:.0}%", share * 100.0));
    }
    out.push_str("</svg>");
    out
}

/// White to dark orange (ColorBrewer's Oranges ends, safe for colour-blind readers and monotone in lightness).
fn shade(share: f64) -> String {
    let (from, to) = ([0xff_u8, 0xf5, 0xeb], [0xa6_u8, 0x36, 0x03]);
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * share.clamp(0.0, 1.0)).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(from[0], to[0]), mix(from[1], to[1]), mix(from[2], to[2]))
}

/// A metric's convergence curves on one problem: the metric against the executor's time to each checkpoint, a line
/// through each series' medians with a marker per checkpoint and its interquartile band, on a log₁₀ time axis (and
/// a log₁₀ metric axis when every value is positive and they span more than two decades).
pub fn curves(id: &str, problem: &str, curves: &MetricCurves) -> String {
    let names: Vec<String> =
        curves.series.iter().map(|series| format!("{} / {}", series.implementation, series.dataset)).collect();
    let longest = names.iter().map(|name| name.chars().count()).max().unwrap_or(0);
    let right = label_room(longest, 200.0) + 24.0;
    let (left, top, bottom) = (78.0, 34.0, 56.0);
    let width = 520.0 + right;
    let height = 380.0;
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let points = || curves.series.iter().flat_map(|series| series.points.iter());
    let axis = SecondsAxis::spanning(points().map(|point| point.seconds), left, plot_w);
    let x_of = |seconds: f64| axis.position(seconds);
    let low_v = points().flat_map(|point| [point.q1, point.median]).fold(f64::INFINITY, f64::min);
    let high_v = points().flat_map(|point| [point.q3, point.median]).fold(f64::NEG_INFINITY, f64::max);
    let (low_v, high_v) = if low_v.is_finite() { (low_v, high_v) } else { (0.0, 1.0) };
    let logarithmic = low_v > 0.0 && high_v / low_v > 100.0;
    let step = nice_step(if high_v > low_v { high_v - low_v } else { low_v.abs().max(1.0) });
    let (v_low, v_high) = if logarithmic {
        (10f64.powf(low_v.log10().floor()), 10f64.powf(high_v.log10().ceil()))
    } else if high_v > low_v {
        ((low_v / step).floor() * step, (high_v / step).ceil() * step)
    } else {
        (low_v - step, high_v + step)
    };
    let y_of = |value: f64| {
        let share = if logarithmic {
            (value.max(v_low).log10() - v_low.log10()) / (v_high / v_low).log10()
        } else {
            (value - v_low) / (v_high - v_low)
        };
        top + (1.0 - share) * plot_h
    };
    let mut out = String::new();
    open(
        &mut out,
        width,
        height,
        id,
        &format!("{} against time, problem {problem}", curves.metric),
        &format!(
            "For each implementation and dataset that streamed checkpoints, the metric {} of each checkpoint against \
             the executor's time to it: the line joins the medians over the attempts (every dataset seed and \
             repetition), a marker per checkpoint, and the shaded band spans the first to the third quartile. The \
             time axis is logarithmic{}.",
            curves.metric,
            if logarithmic { ", and so is the metric axis" } else { "" }
        ),
    );
    text(&mut out, left, 20.0, "start", r#" font-weight="bold""#, &format!("{}: {problem}", curves.metric));
    let bottom_y = top + plot_h;
    axis.draw(&mut out, top, bottom_y);
    let ticks: Vec<f64> = if logarithmic {
        let (first, last) = (v_low.log10().round() as i32, v_high.log10().round() as i32);
        let step = ((last - first) / 6).max(1);
        (first..=last).step_by(step as usize).map(|exponent| 10f64.powi(exponent)).collect()
    } else {
        let count = ((v_high - v_low) / step).round() as i32;
        (0..=count).map(|index| v_low + step * f64::from(index)).collect()
    };
    for value in ticks {
        let y = y_of(value);
        let _ = write!(
            out,
            r##"<path d="M{left:.1} {y:.1}H{:.1}" stroke="#ddd"/><path d="M{:.1} {y:.1}h5" stroke="#444"/>"##,
            left + plot_w,
            left - 5.0
        );
        text(&mut out, left - 8.0, y + 4.0, "end", "", &value_label(value, logarithmic, step));
    }
    text(&mut out, left + plot_w / 2.0, height - 14.0, "middle", "", "time to checkpoint (seconds, log₁₀ scale)");
    let y_label = if logarithmic { format!("{} (log₁₀ scale)", curves.metric) } else { curves.metric.clone() };
    text(
        &mut out,
        16.0,
        top + plot_h / 2.0,
        "middle",
        &format!(r#" transform="rotate(-90 16 {:.1})""#, top + plot_h / 2.0),
        &y_label,
    );
    for (index, (series, name)) in curves.series.iter().zip(&names).enumerate() {
        let c = colour(index);
        let _ = write!(out, r#"<g class="series" data-series="{}">"#, escape(name));
        let mut band = String::new();
        for (position, point) in series.points.iter().enumerate() {
            let command = if position == 0 { 'M' } else { 'L' };
            let _ = write!(band, "{command}{:.1} {:.1}", x_of(point.seconds), y_of(point.q3));
        }
        for point in series.points.iter().rev() {
            let _ = write!(band, "L{:.1} {:.1}", x_of(point.seconds), y_of(point.q1));
        }
        let _ = write!(out, r#"<path d="{band}Z" fill="{c}" fill-opacity="0.15" stroke="none"/>"#);
        let mut line = String::new();
        for (position, point) in series.points.iter().enumerate() {
            let command = if position == 0 { 'M' } else { 'L' };
            let _ = write!(line, "{command}{:.1} {:.1}", x_of(point.seconds), y_of(point.median));
        }
        let _ = write!(
            out,
            r#"<path d="{line}" fill="none" stroke="{c}" stroke-width="2" stroke-dasharray="{}"/>"#,
            dash(index)
        );
        for point in &series.points {
            marker(&mut out, index, x_of(point.seconds), y_of(point.median), c);
        }
        out.push_str("</g>");
        legend_entry(&mut out, index, left + plot_w + 16.0, top + 10.0 + 20.0 * index as f64, name, true);
    }
    out.push_str("</svg>");
    out
}

/// A round step (1, 2 or 5 times a power of ten) that cuts `range` into at most five parts.
fn nice_step(range: f64) -> f64 {
    let raw = range / 5.0;
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|factor| factor * power).find(|step| *step >= raw).unwrap_or(10.0 * power)
}

/// A metric axis's tick label: a power of ten as `1e-6` (or plainly from 0.001 to 1000); a linear tick with as many
/// decimals as its axis's `step` needs.
fn value_label(value: f64, logarithmic: bool, step: f64) -> String {
    if logarithmic {
        let exponent = value.log10().round() as i32;
        return if (-3..=3).contains(&exponent) { format!("{value}") } else { format!("1e{exponent}") };
    }
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let text = format!("{value:.decimals$}");
    // No "-0" for a tick at zero.
    if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
        text.trim_start_matches('-').to_owned()
    } else {
        text
    }
}
