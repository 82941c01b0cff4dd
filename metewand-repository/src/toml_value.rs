//! Reading `metewand.toml`: tables whose keys are checked, values with their positions, TOML values mapped into
//! Metewand's JSON domain, and `${repo}` substitution.

use std::ffi::{OsStr, OsString};
use std::ops::Range;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use metewand_protocol::canonical::MAX_SAFE_INTEGER;
use serde_json::{Map, Number, Value};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::diagnostic::locate::line_column;
use crate::diagnostic::{CheckError, CheckErrorKind, Location, NotJsonReason};

/// The text of `metewand.toml` and its name, to turn spans into locations.
pub(crate) struct Source<'t> {
    pub text: &'t str,
    pub file: PathBuf,
}

impl Source<'_> {
    pub(crate) fn at(&self, span: Range<usize>) -> Location {
        Location { file: self.file.clone(), position: Some(line_column(self.text.as_bytes(), span.start)) }
    }

    pub(crate) fn error(&self, span: Range<usize>, kind: CheckErrorKind) -> CheckError {
        CheckError::new(self.at(span), kind)
    }
}

pub(crate) type Value_<'t> = Spanned<DeValue<'t>>;

/// A TOML table being read: its display name, the dotted key of its values, and the table.
pub(crate) struct Table<'a, 't> {
    pub name: String,
    pub key: String,
    pub table: &'a DeTable<'t>,
    pub span: Range<usize>,
}

impl<'a, 't> Table<'a, 't> {
    /// The value of a key, if present.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value_<'t>> {
        self.table.iter().find(|(name, _)| name.get_ref() == key).map(|(_, value)| value)
    }

    /// The dotted key of a member.
    pub(crate) fn member(&self, key: &str) -> String {
        if self.key.is_empty() { key.to_owned() } else { format!("{}.{}", self.key, quote_key(key)) }
    }

    /// Fails on the first key (in source order) that is not `allowed`: the property names the `repository-definition`
    /// schema gives the table, in its order, which the guess at a misspelt key is chosen from.
    pub(crate) fn only(&self, allowed: &[&str], source: &Source<'_>) -> Result<(), CheckError> {
        let mut unknown: Vec<_> =
            self.table.iter().filter(|(name, _)| !allowed.contains(&name.get_ref().as_ref())).collect();
        unknown.sort_by_key(|(name, _)| name.span().start);
        match unknown.first() {
            Some((name, _)) => Err(source.error(
                name.span(),
                CheckErrorKind::UnknownKey {
                    table: self.name.clone(),
                    key: name.get_ref().to_string(),
                    suggestion: crate::diagnostic::did_you_mean(name.get_ref(), allowed.iter().copied())
                        .map(str::to_owned),
                },
            )),
            None => Ok(()),
        }
    }

    /// The value of a required key.
    pub(crate) fn required(&self, key: &str, source: &Source<'_>) -> Result<&'a Value_<'t>, CheckError> {
        self.get(key).ok_or_else(|| {
            source
                .error(self.span.clone(), CheckErrorKind::MissingKey { table: self.name.clone(), key: key.to_owned() })
        })
    }

    /// The members of the table, in source order.
    pub(crate) fn entries(&self) -> Vec<(&'a Spanned<std::borrow::Cow<'t, str>>, &'a Value_<'t>)> {
        let mut entries: Vec<_> = self.table.iter().collect();
        entries.sort_by_key(|(name, _)| name.span().start);
        entries
    }

    /// The table decoded as its generated type, once the checks with positions passed. They accept only what the
    /// schema accepts, so a decoding error would be their mistake; it is reported at the table all the same.
    pub(crate) fn decode<T: serde::de::DeserializeOwned>(&self, source: &Source<'_>) -> Result<T, CheckError> {
        let value = Spanned::new(self.span.clone(), DeValue::Table(self.table.clone()));
        serde_json::from_value(to_json(&value, &self.key, source)?).map_err(|error| {
            let kind = CheckErrorKind::InvalidValue {
                key: self.key.clone(),
                message: crate::diagnostic::sentence(&error.to_string()),
            };
            source.error(self.span.clone(), kind)
        })
    }

    /// A sub-table.
    pub(crate) fn table(
        &self,
        key: &str,
        value: &'a Value_<'t>,
        source: &Source<'_>,
    ) -> Result<Table<'a, 't>, CheckError> {
        let dotted = self.member(key);
        match value.get_ref() {
            DeValue::Table(table) => Ok(Table { name: format!("[{dotted}]"), key: dotted, table, span: value.span() }),
            other => Err(wrong_type(source, value.span(), dotted, "a table", other)),
        }
    }
}

