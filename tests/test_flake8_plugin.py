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
    def reset() -> None:
        Flake8Checker.settings = None
        Flake8Checker.graph_state_methods = None
        Flake8Checker.overrides = {}
        Flake8Checker._resolver = None
        Flake8Checker._triggers = {}
        Flake8Checker.disable_noqa = False

    reset()
    yield
    reset()


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


def test_the_plugin_reads_suppressions_as_the_cli_does() -> None:
    text = ACCEPTANCE.replace("start = idx\n", "start = idx  #noqa\n")
    assert [row for row, _, _ in plugin_results(text)] == [4]
    assert plugin_results(text) == plugin_results(text.replace("#noqa", "# noqa"))
    exempt = "# attnlint: noqa: ATN301\n" + ACCEPTANCE
    assert plugin_results(exempt) == []


def test_disable_noqa_reports_what_the_comments_suppress() -> None:
    class Options:
        attnlint_graph_state_methods = None
        disable_noqa = True

    Flake8Checker.parse_options(Options())
    text = ACCEPTANCE.replace("start = idx\n", "start = idx  # noqa\n")
    assert len(plugin_results(text)) == 2


def test_the_plugin_never_runs_unused_noqa() -> None:
    Flake8Checker.settings = Settings(select=("ATN",), extend_select=("ATN001",))
    text = ACCEPTANCE.replace("start = idx\n", "start = idx  # noqa: ATN101\n")
    assert "ATN001" in Flake8Checker.settings.enabled_codes
    assert {message[:6] for _, _, message in plugin_results(text)} == {"ATN301"}


# Inline spellings (appended to row 3, the first of the two findings) and
# file-level lines (put first): flake8 with the plugin and `attnlint check`
# must report the same findings for each.
INLINE_SPELLINGS = (
    "",
    "  # noqa",
    "  # NOQA",
    "  # NoQA",
    "  #noqa",
    "  #  noqa",
    "  # noqa: ATN301",
    "  # noqa:ATN301",
    "  # noqa: ATN3",
    "  # noqa: ATN301, E501",
    "  # noqa: E501 ATN301",
    "  # NOQA: atn301",
    "  # noqa: atn3",
    "  # noqa: ATN101",
    "  # noqa:  ATN101",
    "  # noqa ATN101",
    "  # noqa: ATN301 pinned at adoption",
    "  # type: ignore  # noqa: ATN301",
    "  # pinned # noqa: ATN301",
    "  # no qa",
)
FILE_LINES = (
    "# flake8: noqa",
    "# flake8: noqa: E501",
    "# FLAKE8: NOQA",
    "# attnlint: noqa",
    "# attnlint: noqa: ATN301",
    "# attnlint: noqa: atn301",
    "# ATTNLINT: NOQA",
    "#attnlint:noqa",
    "x = 1  # attnlint: noqa",
)


def test_flake8_and_the_cli_agree_on_every_spelling(tmp_path: Path) -> None:
    files = {}
    for index, comment in enumerate(INLINE_SPELLINGS):
        text = ACCEPTANCE.replace("start = idx\n", f"start = idx{comment}\n")
        files[f"inline_{index}.py"] = (comment, text)
    for index, line in enumerate(FILE_LINES):
        files[f"file_{index}.py"] = (line, f"{line}\n{ACCEPTANCE}")
    for name, (_, text) in files.items():
        (tmp_path / name).write_text(text)
    names = sorted(files)
    by_flake8 = flake8(tmp_path, "--select", "ATN", *names)
    assert by_flake8.returncode in (0, 1), by_flake8.stderr
    by_cli = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--no-cache", *names],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert by_cli.returncode in (0, 1), by_cli.stderr

    def reported(output: str) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {name: [] for name in names}
        for line in output.splitlines():
            name, _, rest = line.partition(":")
            if name in found:
                row, _, rest = rest.partition(":")
                found[name].append(f"{row} {rest.split()[1]}")
        return found

    flake8_found, cli_found = reported(by_flake8.stdout), reported(by_cli.stdout)
    disagreements = [
        (files[name][0], flake8_found[name], cli_found[name])
        for name in names
        if flake8_found[name] != cli_found[name]
    ]
    assert disagreements == []
    # And what each reads: codes as written, so `atn301` suppresses nothing.
    expected_rows = {
        "": ["3 ATN301", "4 ATN301"],
        "  # NOQA: atn301": ["3 ATN301", "4 ATN301"],
        "  #noqa": ["4 ATN301"],
        "  # noqa: ATN101": ["3 ATN301", "4 ATN301"],
        "  # noqa ATN101": ["4 ATN301"],  # no colon: a blanket directive
        "  # noqa: ATN301 pinned at adoption": ["4 ATN301"],
        "  # pinned # noqa: ATN301": ["4 ATN301"],
    }
    for name in names:
        comment = files[name][0]
        if comment in expected_rows:
            assert cli_found[name] == expected_rows[comment], comment
    file_expected = {
        "# flake8: noqa: E501": [],  # flake8 skips the file whatever follows
        "# attnlint: noqa: atn301": ["4 ATN301", "5 ATN301"],
        "x = 1  # attnlint: noqa": [],
    }
    for name in names:
        line = files[name][0]
        if name.startswith("file_") and line in file_expected:
            assert cli_found[name] == file_expected[line], line


