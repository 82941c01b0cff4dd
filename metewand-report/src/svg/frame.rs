//! The frame every plot is drawn in: the `<svg>` element with its title and description, the heading, the axes
//! (their lines, ticks, grid lines, tick labels and labels), the scales that place values along them, and the
//! legend. A plot lays its frame out and chooses its axes; then it supplies only its series.

use std::fmt::Write;

use super::{escape, label_room, marker, text};

/// Where a plot's area lies in its figure, in pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// The figure's width.
    pub width: f64,
    /// The figure's height.
    pub height: f64,
    /// The plot area's left edge (where the heading starts too).
    pub left: f64,
    /// The plot area's top edge.
    pub top: f64,
    /// The plot area's width.
    pub plot_w: f64,
    /// The plot area's height.
    pub plot_h: f64,
    /// The baseline of the horizontal axis's label.
    pub x_label: f64,
}

impl Layout {
    /// The layout of a plot with a legend: a 520 px wide plot area with its axes' labels, `left` of it the
    /// vertical axis's tick labels, and right of it the legend, whose room follows its longest name (`names` are
    /// the lengths of the series' names, in characters), so that no name is cut off.
    pub fn beside_legend(names: impl Iterator<Item = usize>, left: f64) -> Layout {
        let right = label_room(names.max().unwrap_or(0), 200.0) + 24.0;
        let (top, bottom) = (34.0, 56.0);
        let (width, height) = (520.0 + right, 380.0);
        let (plot_w, plot_h) = (width - left - right, height - top - bottom);
        Layout { width, height, left, top, plot_w, plot_h, x_label: height - 14.0 }
    }
}

/// How an axis places values along its length.
#[derive(Clone, Copy, Debug)]
enum Scale {
    /// log₂ from 1 to `2^max_log`.
    Log2 { max_log: f64 },
    /// log₁₀ from `low` to `high`; a value below `low` lies at the start.
    Log10 { low: f64, high: f64 },
    /// Linear from `low` to `high`.
    Linear { low: f64, high: f64 },
    /// A share from 0 to 1, kept 3% inside either end: a curve at 0 or at 1 would lie on the frame and vanish.
    Share,
}

impl Scale {
    /// Where `value` lies, as a fraction of the axis's length from its start, or from its end when `reversed` (a
    /// vertical axis, whose values grow upwards from the bottom of the plot).
    fn fraction(self, value: f64, reversed: bool) -> f64 {
        let share = match self {
            Scale::Share => {
                let value = if reversed { 1.0 - value } else { value };
                return 0.03 + 0.94 * value;
            }
            Scale::Log2 { max_log } => value.log2() / max_log,
            Scale::Log10 { low, high } => (value.max(low).log10() - low.log10()) / (high / low).log10(),
            Scale::Linear { low, high } => (value - low) / (high - low),
        };
        if reversed { 1.0 - share } else { share }
    }
}

/// One axis: its scale, its ticks (each value with its label) and its label.
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    scale: Scale,
    ticks: Vec<(f64, String)>,
    label: String,
}

impl Axis {
    /// Performance ratios τ on a log₂ scale from 1 to a little beyond `max_ratio` (at least 2), a tick at each power
    /// of two.
    pub fn ratios(max_ratio: f64, label: &str) -> Axis {
        let max_log = max_ratio.log2().max(1.0) * 1.05;
        let mut ticks = Vec::new();
        let mut power = 0;
        while f64::from(power) <= max_log {
            let tau = 2f64.powi(power);
            ticks.push((tau, format!("{tau}")));
            power += 1;
        }
        Axis { scale: Scale::Log2 { max_log }, ticks, label: label.to_owned() }
    }

    /// A share from 0 to 1, a tick at each quarter.
    pub fn shares(label: &str) -> Axis {
        let ticks = (0..=4)
            .map(|step| {
                let share = f64::from(step) / 4.0;
                (share, format!("{share:.2}"))
            })
            .collect();
        Axis { scale: Scale::Share, ticks, label: label.to_owned() }
    }

