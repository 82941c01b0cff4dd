//! The requests a caller makes of a session, without the request id the session allocates, and the replies of
//! the dynamic call path.

use metewand_protocol::messages::{
    EvaluateRequest, EvaluateResponse, ExecuteRequest, ExecuteResponse, MaterializeRequest, MaterializeResponse,
    MethodEvaluate, MethodExecute, MethodMaterialize, MethodPrepare, Path, PrepareRequest, ProblemContractRef,
    RequestId,
};
use metewand_protocol::strict::{JsonObject, SafeUint};

use crate::protocol::Phase;

/// What a dataset materializer is asked to build.
#[derive(Clone, Debug, PartialEq)]
pub struct MaterializeParams {
    /// The worker's private copy of its source directory.
    pub source_dir: Path,
    /// The canonical dataset parameters.
    pub dataset_parameters: JsonObject,
    /// The dataset seed.
    pub dataset_seed: SafeUint,
    /// The empty directory the dataset is written to.
    pub output_dir: Path,
}

/// Everything attempt-specific an implementation receives before it executes.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepareParams {
    /// The dataset's directory in the store.
    pub dataset_dir: Path,
    /// The problem contract's identity.
    pub problem_contract_id: ProblemContractRef,
    /// The canonical problem parameters.
    pub problem_parameters: JsonObject,
    /// The canonical implementation parameters.
    pub implementation_parameters: JsonObject,
    /// The implementation seed.
    pub implementation_seed: SafeUint,
}

/// Where an implementation writes its result.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecuteParams {
    /// The empty directory the result is written to.
    pub result_dir: Path,
}

/// What a problem evaluator judges, and where it writes its metrics.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluateParams {
    /// The dataset's directory in the store.
    pub dataset_dir: Path,
    /// The implementation's result directory.
    pub result_dir: Path,
    /// The exact path of the metrics document to write.
    pub metrics_path: Path,
    /// The problem contract's identity.
    pub problem_contract_id: ProblemContractRef,
    /// The canonical problem parameters.
    pub problem_parameters: JsonObject,
}

/// A request for the dynamic call path, [`WorkerSession::call`](super::WorkerSession::call). `hello` belongs to
/// connecting and `shutdown` to [`WorkerSession::shutdown`](super::WorkerSession::shutdown).
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Build a dataset.
    Materialize(MaterializeParams),
    /// Receive the attempt's state.
    Prepare(PrepareParams),
    /// Solve the problem.
    Execute(ExecuteParams),
    /// Forget the prepared attempt.
    Reset,
    /// Judge a result.
    Evaluate(EvaluateParams),
}

impl Request {
    /// The request's method, which names its phase.
    pub fn method(&self) -> Phase {
        match self {
            Request::Materialize(_) => Phase::Materialize,
            Request::Prepare(_) => Phase::Prepare,
            Request::Execute(_) => Phase::Execute,
            Request::Reset => Phase::Reset,
            Request::Evaluate(_) => Phase::Evaluate,
        }
    }
}

/// A worker's successful answer on the dynamic call path.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The materializer's answer: the manifest it wrote.
    Materialized(MaterializeResponse),
    /// The acknowledgment of `prepare` or `reset`.
    Acknowledged,
    /// The implementation's answer: its result manifest and statistics.
    Executed(ExecuteResponse),
    /// The evaluator's verdict.
    Evaluated(EvaluateResponse),
}

impl MaterializeParams {
    pub(super) fn into_request(self, id: RequestId) -> MaterializeRequest {
        MaterializeRequest {
            dataset_parameters: self.dataset_parameters,
            dataset_seed: self.dataset_seed,
            id,
            method: MethodMaterialize,
            output_dir: self.output_dir,
            source_dir: self.source_dir,
        }
    }
}

impl PrepareParams {
    pub(super) fn into_request(self, id: RequestId) -> PrepareRequest {
        PrepareRequest {
            dataset_dir: self.dataset_dir,
            id,
            implementation_parameters: self.implementation_parameters,
            implementation_seed: self.implementation_seed,
            method: MethodPrepare,
            problem_contract_id: self.problem_contract_id,
            problem_parameters: self.problem_parameters,
        }
    }
}

impl ExecuteParams {
    pub(super) fn into_request(self, id: RequestId) -> ExecuteRequest {
        ExecuteRequest { id, method: MethodExecute, result_dir: self.result_dir }
    }
}

impl EvaluateParams {
    pub(super) fn into_request(self, id: RequestId) -> EvaluateRequest {
        EvaluateRequest {
            dataset_dir: self.dataset_dir,
            id,
            method: MethodEvaluate,
            metrics_path: self.metrics_path,
            problem_contract_id: self.problem_contract_id,
            problem_parameters: self.problem_parameters,
            result_dir: self.result_dir,
        }
    }
}
