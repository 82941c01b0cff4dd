//! Scaling plots: a quantity (the time, the peak memory, a metric) against a numeric key of a dataset grid, both on
//! log₁₀ scales, a line through each implementation's medians with the time's bootstrap interval as a band, and a
//! black cross with a count where attempts failed or timed out (at the median, or along the top of the plot where
//! none is left), so that a failure is seen where it happened rather than missing from the line.

use std::fmt::Write;

use super::frame::{Axis, Captions, Frame, Layout};
use super::{colour, line, marker, polyline, text};
use crate::scaling::{Quantity, ScalingPlot};

/// What the vertical axis shows, in its unit, and the factor from the recorded value to it.
fn measure(plot: &ScalingPlot, timed: &str) -> (String, f64) {
    match &plot.quantity {
        Quantity::Time => (format!("{timed} time (seconds, log₁₀ scale)"), 1.0),
        Quantity::Memory => ("peak memory (MB)".to_owned(), 1e-6),
        Quantity::Metric(_, name) => (format!("median {name}"), 1.0),
    }
}

/// One scaling plot; `implementations` give each series its style, `timed` names the ranked time.
pub fn scaling(id: &str, problem: &str, plot: &ScalingPlot, implementations: &[String], timed: &str) -> String {
    let layout = Layout::beside_legend(plot.series.iter().map(|series| series.implementation.chars().count()), 78.0);
    let points = || plot.series.iter().flat_map(|series| series.points.iter());
    let (label, factor) = measure(plot, timed);
    let values =
        || points().flat_map(|point| [point.low, point.median, point.high]).flatten().map(|value| value * factor);
    let x_low = points().map(|point| point.x).fold(f64::INFINITY, f64::min);
    let x_high = points().map(|point| point.x).fold(0.0, f64::max);
    let y_axis = match plot.quantity {
        Quantity::Time => Axis::seconds(values(), &label),
        _ if values().all(|value| value > 0.0) => {
            Axis::log(values().fold(f64::INFINITY, f64::min), values().fold(0.0, f64::max), &label)
        }
        _ => Axis::values(values().fold(f64::INFINITY, f64::min), values().fold(f64::NEG_INFINITY, f64::max), &label),
    };
    let what = match &plot.quantity {
        Quantity::Time => format!("{timed} time"),
        Quantity::Memory => "peak memory".to_owned(),
        Quantity::Metric(_, name) => name.clone(),
    };
    let key = &plot.key;
    let grid = &plot.grid;
    let mut frame = Frame::new(layout).x_axis(Axis::log(x_low, x_high, key)).y_axis(y_axis).legend().open(&Captions {
        id,
        title: &format!("{what} against {key} on {grid}, problem {problem}"),
        desc: &format!(
            "For each implementation, the median {what} of its attempts at each value of {key} on the grid \
                 {grid}, on log scales{}; a black cross marks a point where attempts failed or timed out, with their \
                 count, on the top edge where none has a value.",
            if plot.quantity == Quantity::Time { ", the band the bootstrap 95% interval of the median" } else { "" }
        ),
        heading: &format!("{what} against {key}: {grid}"),
    });
    let place = frame.place();
    let top = layout.top + 8.0;
    for series in &plot.series {
        let style = implementations.iter().position(|name| *name == series.implementation).unwrap_or(0);
        frame.series(&series.implementation, style, |out| {
            let known: Vec<_> = series.points.iter().filter(|point| point.median.is_some()).collect();
            if plot.quantity == Quantity::Time && known.len() > 1 {
                let mut band = String::new();
                let high = known.iter().map(|point| (place.x(point.x), place.y(point.high.unwrap_or(0.0) * factor)));
                polyline(&mut band, high);
                for point in known.iter().rev() {
                    let _ = write!(band, "L{:.1} {:.1}", place.x(point.x), place.y(point.low.unwrap_or(0.0) * factor));
                }
                let _ =
                    write!(out, r#"<path d="{band}Z" fill="{}" fill-opacity="0.15" stroke="none"/>"#, colour(style));
            }
            let mut d = String::new();
            polyline(
                &mut d,
                known.iter().map(|point| (place.x(point.x), place.y(point.median.unwrap_or(0.0) * factor))),
            );
            line(out, style, &d);
            for point in &known {
                marker(out, style, place.x(point.x), place.y(point.median.unwrap_or(0.0) * factor), colour(style));
            }
            for point in series.points.iter().filter(|point| point.failed > 0) {
                let (x, y) = (place.x(point.x), point.median.map_or(top, |median| place.y(median * factor)));
                out.push_str(r#"<g class="failed">"#);
                marker(out, 5, x, y, "#000000");
                // Its count on the side of the cross towards the plot's middle, clear of the legend.
                let (dx, anchor) = if x > layout.left + layout.plot_w / 2.0 { (-6.0, "end") } else { (6.0, "start") };
                let count = format!("{} of {} failed", point.failed, point.attempts);
                text(out, x + dx, y - 6.0, anchor, "", &count);
                out.push_str("</g>");
            }
        });
    }
    frame.close()
}
