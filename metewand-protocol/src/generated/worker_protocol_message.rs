// Generated from schemas/worker-protocol-message.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand worker protocol message, version 1: types generated from `schemas/worker-protocol-message.schema.json`.
//!
//! Every request the orchestrator sends and every response a worker returns in protocol version 1, with the
//! checkpoint exchange nested in an execute_stream request. A message is decoded as the definition its session
//! expects, never as a guess among these. Each request definition also says which roles accept it
//! (x-accepted-by), the definition of its success response (x-response), the phase it runs when that is not named
//! after its method (x-phase) and the capability a worker reports when it serves it (x-capability): annotations
//! that validators ignore, from which the table of request methods is generated.

///The common acknowledgment of prepare, reset and shutdown.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct AckResponse {
    pub id: RequestId,
    pub ok: OkTrue,
}
///Answers a checkpoint of the pending execute_stream request, repeating its id and number: whether the worker may go on. After continue false the worker ends the stream.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct CheckpointAnswer {
    pub checkpoint: crate::strict::SafeUint,
    #[serde(rename = "continue")]
    pub continue_: bool,
    pub id: RequestId,
}
///Sent while an execute_stream request is pending, with its id: checkpoint n (1, then one more each time) is complete, its manifest at checkpoints/<n>/result.json under the result directory. The worker then waits for the answer.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct CheckpointMessage {
    pub checkpoint: crate::strict::SafeUint,
    pub id: RequestId,
    pub result: ManifestRef,
}
///Asks a problem evaluator to judge a result and write its metrics document.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct EvaluateRequest {
    pub dataset_dir: Path,
    pub id: RequestId,
    pub method: MethodEvaluate,
    pub metrics_path: Path,
    pub problem_contract_id: ProblemContractRef,
    pub problem_parameters: crate::strict::JsonObject,
    pub result_dir: Path,
}
///The evaluator's verdict, returned after it has written the metrics document.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct EvaluateResponse {
    pub id: RequestId,
    pub ok: OkTrue,
    pub verdict: super::common::Verdict,
}
///Asks a prepared implementation to solve the problem, writing its result in the assigned directory.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ExecuteRequest {
    pub id: RequestId,
    pub method: MethodExecute,
    pub result_dir: Path,
}
///Names the result manifest and carries diagnostic statistics and the worker's own timing, or null.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ExecuteResponse {
    pub id: RequestId,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub implementation_time_ns: ::std::option::Option<crate::strict::SafeUint>,
    pub ok: OkTrue,
    pub result: ManifestRef,
    pub statistics: crate::strict::JsonObject,
}
///Asks a prepared implementation that reported streaming_profile to solve the problem like execute, sending at most max_checkpoints checkpoints on the way and waiting for each answer. The stream ends with an execute response or a failure.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ExecuteStreamRequest {
    pub id: RequestId,
    pub max_checkpoints: crate::strict::SafeUint,
    pub method: MethodExecuteStream,
    pub result_dir: Path,
}
///A structured failure reported by a worker.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Failure {
    pub code: super::common::FailureCode,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub details: ::std::option::Option<crate::strict::JsonObject>,
    pub message: super::common::Message,
}
///A structured failure, valid in answer to any request.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct FailureResponse {
    pub error: Failure,
    pub id: RequestId,
    pub ok: OkFalse,
}
///Opens a session: fixes the role and the resolved worker identity and offers protocol versions.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct HelloRequest {
    pub id: RequestId,
    pub method: MethodHello,
    pub protocols: crate::strict::NonEmptyUniqueVec<crate::strict::SafeUint>,
    pub role: super::common::Role,
    pub worker_id: super::common::WorkerId,
}
///Selects protocol 1, repeats the resolved worker identity and reports the worker's SDK and capabilities.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct HelloResponse {
    pub capabilities: crate::strict::UniqueVec<super::common::Capability>,
    pub id: RequestId,
    pub ok: OkTrue,
    pub protocol: Protocol1,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub sdk: ::std::option::Option<super::common::SdkInfo>,
    pub worker_id: super::common::WorkerId,
}
///Where a worker left its manifest, relative to the assigned output directory.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ManifestRef {
    pub manifest: Path,
}
///Asks a dataset materializer to build a dataset in its assigned output directory.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct MaterializeRequest {
    pub dataset_parameters: crate::strict::JsonObject,
    pub dataset_seed: crate::strict::SafeUint,
    pub id: RequestId,
    pub method: MethodMaterialize,
    pub output_dir: Path,
    pub source_dir: Path,
}
///Names the dataset manifest beneath the assigned output directory.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct MaterializeResponse {
    pub dataset: ManifestRef,
    pub id: RequestId,
    pub ok: OkTrue,
}
///A nonempty filesystem path.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct Path(::std::string::String);
impl ::std::ops::Deref for Path {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<Path> for ::std::string::String {
    fn from(value: Path) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for Path {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        if value.chars().count() < 1usize {
            return Err("shorter than 1 characters".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for Path {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for Path {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for Path {
    fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
    where
        D: ::serde::Deserializer<'de>,
    {
        ::std::string::String::deserialize(deserializer)?
            .parse()
            .map_err(|e: self::error::ConversionError| {
                <D::Error as ::serde::de::Error>::custom(e.to_string())
            })
    }
}
///Gives an implementation all attempt-specific state before it executes.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PrepareRequest {
    pub dataset_dir: Path,
    pub id: RequestId,
    pub implementation_parameters: crate::strict::JsonObject,
    pub implementation_seed: crate::strict::SafeUint,
    pub method: MethodPrepare,
    pub problem_contract_id: ProblemContractRef,
    pub problem_parameters: crate::strict::JsonObject,
}
///How a request names the problem contract: any nonempty string on the wire (the normative examples use mw1-problem-contract-abc). Metewand sends the problem_contract_id it generated.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct ProblemContractRef(::std::string::String);
impl ::std::ops::Deref for ProblemContractRef {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<ProblemContractRef> for ::std::string::String {
    fn from(value: ProblemContractRef) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for ProblemContractRef {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        if value.chars().count() < 1usize {
            return Err("shorter than 1 characters".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for ProblemContractRef {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ProblemContractRef {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for ProblemContractRef {
    fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
    where
        D: ::serde::Deserializer<'de>,
    {
        ::std::string::String::deserialize(deserializer)?
            .parse()
            .map_err(|e: self::error::ConversionError| {
                <D::Error as ::serde::de::Error>::custom(e.to_string())
            })
    }
}
///A session-local request identifier, repeated by the response.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct RequestId(::std::string::String);
impl ::std::ops::Deref for RequestId {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<RequestId> for ::std::string::String {
    fn from(value: RequestId) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for RequestId {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        if value.chars().count() < 1usize {
            return Err("shorter than 1 characters".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for RequestId {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for RequestId {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for RequestId {
    fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
    where
        D: ::serde::Deserializer<'de>,
    {
        ::std::string::String::deserialize(deserializer)?
            .parse()
            .map_err(|e: self::error::ConversionError| {
                <D::Error as ::serde::de::Error>::custom(e.to_string())
            })
    }
}
///Asks an implementation to forget the prepared attempt.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ResetRequest {
    pub id: RequestId,
    pub method: MethodReset,
}
///The final request of every session.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ShutdownRequest {
    pub id: RequestId,
    pub method: MethodShutdown,
}
/// Error types.
pub mod error {
    /// Error from a `TryFrom` or `FromStr` implementation.
    pub struct ConversionError(::std::borrow::Cow<'static, str>);
    impl ::std::error::Error for ConversionError {}
    impl ::std::fmt::Display for ConversionError {
        fn fmt(
            &self,
            f: &mut ::std::fmt::Formatter<'_>,
        ) -> Result<(), ::std::fmt::Error> {
            ::std::fmt::Display::fmt(&self.0, f)
        }
    }
    impl ::std::fmt::Debug for ConversionError {
        fn fmt(
            &self,
            f: &mut ::std::fmt::Formatter<'_>,
        ) -> Result<(), ::std::fmt::Error> {
            ::std::fmt::Debug::fmt(&self.0, f)
        }
    }
    impl From<&'static str> for ConversionError {
        fn from(value: &'static str) -> Self {
            Self(value.into())
        }
    }
    impl From<String> for ConversionError {
        fn from(value: String) -> Self {
            Self(value.into())
        }
    }
}
/// The constant `"evaluate"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodEvaluate;
impl crate::strict::Constant for MethodEvaluate {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str("evaluate");
}
impl ::serde::Serialize for MethodEvaluate {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodEvaluate {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `"execute"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodExecute;
impl crate::strict::Constant for MethodExecute {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str("execute");
}
impl ::serde::Serialize for MethodExecute {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodExecute {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `"execute_stream"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodExecuteStream;
impl crate::strict::Constant for MethodExecuteStream {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str(
        "execute_stream",
    );
}
impl ::serde::Serialize for MethodExecuteStream {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodExecuteStream {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `"hello"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodHello;
impl crate::strict::Constant for MethodHello {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str("hello");
}
impl ::serde::Serialize for MethodHello {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodHello {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `"materialize"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodMaterialize;
impl crate::strict::Constant for MethodMaterialize {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str(
        "materialize",
    );
}
impl ::serde::Serialize for MethodMaterialize {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodMaterialize {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `"prepare"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodPrepare;
impl crate::strict::Constant for MethodPrepare {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str("prepare");
}
impl ::serde::Serialize for MethodPrepare {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodPrepare {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `"reset"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodReset;
impl crate::strict::Constant for MethodReset {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str("reset");
}
impl ::serde::Serialize for MethodReset {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodReset {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `"shutdown"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodShutdown;
impl crate::strict::Constant for MethodShutdown {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str("shutdown");
}
impl ::serde::Serialize for MethodShutdown {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MethodShutdown {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `1`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Protocol1;
impl crate::strict::Constant for Protocol1 {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Uint(1);
}
impl ::serde::Serialize for Protocol1 {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Protocol1 {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `false`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OkFalse;
impl crate::strict::Constant for OkFalse {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Bool(false);
}
impl ::serde::Serialize for OkFalse {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for OkFalse {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
/// The constant `true`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OkTrue;
impl crate::strict::Constant for OkTrue {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Bool(true);
}
impl ::serde::Serialize for OkTrue {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for OkTrue {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
impl AckResponse {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["id", "ok"];
}
impl CheckpointAnswer {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["checkpoint", "continue", "id"];
}
impl CheckpointMessage {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["checkpoint", "id", "result"];
}
impl EvaluateRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "dataset_dir",
        "id",
        "method",
        "metrics_path",
        "problem_contract_id",
        "problem_parameters",
        "result_dir",
    ];
}
impl EvaluateResponse {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["id", "ok", "verdict"];
}
impl ExecuteRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["id", "method", "result_dir"];
}
impl ExecuteResponse {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "id",
        "implementation_time_ns",
        "ok",
        "result",
        "statistics",
    ];
}
impl ExecuteStreamRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "id",
        "max_checkpoints",
        "method",
        "result_dir",
    ];
}
impl Failure {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["code", "message", "details"];
}
impl FailureResponse {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["error", "id", "ok"];
}
impl HelloRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "id",
        "method",
        "protocols",
        "role",
        "worker_id",
    ];
}
impl HelloResponse {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "capabilities",
        "id",
        "ok",
        "protocol",
        "sdk",
        "worker_id",
    ];
}
impl ManifestRef {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["manifest"];
}
impl MaterializeRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "dataset_parameters",
        "dataset_seed",
        "id",
        "method",
        "output_dir",
        "source_dir",
    ];
}
impl MaterializeResponse {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["dataset", "id", "ok"];
}
impl PrepareRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "dataset_dir",
        "id",
        "implementation_parameters",
        "implementation_seed",
        "method",
        "problem_contract_id",
        "problem_parameters",
    ];
}
impl ResetRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["id", "method"];
}
impl ShutdownRequest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["id", "method"];
}
impl<'de> ::serde::Deserialize<'de> for AckResponse {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        AckResponse::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for AckResponse {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        AckResponse::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for CheckpointAnswer {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        CheckpointAnswer::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for CheckpointAnswer {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        CheckpointAnswer::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for CheckpointMessage {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        CheckpointMessage::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for CheckpointMessage {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        CheckpointMessage::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for EvaluateRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        EvaluateRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for EvaluateRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        EvaluateRequest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for EvaluateResponse {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        EvaluateResponse::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for EvaluateResponse {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        EvaluateResponse::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for ExecuteRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ExecuteRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ExecuteRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ExecuteRequest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for ExecuteResponse {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ExecuteResponse::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ExecuteResponse {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ExecuteResponse::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for ExecuteStreamRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ExecuteStreamRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ExecuteStreamRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ExecuteStreamRequest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Failure {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Failure::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Failure {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Failure::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for FailureResponse {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        FailureResponse::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for FailureResponse {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        FailureResponse::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for HelloRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        HelloRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for HelloRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        HelloRequest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for HelloResponse {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        HelloResponse::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for HelloResponse {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        HelloResponse::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for ManifestRef {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ManifestRef::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ManifestRef {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ManifestRef::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MaterializeRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        MaterializeRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for MaterializeRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        MaterializeRequest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for MaterializeResponse {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        MaterializeResponse::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for MaterializeResponse {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        MaterializeResponse::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for PrepareRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        PrepareRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for PrepareRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        PrepareRequest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for ResetRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ResetRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ResetRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ResetRequest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for ShutdownRequest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ShutdownRequest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ShutdownRequest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ShutdownRequest::serialize(self, serializer)
    }
}
impl ::std::fmt::Display for Path {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for ProblemContractRef {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
