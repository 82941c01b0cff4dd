//! The checked types refuse invalid values at run time, through `TryFrom` and through `Deserialize`.

use metewand_protocol::common::Timestamp;
use metewand_protocol::common::{Capability, WorkerId};
use metewand_protocol::messages::{ExecuteResponse, FailureResponse, HelloRequest, HelloResponse, RequestId};
use metewand_protocol::strict::{ConstraintError, NonEmptyUniqueVec, Pattern, SafeUint, UniqueVec};
use serde_json::{Value, json};

const WORKER_ID: &str = "mw1-resolved-worker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

#[test]
fn safe_uint_covers_exactly_zero_to_two_to_the_53_minus_one() {
    assert_eq!(SafeUint::try_from(9_007_199_254_740_991_u64).unwrap(), SafeUint::MAX);
    assert!(matches!(SafeUint::try_from(9_007_199_254_740_992_u64), Err(ConstraintError::OutOfRange(_))));
    assert!(matches!(SafeUint::try_from(-1_i64), Err(ConstraintError::OutOfRange(_))));
    assert_eq!(SafeUint::from_f64(17.0).unwrap().get(), 17);
    assert!(matches!(SafeUint::from_f64(17.5), Err(ConstraintError::NotAnInteger(_))));
    assert!(SafeUint::from_f64(f64::NAN).is_err());
    assert!(SafeUint::from_f64(-0.5).is_err());
    assert!(SafeUint::from_f64(9_007_199_254_740_992.0).is_err());
    for refused in ["-1", "9007199254740992", "17.5", "true", "\"17\"", "null", "1e300"] {
        assert!(serde_json::from_str::<SafeUint>(refused).is_err(), "{refused} was accepted");
    }
    for (spelling, value) in
        [("0", 0), ("17", 17), ("17.0", 17), ("1.7e1", 17), ("9007199254740991", SafeUint::MAX.get())]
    {
        assert_eq!(serde_json::from_str::<SafeUint>(spelling).unwrap().get(), value, "{spelling}");
    }
}

#[test]
fn unique_lists_refuse_repeated_items_and_the_empty_protocol_list() {
    let error = UniqueVec::try_from(vec![Capability::OneShot, Capability::Applicability, Capability::OneShot]);
    assert_eq!(error.unwrap_err(), ConstraintError::Duplicate { first: 0, second: 2 });
    assert_eq!(NonEmptyUniqueVec::<SafeUint>::try_from(vec![]).unwrap_err(), ConstraintError::Empty);
    assert!(serde_json::from_value::<UniqueVec<Capability>>(json!(["one_shot", "one_shot"])).is_err());
    let versions: NonEmptyUniqueVec<SafeUint> = serde_json::from_value(json!([1, 2])).unwrap();
    assert_eq!(versions.iter().map(|v| v.get()).collect::<Vec<_>>(), [1, 2]);
    // 1 and 1.0 are the same number, so the same version twice.
    assert!(serde_json::from_value::<NonEmptyUniqueVec<SafeUint>>(json!([1, 1.0])).is_err());
}

#[test]
fn patterned_and_nonempty_strings_refuse_invalid_values_through_try_from() {
    assert!(WorkerId::try_from(WORKER_ID).is_ok());
    assert!(WorkerId::try_from(format!("{WORKER_ID}\n")).is_err(), "a trailing newline is not part of an id");
    assert!(WorkerId::try_from(WORKER_ID.to_uppercase()).is_err());
    assert!(RequestId::try_from("").is_err());
    assert_eq!(RequestId::try_from("0").unwrap().as_str(), "0");
    assert!(Timestamp::try_from("2026-11-30T14:19:06.123Z").is_ok());
    assert!(Timestamp::try_from("2026-11-30T14:19:06+00:00").is_err());
}

fn hello_request() -> Value {
    json!({"id": "0", "method": "hello", "protocols": [1], "role": "implementation", "worker_id": WORKER_ID})
}

#[test]
fn messages_check_their_constants() {
    let mut request = hello_request();
    assert!(serde_json::from_value::<HelloRequest>(request.clone()).is_ok());
    request["method"] = json!("reset");
    assert!(serde_json::from_value::<HelloRequest>(request).is_err());

    let response =
        json!({"capabilities": [], "id": "0", "ok": true, "protocol": 1, "sdk": null, "worker_id": WORKER_ID});
    for (field, wrong) in
        [("ok", json!(false)), ("ok", json!("true")), ("protocol", json!(2)), ("protocol", json!(true))]
    {
        let mut changed = response.clone();
        changed[field] = wrong.clone();
        assert!(serde_json::from_value::<HelloResponse>(changed).is_err(), "{field} = {wrong} was accepted");
    }
    let mut failure = json!({"error": {"code": "internal_error", "message": "boom"}, "id": "1", "ok": false});
    assert!(serde_json::from_value::<FailureResponse>(failure.clone()).is_ok());
    failure["ok"] = json!(true);
    assert!(serde_json::from_value::<FailureResponse>(failure).is_err(), "a failure must say ok: false");
}

