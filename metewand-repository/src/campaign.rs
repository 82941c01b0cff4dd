//! `[campaigns.NAME]`: the axes of a campaign (problems, datasets, implementations, both seeds, repetitions) and how
//! its implementation sessions serve attempts (`sessions`, `warmup`), checked with positions like every other key and
//! then decoded as the schema's `Campaign`, which the [`CampaignSpec`] is built from. Planning the attempts is `metewand-campaign`'s; what is checked
//! here is what a plan needs to be possible: names that exist, nonempty axes, seeds in range and a plan of at most
//! [`MAX_PLAN_ATTEMPTS`].

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use metewand_protocol::common::Name;
use metewand_protocol::generated::attempt_record::SessionMode;
use metewand_protocol::generated::repository_definition as definition;
use metewand_protocol::strict::{BoundedUint, NonEmptyUniqueVec, SafeUint};
use serde_json::Value;
use toml::de::DeValue;

use super::toml_value::{Source, Table, Value_, string, to_json, wrong_type};
use crate::diagnostic::{CheckError, CheckErrorKind};
use crate::grid::{DefinitionKind, Names, SelectionErrorKind};

/// The most warm-up cycles a campaign may ask of each reused session.
pub const MAX_WARMUP: u64 = 1000;

/// The most attempts one campaign may plan: more is a check error giving the size.
pub const MAX_PLAN_ATTEMPTS: u64 = 1_000_000;

/// A seed axis: a list, or `{ from, count }` (the seeds `from`, `from + 1`, ..., `from + count - 1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seeds {
    /// The seeds listed, in their order, each once.
    List(Vec<SafeUint>),
    /// `count` consecutive seeds from `from`; `count >= 1` and the last is at most 2^53 − 1.
    Range {
        /// The first seed.
        from: SafeUint,
        /// How many.
        count: u64,
    },
}

impl Seeds {
    /// The axis `[0]`, the default.
    pub fn zero() -> Seeds {
        Seeds::List(vec![SafeUint::ZERO])
    }

    /// How many seeds.
    pub fn len(&self) -> u64 {
        match self {
            Seeds::List(list) => list.len() as u64,
            Seeds::Range { count, .. } => *count,
        }
    }

    /// Whether the axis is empty (never, once checked).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The seeds, in order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = SafeUint> + '_> {
        match self {
            Seeds::List(list) => Box::new(list.iter().copied()),
            Seeds::Range { from, count } => {
                Box::new((from.get()..from.get() + count).map(|seed| SafeUint::try_from(seed).expect("checked range")))
            }
        }
    }
}

impl From<definition::Seeds> for Seeds {
    /// A seed axis as the schema's type holds it, once checked.
    fn from(seeds: definition::Seeds) -> Seeds {
        match seeds {
            definition::Seeds::List(list) => Seeds::List(list.into_vec()),
            definition::Seeds::Range(range) => Seeds::Range { from: range.from, count: range.count.get() },
        }
    }
}

/// A checked `[campaigns.NAME]`: every axis filled (defaults applied), every name known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CampaignSpec {
    /// The campaign's name.
    pub name: String,
    /// Problem names, in the order written, a grid's points in its place (default: every problem, by name).
    pub problems: Vec<String>,
    /// Dataset names, a grid's points in its place (default: every dataset).
    pub datasets: Vec<String>,
    /// Implementation names, a grid's points in its place (default: every implementation).
    pub implementations: Vec<String>,
    /// Dataset seeds (default `[0]`).
    pub dataset_seeds: Seeds,
    /// Implementation seeds (default `[0]`).
    pub implementation_seeds: Seeds,
    /// Attempts per cell with identical inputs (default 1).
    pub repetitions: u64,
    /// How implementation sessions serve its attempts (`sessions`, default `"fresh"`; `campaign run --sessions`
    /// overrides it).
    pub sessions: SessionMode,
    /// Discarded prepare and execute cycles an implementation session runs before it is timed (`warmup`, default
    /// 0): a reused session before its first attempt, a fresh one before its attempt's timed cycle.
    pub warmup: u64,
}

impl CampaignSpec {
    /// The number of attempts the campaign plans (saturating), before any limit.
    pub fn size(&self) -> u64 {
        [
            self.problems.len() as u64,
            self.datasets.len() as u64,
            self.implementations.len() as u64,
            self.dataset_seeds.len(),
            self.implementation_seeds.len(),
            self.repetitions,
        ]
        .into_iter()
        .fold(1_u64, u64::saturating_mul)
    }
}

