#!/usr/bin/env python3
"""The campaign index benchmark: reading campaign folders of 100,000 and 1,000,000 synthesized attempts through the
index and the campaign table, beside the same reading by a baseline binary and SDK (an earlier build, given by
--baseline and --baseline-sdk) and beside the first reading of a folder without an index (which reads every record
and writes the index), all in one run.

    cargo build --release -p metewand-cli -p test-worker
    git worktree add /tmp/before <commit> && cargo build --release -p metewand-cli --manifest-path /tmp/before/Cargo.toml
    python3 metewand-campaign/benches/index.py --baseline /tmp/before/target/release/metewand \
        --baseline-sdk /tmp/before/sdk-python/src [--sizes 100000,1000000]

1. Runs the trivial benchmark (the test worker) once for a real record, and synthesizes a campaign folder of each
   size from it (`campaign plan --list` gives the ids), with no index; a hard-linked copy of it is the second folder
   of `compare`. Then waits until every record has settled (the index's `SETTLED`, 5 s), as records a run wrote
   earlier have.
2. Times (wall seconds and peak RSS, GNU time): `campaign status`, `campaign plan`, `report --format json`,
   `compare` of the folder and its copy, `metewand.results.load` and `campaign export` by the baseline; `campaign
   status` by this build on the folders without an index (the first reading, which writes stamped entries); the same
   five with the index (its entries trusted, as by default); `campaign export`, which writes the campaign table, and
   `results.load` through it; `campaign status`, `report` and `compare` with `--check-records` (every entry held
   against its record's stamp). Then every record is touched (a new ctime, as for records a run has just written,
   whose entries are not stamped yet), and the baseline's `campaign status` (which hashes every record) and this
   build's `status`, `plan`, `report` and `compare`, and `status --check-records`, are timed again on that folder.
   `campaign status` is timed reading the whole index (the tally removed) and from the tally, then with 1% of the
   entries appended again to a part of their own, as by a run still writing (twice: the first reads them past the
   tally and writes it anew, the second reads nothing past it).
   `results.load` also runs with `check_records=True` on the settled folder, and by the baseline SDK and this one on
   the just-written folder.

Standard library only. Prints a table; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from campaign import ROOT, peak, records, synthesize, trivial_repo

# How long a record's file must have been left alone before an entry is stamped (`index::SETTLED`).
SETTLED_SECONDS = 5

LOAD = """
import sys, time, resource
sys.path.insert(0, sys.argv[1])
from metewand import results
rows = results.load(sys.argv[2], **({"check_records": True} if sys.argv[3:] == ["check"] else {}))
assert len(rows) > 0
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--test-worker", type=Path, default=ROOT / "target" / "release" / "test-worker")
    parser.add_argument("--baseline", type=Path, required=True, help="a metewand binary of an earlier build")
    parser.add_argument("--baseline-sdk", type=Path, required=True, help="sdk-python/src of that build")
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--work", type=Path, help="where to synthesize (default: a temporary folder)")
    args = parser.parse_args()
    metewand, baseline = str(args.bin.resolve()), str(args.baseline.resolve())
    sdk, baseline_sdk = str(ROOT / "sdk-python" / "src"), str(args.baseline_sdk.resolve())
    work = Path(tempfile.mkdtemp(prefix="metewand-index-bench-", dir=args.work))
    try:
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}")
        repo = trivial_repo(work / "trivial", args.test_worker.resolve())
        subprocess.run([metewand, "campaign", "run", str(repo), "main", "--state-dir", str(work / "state"),
                        "--out", str(work / "real"), "--quiet"], check=False, capture_output=True)
        template = records(work / "real" / "attempts")[0]
        print("wall s | peak RSS MiB")
        for size in (int(size) for size in args.sizes.split(",")):
            folder = synthesize(Path(metewand), repo, size, work, template)
            copy = work / f"copy-{size}"
            subprocess.run(["cp", "-al", str(folder), str(copy)], check=True)
            time.sleep(SETTLED_SECONDS + 1)
            seeds = size // 2
            plan = [metewand, "campaign", "plan", str(repo), "main", "--implementation-seeds", f"0..{seeds}",
                    "--repetitions", "1", "--out", str(folder), "--state-dir", str(work / "state")]
            python = sys.executable
            rows = [
                ("baseline: campaign status", [baseline, "campaign", "status", str(folder)]),
                ("baseline: campaign plan", [baseline, *plan[1:]]),
                ("baseline: report (JSON)", [baseline, "report", "--format", "json", str(folder)]),
                ("baseline: compare", [baseline, "compare", str(folder), str(copy)]),
                ("baseline: results.load", [python, "-c", LOAD, baseline_sdk, str(folder)]),
                ("baseline: campaign export", [baseline, "campaign", "export", str(folder)]),
                ("no index yet: campaign status (writes it)", [metewand, "campaign", "status", str(folder)]),
                ("no index yet: campaign status of the copy", [metewand, "campaign", "status", str(copy)]),
                ("whole index: campaign status", [metewand, "campaign", "status", str(folder)]),
                ("tally: campaign status", [metewand, "campaign", "status", str(folder)]),
                ("index: campaign plan", plan),
                ("index: report (JSON)", [metewand, "report", "--format", "json", str(folder)]),
                ("index: compare", [metewand, "compare", str(folder), str(copy)]),
                ("index: results.load", [python, "-c", LOAD, sdk, str(folder)]),
                ("index: campaign export (writes the table)", [metewand, "campaign", "export", str(folder)]),
                ("table: results.load", [python, "-c", LOAD, sdk, str(folder)]),
                ("table: results.load(check_records=True)", [python, "-c", LOAD, sdk, str(folder), "check"]),
                ("checked: campaign status", [metewand, "campaign", "status", "--check-records", str(folder)]),
                ("checked: report (JSON)", [metewand, "report", "--check-records", "--format", "json", str(folder)]),
                ("checked: compare", [metewand, "compare", "--check-records", str(folder), str(copy)]),
            ]
            written = [
                ("just written: baseline results.load", [python, "-c", LOAD, baseline_sdk, str(folder)]),
                ("just written: results.load", [python, "-c", LOAD, sdk, str(folder)]),
                ("just written, baseline: campaign status", [baseline, "campaign", "status", str(folder)]),
                ("just written: campaign status", [metewand, "campaign", "status", str(folder)]),
                ("just written: campaign plan", plan),
                ("just written: report (JSON)", [metewand, "report", "--format", "json", str(folder)]),
                ("just written: compare", [metewand, "compare", str(folder), str(copy)]),
                ("just written, checked: campaign status",
                 [metewand, "campaign", "status", "--check-records", str(folder)]),
            ]
            print(f"\n{size} attempts")
            for title, argv in rows:
                if title.startswith("no index yet: "):
                    # A baseline with an index of its own has written one: this build's first reading is without.
                    shutil.rmtree(Path(argv[-1]) / "index", ignore_errors=True)
                if title.startswith("whole index: "):
                    # The status before reads the tally the first reading left: this one reads every entry.
                    (Path(argv[-1]) / "index" / "tally.bin").unlink(missing_ok=True)
                seconds, kib, status = peak(argv)
                print(f"  {title:45} {seconds:7.2f} s {kib / 1024:8.1f} MiB  (exit {status})")
            # A campaign still running: a part another writer appends to, here 1% of the entries again (the same
            # records), read past the tally.
            index = folder / "index"
            source = max((part for part in index.glob("*.jsonl")), key=lambda part: part.stat().st_size)
            with source.open("rb") as lines, (index / "run-bench.jsonl").open("wb") as appended:
                for _ in range(size // 100):
                    appended.write(lines.readline())
            for title in ("1% appended: campaign status", "1% appended, again: campaign status"):
                seconds, kib, status = peak([metewand, "campaign", "status", str(folder)])
                print(f"  {title:45} {seconds:7.2f} s {kib / 1024:8.1f} MiB  (exit {status})")
            subprocess.run(["find", str(folder / "attempts"), "-name", "attempt.json", "-exec", "touch", "{}", "+"],
                           check=True)
            for title, argv in written:
                seconds, kib, status = peak(argv)
                print(f"  {title:45} {seconds:7.2f} s {kib / 1024:8.1f} MiB  (exit {status})")
            shutil.rmtree(folder)
            shutil.rmtree(copy)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(work)], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
