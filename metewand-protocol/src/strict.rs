//! Checked types for the constraints typify leaves unchecked: 53-bit integers and narrower ranges, positive numbers,
//! lists of unique items, nonempty lists, free-form JSON objects and constants ([`Constant`]); and [`Pattern`],
//! which generated types check a schema's `pattern` with.
//!
//! The generated types use these wherever a schema says `minimum`/`maximum`, `uniqueItems` or `minItems`, so a
//! value that breaks the constraint cannot be deserialized, and cannot be built by hand either: the fields are
//! private and the only ways in are the checked `TryFrom` conversions.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Unexpected, Visitor};
use serde::{Serialize, Serializer};

/// A JSON object whose members the schema does not constrain (parameters, statistics, details, data).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// An integer from 0 to 2^53 − 1: exactly representable as an IEEE-754 double, so every JSON reader sees the
/// same value.
///
/// ```
/// use metewand_protocol::strict::SafeUint;
///
/// assert_eq!(SafeUint::try_from(17_u64).unwrap().get(), 17);
/// assert!(SafeUint::try_from(SafeUint::MAX.get() + 1).is_err());
/// // A JSON reader may spell 17 as 17.0; it is the integer 17 all the same.
/// let seed: SafeUint = serde_json::from_str("17.0").unwrap();
/// assert_eq!(seed.get(), 17);
/// assert!(serde_json::from_str::<SafeUint>("17.5").is_err());
/// assert!(serde_json::from_str::<SafeUint>("true").is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SafeUint(u64);

/// A value outside a checked type's domain.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintError {
    /// An integer outside 0..=2^53 − 1.
    #[error("{0} is outside the safe integer range 0..=9007199254740991")]
    OutOfRange(String),
    /// An integral value was expected.
    #[error("{0} is not an integer")]
    NotAnInteger(String),
    /// A list that must hold each item at most once holds one twice.
    #[error("items {first} and {second} are equal, but the list must hold each item at most once")]
    Duplicate {
        /// The index of the item's first occurrence.
        first: usize,
        /// The index of its repetition.
        second: usize,
    },
    /// A list that must not be empty is.
    #[error("the list is empty, but must hold at least one item")]
    Empty,
    /// A number that must be finite and greater than zero is not.
    #[error("{0} is not a finite number greater than zero")]
    NotPositive(String),
    /// An integer outside the bounds a schema gives it.
    #[error("{value} is outside the range {min}..={max}")]
    OutOfBounds {
        /// The integer.
        value: u64,
        /// The least the schema allows.
        min: u64,
        /// The most the schema allows.
        max: u64,
    },
}

impl SafeUint {
    /// The largest safe integer, 2^53 − 1.
    pub const MAX: SafeUint = SafeUint((1 << 53) - 1);
    /// Zero.
    pub const ZERO: SafeUint = SafeUint(0);

    /// The integer.
    pub fn get(self) -> u64 {
        self.0
    }

    /// Checks an integral `f64` (as a JSON reader may hand one over) and converts it.
    pub fn from_f64(value: f64) -> Result<SafeUint, ConstraintError> {
        if value.fract() != 0.0 || !value.is_finite() {
            return Err(ConstraintError::NotAnInteger(value.to_string()));
        }
        if !(0.0..=Self::MAX.0 as f64).contains(&value) {
            return Err(ConstraintError::OutOfRange(value.to_string()));
        }
        // In range and integral, so the conversion is exact.
        Ok(SafeUint(value as u64))
    }
}

impl TryFrom<u64> for SafeUint {
    type Error = ConstraintError;

    fn try_from(value: u64) -> Result<SafeUint, ConstraintError> {
        if value > Self::MAX.0 {
            return Err(ConstraintError::OutOfRange(value.to_string()));
        }
        Ok(SafeUint(value))
    }
}

impl TryFrom<i64> for SafeUint {
    type Error = ConstraintError;

