//! What a report ranks, tabulates and compares (`--measure`): the wall time the problem ranks by, the CPU time of
//! the implementation's session, or its peak resident memory, and how each is written.

use serde::Serialize;

use crate::stats::Summary;
use crate::units;

/// A measure of an attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// The executor's time of the problem's `timed` requests (the default).
    #[default]
    Wall,
    /// The CPU time (user and system) of the implementation's whole session, as `wait4` reported it.
    Cpu,
    /// The implementation's peak resident memory, as `wait4` reported it.
    Memory,
}

impl Measure {
    /// Whether this is the default, wall time (which reports do not state, so that their bytes stay as they were).
    pub fn is_wall(&self) -> bool {
        *self == Measure::Wall
    }

    /// What the measure is, in words, for a report's title and a comparison's heading.
    pub fn describe(self) -> &'static str {
        match self {
            Measure::Wall => "wall time",
            Measure::Cpu => "CPU time (user and system, of the implementation's whole session)",
            Measure::Memory => "peak memory (the implementation's peak resident memory)",
        }
    }

    /// The header of a table's column of the measure, where `timed` is what the problem ranks by.
    pub fn column(self, timed: &str) -> String {
        match self {
            Measure::Wall => format!("{timed} time"),
            Measure::Cpu => "CPU time".to_owned(),
            Measure::Memory => "peak memory".to_owned(),
        }
    }

    /// A summary of values of the measure: `median [q1–q3] (95% CI low–high)`, all in the median's unit.
    pub fn summary(self, summary: &Summary) -> String {
        match self {
            Measure::Wall | Measure::Cpu => units::time_summary(summary),
            Measure::Memory => units::bytes_summary(summary),
        }
    }

    /// One value of the measure, with its unit.
    pub fn value(self, value: f64) -> String {
        match self {
            Measure::Wall | Measure::Cpu => units::duration(value),
            Measure::Memory => units::bytes(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_measure_is_written_in_its_own_unit() {
        assert_eq!(Measure::Cpu.value(0.0123), "12.3 ms");
        assert_eq!(Measure::Memory.value(31_457_280.0), "30.0 MiB");
        assert_eq!(Measure::Memory.value(512.0), "512 B");
        assert_eq!(Measure::Wall.column("execute"), "execute time");
        assert_eq!(Measure::Cpu.column("execute"), "CPU time");
    }
}
