//! `metewand-report` on synthetic campaign folders (records made from a real record of the test worker's
//! benchmark, `fixtures/record.json`, with their cells, outcomes and times set by the test): statistics against an
//! independent Python computation and published tables, performance profiles on hand-made data, reports that parse
//! with well-formed plots, incomplete campaigns, bad input, determinism, comparisons, and one table model written as
//! HTML, Markdown and CSV.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod cache;
mod compare;
mod curves;
mod profile;
mod ranks;
mod report;
mod scaling;
mod stats;
mod table;

pub use metewand_testkit::synth::*;