    fn try_from(value: i64) -> Result<SafeUint, ConstraintError> {
        u64::try_from(value).map_err(|_| ConstraintError::OutOfRange(value.to_string()))?.try_into()
    }
}

impl From<u32> for SafeUint {
    fn from(value: u32) -> SafeUint {
        SafeUint(u64::from(value))
    }
}

impl From<SafeUint> for u64 {
    fn from(value: SafeUint) -> u64 {
        value.0
    }
}

impl fmt::Display for SafeUint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for SafeUint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for SafeUint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SafeUint, D::Error> {
        struct SafeUintVisitor;

        impl Visitor<'_> for SafeUintVisitor {
            type Value = SafeUint;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("an integer from 0 to 9007199254740991")
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<SafeUint, E> {
                SafeUint::try_from(value).map_err(|_| E::invalid_value(Unexpected::Unsigned(value), &self))
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<SafeUint, E> {
                SafeUint::try_from(value).map_err(|_| E::invalid_value(Unexpected::Signed(value), &self))
            }

            fn visit_f64<E: de::Error>(self, value: f64) -> Result<SafeUint, E> {
                SafeUint::from_f64(value).map_err(|_| E::invalid_value(Unexpected::Float(value), &self))
            }
        }

        deserializer.deserialize_any(SafeUintVisitor)
    }
}

/// An integer from `MIN` to `MAX`, both within the safe range: a schema's integer with other bounds than a
/// [`SafeUint`]'s, such as a count of at least 1.
///
/// ```
/// use metewand_protocol::strict::BoundedUint;
///
/// let checkpoints: BoundedUint<1, 1000> = serde_json::from_str("12").unwrap();
/// assert_eq!(checkpoints.get(), 12);
/// assert!(serde_json::from_str::<BoundedUint<1, 1000>>("0").is_err());
/// assert!(serde_json::from_str::<BoundedUint<1, 1000>>("1001").is_err());
/// assert!(serde_json::from_str::<BoundedUint<1, 1000>>("2.5").is_err());
/// assert!(BoundedUint::<1, 1000>::try_from(1000_u64).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoundedUint<const MIN: u64, const MAX: u64>(u64);

impl<const MIN: u64, const MAX: u64> BoundedUint<MIN, MAX> {
    /// The integer.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl<const MIN: u64, const MAX: u64> TryFrom<u64> for BoundedUint<MIN, MAX> {
    type Error = ConstraintError;

    fn try_from(value: u64) -> Result<Self, ConstraintError> {
        if (MIN..=MAX.min(SafeUint::MAX.0)).contains(&value) {
            Ok(BoundedUint(value))
        } else {
            Err(ConstraintError::OutOfBounds { value, min: MIN, max: MAX })
        }
    }
}

impl<const MIN: u64, const MAX: u64> From<BoundedUint<MIN, MAX>> for u64 {
    fn from(value: BoundedUint<MIN, MAX>) -> u64 {
        value.0
    }
}

impl<const MIN: u64, const MAX: u64> fmt::Display for BoundedUint<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<const MIN: u64, const MAX: u64> Serialize for BoundedUint<MIN, MAX> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

impl<'de, const MIN: u64, const MAX: u64> Deserialize<'de> for BoundedUint<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = SafeUint::deserialize(deserializer)?;
        BoundedUint::try_from(value.get()).map_err(de::Error::custom)
    }
}

/// A finite number greater than zero: the schemas' `{"type": "number", "exclusiveMinimum": 0}`, such as a duration in
/// seconds. An integral value serializes as an integer, as the JSON domain holds it.
///
/// ```
/// # use metewand_protocol::strict::PositiveNumber;
/// let seconds: PositiveNumber = serde_json::from_str("2.5").unwrap();
/// assert_eq!(seconds.get(), 2.5);
/// assert_eq!(serde_json::to_string(&PositiveNumber::try_from(3.0).unwrap()).unwrap(), "3");
/// assert!(serde_json::from_str::<PositiveNumber>("0").is_err());
/// assert!(serde_json::from_str::<PositiveNumber>("-1.5").is_err());
/// assert!(serde_json::from_str::<PositiveNumber>("\"1\"").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct PositiveNumber(f64);

