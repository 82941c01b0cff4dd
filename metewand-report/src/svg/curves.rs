//! Convergence curves as small multiples: one panel per dataset for a metric, each its own `<svg>` in the plot
//! frame (the metric's suboptimality against time, both on log scales where they apply), with the problem's
//! tolerance as a dashed line, and one legend for the panels beside them. Each implementation keeps its colour,
//! marker and dash in every panel: its style is its place among the problem's implementations.

use std::fmt::Write;

use super::frame::{Axis, Captions, Frame, Layout, legend_figure};
use super::{colour, line, marker, polyline, text};
use crate::curves::{MetricCurves, Panel};
use crate::units::plain;

/// A panel's width and height, in pixels: three fit beside each other in a 1,280 px window.
const PANEL: (f64, f64) = (390.0, 290.0);

/// What a suboptimality axis is labelled: the distance to the best value any implementation reached.
pub fn suboptimality_label(curves: &MetricCurves) -> String {
    let metric = &curves.metric;
    if curves.lower_is_better { format!("{metric} − best reached") } else { format!("best reached − {metric}") }
}

/// The panels of one metric, one `<svg>` each: `implementations` are the problem's, whose order gives each series
/// its style; `tolerance` the problem's, drawn where it has one.
pub fn curves(
    id: &str,
    problem: &str,
    curves: &MetricCurves,
    implementations: &[String],
    tolerance: Option<f64>,
) -> Vec<String> {
    curves
        .panels
        .iter()
        .enumerate()
        .map(|(index, panel)| self::panel(&format!("{id}-{index}"), problem, curves, panel, implementations, tolerance))
        .collect()
}

fn panel(
    id: &str,
    problem: &str,
    curves: &MetricCurves,
    panel: &Panel,
    implementations: &[String],
    tolerance: Option<f64>,
) -> String {
    let (width, height) = PANEL;
    let (left, top, right, bottom) = (70.0, 34.0, 26.0, 50.0);
    let layout = Layout {
        width,
        height,
        left,
        top,
        plot_w: width - left - right,
        plot_h: height - top - bottom,
        x_label: height - 12.0,
    };
    let points = || panel.series.iter().flat_map(|series| series.points.iter());
    // The lowest value shown is the least positive one: a suboptimality of 0 (the best run itself) lies on the
    // axis's start.
    let positive = points().flat_map(|point| [point.q1, point.median]).filter(|value| *value > 0.0);
    let low = positive.chain(tolerance).fold(f64::INFINITY, f64::min);
    let high = points().flat_map(|point| [point.q3, point.median]).chain(tolerance).fold(f64::NEG_INFINITY, f64::max);
    let values = Axis::values(low, high.max(low), &suboptimality_label(curves));
    let metric = &curves.metric;
    let dataset = &panel.dataset;
    let desc = format!(
        "On dataset {dataset}, for each implementation that streamed checkpoints, the suboptimality of {metric} (its \
         distance to the best value any implementation reached on the same dataset and seed) against the executor's \
         time: each attempt's curve is a step function, and the line joins their median at each time of a common \
         grid, the band spanning their quartiles. The time axis is logarithmic{}{}.",
        if values.logarithmic() { ", and so is the suboptimality axis" } else { "" },
        match tolerance {
            Some(tolerance) => format!("; the dashed line is the problem's tolerance, {}", plain(tolerance)),
            None => String::new(),
        }
    );
    let mut frame = Frame::new(layout)
        .x_axis(Axis::seconds(points().map(|point| point.seconds), "time (seconds, log₁₀ scale)"))
        .y_axis(values)
        .open(&Captions {
            id,
            title: &format!("{metric} suboptimality against time on {dataset}, problem {problem}"),
            desc: &desc,
            heading: dataset,
        });
    let place = frame.place();
    if let Some(tolerance) = tolerance {
        let y = place.y(tolerance);
        let canvas = frame.canvas();
        let _ = write!(
            canvas,
            r##"<g class="tolerance"><path d="M{left:.1} {y:.1}H{:.1}" stroke="#444" stroke-width="1.2" stroke-dasharray="5 4"/>"##,
            left + layout.plot_w
        );
        text(
            canvas,
            left + layout.plot_w - 4.0,
            y - 5.0,
            "end",
            r##" fill="#444""##,
            &format!("tolerance {}", plain(tolerance)),
        );
        canvas.push_str("</g>");
    }
    for series in &panel.series {
        let style = implementations.iter().position(|name| *name == series.implementation).unwrap_or(0);
        frame.series(&series.implementation, style, |out| {
            // A single point (one checkpoint) is its marker alone: no band or line to draw.
            if series.points.len() < 2 {
                if let Some(point) = series.points.first() {
                    marker(out, style, place.x(point.seconds), place.y(point.median), colour(style));
                }
                return;
            }
            let mut band = String::new();
            polyline(&mut band, series.points.iter().map(|point| (place.x(point.seconds), place.y(point.q3))));
            for point in series.points.iter().rev() {
                let _ = write!(band, "L{:.1} {:.1}", place.x(point.seconds), place.y(point.q1));
            }
            let _ = write!(out, r#"<path d="{band}Z" fill="{}" fill-opacity="0.15" stroke="none"/>"#, colour(style));
            let mut d = String::new();
            polyline(&mut d, series.points.iter().map(|point| (place.x(point.seconds), place.y(point.median))));
            line(out, style, &d);
            // Markers at the ends only: the grid's points are not checkpoints.
            for point in [series.points.first(), series.points.last()].into_iter().flatten() {
                marker(out, style, place.x(point.seconds), place.y(point.median), colour(style));
            }
        });
    }
    frame.close()
}

/// One legend for a figure's panels: each of `names` (the series drawn) with its line, dash and marker, its style
/// its place among `implementations`.
pub fn legend(id: &str, names: &[&str], implementations: &[String]) -> String {
    let entries: Vec<(&str, usize)> =
        names.iter().map(|name| (*name, implementations.iter().position(|known| known == name).unwrap_or(0))).collect();
    legend_figure(id, &entries)
}