/// A key as written in a dotted key: bare when it can be, quoted otherwise.
pub(crate) fn quote_key(key: &str) -> String {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        key.to_owned()
    } else {
        format!("{key:?}")
    }
}

fn type_name(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date or time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

pub(crate) fn wrong_type(
    source: &Source<'_>,
    span: Range<usize>,
    key: String,
    expected: &'static str,
    found: &DeValue<'_>,
) -> CheckError {
    source.error(span, CheckErrorKind::WrongType { key, expected, found: type_name(found) })
}

/// A boolean value.
pub(crate) fn boolean(value: &Value_<'_>, key: String, source: &Source<'_>) -> Result<bool, CheckError> {
    match value.get_ref() {
        DeValue::Boolean(flag) => Ok(*flag),
        other => Err(wrong_type(source, value.span(), key, "a boolean", other)),
    }
}

/// A string value.
pub(crate) fn string<'a>(value: &'a Value_<'_>, key: String, source: &Source<'_>) -> Result<&'a str, CheckError> {
    match value.get_ref() {
        DeValue::String(text) => Ok(text),
        other => Err(wrong_type(source, value.span(), key, "a string", other)),
    }
}

/// An array of strings, each with its span.
pub(crate) fn strings<'a>(
    value: &'a Value_<'_>,
    key: &str,
    source: &Source<'_>,
) -> Result<Vec<(&'a str, Range<usize>)>, CheckError> {
    let DeValue::Array(items) = value.get_ref() else {
        return Err(wrong_type(source, value.span(), key.to_owned(), "an array of strings", value.get_ref()));
    };
    items.iter().enumerate().map(|(i, item)| Ok((string(item, format!("{key}[{i}]"), source)?, item.span()))).collect()
}

/// `metewand.toml` parsed with the spans of its keys and values; a TOML error is a [`CheckError`] at its position.
pub(crate) fn parse_document<'t>(source: &Source<'t>) -> Result<Spanned<DeTable<'t>>, CheckError> {
    DeTable::parse(source.text).map_err(|error| {
        let span = error.span().unwrap_or(0..0);
        source.error(span, CheckErrorKind::Toml { message: crate::diagnostic::sentence(error.message()) })
    })
}

/// The text of a `metewand.toml` as a value of the JSON domain, mapped exactly as the check maps it: the document
/// the `repository-definition` schema describes. A TOML error, or a value the JSON domain does not hold, is a
/// [`CheckError`] at its position in `metewand.toml`; nothing else is checked.
///
/// ```
/// let value = metewand_repository::definition_json("format = 1.0\n[timeouts]\nexecute = 2.5\n").unwrap();
/// assert_eq!(value, serde_json::json!({"format": 1, "timeouts": {"execute": 2.5}}));
/// let error = metewand_repository::definition_json("format = 1\nwhen = 2024-01-01\n").unwrap_err();
/// assert_eq!(error.location().position, Some((2, 8)));
/// ```
pub fn definition_json(text: &str) -> Result<Value, CheckError> {
    let source = Source { text, file: PathBuf::from(crate::MANIFEST_FILE) };
    let document = parse_document(&source)?;
    to_json(&Spanned::new(0..0, DeValue::Table(document.into_inner())), "", &source)
}

