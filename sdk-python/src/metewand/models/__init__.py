# Generated from schemas/*.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Strict models of Metewand's documents and protocol messages, one module per JSON Schema.

Each class decodes parsed JSON with from_dict, which refuses anything its schema refuses (unknown or
missing members, wrong types, values outside an enum, a range or a pattern) by raising ModelError
with the JSON Pointer of the offending value, and encodes with to_dict. Each module's DEFINITIONS
maps the schema's definition names to their classes. This package imports nothing by itself, so a
worker pays only for the modules it uses:

- ``metewand.models.artifact_manifest``: Metewand dataset manifest
- ``metewand.models.attempt_record``: Metewand attempt record
- ``metewand.models.audit``: Metewand audit
- ``metewand.models.bundle_manifest``: Metewand bundle manifest
- ``metewand.models.campaign_file``: Metewand campaign folder index
- ``metewand.models.campaign_index``: Metewand campaign index entry
- ``metewand.models.campaign_table``: Metewand campaign table
- ``metewand.models.common``: Metewand common definitions
- ``metewand.models.dataset_materialization``: Metewand dataset materialization
- ``metewand.models.dataset_published``: Metewand dataset store record
- ``metewand.models.metrics``: Metewand metrics envelope
- ``metewand.models.repository_definition``: Metewand repository definition
- ``metewand.models.result_manifest``: Metewand result manifest
- ``metewand.models.slurm_submission``: Metewand Slurm submission
- ``metewand.models.worker_protocol_message``: Metewand worker protocol message, version 1
- ``metewand.models.worker_protocol_methods``: Metewand worker protocol request methods
"""
