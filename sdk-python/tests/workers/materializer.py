"""An example dataset materializer: random points in the unit square.

Run with no arguments, ``metewand`` importable (for example ``PYTHONPATH=sdk-python/src``); it
serves the ``dataset_materializer`` role on stdin and stdout. The dataset holds ``points.csv`` (one
``x,y`` line per point) and ``meta/parameters.json``; the manifest's data is ``{"rows": n}``.

Dataset parameters:

- ``rows``: how many points (default 100);
- ``fail``: ``{"materialize": code}`` makes materialize raise ``WorkerError(code, ...)`` with
  details, or an unexpected RuntimeError when ``code`` is ``"exception"``;
- ``noise``: true makes materialize write to stdout with ``print``, ``os.write(1, ...)`` and a
  subprocess, none of which may reach the protocol stream.
"""

import os
import random
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


class Points(metewand.Materializer):
    def materialize(self, source_dir, parameters, seed, output):
        misbehave(parameters, "materialize")
        rows = parameters.get("rows", 100)
        rng = random.Random(seed)
        with output.open("points.csv") as file:
            for _ in range(rows):
                file.write(f"{rng.random()!r},{rng.random()!r}\n")
        output.write_json("meta/parameters.json", {"rows": rows, "seed": seed})
        output.data = {"rows": rows}


if __name__ == "__main__":
    metewand.run(Points)