/// A TOML value as a value of the JSON domain: dates and times, `nan`, infinities and integers beyond ±(2^53 − 1)
/// are errors at their position. Numbers are values: an integral float within the safe range is an integer.
pub(crate) fn to_json(value: &Value_<'_>, key: &str, source: &Source<'_>) -> Result<Value, CheckError> {
    let not_json = |reason| source.error(value.span(), CheckErrorKind::NotJson { key: key.to_owned(), reason });
    Ok(match value.get_ref() {
        DeValue::String(text) => Value::String(text.to_string()),
        DeValue::Boolean(flag) => Value::Bool(*flag),
        DeValue::Datetime(_) => return Err(not_json(NotJsonReason::DateTime)),
        DeValue::Integer(integer) => {
            let parsed = i128::from_str_radix(integer.as_str(), integer.radix()).ok();
            match parsed.and_then(|n| i64::try_from(n).ok()).filter(|n| n.unsigned_abs() <= MAX_SAFE_INTEGER) {
                Some(n) => Value::Number(Number::from(n)),
                None => return Err(not_json(NotJsonReason::IntegerOutOfRange)),
            }
        }
        DeValue::Float(float) => {
            let text = float.as_str();
            if text.contains("nan") {
                return Err(not_json(NotJsonReason::NotANumber));
            }
            let number: f64 = text.parse().map_err(|_| not_json(NotJsonReason::NotANumber))?;
            if !number.is_finite() {
                return Err(not_json(NotJsonReason::Infinite));
            }
            json_number(number)
        }
        DeValue::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| to_json(item, &format!("{key}[{i}]"), source))
                .collect::<Result<_, _>>()?,
        ),
        DeValue::Table(table) => {
            let mut object = Map::new();
            let mut entries: Vec<_> = table.iter().collect();
            entries.sort_by_key(|(name, _)| name.span().start);
            for (name, item) in entries {
                let member = if key.is_empty() {
                    quote_key(name.get_ref())
                } else {
                    format!("{key}.{}", quote_key(name.get_ref()))
                };
                object.insert(name.get_ref().to_string(), to_json(item, &member, source)?);
            }
            Value::Object(object)
        }
    })
}

/// A finite double as the JSON domain holds it: an integer when its value is one within ±(2^53 − 1).
pub(crate) fn json_number(number: f64) -> Value {
    if number.fract() == 0.0 && number.abs() <= MAX_SAFE_INTEGER as f64 {
        // In range and integral, so the conversion is exact; -0 becomes 0.
        Value::Number(Number::from(number as i64))
    } else {
        Number::from_f64(number).map_or(Value::Null, Value::Number)
    }
}

/// Checks that a command or env value uses no substitution but `${repo}` (and `$${` for a literal `${`), returning
/// the first other one found.
pub(crate) fn check_substitutions(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let tail = &rest[at..];
        rest = if let Some(after) = tail.strip_prefix("$${") {
            after
        } else if let Some(after) = tail.strip_prefix("${repo}") {
            after
        } else if tail.starts_with("${") {
            let end = tail.find('}').map_or(tail.len(), |end| end + 1);
            return Err(tail[..end].to_owned());
        } else {
            &tail[1..]
        };
    }
    Ok(())
}

/// Expands `${repo}` to the repository's path and `$${` to `${` in a command or env value the check accepted.
///
/// ```
/// # use std::ffi::OsStr;
/// # use metewand_repository::expand;
/// assert_eq!(expand("${repo}/bin:$${PATH}", OsStr::new("/r")), "/r/bin:${PATH}");
/// assert_eq!(expand("$$${repo}", OsStr::new("/r")), "$${repo}");
/// assert_eq!(expand("cost: $5", OsStr::new("/r")), "cost: $5");
/// ```
pub fn expand(text: &str, repo: &OsStr) -> OsString {
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        let tail = &rest[at..];
        rest = if let Some(after) = tail.strip_prefix("$${") {
            out.extend_from_slice(b"${");
            after
        } else if let Some(after) = tail.strip_prefix("${repo}") {
            out.extend_from_slice(repo.as_bytes());
            after
        } else {
            out.push(b'$');
            &tail[1..]
        };
    }
    out.extend_from_slice(rest.as_bytes());
    OsString::from_vec(out)
}