def test_parse_options_sets_graph_state_methods(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "attnlint.toml").write_text("graph-state-methods = ['from_config']\n")
    monkeypatch.chdir(tmp_path)

    class Options:
        attnlint_graph_state_methods = None

    Flake8Checker.parse_options(Options())
    settings = Flake8Checker.settings_for(str(tmp_path / "m.py"))
    assert settings is not None and settings.graph_state_methods == ("from_config",)
    Options.attnlint_graph_state_methods = ["init_*_graph_state", "setup"]
    Flake8Checker.parse_options(Options())
    settings = Flake8Checker.settings_for(str(tmp_path / "m.py"))
    assert settings is not None
    assert settings.graph_state_methods == ("init_*_graph_state", "setup")


# ATN301 twice (rows 3-4) and ATN102 once in a method that only a configured
# graph-state-methods names (row 12).
CONFIGURED = ACCEPTANCE + (
    "\n\nimport torch\n\nclass Backend:\n"
    "    def setup_graph_buffers(self, max_bs):\n"
    "        self.lens = torch.zeros(max_bs, dtype=torch.int32)\n"
)


def cli_rows(cwd: Path, *paths: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--no-cache", *paths],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    return sorted(
        " ".join(line.split()[:2]).replace("[*]", "").strip()
        for line in result.stdout.splitlines()
        if ": ATN" in line
    )


def flake8_rows(cwd: Path, *args: str) -> list[str]:
    result = flake8(cwd, "--select", "ATN", *args)
    assert result.returncode in (0, 1), result.stderr
    return sorted(
        " ".join(line.split()[:2]).removeprefix("./")
        for line in result.stdout.splitlines()
    )


def test_flake8_reads_tool_attnlint_and_reports_what_the_cli_reports(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.attnlint]\n"
        'ignore = ["ATN301"]\n'
        'graph-state-methods = ["setup_graph_*"]\n'
    )
    (tmp_path / "rows.py").write_text(CONFIGURED)
    by_cli = cli_rows(tmp_path, "rows.py")
    assert by_cli == ["rows.py:12:21: ATN102"]
    assert flake8_rows(tmp_path, "rows.py") == by_cli
    assert flake8_rows(tmp_path, ".") == by_cli


