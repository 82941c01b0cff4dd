#!/usr/bin/env python3
"""The cost of an attempt against benchopt's cost of a run: the benchopt anchor's paired script, run as it is.

    cargo build --release -p metewand-cli
    python3 metewand-campaign/benches/anchor.py [--rounds 3] [--venv DIR] [--anchor DIR]

1. Makes (or reuses, with --venv) a virtual environment of its own holding benchopt 1.10.0 and what its benchmark and
   the paired script need (numpy, scipy, pandas, pyarrow), installed from PyPI.
2. Copies the anchor folder (by default `../shared/anchors/benchopt/` beside the checkout, which may be read-only)
   into a temporary folder, with the environment as its `venv/`.
3. Runs its `campaign_vs_benchopt.py` with this checkout's release `metewand` and `examples/least-squares`: in one run,
   benchopt's matrix (2 solvers x 6 datasets x r) and `metewand campaign run` on the example's matrix (cholesky and cg x
   small and tall x seeds 0-2 x r) at -j 1 and -j 2, r = 1, 2 and 4, each `--rounds` times; the marginal cost per unit
   and per attempt are the fitted slopes, printed with their ratio to benchopt's. Workers run on the real interpreter
   (the script puts it first on `PATH`), not a version manager's shim.

Standard library only (the environment it makes holds the rest). Prints the script's table; nothing is asserted
(performance is not a test).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ["benchopt==1.10.0", "numpy", "scipy", "pandas", "pyarrow"]


def environment(folder: Path) -> Path:
    """The virtual environment at `folder`, made and filled when it has no benchopt yet; its interpreter."""
    python = folder / "bin" / "python"
    if not (folder / "bin" / "benchopt").exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(folder)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *REQUIREMENTS], check=True)
    return python


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--anchor", type=Path, default=ROOT.parent / "shared" / "anchors" / "benchopt")
    parser.add_argument("--venv", type=Path, help="the environment to make or reuse (default: a temporary one)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not (args.anchor / "campaign_vs_benchopt.py").is_file():
        sys.exit(f"anchor.py: no campaign_vs_benchopt.py in {args.anchor}; give the anchor's folder with --anchor")
    if not args.bin.is_file():
        sys.exit(f"anchor.py: no metewand at {args.bin}; build it with cargo build --release -p metewand-cli")
    work = Path(tempfile.mkdtemp(prefix="metewand-anchor-"))
    try:
        python = environment(args.venv.resolve() if args.venv else work / "venv")
        copy = work / "anchor"
        shutil.copytree(args.anchor, copy, ignore=shutil.ignore_patterns("venv"))
        subprocess.run(["chmod", "-R", "u+w", str(copy)], check=True)
        (copy / "venv").symlink_to(python.parent.parent)
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}", flush=True)
        subprocess.run(
            [str(python), str(copy / "campaign_vs_benchopt.py"), str(args.bin.resolve()),
             str(ROOT / "examples" / "least-squares"), str(args.rounds)],
            check=True,
        )
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(work)], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
