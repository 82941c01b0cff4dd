//! Parameter grids: a definition's `grid = { key = [v1, ...] }` checked with positions and expanded into its points,
//! each named `NAME[key=value,...]` (keys in byte order, values in canonical JSON), and the selections that name
//! every point of a grid (`NAME`) or some of them (`NAME[key=value]`).
//!
//! A point is an ordinary definition whose parameters are the grid's values merged over `parameters`: its identity
//! is its resolved parameters, so a plain definition with the same parameters has the same ids, and adding a value
//! to a grid adds points without changing any other.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use metewand_protocol as protocol;
use metewand_protocol::strict::JsonObject;
use serde_json::Value;
use toml::de::DeValue;

use crate::diagnostic::{CheckError, CheckErrorKind, did_you_mean};
use crate::toml_value::{Source, Table, to_json, wrong_type};

/// The most values one key of a grid may list.
pub const MAX_GRID_VALUES: usize = 1000;

/// The most points one grid may make.
pub const MAX_GRID_POINTS: u64 = 100_000;

/// One key of a checked grid: its values in the order written, and where the list is.
#[derive(Clone, Debug)]
pub(crate) struct GridAxis {
    pub key: String,
    /// Its dotted key in `metewand.toml`.
    pub member: String,
    pub values: Vec<Value>,
    pub span: Range<usize>,
}

/// A definition's grid: its keys in byte order, and each point's name and values (one per key, in that order), in
/// the order of the product (the first key's values vary slowest, each list in the order written).
#[derive(Clone, Debug, Default)]
pub struct Grid {
    keys: Vec<String>,
    /// Each key's values, in the order written.
    values: Vec<Vec<Value>>,
    /// Each key's values in canonical JSON, as a selection names them: made once, since a plan selects every point.
    canonical: Vec<Vec<String>>,
    points: Vec<(String, Vec<Value>)>,
}

impl Grid {
    /// The grid's keys, in byte order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }
    /// The points' names, in the order of the product.
    pub fn points(&self) -> impl Iterator<Item = &str> {
        self.points.iter().map(|(name, _)| name.as_str())
    }
}

/// The kind of definition a name selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefinitionKind {
    /// `[datasets.NAME]`.
    Dataset,
    /// `[problems.NAME]`.
    Problem,
    /// `[implementations.NAME]`.
    Implementation,
}

impl DefinitionKind {
    /// The kind as a word: `dataset`, `problem`, `implementation`.
    pub fn as_str(self) -> &'static str {
        match self {
            DefinitionKind::Dataset => "dataset",
            DefinitionKind::Problem => "problem",
            DefinitionKind::Implementation => "implementation",
        }
    }
}

/// A selection that names no definition or no point: its [`SelectionErrorKind`], boxed, so that a result that may
/// hold one stays small.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(transparent)]
pub struct SelectionError(Box<SelectionErrorKind>);

impl SelectionError {
    /// What is wrong.
    pub fn kind(&self) -> &SelectionErrorKind {
        &self.0
    }
    /// What is wrong, owned.
    pub fn into_kind(self) -> SelectionErrorKind {
        *self.0
    }
}

impl From<SelectionErrorKind> for SelectionError {
    fn from(kind: SelectionErrorKind) -> SelectionError {
        SelectionError(Box::new(kind))
    }
}

/// What a selection that names nothing got wrong.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SelectionErrorKind {
    /// Neither a definition nor a grid of that name.
    #[error("the repository has no {kind} named {name:?}{} (it has: {known})", suffix(.suggestion))]
    UnknownName {
        /// `dataset`, `problem` or `implementation`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The closest name it has, if one is close.
        suggestion: Option<String>,
        /// What it has (plain names and grids' names), comma-separated.
        known: String,
    },
    /// `NAME[...]` where NAME has no grid.
    #[error("{kind} {name:?} has no grid, so {selection:?} names no point of it; name it {name:?}")]
    NoGrid {
        /// The kind.
        kind: &'static str,
        /// The definition's name.
        name: String,
        /// The selection as given.
        selection: String,
    },
    /// A key the grid does not have.
    #[error("{kind} {name:?} has no grid key {key:?}{} (its keys: {known})", suffix(.suggestion))]
    UnknownKey {
        /// The kind.
        kind: &'static str,
        /// The grid's name.
        name: String,
        /// The key given.
        key: String,
        /// The closest key, if one is close.
        suggestion: Option<String>,
        /// The grid's keys, comma-separated.
        known: String,
    },
    /// A value the grid's key does not list.
    #[error("{kind} {name:?} has no point with {key}={value}{} (its values: {known})", suffix(.suggestion))]
    UnknownValue {
        /// The kind.
        kind: &'static str,
        /// The grid's name.
        name: String,
        /// The key.
        key: String,
        /// The value given, in canonical JSON.
        value: String,
        /// The closest value, if one is close.
        suggestion: Option<String>,
        /// The key's values, comma-separated.
        known: String,
    },
    /// Text that is not `NAME` or `NAME[key=value,...]`.
    #[error("{selection:?} is not a {kind} selection: write NAME, or NAME[key=value,...] for points of a grid")]
    Malformed {
        /// The kind.
        kind: &'static str,
        /// The selection as given.
        selection: String,
    },
}