def test_flake8_gives_each_file_its_nearest_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.attnlint]\nper-file-ignores = { 'skipped.py' = ['ATN3'] }\n"
    )
    for name in ("rows.py", "skipped.py", "sub/rows.py", "sub/gen/made.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(CONFIGURED)
    (tmp_path / "sub" / ".attnlint.toml").write_text(
        "select = ['ATN301']\nextend-exclude = ['gen']\n"
    )
    by_cli = cli_rows(tmp_path, ".")
    assert by_cli == [
        "rows.py:3:9: ATN301",
        "rows.py:4:9: ATN301",
        "sub/rows.py:3:9: ATN301",
        "sub/rows.py:4:9: ATN301",
    ]
    assert flake8_rows(tmp_path, ".") == by_cli


def test_a_broken_configuration_fails_flake8_with_its_message(tmp_path: Path) -> None:
    (tmp_path / "attnlint.toml").write_text("selec = ['ATN']\n")
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    result = flake8(tmp_path, "--select", "ATN", "rows.py")
    assert result.returncode != 0
    assert "unknown key 'selec'" in result.stdout + result.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    "where", ["configuration file", "--attnlint-config", "bad TOML"]
)
def test_a_configuration_error_stops_flake8_with_a_message_not_a_traceback(
    tmp_path: Path, where: str, jobs: str
) -> None:
    """A typo in a setting is the user's to fix: flake8 stops as it does for
    its own errors, with the message naming the key, and no traceback (was:
    40 lines of traceback ending in ConfigError, or ValueError for
    --attnlint-config), in one process or with workers. A bad option value
    is a usage error, as flake8's own are: stderr and exit status 2; a bad
    configuration file, found while checking, is flake8's critical error."""
    args = ["--select", "ATN", "-j", jobs]
    if where == "configuration file":
        (tmp_path / "attnlint.toml").write_text("selec = ['ATN']\n")
        expected = "unknown key 'selec' (did you mean 'select'?)"
    elif where == "--attnlint-config":
        args += ["--attnlint-config", "hot-paths-onl = false"]
        expected = "unknown key 'hot-paths-onl' (did you mean 'hot-paths-only'?)"
    else:
        args += ["--attnlint-config", "hot-paths-only = no"]
        expected = "'hot-paths-only = no' is not a TOML KEY = VALUE"
    for name in ("rows.py", "more.py", "other.py"):
        (tmp_path / name).write_text(ACCEPTANCE)
    result = flake8(tmp_path, *args, ".")
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    assert expected in output, output
    assert "ATN301" not in output
    if where == "configuration file":
        assert result.returncode == 1 and "critical error" in result.stdout, output
    else:
        assert result.returncode == 2, output
        assert result.stdout == "", output
        assert result.stderr.startswith("flake8: error: --attnlint-config: ")


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


COLD = ACCEPTANCE.replace("def forward(", "def setup(")  # not per step


def test_attnlint_config_sets_any_option(tmp_path: Path) -> None:
    """``--attnlint-config KEY=VALUE`` sets an option over the configuration
    files, as ``attnlint check --config`` does: ``hot-paths-only = false``
    reports the loop aliases of a function not known to run per step."""
    (tmp_path / "rows.py").write_text(COLD)
    quiet = flake8(tmp_path, "--select", "ATN", "rows.py")
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stderr
    loud = flake8(
        tmp_path,
        "--select",
        "ATN",
        "--attnlint-config",
        "hot-paths-only = false",
        "--attnlint-config",
        "host-tensor-names = ['*_cpu']",
        "rows.py",
    )
    assert loud.returncode == 1, loud.stderr
    assert loud.stdout.count("ATN301") == 2


def test_attnlint_config_from_flake8s_configuration(tmp_path: Path) -> None:
    (tmp_path / "rows.py").write_text(COLD)
    (tmp_path / "setup.cfg").write_text(
        "[flake8]\nselect = ATN\nattnlint-config =\n    hot-paths-only = false\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "rows.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.count("ATN301") == 2


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("no-such-key = 1", "no-such-key"),
        ("hot-paths-only = 'maybe'", "hot-paths-only"),
        ("hot-paths-only", "hot-paths-only"),
    ],
)
def test_a_bad_attnlint_config_stops_flake8_with_its_name(
    tmp_path: Path, value: str, named: str
) -> None:
    (tmp_path / "rows.py").write_text(COLD)
    result = flake8(tmp_path, "--select", "ATN", "--attnlint-config", value, "rows.py")
    assert result.returncode != 0
    assert named in result.stderr


def test_parse_options_applies_attnlint_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "attnlint.toml").write_text("host-tensor-names = ['*_np']\n")
    monkeypatch.chdir(tmp_path)

    class Options:
        attnlint_graph_state_methods = None
        attnlint_config = ["host-tensor-names = ['*_staging']"]

    Flake8Checker.parse_options(Options())
    settings = Flake8Checker.settings_for(str(tmp_path / "m.py"))
    assert settings is not None
    assert settings.options.host_tensor_names == ("*_staging",)
