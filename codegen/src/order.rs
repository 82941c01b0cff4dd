//! The order a schema writes each object's members in, which `serde_json`'s sorted map does not keep: the property
//! names the Rust types list (`PROPERTIES`) follow the schema, so a reader that suggests one of them meets them in the
//! order their authors chose.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::pointer_join;

/// Each object's member names in the order written, by the object's JSON pointer.
pub(crate) type Order = BTreeMap<String, Vec<String>>;

/// A JSON value reduced to its objects' members, in order.
enum Written {
    Object(Vec<(String, Written)>),
    Array(Vec<Written>),
    Scalar,
}

impl<'de> Deserialize<'de> for Written {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Written, D::Error> {
        deserializer.deserialize_any(WrittenVisitor)
    }
}

struct WrittenVisitor;

impl<'de> Visitor<'de> for WrittenVisitor {
    type Value = Written;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Written, E> {
        Ok(Written::Scalar)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Written, E> {
        Ok(Written::Scalar)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Written, E> {
        Ok(Written::Scalar)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Written, E> {
        Ok(Written::Scalar)
    }

    fn visit_str<E>(self, _: &str) -> Result<Written, E> {
        Ok(Written::Scalar)
    }

    fn visit_unit<E>(self) -> Result<Written, E> {
        Ok(Written::Scalar)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Written, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Written::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Written, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            members.push((key, map.next_value()?));
        }
        Ok(Written::Object(members))
    }
}

/// The member order of every object in `text`, a JSON document already parsed once (so it is valid JSON); an
/// object's members are listed once each, at their first appearance.
pub(crate) fn read(text: &str) -> Order {
    let mut order = Order::new();
    if let Ok(written) = serde_json::from_str::<Written>(text) {
        collect(&written, "", &mut order);
    }
    order
}

fn collect(value: &Written, pointer: &str, order: &mut Order) {
    match value {
        Written::Object(members) => {
            let mut names: Vec<String> = Vec::with_capacity(members.len());
            for (name, member) in members {
                if !names.contains(name) {
                    names.push(name.clone());
                }
                collect(member, &pointer_join(pointer, name), order);
            }
            order.insert(pointer.to_owned(), names);
        }
        Written::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                collect(item, &pointer_join(pointer, &index.to_string()), order);
            }
        }
        Written::Scalar => {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn members_keep_the_order_written() {
        let order = super::read(r#"{"b": 1, "a": {"z": [{"y": 0, "x": 0}], "c": null}}"#);
        assert_eq!(order[""], ["b", "a"]);
        assert_eq!(order["/a"], ["z", "c"]);
        assert_eq!(order["/a/z/0"], ["y", "x"]);
    }
}