    /// Seconds on a log₁₀ scale over whole decades: the decades around the positive `values` (1 ms to 1 s without
    /// any), at least one, a tick at each power of ten labelled with its SI unit.
    pub fn seconds(values: impl Iterator<Item = f64>, label: &str) -> Axis {
        let (low, high) = values
            .filter(|value| *value > 0.0)
            .fold((f64::INFINITY, 0.0_f64), |(low, high), value| (low.min(value), high.max(value)));
        let (low, high) = if low.is_finite() { (low, high.max(low)) } else { (1e-3, 1.0) };
        let (low, high) = (10f64.powf(low.log10().floor()), 10f64.powf(high.log10().ceil()).max(low * 10.0));
        let mut ticks = Vec::new();
        let mut exponent = low.log10().floor() as i32;
        while f64::from(exponent) <= high.log10().ceil() {
            let value = 10f64.powi(exponent);
            if value >= low * 0.999 && value <= high * 1.001 {
                ticks.push((value, seconds_label(exponent)));
            }
            exponent += 1;
        }
        Axis { scale: Scale::Log10 { low, high }, ticks, label: label.to_owned() }
    }

    /// A metric's values from `low` to `high` (none when `low` is not finite): on a log₁₀ scale over whole decades
    /// when every value is positive and they span more than two decades (labelled `name (log₁₀ scale)`), else on a
    /// linear scale over round steps.
    pub fn values(low: f64, high: f64, name: &str) -> Axis {
        let (low, high) = if low.is_finite() { (low, high) } else { (0.0, 1.0) };
        let logarithmic = low > 0.0 && high / low > 100.0;
        let step = nice_step(if high > low { high - low } else { low.abs().max(1.0) });
        let (v_low, v_high) = if logarithmic {
            (10f64.powf(low.log10().floor()), 10f64.powf(high.log10().ceil()))
        } else if high > low {
            ((low / step).floor() * step, (high / step).ceil() * step)
        } else {
            (low - step, high + step)
        };
        let values: Vec<f64> = if logarithmic {
            let (first, last) = (v_low.log10().round() as i32, v_high.log10().round() as i32);
            let step = ((last - first) / 6).max(1);
            (first..=last).step_by(step as usize).map(|exponent| 10f64.powi(exponent)).collect()
        } else {
            let count = ((v_high - v_low) / step).round() as i32;
            (0..=count).map(|index| v_low + step * f64::from(index)).collect()
        };
        let ticks = values.into_iter().map(|value| (value, value_label(value, logarithmic, step))).collect();
        if logarithmic {
            Axis { scale: Scale::Log10 { low: v_low, high: v_high }, ticks, label: format!("{name} (log₁₀ scale)") }
        } else {
            Axis { scale: Scale::Linear { low: v_low, high: v_high }, ticks, label: name.to_owned() }
        }
    }

    /// Positive values from `low` to `high` on a log₁₀ scale over whole decades whatever their span (a scaling
    /// plot's grid key), labelled `name (log₁₀ scale)`, with a tick at each decade and, within one or two decades,
    /// at 2 and 5 times each.
    pub fn log(low: f64, high: f64, name: &str) -> Axis {
        let (low, high) = if low > 0.0 && low.is_finite() { (low, high.max(low)) } else { (1.0, 10.0) };
        let (first, last) =
            (low.log10().floor() as i32, (high.log10().ceil() as i32).max(low.log10().floor() as i32 + 1));
        let factors: &[f64] = if last - first <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
        let step = ((last - first) / 6).max(1) as usize;
        let mut ticks = Vec::new();
        for exponent in (first..=last).step_by(step) {
            for factor in factors {
                let value = factor * 10f64.powi(exponent);
                if value <= 10f64.powi(last) * 1.001 {
                    ticks.push((value, value_label(value, true, 1.0)));
                }
            }
        }
        let scale = Scale::Log10 { low: 10f64.powi(first), high: 10f64.powi(last) };
        Axis { scale, ticks, label: format!("{name} (log₁₀ scale)") }
    }

    /// Whether the axis is logarithmic.
    pub fn logarithmic(&self) -> bool {
        matches!(self.scale, Scale::Log2 { .. } | Scale::Log10 { .. })
    }
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

/// A round step (1, 2 or 5 times a power of ten) that cuts `range` into at most five parts.
fn nice_step(range: f64) -> f64 {
    let raw = range / 5.0;
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|factor| factor * power).find(|step| *step >= raw).unwrap_or(10.0 * power)
}