/// The names a campaign may use, by kind: every definition (a grid's points, not the grid) and what selects them.
pub(crate) struct Known<'a> {
    pub problems: (Vec<&'a str>, &'a Names),
    pub datasets: (Vec<&'a str>, &'a Names),
    pub implementations: (Vec<&'a str>, &'a Names),
}

fn invalid(source: &Source<'_>, span: Range<usize>, key: String, message: String) -> CheckError {
    source.error(span, CheckErrorKind::InvalidValue { key, message })
}

/// Checks one `[campaigns.NAME]` table with positions, then builds the campaign from the table decoded as its
/// generated type, every axis it leaves out filled with its default.
pub(crate) fn check(
    name: String,
    table: &Table<'_, '_>,
    known: &Known<'_>,
    source: &Source<'_>,
) -> Result<CampaignSpec, CheckError> {
    table.only(definition::Campaign::PROPERTIES, source)?;
    let mut selected = Vec::with_capacity(3);
    for (axis, kind, (every, names)) in [
        ("problems", DefinitionKind::Problem, &known.problems),
        ("datasets", DefinitionKind::Dataset, &known.datasets),
        ("implementations", DefinitionKind::Implementation, &known.implementations),
    ] {
        let written = check_names(table, axis, kind, names, source)?;
        selected.push(written.unwrap_or_else(|| every.iter().map(|name| (*name).to_owned()).collect()));
    }
    for (axis, kind, known) in [
        ("problems", "problem", &known.problems.0),
        ("datasets", "dataset", &known.datasets.0),
        ("implementations", "implementation", &known.implementations.0),
    ] {
        if table.get(axis).is_none() && known.is_empty() {
            return Err(invalid(
                source,
                table.span.clone(),
                table.member(axis),
                format!("is empty: the repository declares no {kind}, and a campaign needs at least one"),
            ));
        }
    }
    check_seeds(table, "dataset_seeds", source)?;
    check_seeds(table, "implementation_seeds", source)?;
    if let Some(value) = table.get("repetitions") {
        let count = to_json(value, &table.member("repetitions"), source)?;
        if count.as_u64().is_none_or(|n| n < 1) {
            return Err(invalid(
                source,
                value.span(),
                table.member("repetitions"),
                "must be a whole number of at least 1".to_owned(),
            ));
        }
    }
    if let Some(value) = table.get("sessions") {
        let text = string(value, table.member("sessions"), source)?;
        if text.parse::<SessionMode>().is_err() {
            return Err(invalid(
                source,
                value.span(),
                table.member("sessions"),
                format!("is {text:?}; it must be \"fresh\" (each attempt its own worker process) or \"reuse\""),
            ));
        }
    }
    if let Some(value) = table.get("warmup") {
        let count = to_json(value, &table.member("warmup"), source)?;
        if count.as_u64().is_none_or(|n| n > MAX_WARMUP) {
            return Err(invalid(
                source,
                value.span(),
                table.member("warmup"),
                format!("must be a whole number from 0 to {MAX_WARMUP}"),
            ));
        }
    }
    let campaign: definition::Campaign = table.decode(source)?;
    let sessions = campaign.sessions.unwrap_or(SessionMode::Fresh);
    // The schema's bound is the loader's: a schema that changed it would not compile here.
    let warmup: Option<BoundedUint<0, MAX_WARMUP>> = campaign.warmup;
    let warmup = warmup.map_or(0, BoundedUint::get);
    // The lists as written were checked above and expanded into the definitions they select.
    let _: [Option<NonEmptyUniqueVec<Name>>; 3] = [campaign.problems, campaign.datasets, campaign.implementations];
    let [problems, datasets, implementations]: [Vec<String>; 3] = selected.try_into().expect("three axes");
    let spec = CampaignSpec {
        name,
        problems,
        datasets,
        implementations,
        dataset_seeds: campaign.dataset_seeds.map_or_else(Seeds::zero, Seeds::from),
        implementation_seeds: campaign.implementation_seeds.map_or_else(Seeds::zero, Seeds::from),
        repetitions: campaign.repetitions.map_or(1, BoundedUint::get),
        sessions,
        warmup,
    };
    let size = spec.size();
    if size > MAX_PLAN_ATTEMPTS {
        return Err(source.error(
            table.span.clone(),
            CheckErrorKind::InvalidValue {
                key: table.name.clone(),
                message: format!(
                    "plans {} attempts, more than the {MAX_PLAN_ATTEMPTS} a campaign may hold; narrow its axes or \
                     split it",
                    if size == u64::MAX { "more than 18446744073709551614".to_owned() } else { size.to_string() }
                ),
            },
        ));
    }
    Ok(spec)
}