fn suffix(suggestion: &Option<String>) -> String {
    suggestion.as_ref().map_or_else(String::new, |close| format!(" (did you mean {close:?}?)"))
}

/// The names of one kind of definition: those without a grid, and each grid by its name.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub(crate) plain: BTreeSet<String>,
    pub(crate) grids: BTreeMap<String, Grid>,
}

impl Names {
    /// The grid named `name`, if there is one.
    pub fn grid(&self, name: &str) -> Option<&Grid> {
        self.grids.get(name)
    }

    /// Every grid, by name.
    pub fn grids(&self) -> &BTreeMap<String, Grid> {
        &self.grids
    }

    /// The names of the definitions `selection` names: a plain definition's name, or a point's, names itself; a
    /// grid's name every point of it; `NAME[key=value,...]` the points of grid NAME with those values (all of its
    /// keys give one point). Values are compared as JSON values (`2000` and `2000.0` are one), and one that is not
    /// JSON is a string (`solver=lbfgs` is `solver="lbfgs"`).
    pub fn select(&self, kind: DefinitionKind, selection: &str) -> Result<Vec<&str>, SelectionError> {
        if let Some(plain) = self.plain.get(selection) {
            return Ok(vec![plain.as_str()]);
        }
        let kind_name = kind.as_str();
        let malformed =
            || SelectionError::from(SelectionErrorKind::Malformed { kind: kind_name, selection: selection.to_owned() });
        let (name, filter) = match selection.split_once('[') {
            None => (selection, None),
            Some((name, rest)) => (name, Some(rest.strip_suffix(']').ok_or_else(malformed)?)),
        };
        let Some(grid) = self.grids.get(name) else {
            if self.plain.contains(name) {
                let name = name.to_owned();
                return Err(
                    SelectionErrorKind::NoGrid { kind: kind_name, name, selection: selection.to_owned() }.into()
                );
            }
            let known: Vec<&str> = self.plain.iter().chain(self.grids.keys()).map(String::as_str).collect();
            return Err(SelectionError::from(SelectionErrorKind::UnknownName {
                kind: kind_name,
                name: name.to_owned(),
                suggestion: did_you_mean(name, known.iter().copied()).map(str::to_owned),
                known: if known.is_empty() { "none".to_owned() } else { known.join(", ") },
            }));
        };
        let Some(filter) = filter else { return Ok(grid.points().collect()) };
        let mut wanted: Vec<(usize, &Value)> = Vec::new();
        let mut positions: Vec<Option<usize>> = vec![None; grid.keys.len()];
        for (key, value) in parse_filter(filter).ok_or_else(malformed)? {
            let Some(index) = grid.keys.iter().position(|known| *known == key) else {
                return Err(SelectionError::from(SelectionErrorKind::UnknownKey {
                    kind: kind_name,
                    name: name.to_owned(),
                    suggestion: did_you_mean(&key, grid.keys.iter().map(String::as_str)).map(str::to_owned),
                    key,
                    known: grid.keys.join(", "),
                }));
            };
            let canonical = protocol::to_canonical_string(&value);
            let listed = &grid.canonical[index];
            let Some(position) = listed.iter().position(|text| *text == canonical) else {
                let value = canonical;
                return Err(SelectionError::from(SelectionErrorKind::UnknownValue {
                    kind: kind_name,
                    name: name.to_owned(),
                    suggestion: did_you_mean(&value, listed.iter().map(String::as_str)).map(str::to_owned),
                    value,
                    key,
                    known: listed.join(", "),
                }));
            };
            // A point holds a clone of its key's value: equal as values, exactly.
            wanted.push((index, &grid.values[index][position]));
            positions[index] = Some(position);
        }
        // A filter naming every key names one point, found by its place in the product rather than by a scan: a
        // campaign's plan selects each of its points by name, and a scan per point grows with the square of the grid.
        if let Some(positions) = positions.into_iter().collect::<Option<Vec<usize>>>()
            && wanted.len() == grid.keys.len()
        {
            let place =
                positions.iter().zip(&grid.values).fold(0, |place, (position, values)| place * values.len() + position);
            return Ok(grid.points.get(place).map(|(name, _)| name.as_str()).into_iter().collect());
        }
        Ok(grid
            .points
            .iter()
            .filter(|(_, values)| wanted.iter().all(|(index, value)| values[*index] == **value))
            .map(|(name, _)| name.as_str())
            .collect())
    }
}

