"""What the machine must give the tests is read here as the Rust tests read it (``metewand-testkit``)."""

from __future__ import annotations

import re

import pytest
import support


def test_ci_requires_what_the_rust_tests_require() -> None:
    source = (support.REPO_ROOT / "metewand-testkit" / "src" / "lib.rs").read_text(encoding="utf-8")
    found = re.search(r'pub const CI_TEST_REQUIRED: &str = "([^"]*)";', source)
    assert found is not None, "metewand-testkit no longer defines CI_TEST_REQUIRED"
    assert support.CI_TEST_REQUIRED == found.group(1)


@pytest.mark.parametrize(
    ("ci", "listed", "expected"),
    [
        (None, None, False),
        ("true", None, True),
        ("true", "", False),
        ("true", "slurm, python3.10", True),
        (None, "corpora,python3.10", True),
        (None, "python3.100", False),
    ],
)
def test_a_requirement_is_read_from_the_variable_or_ci(
    monkeypatch: pytest.MonkeyPatch, ci: str | None, listed: str | None, expected: bool
) -> None:
    for name, value in (("CI", ci), (support.TEST_REQUIRED_VAR, listed)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert support.required("python3.10") is expected


def test_a_required_skip_fails_and_another_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(support.TEST_REQUIRED_VAR, "python3.10")
    with pytest.raises(pytest.fail.Exception, match="this machine must give python3.10"):
        support.skip("python3.10", "no python3.10 on PATH")
    with pytest.raises(pytest.skip.Exception, match="^needs corpora: none here$"):
        support.skip("corpora", "none here")