/// A metric axis's tick label: a power of ten as `1e-6` (or plainly from 0.001 to 1000); a linear tick with as many
/// decimals as its axis's `step` needs, or as `4e-10`, `1.5e6` when it is tiny or large beside its step.
pub fn value_label(value: f64, logarithmic: bool, step: f64) -> String {
    if logarithmic {
        // A hair above the logarithm, so that 1e-10 (whose logarithm may fall a hair below -10) is not 10e-11.
        let exponent = (value.log10() + 1e-9).floor() as i32;
        let mantissa = (value / 10f64.powi(exponent) * 1e6).round() / 1e6;
        return if (-3..=3).contains(&exponent) {
            format!("{}", (value * 1e6).round() / 1e6)
        } else {
            format!("{mantissa}e{exponent}")
        };
    }
    if value.abs() < step * 1e-6 {
        return "0".to_owned();
    }
    let magnitude = value.abs().log10().floor() as i32;
    let step_magnitude = step.log10().floor() as i32;
    if (-3..5).contains(&magnitude) && step_magnitude >= -4 {
        let decimals = (-step_magnitude).max(0) as usize;
        let text = format!("{value:.decimals$}");
        // No "-0" for a tick at zero.
        return if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            text.trim_start_matches('-').to_owned()
        } else {
            text
        };
    }
    // Scientific, with the digits the step tells apart: 4e-10, 1.5e-9, 2.25e6.
    let digits = (magnitude - step_magnitude).clamp(0, 6) as usize;
    let mantissa = format!("{:.digits$}", value / 10f64.powi(magnitude));
    let mantissa =
        if mantissa.contains('.') { mantissa.trim_end_matches('0').trim_end_matches('.') } else { &mantissa };
    format!("{mantissa}e{magnitude}")
}

/// Where values lie in a frame: a copy of its layout and scales, for a plot to place its series with while the
/// frame is being written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    layout: Layout,
    x: Option<Scale>,
    y: Option<Scale>,
}

impl Place {
    /// The horizontal position of `value` on the horizontal axis.
    pub fn x(&self, value: f64) -> f64 {
        let fraction = self.x.map_or(0.0, |scale| scale.fraction(value, false));
        self.layout.left + fraction * self.layout.plot_w
    }

    /// The vertical position of `value` on the vertical axis.
    pub fn y(&self, value: f64) -> f64 {
        let fraction = self.y.map_or(0.0, |scale| scale.fraction(value, true));
        self.layout.top + fraction * self.layout.plot_h
    }
}

/// What a figure says about itself: the ids of its title and description are made from `id`.
pub(crate) struct Captions<'a> {
    /// The figure's id, unique in the page.
    pub id: &'a str,
    /// Its title, for screen readers.
    pub title: &'a str,
    /// Its description, for screen readers.
    pub desc: &'a str,
    /// The heading drawn above the plot.
    pub heading: &'a str,
}

/// A figure being written: its frame, then its series, then whatever else the plot draws.
pub(crate) struct Frame {
    out: String,
    place: Place,
    x: Option<Axis>,
    y: Option<Axis>,
    legend: bool,
}

impl Frame {
    /// A frame laid out as `layout`, without axes or legend yet.
    pub fn new(layout: Layout) -> Frame {
        Frame { out: String::new(), place: Place { layout, x: None, y: None }, x: None, y: None, legend: false }
    }

    /// The frame with `axis` along the bottom.
    pub fn x_axis(mut self, axis: Axis) -> Frame {
        self.place.x = Some(axis.scale);
        self.x = Some(axis);
        self
    }

    /// The frame with `axis` up the left side.
    pub fn y_axis(mut self, axis: Axis) -> Frame {
        self.place.y = Some(axis.scale);
        self.y = Some(axis);
        self
    }

    /// The frame with a legend to the right of the plot: an entry per series, a line sample with its dash and
    /// marker, and the name.
    pub fn legend(mut self) -> Frame {
        self.legend = true;
        self
    }

