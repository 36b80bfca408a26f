"""README.md is true: its rule table matches the rules, its commands are the CI's."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from lint_rules.docs import render

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rule_table_matches_rule_docstrings():
    assert render(README) == README, (
        "run `python -m lint_rules.docs` to refresh README.md"
    )


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```console\n(.*?)\n```", README, flags=re.S)
    test_command = next(c for c in commands if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def _console_commands() -> list[str]:
    return re.findall(r"```console\n(.*?)\n```", README, flags=re.S)


def _pinned_torch(command: str) -> str:
    match = re.search(r"torch==(\S+)", command)
    assert match, command
    return match.group(1)


def test_cpu_torch_command_pins_the_torch_of_the_test_command() -> None:
    test_command = next(c for c in _console_commands() if "pytest" in c)
    cpu = re.search(r"`(pip install torch==\S+ --index-url (\S+))`", README)
    assert cpu, "README names no CPU build of torch"
    assert _pinned_torch(cpu.group(1)) == _pinned_torch(test_command)
    assert cpu.group(2) == "https://download.pytorch.org/whl/cpu"


def test_offline_command_leaves_out_every_test_that_downloads() -> None:
    offline = re.search(r'`(python -m pytest -m "not (\w+)")`', README)
    assert offline, "README says not how to run the tests without the network"
    marker = offline.group(2)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", f"not {marker}"]
        + ["tests/realworld", "tests/test_precommit.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    # pytest exits 5 when every test was deselected.
    assert result.returncode == 5, result.stdout + result.stderr
    assert "deselected" in result.stdout


def test_quickstart_exits_1_for_findings_as_the_readme_says() -> None:
    quickstart = _console_commands()[0]
    command = quickstart.split(" && ")[-1]
    assert command.startswith("attnlint check ")
    assert "exits with status 1, which means findings" in README
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", *command.split()[1:], "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    assert re.search(r"^Found \d+ errors\.$", result.stdout, flags=re.M)


def test_fix_summary_shown_is_the_fix_summary_of_the_quickstart_example(
    tmp_path: Path,
) -> None:
    section = README[README.index("count the same fixes") :]
    shown = re.search(r"```text\n(.*?)\n```", section, flags=re.S).group(1)
    example = tmp_path / "backend.py"
    shutil.copyfile(
        ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py", example
    )
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--no-cache", "--fix", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    lines = result.stdout.splitlines()
    first = shown.splitlines()[0]
    assert first in lines, result.stdout
    start = lines.index(first)
    assert lines[start : start + len(shown.splitlines())] == shown.splitlines()


def test_every_install_command_installs_from_where_attnlint_is() -> None:
    """attnlint is installed from its repository (the quickstart's `pip install
    .`, pre-commit's `repo`): a `pip install attnlint` or `'attnlint[server]'`
    in the CI gate or the editors' section finds nothing on PyPI (or someone
    else's package of that name). The editors' requirement is the `server`
    extra's."""
    blocks = re.findall(r"```(?:console|yaml)\n(.*?)```", README, flags=re.S)
    installs = [
        line for block in blocks for line in block.splitlines() if "pip install" in line
    ]
    assert installs
    for line in installs:
        assert not re.search(r"pip install ['\"]?attnlint\b(?! @ git\+)", line), line
    pyproject = (ROOT / "pyproject.toml").read_text()
    (extra,) = re.findall(r'^server = \["([^"]+)"\]$', pyproject, flags=re.M)
    editors = README[README.index("## Editors") :]
    assert f"pip install '{extra}'" in editors.split("**VS Code**")[0]


def test_the_configuration_example_keeps_every_default_it_lists() -> None:
    """A list setting replaces its default, so the example a user copies must
    not narrow one: it showed `hot-path-methods = ["forward", "forward_*",
    "init_forward_metadata*", "step"]`, which put vLLM's builders, FlashInfer's
    wrappers and every `*replay*` method out of per-step code (17 ATN203 and
    3 ATN202 findings fewer on the backends corpus), and likewise narrowed
    `graph-state-methods` and `jit-decorators`."""
    from lint_rules.config import Settings, settings_from_table, toml_module

    section = README[README.index("### Configuration") :]
    example = re.search(r"```toml\n(.*?)```", section, flags=re.S).group(1)
    table = toml_module().loads(example)["tool"]["attnlint"]
    settings = settings_from_table(table, config_file="pyproject.toml")
    defaults = Settings()
    narrowed = []
    for key, value in table.items():
        attribute = key.replace("-", "_")
        default = getattr(defaults, attribute, None)
        if key in ("select", "ignore") or not isinstance(value, list):
            continue
        if isinstance(default, tuple) and not set(default) <= set(value):
            narrowed.append(key)
        assert set(getattr(settings, attribute)) >= set(value)
    assert narrowed == []
    assert {"hot-path-methods", "graph-state-methods", "host-tensor-names"} <= set(
        table
    )


def test_usage_names_every_output_format() -> None:
    """`--output-format` offers json-lines too (the README listed five)."""
    from lint_rules.config import OUTPUT_FORMATS

    usage = README[README.index("The options follow ruff") :]
    usage = usage[: usage.index("\n\n")]
    assert [f for f in OUTPUT_FORMATS if f"`{f}`" not in usage] == []
