//! Hand-written SVG plots: performance profiles, execute times on a log scale, a failure heatmap, and the
//! convergence curves of streamed attempts. Every plot is drawn in the one plot frame of `frame.rs` (the `<svg>`
//! element, the heading, the axes with their ticks, grid lines, labels and scales, the legend) and supplies only its
//! series.
//!
//! Each plot is one `<svg>` element with a `<title>` and `<desc>`, labelled axes with units, and one
//! `<g class="series" data-series="NAME">` per series, so that it reads without colour (each series has its own
//! marker shape and dash pattern, and the heatmap prints its counts) and a test can find its series. Colours are
//! the Okabe–Ito palette, distinguishable with the common colour-vision deficiencies; the heatmap's sequential
//! scale only darkens. Coordinates are written with one decimal, so the same data give the same bytes.

use std::fmt::Write;

mod curves;
mod frame;
mod scaling;

pub use curves::{curves, legend, suboptimality_label};
pub use frame::value_label;
pub use scaling::scaling;

use crate::measure::Measure;
use crate::profile::Profile;
use crate::report::{CellRow, ProblemSection};
use crate::stats::quantile;
use frame::{Axis, Captions, Frame, Layout};

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

fn text(out: &mut String, x: f64, y: f64, anchor: &str, extra: &str, content: &str) {
    let _ = write!(out, r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}"{extra}>{}</text>"#, escape(content));
}

/// The room labels of `chars` characters need at the 12 px font (about 7 px a character, and a gap), at least
/// `least` and at most 560 px.
fn label_room(chars: usize, least: f64) -> f64 {
    (16.0 + 7.0 * chars as f64).clamp(least, 560.0)
}

/// A path through `points` (`M` to the first, `L` to each next), appended to `d`.
fn polyline(d: &mut String, points: impl Iterator<Item = (f64, f64)>) {
    for (position, (x, y)) in points.enumerate() {
        let command = if position == 0 { 'M' } else { 'L' };
        let _ = write!(d, "{command}{x:.1} {y:.1}");
    }
}

/// The line of series `index`: its colour, width and dash pattern.
fn line(out: &mut String, index: usize, d: &str) {
    let _ = write!(
        out,
        r#"<path d="{d}" fill="none" stroke="{}" stroke-width="2" stroke-dasharray="{}"/>"#,
        colour(index),
        dash(index)
    );
}

/// The performance profile of one problem: ρ(τ) against τ on a log₂ axis.
pub fn profile(id: &str, section: &ProblemSection) -> String {
    let profile: &Profile = &section.profile;
    let layout = Layout::beside_legend(profile.series.iter().map(|series| series.implementation.chars().count()), 64.0);
    let mut frame = Frame::new(layout)
        .x_axis(Axis::ratios(profile.max_ratio(), "performance ratio τ = time / best time (log₂ scale)"))
        .y_axis(Axis::shares("fraction of instances ρ(τ)"))
        .legend()
        .open(&Captions {
            id,
            title: &format!("Performance profiles of problem {}", section.problem),
            desc: &format!(
                "For each implementation, the fraction of the {} instances (dataset and seed) on which its median \
                 ranked time to reached is within a factor tau of the best implementation's; not reached and failures \
                 count as infinite.",
                profile.instances
            ),
            heading: &format!("Performance profile: {}", section.problem),
        });
    let place = frame.place();
    for (index, series) in profile.series.iter().enumerate() {
        frame.series(&series.implementation, index, |out| {
            let steps = series.steps();
            let mut d = format!("M{:.1} {:.1}", place.x(1.0), place.y(series.rho(1.0)));
            for (tau, rho) in steps.iter().filter(|(tau, _)| *tau > 1.0) {
                let _ = write!(d, "H{:.1}V{:.1}", place.x(*tau), place.y(*rho));
            }
            let _ = write!(d, "H{:.1}", layout.left + layout.plot_w);
            line(out, index, &d);
            for (tau, rho) in &steps {
                marker(out, index, place.x(*tau), place.y(*rho), colour(index));
            }
        });
    }
    frame.close()
}

