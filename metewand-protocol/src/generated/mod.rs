// Generated from schemas/*.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Types generated from Metewand's JSON Schemas, one module per schema.
//!
//! Each type accepts exactly what its schema accepts: unknown fields, missing fields, wrong constants, 
//! integers outside 0..=2^53 - 1, repeated list items and strings that miss their pattern are refused 
//! when deserializing, and constrained values cannot be built around their checks.

/// Metewand dataset manifest: `schemas/artifact-manifest.schema.json`.
pub mod artifact_manifest;
/// Metewand attempt record: `schemas/attempt-record.schema.json`.
pub mod attempt_record;
/// Metewand audit: `schemas/audit.schema.json`.
pub mod audit;
/// Metewand bundle manifest: `schemas/bundle-manifest.schema.json`.
pub mod bundle_manifest;
/// Metewand campaign folder index: `schemas/campaign-file.schema.json`.
pub mod campaign_file;
/// Metewand campaign index entry: `schemas/campaign-index.schema.json`.
pub mod campaign_index;
/// Metewand campaign table: `schemas/campaign-table.schema.json`.
pub mod campaign_table;
/// Metewand common definitions: `schemas/common.schema.json`.
pub mod common;
/// Metewand dataset materialization: `schemas/dataset-materialization.schema.json`.
pub mod dataset_materialization;
/// Metewand dataset store record: `schemas/dataset-published.schema.json`.
pub mod dataset_published;
/// Metewand metrics envelope: `schemas/metrics.schema.json`.
pub mod metrics;
/// Metewand repository definition: `schemas/repository-definition.schema.json`.
pub mod repository_definition;
/// Metewand result manifest: `schemas/result-manifest.schema.json`.
pub mod result_manifest;
/// Metewand Slurm submission: `schemas/slurm-submission.schema.json`.
pub mod slurm_submission;
/// Metewand worker protocol message, version 1: `schemas/worker-protocol-message.schema.json`.
pub mod worker_protocol_message;
/// Metewand worker protocol request methods: `schemas/worker-protocol-message.schema.json`.
pub mod worker_protocol_methods;