impl PositiveNumber {
    /// The number.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl TryFrom<f64> for PositiveNumber {
    type Error = ConstraintError;

    fn try_from(value: f64) -> Result<PositiveNumber, ConstraintError> {
        if value.is_finite() && value > 0.0 {
            Ok(PositiveNumber(value))
        } else {
            Err(ConstraintError::NotPositive(value.to_string()))
        }
    }
}

impl Serialize for PositiveNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match SafeUint::from_f64(self.0) {
            Ok(integer) => integer.serialize(serializer),
            Err(_) => serializer.serialize_f64(self.0),
        }
    }
}

impl<'de> Deserialize<'de> for PositiveNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PositiveNumber, D::Error> {
        struct PositiveVisitor;

        impl Visitor<'_> for PositiveVisitor {
            type Value = PositiveNumber;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a finite number greater than zero")
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<PositiveNumber, E> {
                PositiveNumber::try_from(value as f64).map_err(|_| E::invalid_value(Unexpected::Unsigned(value), &self))
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<PositiveNumber, E> {
                PositiveNumber::try_from(value as f64).map_err(|_| E::invalid_value(Unexpected::Signed(value), &self))
            }

            fn visit_f64<E: de::Error>(self, value: f64) -> Result<PositiveNumber, E> {
                PositiveNumber::try_from(value).map_err(|_| E::invalid_value(Unexpected::Float(value), &self))
            }
        }

        deserializer.deserialize_any(PositiveVisitor)
    }
}

/// Finds the first repeated item, as the indices of both occurrences.
fn first_duplicate<T: PartialEq>(items: &[T]) -> Option<(usize, usize)> {
    // Lists under this constraint are short (capabilities, protocol versions); quadratic is cheaper than hashing.
    items.iter().enumerate().find_map(|(second, item)| {
        items[..second].iter().position(|earlier| earlier == item).map(|first| (first, second))
    })
}

macro_rules! unique_list {
    ($(#[$doc:meta])* $name:ident, non_empty = $non_empty:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name<T>(Vec<T>);

        impl<T> $name<T> {
            /// The items, in order.
            pub fn as_slice(&self) -> &[T] {
                &self.0
            }

            /// The items, in order.
            pub fn into_vec(self) -> Vec<T> {
                self.0
            }

            /// An iterator over the items.
            pub fn iter(&self) -> std::slice::Iter<'_, T> {
                self.0.iter()
            }
        }

        impl<T: PartialEq> TryFrom<Vec<T>> for $name<T> {
            type Error = ConstraintError;

            fn try_from(items: Vec<T>) -> Result<Self, ConstraintError> {
                if $non_empty && items.is_empty() {
                    return Err(ConstraintError::Empty);
                }
                if let Some((first, second)) = first_duplicate(&items) {
                    return Err(ConstraintError::Duplicate { first, second });
                }
                Ok($name(items))
            }
        }

        impl<T> std::ops::Deref for $name<T> {
            type Target = [T];

            fn deref(&self) -> &[T] {
                &self.0
            }
        }

        impl<'a, T> IntoIterator for &'a $name<T> {
            type Item = &'a T;
            type IntoIter = std::slice::Iter<'a, T>;

            fn into_iter(self) -> Self::IntoIter {
                self.0.iter()
            }
        }

        impl<T: Serialize> Serialize for $name<T> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(serializer)
            }
        }

        impl<'de, T: Deserialize<'de> + PartialEq> Deserialize<'de> for $name<T> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let items = Vec::<T>::deserialize(deserializer)?;
                $name::try_from(items).map_err(de::Error::custom)
            }
        }
    };
}