/// Execute time of each implementation on each dataset: one row per cell, a marker per attempt (at most
/// [`MAX_POINTS_PER_ROW`]), the box from the first to the third quartile and the median as a bar, on a log₁₀ axis.
pub fn execute_times(id: &str, section: &ProblemSection) -> String {
    let rows: Vec<&CellRow> = section.rows.iter().filter(|row| !row.times.is_empty()).collect();
    // Row labels are `implementation / dataset`: the left margin follows the longest, so none is cut off.
    let longest = rows.iter().map(|row| row.implementation.chars().count() + 3 + row.dataset.chars().count()).max();
    let left = label_room(longest.unwrap_or(0), 220.0);
    let (right, top, bottom, row_h) = (24.0, 34.0, 52.0, 24.0);
    let (width, height) = (left + 476.0 + right, top + bottom + row_h * rows.len().max(1) as f64);
    let layout = Layout {
        width,
        height,
        left,
        top,
        plot_w: width - left - right,
        plot_h: height - top - bottom,
        x_label: height - 12.0,
    };
    // What is plotted: the ranked time, or the measure ranked instead (`--measure`); sizes on a scale of their own.
    let measured = section.measure.column(&section.timed);
    let values = || rows.iter().flat_map(|row| row.times.iter().copied());
    let axis = match section.measure {
        Measure::Memory => {
            let (low, high) = values().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
            Axis::values(low, high, &format!("{measured} (bytes)"))
        }
        Measure::Wall | Measure::Cpu => Axis::seconds(values(), &format!("{measured} (seconds, log₁₀ scale)")),
    };
    let mut frame = Frame::new(layout).x_axis(axis).open(&Captions {
        id,
        title: &format!("{measured} per implementation and dataset, problem {}", section.problem),
        desc: "Each marker is one attempt with a verdict (at most 200 per row, evenly spaced by rank); the black box \
               spans the first to the third quartile and the black bar inside it is the median. The axis is \
               logarithmic.",
        heading: &format!("{measured}: {}", section.problem),
    });
    let place = frame.place();
    for (position, row) in rows.iter().enumerate() {
        let index = section.implementations.iter().position(|name| *name == row.implementation).unwrap_or(0);
        let y = top + row_h * (position as f64 + 0.5);
        let name = format!("{} / {}", row.implementation, row.dataset);
        frame.series(&name, index, |out| {
            text(out, left - 8.0, y + 4.0, "end", "", &name);
            // Markers a little transparent, so that dense rows show their density yet each stays readable; the box
            // and median drawn over them.
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
                marker(out, index, place.x(value), y + jitter, colour(index));
            }
            out.push_str("</g>");
            if let Some(summary) = &row.timed_seconds {
                let (x1, x3, xm) = (place.x(summary.q1), place.x(summary.q3), place.x(summary.median));
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
        });
    }
    frame.close()
}

/// The share of failed attempts of each implementation (rows) on each dataset (columns): darker is more, and each
/// cell prints `failed/attempts` so the plot reads without colour. Its frame has no axes: the datasets head the
/// columns, the implementations the rows, and a scale of shades stands to the right.
pub fn failure_heatmap(id: &str, section: &ProblemSection) -> String {
    let longest = section.implementations.iter().map(|name| name.chars().count()).max().unwrap_or(0);
    let (left, top, cell_w, cell_h) = (label_room(longest, 200.0), 64.0, 96.0, 30.0);
    let (plot_w, plot_h) =
        (cell_w * section.datasets.len().max(1) as f64, cell_h * section.implementations.len().max(1) as f64);
    let (width, height) = (left + plot_w + 150.0, top + plot_h + 40.0);
    let mut frame = Frame::new(Layout { width, height, left, top, plot_w, plot_h, x_label: height }).open(&Captions {
        id,
        title: &format!("Failed attempts per implementation and dataset, problem {}", section.problem),
        desc: "Each cell prints failed attempts over attempts with a terminal record; its shade darkens with the \
               share failed, from white (none) to dark orange (all). A dash marks a cell without records.",
        heading: &format!("Failures: {}", section.problem),
    });
    let canvas = frame.canvas();
    text(canvas, left + cell_w * section.datasets.len() as f64 / 2.0, 40.0, "middle", "", "dataset");
    text(canvas, 14.0, top - 8.0, "start", "", "implementation");
    for (column, dataset) in section.datasets.iter().enumerate() {
        text(canvas, left + cell_w * (column as f64 + 0.5), top - 8.0, "middle", "", dataset);
    }
    for (row_index, implementation) in section.implementations.iter().enumerate() {
        let y = top + cell_h * row_index as f64;
        frame.series(implementation, row_index, |out| {
            text(out, left - 8.0, y + cell_h / 2.0 + 4.0, "end", "", implementation);
            for (column, dataset) in section.datasets.iter().enumerate() {
                let x = left + cell_w * column as f64;
                let row =
                    section.rows.iter().find(|row| row.implementation == *implementation && row.dataset == *dataset);
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
                text(out, x + cell_w / 2.0, y + cell_h / 2.0 + 4.0, "middle", ink, &label);
            }
        });
    }
    // The scale.
    let canvas = frame.canvas();
    let legend_x = left + cell_w * section.datasets.len() as f64 + 24.0;
    text(canvas, legend_x, top - 8.0, "start", "", "share failed");
    for step in 0..=4 {
        let share = f64::from(step) / 4.0;
        let y = top + 18.0 * f64::from(step);
        let _ = write!(
            canvas,
            r##"<rect x="{legend_x:.1}" y="{y:.1}" width="16" height="14" fill="{}" stroke="#888"/>"##,
            shade(share)
        );
        text(canvas, legend_x + 22.0, y + 11.0, "start", "", &format!("{:.0}%", share * 100.0));
    }
    frame.close()
}

/// White to dark orange (ColorBrewer's Oranges ends, safe for colour-blind readers and monotone in lightness).
fn shade(share: f64) -> String {
    let (from, to) = ([0xff_u8, 0xf5, 0xeb], [0xa6_u8, 0x36, 0x03]);
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * share.clamp(0.0, 1.0)).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(from[0], to[0]), mix(from[1], to[1]), mix(from[2], to[2]))
}