    /// Writes the `<svg>` element's start, its title and description, a white background, the heading and the
    /// axes: the plot's series come next.
    pub fn open(mut self, captions: &Captions<'_>) -> Frame {
        let Layout { width, height, left, .. } = self.place.layout;
        let id = captions.id;
        let _ = write!(
            self.out,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-labelledby="{id}-title {id}-desc" font-family="sans-serif" font-size="12"><title id="{id}-title">{}</title><desc id="{id}-desc">{}</desc><rect width="100%" height="100%" fill="#ffffff"/>"##,
            escape(captions.title),
            escape(captions.desc)
        );
        text(&mut self.out, left, 20.0, "start", r#" font-weight="bold""#, captions.heading);
        self.axes();
        self
    }

    /// The axes' lines (the plot's left and bottom edges), each axis's grid lines, ticks and tick labels, and the
    /// axes' labels.
    fn axes(&mut self) {
        let Some(axis) = &self.x else { return };
        let (out, place) = (&mut self.out, self.place);
        let Layout { left, top, plot_w, plot_h, x_label, .. } = place.layout;
        let (right, bottom) = (left + plot_w, top + plot_h);
        let _ = write!(
            out,
            r##"<g class="axes" stroke="#444" fill="none"><path d="M{left:.1} {top:.1}V{bottom:.1}H{right:.1}"/></g>"##
        );
        for (value, label) in &axis.ticks {
            let x = place.x(*value);
            let _ = write!(
                out,
                r##"<path d="M{x:.1} {top:.1}V{bottom:.1}" stroke="#ddd"/><path d="M{x:.1} {bottom:.1}v5" stroke="#444"/>"##
            );
            text(out, x, bottom + 18.0, "middle", "", label);
        }
        for (value, label) in self.y.iter().flat_map(|y| &y.ticks) {
            let y = place.y(*value);
            let _ = write!(
                out,
                r##"<path d="M{left:.1} {y:.1}H{right:.1}" stroke="#ddd"/><path d="M{:.1} {y:.1}h5" stroke="#444"/>"##,
                left - 5.0
            );
            text(out, left - 8.0, y + 4.0, "end", "", label);
        }
        text(out, left + plot_w / 2.0, x_label, "middle", "", &axis.label);
        if let Some(y) = &self.y {
            let middle = top + plot_h / 2.0;
            text(out, 16.0, middle, "middle", &format!(r#" transform="rotate(-90 16 {middle:.1})""#), &y.label);
        }
    }

    /// Where values lie in this frame.
    pub fn place(&self) -> Place {
        self.place
    }

    /// Writes one series, `<g class="series" data-series="NAME">` around what `draw` writes, and its legend entry
    /// when the frame has a legend; `style` is its colour, dash pattern and marker.
    pub fn series(&mut self, name: &str, style: usize, draw: impl FnOnce(&mut String)) {
        let _ = write!(self.out, r#"<g class="series" data-series="{}">"#, escape(name));
        draw(&mut self.out);
        self.out.push_str("</g>");
        if self.legend {
            let Layout { left, top, plot_w, .. } = self.place.layout;
            let (x, y) = (left + plot_w + 16.0, top + 10.0 + 20.0 * style as f64);
            let colour = super::colour(style);
            let _ = write!(
                self.out,
                r#"<path d="M{x:.1} {y:.1}h28" stroke="{colour}" stroke-width="2" fill="none" stroke-dasharray="{}"/>"#,
                super::dash(style)
            );
            marker(&mut self.out, style, x + 14.0, y, colour);
            text(&mut self.out, x + 34.0, y + 4.0, "start", "", name);
        }
    }

    /// The figure as it stands, to draw what is neither axis nor series on.
    pub fn canvas(&mut self) -> &mut String {
        &mut self.out
    }

    /// Ends the `<svg>` element and returns it.
    pub fn close(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

/// A legend standing alone, for figures whose panels share one: each entry `(name, style)` with its line sample,
/// dash and marker, one under another.
pub(crate) fn legend_figure(id: &str, entries: &[(&str, usize)]) -> String {
    let longest = entries.iter().map(|(name, _)| name.chars().count()).max().unwrap_or(0);
    let width = (60.0 + 7.0 * longest as f64).max(160.0);
    let height = 14.0 + 22.0 * entries.len().max(1) as f64;
    let mut out = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-labelledby="{id}-title" font-family="sans-serif" font-size="12"><title id="{id}-title">Legend</title><rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    for (row, (name, style)) in entries.iter().enumerate() {
        let y = 18.0 + 22.0 * row as f64;
        let colour = super::colour(*style);
        let _ = write!(
            out,
            r#"<path d="M8.0 {y:.1}h28" stroke="{colour}" stroke-width="2" fill="none" stroke-dasharray="{}"/>"#,
            super::dash(*style)
        );
        marker(&mut out, *style, 22.0, y, colour);
        text(&mut out, 44.0, y + 4.0, "start", "", name);
    }
    out.push_str("</svg>");
    out
}