unique_list!(
    /// A list holding each item at most once, in the order given.
    ///
    /// ```
    /// use metewand_protocol::strict::UniqueVec;
    ///
    /// assert!(UniqueVec::try_from(vec!["one_shot", "applicability"]).is_ok());
    /// assert!(UniqueVec::try_from(vec!["one_shot", "one_shot"]).is_err());
    /// assert!(UniqueVec::<&str>::try_from(vec![]).is_ok());
    /// ```
    UniqueVec,
    non_empty = false
);

unique_list!(
    /// A list holding at least one item, and each item at most once, in the order given.
    ///
    /// ```
    /// use metewand_protocol::strict::NonEmptyUniqueVec;
    ///
    /// assert!(NonEmptyUniqueVec::try_from(vec![1, 2]).is_ok());
    /// assert!(NonEmptyUniqueVec::try_from(vec![1, 1]).is_err());
    /// assert!(NonEmptyUniqueVec::<u32>::try_from(vec![]).is_err());
    /// ```
    NonEmptyUniqueVec,
    non_empty = true
);

/// A list holding at least one item, in the order given; items may repeat (a program's arguments).
///
/// ```
/// use metewand_protocol::strict::NonEmptyVec;
///
/// assert!(NonEmptyVec::try_from(vec!["python3", "python3"]).is_ok());
/// assert!(NonEmptyVec::<&str>::try_from(vec![]).is_err());
/// assert!(serde_json::from_str::<NonEmptyVec<u32>>("[]").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NonEmptyVec<T>(Vec<T>);

impl<T> NonEmptyVec<T> {
    /// The items, in order.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// The items, in order.
    pub fn into_vec(self) -> Vec<T> {
        self.0
    }

    /// An iterator over the items.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }
}

impl<T> TryFrom<Vec<T>> for NonEmptyVec<T> {
    type Error = ConstraintError;

    fn try_from(items: Vec<T>) -> Result<Self, ConstraintError> {
        if items.is_empty() { Err(ConstraintError::Empty) } else { Ok(NonEmptyVec(items)) }
    }
}

impl<T> std::ops::Deref for NonEmptyVec<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<'a, T> IntoIterator for &'a NonEmptyVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: Serialize> Serialize for NonEmptyVec<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NonEmptyVec<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        NonEmptyVec::try_from(Vec::<T>::deserialize(deserializer)?).map_err(de::Error::custom)
    }
}

impl<T> UniqueVec<T> {
    /// The empty list.
    pub fn new() -> UniqueVec<T> {
        UniqueVec(Vec::new())
    }
}

impl<T> Default for UniqueVec<T> {
    fn default() -> UniqueVec<T> {
        UniqueVec::new()
    }
}

impl<T> NonEmptyUniqueVec<T> {
    /// A list of one item.
    pub fn one(item: T) -> NonEmptyUniqueVec<T> {
        NonEmptyUniqueVec(vec![item])
    }
}

/// Deserializes an optional field that is present: its value, never `null`.
///
/// Generated types use it for properties a schema makes optional but not nullable, where serde alone would read
/// `null` as absent; absence itself is handled by `#[serde(default)]`.
pub fn deserialize_present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// A deserializer that reads a struct only from a JSON object.
///
/// serde's derived structs also accept an array of their fields in order, which no schema allows. Generated types
/// deserialize through this wrapper, which turns the request for a struct into a request for a map.
pub struct ObjectOnly<D>(pub D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The value a schema's `const` fixes: a string, a boolean or a safe integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstValue {
    /// A string constant, such as a request's `method`.
    Str(&'static str),
    /// A boolean constant, such as a response's `ok`.
    Bool(bool),
    /// An integer constant, such as a document's `format`.
    Uint(u64),
}

impl fmt::Display for ConstValue {
    /// How a refusal names the constant: `the string "hello"`, `the boolean true`, `the integer 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::Str(text) => write!(f, "the string {}", serde_json::Value::from(*text)),
            ConstValue::Bool(flag) => write!(f, "the boolean {flag}"),
            ConstValue::Uint(number) => write!(f, "the integer {number}"),
        }
    }
}

