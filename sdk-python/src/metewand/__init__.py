"""Metewand's Python SDK: write benchmark workers that speak Metewand's worker protocol.

A worker subclasses the base class of its role and overrides one method per request; ``run``
does the rest (the handshake, framing, failures, manifests, timing and stdout protection)::

    import metewand

    class Solver(metewand.Implementation):
        def prepare(self, dataset, parameters, seed, problem):
            self.values = [float(line) for line in dataset.open("values.txt")]

        def execute(self, result):
            result.write_text("total.txt", f"{sum(self.values)}\\n")
            result.data = {"total": sum(self.values)}
            return {"values": len(self.values)}

    if __name__ == "__main__":
        metewand.run(Solver)

The roles: ``Materializer`` (``materialize``), ``Implementation`` (``prepare``, ``execute``,
``reset``) and ``Evaluator`` (``evaluate``). Raise ``WorkerError`` to report a failure with one of
the protocol's codes. The names below are loaded on first use, so ``import metewand`` costs almost
nothing; the strict models of every protocol message and document live in ``metewand.models``.
"""

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .artifacts import (
        DATASET_MANIFEST,
        RESULT_MANIFEST,
        Artifact,
        Output,
        OutputError,
        file_records,
        read_dataset,
        read_result,
        write_dataset_manifest,
        write_metrics,
        write_result_manifest,
    )
    from .errors import FAILURE_CODES, InvalidResult, WorkerError
    from .worker import Evaluator, Implementation, Materializer, Problem, Worker, run, serve

# Each public name and the submodule that defines it, imported when the name is first used.
_EXPORTS = {
    "DATASET_MANIFEST": "artifacts",
    "RESULT_MANIFEST": "artifacts",
    "Artifact": "artifacts",
    "Output": "artifacts",
    "OutputError": "artifacts",
    "file_records": "artifacts",
    "read_dataset": "artifacts",
    "read_result": "artifacts",
    "write_dataset_manifest": "artifacts",
    "write_metrics": "artifacts",
    "write_result_manifest": "artifacts",
    "FAILURE_CODES": "errors",
    "InvalidResult": "errors",
    "WorkerError": "errors",
    "Evaluator": "worker",
    "Implementation": "worker",
    "Materializer": "worker",
    "Problem": "worker",
    "Worker": "worker",
    "run": "worker",
    "serve": "worker",
}

__all__ = [
    "DATASET_MANIFEST",
    "FAILURE_CODES",
    "RESULT_MANIFEST",
    "Artifact",
    "Evaluator",
    "Implementation",
    "InvalidResult",
    "Materializer",
    "Output",
    "OutputError",
    "Problem",
    "Worker",
    "WorkerError",
    "file_records",
    "read_dataset",
    "read_result",
    "run",
    "serve",
    "write_dataset_manifest",
    "write_metrics",
    "write_result_manifest",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # __import__ with a fromlist returns the submodule itself; importlib is not loaded yet in a
    # fresh interpreter and would cost more than this whole package.
    value = getattr(__import__(f"{__name__}.{module}", None, None, [name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
