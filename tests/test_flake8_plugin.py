"""attnlint as a flake8 plugin: same rules, same messages, flake8's own tree."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from lint_rules import __version__, checker
from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.flake8_plugin import Flake8Checker
from tests.test_cli import ACCEPTANCE

pytest.importorskip("flake8")


@pytest.fixture(autouse=True)
def fresh_plugin_settings() -> None:
    Flake8Checker.settings = None
    Flake8Checker._triggers = None
    yield
    Flake8Checker.settings = None
    Flake8Checker._triggers = None


def flake8(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def plugin_results(text: str, filename: str = "rows.py") -> list[tuple[int, int, str]]:
    lines = text.splitlines(keepends=True)
    plugin = Flake8Checker(ast.parse(text), filename, lines)
    return [(row, col, message) for row, col, message, kind in plugin.run()]


def test_plugin_identity() -> None:
    assert Flake8Checker.name == "attnlint"
    assert Flake8Checker.version == __version__


def test_run_yields_the_checker_findings_with_zero_based_columns() -> None:
    results = plugin_results(ACCEPTANCE)
    findings = check_source(ACCEPTANCE, "rows.py", Settings())
    assert results == [
        (f.location.row, f.location.column - 1, f"{f.code} {f.message}")
        for f in findings
    ]
    assert [(row, col) for row, col, _ in results] == [(3, 8), (4, 8)]
    assert all(message.startswith("ATN301 ") for _, _, message in results)


def test_run_uses_flake8s_tree_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse(ACCEPTANCE)
    monkeypatch.setattr(checker, "parse", lambda *a, **k: pytest.fail("parsed twice"))
    plugin = Flake8Checker(tree, "rows.py", ACCEPTANCE.splitlines(keepends=True))
    assert len(list(plugin.run())) == 2


def test_text_without_triggers_is_skipped_before_checking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checker, "check_source", lambda *a, **k: pytest.fail("checked"))
    assert plugin_results("x = 1\n") == []


def test_noqa_is_left_to_flake8() -> None:
    text = ACCEPTANCE.replace("start = idx\n", "start = idx  # noqa\n")
    assert len(plugin_results(text)) == 2


def test_parse_options_sets_graph_state_methods() -> None:
    class Options:
        attnlint_graph_state_methods = ["init_*_graph_state", "setup"]

    Flake8Checker.parse_options(Options())
    assert Flake8Checker.settings is not None
    assert Flake8Checker.settings.graph_state_methods == ("init_*_graph_state", "setup")


def test_flake8_reports_the_same_two_findings(tmp_path: Path) -> None:
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    result = flake8(tmp_path, "--select", "ATN", "rows.py")
    assert result.returncode == 1, result.stderr
    messages = [
        f"{f.code} {f.message}" for f in check_source(ACCEPTANCE, "rows.py", Settings())
    ]
    assert result.stdout.splitlines() == [
        f"rows.py:3:9: {messages[0]}",
        f"rows.py:4:9: {messages[1]}",
    ]


def test_flake8_applies_noqa(tmp_path: Path) -> None:
    text = ACCEPTANCE.replace("start = idx\n", "start = idx  # noqa: ATN301\n")
    (tmp_path / "rows.py").write_text(text)
    result = flake8(tmp_path, "--select", "ATN", "rows.py")
    assert result.stdout.count("ATN301") == 1 and "rows.py:4:9" in result.stdout


def test_flake8_option_is_registered(tmp_path: Path) -> None:
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    result = flake8(
        tmp_path,
        "--select",
        "ATN",
        "--attnlint-graph-state-methods",
        "init_*",
        "rows.py",
    )
    assert result.returncode == 1 and "unrecognized" not in result.stderr


def test_flake8_lists_the_plugin() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True
    )
    assert f"attnlint: {__version__}" in result.stdout