/// The unit type generated for one `const` of a schema: it serializes as [`Constant::VALUE`] and deserializes from
/// that value and nothing else.
///
/// ```
/// use metewand_protocol::strict::{ConstValue, Constant};
///
/// let format: metewand_protocol::common::Format = serde_json::from_str("1").unwrap();
/// assert_eq!(serde_json::to_string(&format).unwrap(), "1");
/// assert_eq!(metewand_protocol::common::Format::VALUE, ConstValue::Uint(1));
/// // A JSON reader may spell 1 as 1.0; it is the integer 1 all the same.
/// assert!(serde_json::from_str::<metewand_protocol::common::Format>("1.0").is_ok());
/// assert!(serde_json::from_str::<metewand_protocol::common::Format>("2").is_err());
/// assert!(serde_json::from_str::<metewand_protocol::common::Format>("\"1\"").is_err());
/// ```
pub trait Constant: Default {
    /// The constant the type stands for.
    const VALUE: ConstValue;
}

/// Serializes the constant `C` stands for; each generated const type's `Serialize` calls it.
pub fn serialize_constant<C: Constant, S: Serializer>(serializer: S) -> Result<S::Ok, S::Error> {
    match C::VALUE {
        ConstValue::Str(text) => serializer.serialize_str(text),
        ConstValue::Bool(flag) => serializer.serialize_bool(flag),
        ConstValue::Uint(number) => serializer.serialize_u64(number),
    }
}

/// Deserializes `C` from its constant and refuses anything else; each generated const type's `Deserialize` calls
/// it.
pub fn deserialize_constant<'de, C: Constant, D: Deserializer<'de>>(deserializer: D) -> Result<C, D::Error> {
    deserializer.deserialize_any(ConstantVisitor(std::marker::PhantomData))
}

struct ConstantVisitor<C>(std::marker::PhantomData<C>);

impl<C: Constant> ConstantVisitor<C> {
    /// `C` when `matches`, otherwise a refusal: the wrong value of the constant's kind, or a value of another kind.
    fn check<E: de::Error>(self, same_kind: bool, matches: bool, unexpected: Unexpected<'_>) -> Result<C, E> {
        match (same_kind, matches) {
            (true, true) => Ok(C::default()),
            (true, false) => Err(E::invalid_value(unexpected, &self)),
            (false, _) => Err(E::invalid_type(unexpected, &self)),
        }
    }
}

