"""Skipped tests are reported where the test command lists them.

``cargo xtask test`` names a file in ``METEWAND_SKIP_LOG``; each skipped test appends one line to it (the test,
what it lacked, why), as the Rust tests do, and the test command counts and lists them at the end. What it lacked
is the requirement a ``support.skip`` names, or ``pytest`` for any other skip.
"""

from __future__ import annotations

import os

import pytest


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    log = os.environ.get("METEWAND_SKIP_LOG")
    if not log or not report.skipped:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason.removeprefix("Skipped: ").replace("\t", " ").replace("\n", " ")
    # A skip for lack of something the machine may be required to give (``support.skip``) names it.
    missing, _, why = reason.removeprefix("needs ").partition(": ")
    if not reason.startswith("needs ") or not why:
        missing, why = "pytest", reason
    with open(log, "a", encoding="utf-8") as file:
        file.write(f"{report.nodeid}\t{missing}\t{why}\n")