#[test]
fn nullable_fields_must_be_present_and_optional_objects_survive_re_encoding() {
    let response = json!({
        "id": "2", "implementation_time_ns": null, "ok": true,
        "result": {"manifest": "result.json"}, "statistics": {}
    });
    let decoded: ExecuteResponse = serde_json::from_value(response.clone()).unwrap();
    assert_eq!(decoded.implementation_time_ns, None);
    let mut absent = response;
    absent.as_object_mut().unwrap().remove("implementation_time_ns");
    assert!(serde_json::from_value::<ExecuteResponse>(absent).is_err(), "absent is not null");

    let failure =
        json!({"error": {"code": "operation_failed", "details": {}, "message": "no"}, "id": "1", "ok": false});
    let decoded: FailureResponse = serde_json::from_value(failure.clone()).unwrap();
    assert_eq!(serde_json::to_value(&decoded).unwrap(), failure, "a sent {{}} is kept");
    let without = json!({"error": {"code": "operation_failed", "message": "no"}, "id": "1", "ok": false});
    let decoded: FailureResponse = serde_json::from_value(without.clone()).unwrap();
    assert_eq!(serde_json::to_value(&decoded).unwrap(), without, "an absent details stays absent");
}

/// Every `pattern` of every schema.
fn schema_patterns() -> Vec<String> {
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                if let Some(Value::String(pattern)) = object.get("pattern") {
                    out.push(pattern.clone());
                }
                object.values().for_each(|value| walk(value, out));
            }
            Value::Array(items) => items.iter().for_each(|value| walk(value, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for schema in metewand_protocol::schema::ALL {
        walk(&serde_json::from_slice(schema.bytes).unwrap(), &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// How many matching candidates of each pattern the exactness test changes one character at a time.
const MUTATED_MATCHES: usize = 25;

#[test]
fn patterns_match_exactly_what_ecmascript_regular_expressions_match() {
    let patterns = schema_patterns();
    assert!(patterns.iter().any(|pattern| pattern == "^mw1-attempt-[0-9a-f]{64}$"), "{patterns:?}");
    // Strings near each pattern's own text and its matches, and random strings over the characters they use.
    let hex = "0123456789abcdef".repeat(4);
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let mut checked = 0;
    for pattern in &patterns {
        let ours = Pattern::new(pattern).unwrap();
        let regex = regress::Regex::new(pattern).unwrap();
        let prefix: String = pattern.trim_start_matches('^').chars().take_while(|c| *c != '[' && *c != '(').collect();
        let mut candidates = vec![String::new(), pattern.clone(), format!("{prefix}{hex}"), format!("{prefix}{hex}\n")];
        candidates.extend(
            ["2026-12-01T10:00:00.123456789Z", "1999-02-31T23:59:60Z", "0000-10-09T19:05:09.5Z", "1:2.000000000:3.0"]
                .map(str::to_owned),
        );
        for length in [1, 9, 12, 20, 63, 64, 65] {
            candidates.push(format!("{prefix}{}", &hex.repeat(2)[..length]));
            candidates.push(format!("{prefix}{}A", &hex.repeat(2)[..length - 1]));
            candidates.push(format!("x{prefix}{}", &hex.repeat(2)[..length]));
        }
        let alphabet: Vec<char> = pattern.chars().chain("0123456789abcdefABCDEF-:.T Z\né".chars()).collect();
        for _ in 0..2000 {
            let length = next(80);
            let tail: String = (0..length).map(|_| alphabet[next(alphabet.len())]).collect();
            candidates.push(if next(2) == 0 { tail } else { format!("{prefix}{tail}") });
        }
        // Every one-character change of the candidates that match: a replacement, a removal, an insertion. A
        // permissive pattern (a command argument's) matches most random strings, so only the first matches are
        // changed: the deliberate candidates, then enough random ones, which keeps the test's time bounded.
        let matching: Vec<String> =
            candidates.iter().filter(|c| regex.find(c).is_some()).take(MUTATED_MATCHES).cloned().collect();
        for candidate in matching {
            let chars: Vec<char> = candidate.chars().collect();
            for at in 0..=chars.len() {
                for c in "0123456789aAfgzZtT.:-/ \n\u{0660}".chars() {
                    let mut changed = chars.clone();
                    changed.insert(at, c);
                    candidates.push(changed.iter().collect());
                    if at < chars.len() {
                        changed.remove(at + 1);
                        candidates.push(changed.iter().collect());
                    }
                }
                if at < chars.len() {
                    let mut removed = chars.clone();
                    removed.remove(at);
                    candidates.push(removed.iter().collect());
                }
            }
        }
        for candidate in &candidates {
            let expected = regex.find(candidate).is_none();
            assert_eq!(ours.refuses(candidate), expected, "pattern {pattern} on {candidate:?}");
            checked += usize::from(!expected);
        }
    }
    assert!(checked > patterns.len(), "only {checked} candidates matched: the test strings miss the patterns");
}
