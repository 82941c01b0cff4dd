"""An example implementation: the centroid of the points of a materializer.py dataset.

Run with no arguments, ``metewand`` importable (for example ``PYTHONPATH=sdk-python/src``); it
serves the ``implementation`` role on stdin and stdout. The result holds ``centroid.json``; the
manifest's data is ``{"x": ..., "y": ...}`` and the statistics are ``{"points": n}``.

Implementation parameters:

- ``fail``: ``{method: code}`` for ``prepare``, ``execute`` or ``reset`` makes that method raise
  ``WorkerError(code, ...)`` with details, or an unexpected RuntimeError when ``code`` is
  ``"exception"``;
- ``noise``: true makes every method write to stdout with ``print``, ``os.write(1, ...)`` and a
  subprocess, none of which may reach the protocol stream;
- ``offset``: added to the centroid's x, to produce a wrong answer (default 0).
"""

import os
import subprocess

import metewand


def misbehave(parameters, method):
    """What the parameters ask of ``method``: noise on stdout, a failure, an exception."""
    if parameters.get("noise"):
        print(f"{method}: print")
        os.write(1, f"{method}: os.write\n".encode())
        subprocess.run(["echo", f"{method}: subprocess"], check=True)
    code = parameters.get("fail", {}).get(method)
    if code == "exception":
        raise RuntimeError(f"{method} was asked to raise")
    if code is not None:
        raise metewand.WorkerError(code, f"{method} was asked to fail", {"method": method})


class Centroid(metewand.Implementation):
    def __init__(self):
        self.parameters = {}
        self.points = []

    def prepare(self, dataset, parameters, seed, problem):
        self.parameters = parameters
        misbehave(parameters, "prepare")
        with dataset.open("points.csv") as file:
            self.points = [tuple(float(value) for value in line.split(",")) for line in file]
        if len(self.points) != dataset.data["rows"]:
            raise metewand.WorkerError("operation_failed", "the dataset lost points")

    def execute(self, result):
        misbehave(self.parameters, "execute")
        count = len(self.points)
        x = sum(point[0] for point in self.points) / count + self.parameters.get("offset", 0)
        y = sum(point[1] for point in self.points) / count
        result.write_json("centroid.json", {"x": x, "y": y})
        result.data = {"x": x, "y": y}
        return {"points": count}

    def reset(self):
        parameters, self.parameters, self.points = self.parameters, {}, []
        misbehave(parameters, "reset")


if __name__ == "__main__":
    metewand.run(Centroid)