impl<'de, C: Constant> Visitor<'de> for ConstantVisitor<C> {
    type Value = C;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", C::VALUE)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<C, E> {
        let (same_kind, matches) = match C::VALUE {
            ConstValue::Str(text) => (true, text == value),
            _ => (false, false),
        };
        self.check(same_kind, matches, Unexpected::Str(value))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<C, E> {
        let (same_kind, matches) = match C::VALUE {
            ConstValue::Bool(flag) => (true, flag == value),
            _ => (false, false),
        };
        self.check(same_kind, matches, Unexpected::Bool(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<C, E> {
        let (same_kind, matches) = match C::VALUE {
            ConstValue::Uint(number) => (true, number == value),
            _ => (false, false),
        };
        self.check(same_kind, matches, Unexpected::Unsigned(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<C, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => self.check(matches!(C::VALUE, ConstValue::Uint(_)), false, Unexpected::Signed(value)),
        }
    }

    // A JSON reader may hand over `1.0` as a float; it is the integer 1 all the same. Safe integers are exact as
    // doubles, so the comparison is exact too.
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<C, E> {
        let (same_kind, matches) = match C::VALUE {
            ConstValue::Uint(number) => (true, number as f64 == value),
            _ => (false, false),
        };
        self.check(same_kind, matches, Unexpected::Float(value))
    }
}

/// A schema's `pattern`, as generated types check strings against it.
///
/// Most patterns are a literal prefix and a fixed number of lowercase hexadecimal digits (`^mw1-attempt-[0-9a-f]{64}$`
/// and the other ids and digests), checked on every id of every document read, and every record has timestamps
/// ([`TIMESTAMP_PATTERN`]); those are matched directly, every other pattern by [`regress`] (ECMAScript semantics, as
/// JSON Schema says).
///
/// ```
/// use metewand_protocol::strict::Pattern;
///
/// let pattern = Pattern::new("^mw1-attempt-[0-9a-f]{4}$").unwrap();
/// assert!(!pattern.refuses("mw1-attempt-09af"));
/// assert!(pattern.refuses("mw1-attempt-09aF"));
/// assert!(Pattern::new("^(a|b)+$").unwrap().refuses("abc"));
/// ```
#[derive(Debug)]
pub struct Pattern {
    matcher: Matcher,
}

#[derive(Debug)]
enum Matcher {
    /// `^<prefix>[0-9a-f]{digits}$`, the prefix of ASCII letters, digits and `-`.
    Hex {
        prefix: String,
        digits: usize,
    },
    Timestamp,
    Regex(Box<regress::Regex>),
}

/// The pattern of a timestamp (`common.schema.json`): RFC 3339 in UTC, at most nanoseconds.
pub const TIMESTAMP_PATTERN: &str = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]{1,9})?Z$";

impl Pattern {
    /// The pattern `pattern`, or why it is not an ECMAScript regular expression.
    pub fn new(pattern: &str) -> Result<Pattern, regress::Error> {
        let regex = regress::Regex::new(pattern)?;
        let matcher = match Pattern::hex(pattern) {
            Some((prefix, digits)) => Matcher::Hex { prefix: prefix.to_owned(), digits },
            None if pattern == TIMESTAMP_PATTERN => Matcher::Timestamp,
            None => Matcher::Regex(Box::new(regex)),
        };
        Ok(Pattern { matcher })
    }

    /// The prefix and digit count of a pattern of the form `^<prefix>[0-9a-f]{N}$`.
    fn hex(pattern: &str) -> Option<(&str, usize)> {
        let inner = pattern.strip_prefix('^')?.strip_suffix("}$")?;
        let (prefix, count) = inner.split_once("[0-9a-f]{")?;
        let literal = prefix.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-');
        let digits: usize = count.parse().ok().filter(|_| count.bytes().all(|byte| byte.is_ascii_digit()))?;
        (literal && digits > 0).then_some((prefix, digits))
    }

    /// Whether `value` does not match.
    pub fn refuses(&self, value: &str) -> bool {
        match &self.matcher {
            Matcher::Hex { prefix, digits } => !value.strip_prefix(prefix.as_str()).is_some_and(|rest| {
                rest.len() == *digits && rest.bytes().all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
            }),
            Matcher::Timestamp => !is_timestamp(value.as_bytes()),
            Matcher::Regex(regex) => regex.find(value).is_none(),
        }
    }
}

/// Whether `value` matches [`TIMESTAMP_PATTERN`].
fn is_timestamp(value: &[u8]) -> bool {
    let Some((fields, rest)) = value.split_at_checked(19) else { return false };
    let digits = |at: usize, count: usize| fields[at..at + count].iter().all(u8::is_ascii_digit);
    let number = |at: usize| (fields[at] - b'0') * 10 + (fields[at + 1] - b'0');
    let shape = digits(0, 4)
        && fields[4] == b'-'
        && digits(5, 2)
        && fields[7] == b'-'
        && digits(8, 2)
        && fields[10] == b'T'
        && digits(11, 2)
        && fields[13] == b':'
        && digits(14, 2)
        && fields[16] == b':'
        && digits(17, 2);
    let fraction = match rest {
        [b'Z'] => true,
        [b'.', fraction @ .., b'Z'] => (1..=9).contains(&fraction.len()) && fraction.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    shape
        && fraction
        && (1..=12).contains(&number(5))
        && (1..=31).contains(&number(8))
        && number(11) <= 23
        && number(14) <= 59
        && number(17) <= 60
}
