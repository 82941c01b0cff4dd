//! The checked types refuse invalid values at run time, through `TryFrom` and through `Deserialize`.

use metewand_protocol::common::Timestamp;
use metewand_protocol::common::{Capability, WorkerId};
use metewand_protocol::messages::{ExecuteResponse, FailureResponse, HelloRequest, HelloResponse, RequestId};
use metewand_protocol::strict::{ConstraintError, NonEmptyUniqueVec, SafeUint, UniqueVec};
use serde_json::json;

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

fn hello_request() -> serde_json::Value {
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