/// A point's name split into its grid's name and its values by key (`small[rows=200]` is `small` and `rows` 200);
/// `None` for a name without a grid. Read from the name alone, so that a campaign's exports need no repository.
pub fn point_values(name: &str) -> Option<(&str, Vec<(String, Value)>)> {
    let (base, rest) = name.split_once('[')?;
    Some((base, parse_filter(rest.strip_suffix(']')?)?))
}

/// `key=value,...` as pairs: each value a JSON value, or up to the next comma a string.
fn parse_filter(text: &str) -> Option<Vec<(String, Value)>> {
    let mut pairs = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        if key.is_empty() || key.contains(',') {
            return None;
        }
        let mut stream = serde_json::Deserializer::from_str(after).into_iter::<Value>();
        let (value, used) = match stream.next() {
            Some(Ok(value))
                if after[stream.byte_offset()..].is_empty() || after[stream.byte_offset()..].starts_with(',') =>
            {
                (value, stream.byte_offset())
            }
            _ => {
                let end = after.find(',').unwrap_or(after.len());
                (Value::String(after[..end].to_owned()), end)
            }
        };
        pairs.push((key.to_owned(), value));
        rest = &after[used..];
        if let Some(next) = rest.strip_prefix(',') {
            if next.is_empty() {
                return None;
            }
            rest = next;
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

/// The name of the point of `name` with these values, one per key: `name[key=value,...]`, keys in byte order
/// (as given), values in canonical JSON.
pub fn point_name(name: &str, coordinates: &[(&str, &Value)]) -> String {
    let pairs: Vec<String> =
        coordinates.iter().map(|(key, value)| format!("{key}={}", protocol::to_canonical_string(value))).collect();
    format!("{name}[{}]", pairs.join(","))
}

/// Checks a definition's `grid` table, if written, against its `parameters`: each key a nonempty list of at most
/// [`MAX_GRID_VALUES`] distinct values, no key also in `parameters`, at most [`MAX_GRID_POINTS`] points. Returns
/// the keys in byte order.
pub(crate) fn check_grid(
    table: &Table<'_, '_>,
    parameters: &JsonObject,
    owner: &str,
    source: &Source<'_>,
) -> Result<Vec<GridAxis>, CheckError> {
    let Some(value) = table.get("grid") else { return Ok(Vec::new()) };
    let grid = table.table("grid", value, source)?;
    let invalid = |span: Range<usize>, key: String, message: String| {
        source.error(span, CheckErrorKind::InvalidValue { key, message })
    };
    let mut axes = Vec::new();
    for (key, list) in grid.entries() {
        let member = grid.member(key.get_ref());
        if parameters.contains_key(key.get_ref().as_ref()) {
            let message = format!(
                "is also a key of {owner}'s parameters: a key takes its values from parameters or from the grid, not both"
            );
            return Err(invalid(key.span(), member, message));
        }
        let DeValue::Array(items) = list.get_ref() else {
            return Err(wrong_type(source, list.span(), member, "a list of values", list.get_ref()));
        };
        if items.is_empty() || items.len() > MAX_GRID_VALUES {
            let message =
                format!("lists {} values; a grid's key lists from 1 to {MAX_GRID_VALUES} values", items.len());
            return Err(invalid(list.span(), member, message));
        }
        let mut values: Vec<Value> = Vec::with_capacity(items.len());
        let mut seen = BTreeSet::new();
        for (i, item) in items.iter().enumerate() {
            let value = to_json(item, &format!("{member}[{i}]"), source)?;
            if !seen.insert(protocol::to_canonical_vec(&value)) {
                let message =
                    format!("lists {} twice: each value makes one point", protocol::to_canonical_string(&value));
                return Err(invalid(item.span(), format!("{member}[{i}]"), message));
            }
            values.push(value);
        }
        axes.push(GridAxis { key: key.get_ref().to_string(), member, values, span: list.span() });
    }
    if axes.is_empty() {
        let message = "is empty: a grid names at least one key and its values".to_owned();
        return Err(invalid(value.span(), table.member("grid"), message));
    }
    let points = axes.iter().try_fold(1u64, |product, axis| product.checked_mul(axis.values.len() as u64));
    if points.is_none_or(|points| points > MAX_GRID_POINTS) {
        let sizes: Vec<String> = axes.iter().map(|axis| axis.values.len().to_string()).collect();
        let message = format!(
            "makes {} points, more than the {MAX_GRID_POINTS} a grid may make",
            points.map_or_else(|| sizes.join(" x "), |points| format!("{} = {points}", sizes.join(" x ")))
        );
        return Err(invalid(value.span(), table.member("grid"), message));
    }
    axes.sort_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
    Ok(axes)
}

/// Checks that each key of a grid is a parameter its schema `document` names, when the schema names every one it
/// allows (`additionalProperties: false` beside `properties`): a misspelt key would otherwise be refused once per
/// point.
pub(crate) fn check_keys(
    axes: &[GridAxis],
    schema_id: &str,
    document: Option<&Value>,
    source: &Source<'_>,
) -> Result<(), CheckError> {
    let Some(document) = document.filter(|document| document.get("additionalProperties") == Some(&Value::Bool(false)))
    else {
        return Ok(());
    };
    let Some(properties) = document.get("properties").and_then(Value::as_object) else { return Ok(()) };
    match axes.iter().find(|axis| !properties.contains_key(&axis.key)) {
        None => Ok(()),
        Some(axis) => {
            let guess = did_you_mean(&axis.key, properties.keys().map(String::as_str))
                .map_or_else(String::new, |close| format!(" (did you mean {close:?}?)"));
            let message = format!("is not a parameter {schema_id} allows{guess}");
            Err(source.error(axis.span.clone(), CheckErrorKind::InvalidValue { key: axis.member.clone(), message }))
        }
    }
}

/// A grid's points, in the order of the product: each one's name, its parameters (the grid's values merged over
/// `parameters`) and its values, one per key.
pub(crate) fn points(name: &str, parameters: &JsonObject, axes: &[GridAxis]) -> Vec<(String, JsonObject, Vec<Value>)> {
    let count: usize = axes.iter().map(|axis| axis.values.len()).product();
    let mut out = Vec::with_capacity(count);
    for point in 0..count {
        // The last key varies fastest: take each key's position from the end.
        let mut index = point;
        let mut picked: Vec<&Value> = vec![&Value::Null; axes.len()];
        for (slot, axis) in picked.iter_mut().zip(axes).rev() {
            *slot = &axis.values[index % axis.values.len()];
            index /= axis.values.len();
        }
        let mut merged = parameters.clone();
        for (axis, value) in axes.iter().zip(&picked) {
            merged.insert(axis.key.clone(), (*value).clone());
        }
        let coordinates: Vec<(&str, &Value)> =
            axes.iter().map(|axis| axis.key.as_str()).zip(picked.iter().copied()).collect();
        out.push((point_name(name, &coordinates), merged, picked.into_iter().cloned().collect()));
    }
    out
}

/// The grid of these points: its keys and the points' names and values.
pub(crate) fn grid_of(axes: &[GridAxis], points: &[(String, JsonObject, Vec<Value>)]) -> Grid {
    Grid {
        keys: axes.iter().map(|axis| axis.key.clone()).collect(),
        values: axes.iter().map(|axis| axis.values.clone()).collect(),
        canonical: axes.iter().map(|axis| axis.values.iter().map(protocol::to_canonical_string).collect()).collect(),
        points: points.iter().map(|(name, _, values)| (name.clone(), values.clone())).collect(),
    }
}
