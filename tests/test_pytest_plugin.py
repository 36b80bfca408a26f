"""The pytest plugin: poisoned uninitialized memory by option, env, marker, fixture.

Most runs are in-process (``pytester.runpytest``), which is fast because torch
is already imported; the two runs that must see a fresh interpreter
(``sys.modules`` without torch, a torch that cannot be imported) are subprocesses.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from lint_rules.poison import POISON_ENV
from lint_rules.pytest_plugin import WITNESS_ENV

torch = pytest.importorskip("torch")
deterministic = pytest.importorskip("torch.utils.deterministic")

pytest_plugins = ["pytester"]

PROBE_POISONED = """
    import torch

    def test_empty_is_poisoned():
        assert torch.empty(64).isnan().all()
        assert (torch.empty(64, dtype=torch.int32) == 2**31 - 1).all()
        assert (torch.empty(64, dtype=torch.int64) == 2**63 - 1).all()
        assert torch.empty_like(torch.ones(8)).isnan().all()
"""


@pytest.fixture(autouse=True)
def unpoisoned_outer_state(monkeypatch: pytest.MonkeyPatch):
    """Start every inner run unpoisoned, even if this suite itself runs poisoned."""
    monkeypatch.delenv(POISON_ENV, raising=False)
    monkeypatch.delenv(WITNESS_ENV, raising=False)
    was_deterministic = torch.are_deterministic_algorithms_enabled()
    was_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(False)
    yield
    torch.use_deterministic_algorithms(was_deterministic, warn_only=was_warn_only)


def unpoisoned_state_checks() -> str:
    """Source of a test asserting that poisoning is off, as this module leaves it."""
    filling = deterministic.fill_uninitialized_memory
    return f"""
    def test_poisoning_is_off():
        import torch.utils.deterministic
        assert not torch.are_deterministic_algorithms_enabled()
        assert torch.utils.deterministic.fill_uninitialized_memory is {filling}
"""


def outer_state() -> tuple[bool, bool, bool]:
    return (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        torch.utils.deterministic.fill_uninitialized_memory,
    )


def test_option_poisons_float_and_int_empty(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(textwrap.dedent(PROBE_POISONED))
    before = outer_state()
    result = pytester.runpytest("--attnlint-poison")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["attnlint: uninitialized memory poisoned * by --attnlint-poison"]
    )
    assert outer_state() == before


def test_env_var_poisons_session_and_writes_witness(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    witness = pytester.path / "witness.jsonl"
    monkeypatch.setenv(POISON_ENV, "1")
    monkeypatch.setenv(WITNESS_ENV, str(witness))
    pytester.makepyfile(
        textwrap.dedent(PROBE_POISONED)
        + "\ndef test_fails():\n    assert torch.empty(4).sum() == 0\n"
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"attnlint: * by {POISON_ENV}=1"])
    records = [json.loads(line) for line in witness.read_text().splitlines()]
    assert records[0]["event"] == "poisoned"
    assert [r["nodeid"] for r in records[1:]] == [
        "test_env_var_poisons_session_and_writes_witness.py::test_fails"
    ]


def test_marker_poisons_one_test_and_restores_state(
    pytester: pytest.Pytester,
) -> None:
    marked = textwrap.dedent(PROBE_POISONED).replace(
        "def test_empty_is_poisoned", "@pytest.mark.attnlint_poison\ndef test_marked"
    )
    checks = textwrap.dedent(unpoisoned_state_checks())
    pytester.makepyfile(
        "import pytest\n" + checks + marked + checks.replace("off", "off_again")
    )
    result = pytester.runpytest("--strict-markers", "-p", "no:randomly")
    result.assert_outcomes(passed=3)
    assert "attnlint: uninitialized memory poisoned" not in result.stdout.str()


def test_fixture_poisons_within_test_and_restores_state(
    pytester: pytest.Pytester,
) -> None:
    probe = textwrap.dedent(PROBE_POISONED).replace(
        "def test_empty_is_poisoned()", "def test_with_fixture(attnlint_poison)"
    )
    checks = textwrap.dedent(unpoisoned_state_checks())
    pytester.makepyfile(probe + checks)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)


def test_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.attnlint_poison: *"])


def test_plugin_does_not_import_torch_when_off(pytester: pytest.Pytester) -> None:
    # A fresh interpreter: in-process runs share this process's sys.modules.
    pytester.makepyfile(
        """
        import sys

        def test_torch_not_imported():
            assert "lint_rules.pytest_plugin" in sys.modules  # the plugin is loaded
            assert "torch" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)


def test_poisoning_without_torch_is_a_clear_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A torch package that cannot be imported, first on the path.
    (pytester.path / "hide" / "torch").mkdir(parents=True)
    (pytester.path / "hide" / "torch" / "__init__.py").write_text(
        "raise ImportError('torch hidden by the test')\n"
    )
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.attnlint_poison
        def test_marked():
            pass

        def test_fixture(attnlint_poison):
            pass
        """
    )
    monkeypatch.setenv("PYTHONPATH", str(pytester.path / "hide"))
    usage = pytester.runpytest_subprocess("--attnlint-poison")
    assert usage.ret == pytest.ExitCode.USAGE_ERROR
    usage.stderr.fnmatch_lines(
        ["*--attnlint-poison asks for *poisoning*torch cannot be imported*"]
    )
    per_test = pytester.runpytest_subprocess()
    per_test.assert_outcomes(errors=2)
    per_test.stdout.fnmatch_lines(
        [
            "*@pytest.mark.attnlint_poison asks for*torch cannot be imported*",
            "*the attnlint_poison fixture asks for*torch cannot be imported*",
        ]
    )


def test_test_that_switches_poisoning_off_fails(pytester: pytest.Pytester) -> None:
    # torch.empty would hold the allocator's bytes for the rest of such a test:
    # its passing proves nothing, so it must not count as a pass.
    pytester.makepyfile(
        """
        import pytest
        import torch

        def test_switches_off():
            torch.use_deterministic_algorithms(False)
            assert torch.empty(4).sum() is not None

        @pytest.mark.attnlint_poison
        def test_marked_switches_fill_off():
            import torch.utils.deterministic
            torch.utils.deterministic.fill_uninitialized_memory = False

        def test_switches_off_and_back_on():
            torch.use_deterministic_algorithms(False)
            torch.use_deterministic_algorithms(True, warn_only=True)
            assert torch.empty(4).isnan().all()
        """
    )
    result = pytester.runpytest("--attnlint-poison", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*poisoning was switched off during this test*"])
