"""An example problem evaluator: is the result the centroid of the dataset's points?

Run with no arguments, ``metewand`` importable (for example ``PYTHONPATH=sdk-python/src``); it
serves the ``problem_evaluator`` role on stdin and stdout. The verdict is ``reached`` when the
result's data is within ``tolerance`` of the centroid, ``not_reached`` when it is not, and
``invalid`` when the data holds no numbers ``x`` and ``y``; the metrics are ``{"error": e}``.

Problem parameters:

- ``tolerance``: the largest accepted distance on each axis (default 1e-9);
- ``fail``: ``{"evaluate": code}`` makes evaluate raise ``WorkerError(code, ...)`` with details,
  or an unexpected RuntimeError when ``code`` is ``"exception"``;
- ``noise``: true makes evaluate write to stdout with ``print``, ``os.write(1, ...)`` and a
  subprocess, none of which may reach the protocol stream.
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


class CentroidJudge(metewand.Evaluator):
    def evaluate(self, dataset, result, problem):
        misbehave(problem.parameters, "evaluate")
        with dataset.open("points.csv") as file:
            points = [tuple(float(value) for value in line.split(",")) for line in file]
        x, y = result.data.get("x"), result.data.get("y")
        if not all(isinstance(value, (int, float)) for value in (x, y)):
            return "invalid", {"error": None}
        error = max(
            abs(x - sum(point[0] for point in points) / len(points)),
            abs(y - sum(point[1] for point in points) / len(points)),
        )
        tolerance = problem.parameters.get("tolerance", 1e-9)
        return ("reached" if error <= tolerance else "not_reached"), {"error": error}


if __name__ == "__main__":
    metewand.run(CentroidJudge)
