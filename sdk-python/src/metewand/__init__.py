"""Metewand's Python SDK: write benchmark workers that speak Metewand's worker protocol.

The strict models of every protocol message and document live in ``metewand.models``, one module per
schema, imported only when used: a worker pays at start-up only for what it touches.
"""

__version__ = "0.1.0"
