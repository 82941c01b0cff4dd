#!/usr/bin/env python3
"""Bundle and verify figures, each beside tar + zstd + sha256sum over the same files in the same run.

Usage:
    cargo build --release -p metewand-cli
    python3 metewand-bundle/benches/bundle.py [--binary PATH] [--attempts N] [--work DIR [--reuse]]

It runs the example's `main` campaign (examples/least-squares, 48 attempts), then makes a synthetic campaign of N
attempts (default 100,000) from it: each attempt folder is a copy of one of the example's (its record, logs, result
and metrics), its record filed under a new id, so that it verifies. For each campaign it measures, with the wall
time and the peak resident memory of the largest process it runs:

- `metewand bundle FOLDER --out FILE` against `sha256sum` of every file (the manifest's work) followed by
  `tar -cf - ... | zstd -3` (the archive's);
- `metewand verify FILE` against `zstd -d | tar -x` into a new folder followed by `sha256sum -c` of the sums.

Sizes are the files' total, the bundle's and the `.tar.zst`'s.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def measure(command, env=None):
    """Runs `command` (a list, or a shell text) under GNU time: (seconds, peak resident memory in MiB of the largest
    process it ran)."""
    if isinstance(command, str):
        command = ["sh", "-c", command]
    timed = ["/usr/bin/time", "-f", "%e %M"] + command
    done = subprocess.run(timed, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{command} failed: {done.stderr}")
    seconds, kib = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024


def tree_size(folder):
    total, count = 0, 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            total += os.lstat(os.path.join(dirpath, name)).st_size
            count += 1
    return total, count


def synthesize(example, out, attempts):
    """A campaign folder of `attempts` attempts made from the example's records, each filed under a new id."""
    plan = json.loads((example / "campaign.json").read_text())
    templates = []
    for entry in plan["attempts"]:
        folder = example / "attempts" / entry["id"]
        record = json.loads((folder / "attempt.json").read_text())
        if record.get("verdict") is not None:
            templates.append((entry, folder, record))
    out.mkdir(parents=True)
    (out / "attempts").mkdir()
    entries = []
    for index in range(attempts):
        entry, folder, record = templates[index % len(templates)]
        new_id = "mw1-attempt-" + hashlib.sha256(f"synthetic {index}".encode()).hexdigest()
        target = out / "attempts" / new_id
        shutil.copytree(folder, target)
        record["campaign"]["attempt_id"] = new_id
        (target / "attempt.json").write_text(json.dumps(record, separators=(",", ":")))
        entries.append(dict(entry, id=new_id))
    plan["attempts"] = entries
    (out / "campaign.json").write_text(json.dumps(plan, separators=(",", ":")))
    datasets = example / "datasets"
    if datasets.is_dir():
        shutil.copytree(datasets, out / "datasets")


def baseline_bundle(folder, repository, work):
    """sha256sum of every file, then tar | zstd -3 of the same files (the campaign and the repository's)."""
    staged = work / "staged"
    staged.mkdir()
    (staged / "campaigns").mkdir()
    os.symlink(folder, staged / "campaigns" / folder.name)
    os.symlink(repository, staged / "repository")
    sums = work / "sums"
    command = (
        f"cd {staged} && find -L campaigns repository -type f -print0 | xargs -0 sha256sum > {sums} && "
        f"tar -chf - campaigns repository | zstd -q -3 -o {work / 'baseline.tar.zst'}"
    )
    return measure(command)


def baseline_verify(work):
    target = work / "baseline-unpacked"
    target.mkdir()
    command = (
        f"zstd -q -d -c {work / 'baseline.tar.zst'} | tar -xf - -C {target} && "
        f"cd {target} && sha256sum --quiet -c {work / 'sums'}"
    )
    return measure(command)


def row(name, folder, repository, binary, work):
    work.mkdir(parents=True)
    size, files = tree_size(folder)
    bundle = work / "bundle.tar.zst"
    bundle_time, bundle_rss = measure([binary, "bundle", str(folder), "--out", str(bundle)])
    # verify unpacks into a temporary folder: the same file system as the baseline's.
    scratch = work / "tmp"
    scratch.mkdir()
    verify_time, verify_rss = measure([binary, "verify", str(bundle)], env=dict(os.environ, TMPDIR=str(scratch)))
    base_time, base_rss = baseline_bundle(folder, repository, work)
    check_time, check_rss = baseline_verify(work)
    return {
        "campaign": name,
        "files": files,
        "bytes": size,
        "bundle": (bundle_time, bundle_rss, bundle.stat().st_size),
        "verify": (verify_time, verify_rss),
        "tar+zstd+sha256sum": (base_time, base_rss, (work / "baseline.tar.zst").stat().st_size),
        "unpack+sha256sum -c": (check_time, check_rss),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(ROOT / "target/release/metewand"))
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--work", default=None, help="the folder to work in (default: a temporary one)")
    parser.add_argument("--reuse", action="store_true", help="reuse the campaigns an earlier run left in --work")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="metewand-bundle-bench-"))
    repository = ROOT / "examples/least-squares"
    state = work / "state"
    example = state / "campaigns/main"
    synthetic = work / "synthetic" / "main"
    if not args.reuse:
        command = [args.binary, "campaign", "run", str(repository), "main", "-j", "2", "--quiet"]
        subprocess.run(command + ["--state-dir", str(state)], check=True)
        started = time.perf_counter()
        synthesize(example, synthetic, args.attempts)
        print(f"synthetic campaign of {args.attempts} attempts made in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    for made in ("example", "synthetic-run"):
        shutil.rmtree(work / made, ignore_errors=True)
    rows = [
        row("example", example, repository, args.binary, work / "example"),
        row(f"synthetic {args.attempts}", synthetic, repository, args.binary, work / "synthetic-run"),
    ]
    print("| campaign | files | bytes | bundle | verify | tar+zstd+sha256sum | unpack+sha256sum -c | size: bundle, tar.zst |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        b, v, t, c = r["bundle"], r["verify"], r["tar+zstd+sha256sum"], r["unpack+sha256sum -c"]
        print(
            f"| {r['campaign']} | {r['files']} | {r['bytes'] / 2**20:.1f} MiB "
            f"| {b[0]:.2f} s, {b[1]:.0f} MiB | {v[0]:.2f} s, {v[1]:.0f} MiB "
            f"| {t[0]:.2f} s, {t[1]:.0f} MiB | {c[0]:.2f} s, {c[1]:.0f} MiB "
            f"| {b[2] / 2**20:.2f} MiB, {t[2] / 2**20:.2f} MiB |"
        )
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