/// Checks an axis of names, if written: a nonempty array of selections (a definition's name, a grid's for every
/// point of it, `NAME[key=value]` for some), each once. Returns the definitions they select, in order, each once.
fn check_names(
    table: &Table<'_, '_>,
    key: &str,
    kind: DefinitionKind,
    known: &Names,
    source: &Source<'_>,
) -> Result<Option<Vec<String>>, CheckError> {
    let Some(value) = table.get(key) else { return Ok(None) };
    let kind_name = kind.as_str();
    let member = table.member(key);
    let DeValue::Array(items) = value.get_ref() else {
        return Err(wrong_type(source, value.span(), member, "an array of names", value.get_ref()));
    };
    if items.is_empty() {
        let message = format!("is empty: a campaign needs at least one {kind_name}");
        return Err(invalid(source, value.span(), member, message));
    }
    let mut seen = Vec::new();
    let mut selected: Vec<String> = Vec::new();
    let mut chosen = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        let text = string(item, format!("{member}[{i}]"), source)?;
        let points = match known.select(kind, text) {
            Ok(points) => points,
            Err(error) => {
                let message = match error.kind() {
                    SelectionErrorKind::UnknownName { known, .. } if !text.contains('[') => {
                        format!("names {kind_name} {text:?}, which the repository does not declare (it has: {known})")
                    }
                    _ => error.to_string(),
                };
                return Err(invalid(source, item.span(), format!("{member}[{i}]"), message));
            }
        };
        if seen.contains(&text) {
            return Err(invalid(source, item.span(), format!("{member}[{i}]"), format!("names {text:?} twice")));
        }
        seen.push(text);
        for point in points {
            if chosen.insert(point) {
                selected.push(point.to_owned());
            }
        }
    }
    Ok(Some(selected))
}

fn seed(value: &Value_<'_>, key: String, source: &Source<'_>) -> Result<SafeUint, CheckError> {
    let found = match to_json(value, &key, source)? {
        Value::Number(number) => number.as_u64().and_then(|n| SafeUint::try_from(n).ok()),
        _ => None,
    };
    found.ok_or_else(|| {
        invalid(source, value.span(), key, "must be a seed: a whole number from 0 to 9007199254740991".to_owned())
    })
}

/// Checks a seed axis, if written: a nonempty list of distinct seeds, or a range `{ from, count }` of at least one seed
/// that stays within the safe integers.
fn check_seeds(table: &Table<'_, '_>, key: &str, source: &Source<'_>) -> Result<(), CheckError> {
    let Some(value) = table.get(key) else { return Ok(()) };
    let member = table.member(key);
    match value.get_ref() {
        DeValue::Array(items) => {
            if items.is_empty() {
                return Err(invalid(source, value.span(), member, "is empty: give at least one seed".to_owned()));
            }
            let mut list = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let seed = seed(item, format!("{member}[{i}]"), source)?;
                if list.contains(&seed) {
                    return Err(invalid(
                        source,
                        item.span(),
                        format!("{member}[{i}]"),
                        format!("lists seed {seed} twice"),
                    ));
                }
                list.push(seed);
            }
            Ok(())
        }
        DeValue::Table(_) => {
            let range = table.table(key, value, source)?;
            range.only(definition::SeedRange::PROPERTIES, source)?;
            let from = seed(range.required("from", source)?, range.member("from"), source)?;
            let count_value = range.required("count", source)?;
            let count = match to_json(count_value, &range.member("count"), source)? {
                Value::Number(number) if number.as_u64().is_some_and(|n| n >= 1) => number.as_u64().unwrap_or(1),
                _ => {
                    return Err(invalid(
                        source,
                        count_value.span(),
                        range.member("count"),
                        "must be a whole number of at least 1".to_owned(),
                    ));
                }
            };
            if count - 1 > SafeUint::MAX.get() - from.get() {
                return Err(invalid(
                    source,
                    count_value.span(),
                    range.member("count"),
                    format!(
                        "is {count}: seeds from {from} would pass 9007199254740991, the largest seed; lower it to at \
                         most {}",
                        SafeUint::MAX.get() - from.get() + 1
                    ),
                ));
            }
            Ok(())
        }
        other => Err(wrong_type(source, value.span(), member, "a list of seeds or a table { from, count }", other)),
    }
}

/// Every campaign by name.
pub(crate) type Campaigns = BTreeMap<String, CampaignSpec>;
