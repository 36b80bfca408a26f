"""``attnlint verify``: bisection, transactions, reports.

Three kinds of test, cheapest first:

- units (argument split, fix application, summary parsing, file transaction);
- the engine against ``tests/verify_fixtures/fake_tests.py``, a test command
  without pytest or torch, for timeouts, signals and failure paths;
- the engine against a small real project in ``tmp_path`` (a graph-state
  backend with zero-filled buffers and its pytest tests), real pytest runs with
  real poisoning: every fix confirmed; a planted early read rejected alone.

The end-to-end tests on the reference backend wait for ATN102.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lint_rules.diagnostics import Applicability, Edit, Finding, Fix, Location
from lint_rules.fixer import FileChanged
from lint_rules.verify import (
    EXIT_INTERRUPTED,
    EXIT_NOT_CONFIRMED,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    SKIPPED,
    CandidateFix,
    FileTransaction,
    Progress,
    SourceState,
    VerifyOptions,
    build_parser,
    collect_candidates,
    failing_tests_in,
    run_verify,
    verify,
)
from lint_rules.verify.bisection import Verifier, most_runs
from lint_rules.verify.report import HEARTBEAT_ENV, HEARTBEAT_SECONDS, heartbeat_seconds
from lint_rules.verify.runs import RunResult
from tests.verify_fixtures import synthetic
from tests.verify_fixtures.synthetic import zeros_to_empty_findings

REPO = Path(__file__).resolve().parents[1]
FAKE_TESTS = REPO / "tests" / "verify_fixtures" / "fake_tests.py"
# Third-party plugins that only slow each run down (absent ones are ignored).
QUIET_PYTEST = [
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "-p",
    "no:benchmark",
]

FAKE_MODULE = (
    "import torch\n\na = torch.zeros(1)\nb = torch.zeros(2)\nc = torch.zeros(3)\n"
)


def unsafe(start: int, end: int, content: str) -> Fix:
    return Fix((Edit(start, end, content),), Applicability.UNSAFE, "fix")


def finding(fix: Fix) -> Finding:
    return Finding(
        "ATN102", "zeros-persistent-buffer", "m", Location(1, 1), Location(1, 2), fix
    )


def run(
    options: VerifyOptions, progress: Progress | None = None
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = verify(
        options,
        stdout=out,
        stderr=err,
        find=zeros_to_empty_findings,
        progress=progress or Progress(err, enabled=False),
    )
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def fake_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """buffers.py with three zero-filled buffers, never imported by the fake tests."""
    (tmp_path / "buffers.py").write_text(FAKE_MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fake_command(*options: str) -> list[str]:
    return [sys.executable, str(FAKE_TESTS), "buffers.py", *options]


def snapshot(path: Path) -> tuple[bytes, int, int]:
    info = path.stat()
    return path.read_bytes(), stat.S_IMODE(info.st_mode), info.st_mtime_ns


# --------------------------------------------------------------------------
# Units


def test_a_source_renders_exactly_the_chosen_fixes_of_that_file(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes("a = zeros(1)\r\nb = zeros(2)\r\n".encode("utf-8-sig"))
    state = SourceState(path, "m.py", path.read_bytes())
    other = SourceState(path, "other.py", path.read_bytes())
    first, second = unsafe(4, 9, "empty"), unsafe(18, 23, "empty")
    state.candidates = [
        CandidateFix(state, finding(first)),
        CandidateFix(state, finding(second)),
    ]
    elsewhere = CandidateFix(other, finding(first))
    assert state.render([]) == path.read_bytes()
    assert state.render([state.candidates[1], elsewhere]) == (
        "a = zeros(1)\r\nb = empty(2)\r\n".encode("utf-8-sig")
    )


def test_a_run_names_a_file_by_its_own_name_quoted_as_git_quotes_it(
    tmp_path: Path,
) -> None:
    """The progress line names each file by its base name: a quoted display
    (``"a\\nb/c\\377.py"``) gives the file's own name quoted (it gave the
    tail of the quoted display, ``c\\377.py"``, with a stray quote)."""
    from lint_rules.verify.report import describe

    folder = tmp_path / "a\nb"
    folder.mkdir()
    path = folder / os.fsdecode(b"c\xff.py")
    path.write_bytes(b"a = zeros(1)\n")
    quoted = SourceState(path, '"a\\nb/c\\377.py"', path.read_bytes())
    plain = SourceState(tmp_path / "m.py", "sub/m.py", b"a = zeros(1)\n")
    chosen = [
        CandidateFix(quoted, finding(unsafe(4, 9, "empty"))),
        CandidateFix(plain, finding(unsafe(4, 9, "empty"))),
    ]
    assert describe(chosen, 3) == '2 of 3 fixes ("c\\377.py":1; m.py:1)'


def test_failing_tests_are_read_from_pytest_short_summary() -> None:
    output = (
        "FAILED tests/x.py::test_a - assert 1 == 2\n"
        "\x1b[31mFAILED\x1b[0m tests/x.py::test_b[1 - 2]\n"
        "ERROR tests/y.py - ImportError: no module\n"
        "FAILED to connect to server\n"
        "FAILED tests/x.py::test_a - again\n"
    )
    assert failing_tests_in(output) == [
        "tests/x.py::test_a",
        "tests/x.py::test_b[1",
        "tests/y.py",
    ]


def test_options_may_follow_paths_and_the_command_follows_double_dash() -> None:
    parser = build_parser()
    args = parser.parse_args(
        ["--dry-run", "src", "--timeout", "5", "lib", "--", "pytest", "-x", "--", "t"]
    )
    from lint_rules.verify import _options_from

    options = _options_from(args)
    assert options.paths == ["src", "lib"]
    assert options.command == ["pytest", "-x", "--", "t"]
    assert (options.dry_run, options.timeout) == (True, 5.0)
    assert _options_from(parser.parse_args(["--", "pytest"])).paths == ["."]


@pytest.mark.parametrize(
    "argv",
    [["src"], ["src", "--"], ["--timeout", "0", "--", "pytest"]],
    ids=["no-double-dash", "empty-command", "bad-timeout"],
)
def test_bad_arguments_are_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_verify(argv) == EXIT_USAGE
    assert "error" in capsys.readouterr().err


def test_verify_registers_on_a_cli_subparser() -> None:
    import argparse

    from lint_rules.verify import add_verify_parser

    cli = argparse.ArgumentParser(prog="attnlint")
    add_verify_parser(cli.add_subparsers(dest="command"))
    args = cli.parse_args(["verify", "--timeout", "9", "pkg", "--", "pytest", "-q"])
    assert args.func is run_verify
    assert args.arguments == ["pkg", "--", "pytest", "-q"]
    help_text = cli._subparsers._group_actions[0].choices["verify"].format_help()
    assert "Safe fixes are\nnot verify's business" in help_text
    assert "--dry-run" in help_text and "exit codes:" in help_text


def test_candidates_are_the_selected_unsafe_fixes_only(fake_project: Path) -> None:
    (fake_project / "other.py").write_text("import torch\nx = torch.ones(1)\n")
    states = collect_candidates(["."], find=zeros_to_empty_findings)
    assert [s.display for s in states] == ["buffers.py"]  # other.py: safe fix only
    assert [c.finding.location.row for c in states[0].candidates] == [3, 4, 5]
    assert (
        collect_candidates(["."], select=("ATN101",), find=zeros_to_empty_findings)
        == []
    )


def test_a_file_whose_text_encodes_back_otherwise_gets_no_candidate_tried(
    fake_project: Path,
) -> None:
    # cp932 reads 0x87 0x90 as 0x81 0xe0's character: a write would change it.
    data = b"# -*- coding: cp932 -*-\nMARK = '\x87\x90'\n" + FAKE_MODULE.encode()
    (fake_project / "buffers.py").write_bytes(data)
    (state,) = collect_candidates(["."], find=zeros_to_empty_findings)
    assert [c.status for c in state.candidates] == [SKIPPED] * 3
    assert all("encode back" in c.reason for c in state.candidates)


def test_a_file_named_twice_through_a_symbolic_link_is_one_file(
    fake_project: Path,
) -> None:
    # The walk finds buffers.py and alias.py -> buffers.py: two names of one
    # file, whose fixes must be tried on it once (each name written in turn
    # would undo the other's fixes before the tests run). It goes by the
    # name that is no link.
    (fake_project / "alias.py").symlink_to("buffers.py")
    states = collect_candidates(["."], find=zeros_to_empty_findings)
    assert [state.display for state in states] == ["buffers.py"]
    assert len(states[0].candidates) == 3


def test_fixes_of_a_file_named_twice_are_judged_on_that_file(
    fake_project: Path,
) -> None:
    # Before: bisection wrote buffers.py with a fix and alias.py without it,
    # so the tests ran on the unchanged file and confirmed a fix that breaks
    # them.
    path = fake_project / "buffers.py"
    (fake_project / "alias.py").symlink_to("buffers.py")
    options = VerifyOptions(
        ["buffers.py", "alias.py"],
        fake_command("--fail-if", "b"),
        output_format="json",
    )
    code, out, err = run(options)
    assert code == EXIT_OK, err
    report = json.loads(out)
    assert [(f["filename"], f["status"]) for f in report["fixes"]] == [
        ("buffers.py", "confirmed"),
        ("buffers.py", "rejected"),
        ("buffers.py", "confirmed"),
    ]
    assert path.read_text() == FAKE_MODULE.replace(
        "a = torch.zeros", "a = torch.empty"
    ).replace("c = torch.zeros", "c = torch.empty")
    assert (fake_project / "alias.py").is_symlink()


def test_transaction_writes_atomically_and_restores_bytes_mode_and_mtime(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\r\n# \xc3\xa9\r\n")
    path.chmod(0o640)
    os.utime(path, ns=(1_000_000_000, 1_500_000_000_123))
    before = snapshot(path)
    transaction = FileTransaction()
    transaction.remember(path, path.read_bytes())
    transaction.write(path, b"x = 2\r\n")
    transaction.write(path, b"x = 3\r\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]  # no temporary left
    assert transaction.restore() == [path]
    assert snapshot(path) == before


def test_a_write_interrupted_after_the_rename_is_still_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = torch.zeros(1)\n")
    before = snapshot(path)
    transaction = FileTransaction()
    transaction.remember(path, path.read_bytes())

    # The new file is renamed into place, then its folder flushed to disk:
    # Ctrl-C arrives there, after the rename.
    real_fsync, calls = os.fsync, []

    def interrupted(descriptor: int) -> None:
        calls.append(descriptor)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        transaction.write(path, b"x = torch.empty(1)\n")
    monkeypatch.undo()
    assert path.read_bytes() == b"x = torch.empty(1)\n"
    assert transaction.restore() == [path]
    assert snapshot(path) == before


def test_a_file_changed_by_someone_else_is_left_as_found(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = torch.zeros(1)\n")
    transaction = FileTransaction()
    transaction.remember(path, path.read_bytes())
    transaction.write(path, b"x = torch.empty(1)\n")
    path.write_bytes(b"x = torch.empty(1)  # edited meanwhile\n")
    assert transaction.restore() == []
    assert transaction.conflicts == [path]
    assert path.read_bytes() == b"x = torch.empty(1)  # edited meanwhile\n"


def test_a_file_changed_before_a_write_is_left_as_found(tmp_path: Path) -> None:
    # The edit comes first (while the test command ran on the unchanged
    # files): the write finds it and is refused, and the restore that
    # follows must not put the original back over the edit either.
    path = tmp_path / "m.py"
    path.write_bytes(b"x = torch.zeros(1)\n")
    transaction = FileTransaction()
    transaction.remember(path, path.read_bytes())
    path.write_bytes(b"x = torch.zeros(1)  # edited meanwhile\n")
    with pytest.raises(FileChanged):
        transaction.write(path, b"x = torch.empty(1)\n")
    assert transaction.restore() == []
    assert transaction.conflicts == [path]
    assert path.read_bytes() == b"x = torch.zeros(1)  # edited meanwhile\n"


def test_a_file_that_cannot_be_restored_does_not_stop_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The disk filled up while the tests ran (their logs, say): putting one
    # file back fails, and every other one is still put back.
    import errno

    import lint_rules.fixer as fixer_module

    first, second = tmp_path / "a.py", tmp_path / "b.py"
    for path in (first, second):
        path.write_bytes(b"x = torch.zeros(1)\n")
    before = {path: snapshot(path) for path in (first, second)}
    transaction = FileTransaction()
    for path in (first, second):
        transaction.remember(path, path.read_bytes())
        transaction.write(path, b"x = torch.empty(1)\n")
    real = fixer_module.write_atomic

    def full_for_the_first(target, data, *args, **kwargs):
        if Path(target) == first:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(target, data, *args, **kwargs)

    monkeypatch.setattr(fixer_module, "write_atomic", full_for_the_first)
    assert transaction.restore() == [second]
    assert snapshot(second) == before[second]
    assert first.read_bytes() == b"x = torch.empty(1)\n"
    assert transaction.failures == [(first, "No space left on device")]
    assert transaction.changed() == [first]


def test_each_write_gets_a_new_second_so_no_stale_pyc_is_loaded(tmp_path: Path) -> None:
    # zeros -> empty keeps the size; a .pyc is valid for (mtime seconds, size).
    path = tmp_path / "mod.py"
    path.write_text("VALUE = 'zeros'\n")
    transaction = FileTransaction()
    transaction.remember(path, path.read_bytes())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    seen = []
    for content in ("VALUE = 'empty'\n", "VALUE = 'zeros'\n", "VALUE = 'empty'\n"):
        transaction.write(path, content.encode())
        seen.append(
            subprocess.run(
                [sys.executable, "-c", "import mod; print(mod.VALUE)"],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
    assert (tmp_path / "__pycache__").is_dir()  # bytecode was cached
    assert seen == ["empty", "zeros", "empty"]


def test_verify_and_the_plugin_agree_on_the_witness_variable() -> None:
    # verify must not import the plugin (which imports pytest) to learn the name.
    import lint_rules.verify as verify_module
    from lint_rules import pytest_plugin

    assert verify_module.WITNESS_ENV == pytest_plugin.WITNESS_ENV


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shares_a_line_only_on_a_terminal_outside_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert Progress(_Tty()).interactive
    assert not Progress(io.StringIO()).interactive
    monkeypatch.setenv("CI", "true")
    assert not Progress(_Tty()).interactive
    # Shown everywhere: a silent log is no proof of progress.
    assert Progress(io.StringIO()).enabled and Progress(_Tty()).enabled


def _result(passed: bool = True) -> RunResult:
    return RunResult(passed, 0 if passed else 1, 12.34, [], True, "")


def test_progress_lines_off_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream, interactive=False)
    progress.expect_runs(7)
    progress.start(2, "3 of 3 fixes (buffers.py:3,4,5)")
    progress.beat(10.2)
    progress.beat(20.4)
    progress.finish(_result())
    lines = stream.getvalue().splitlines()
    assert re.fullmatch(
        r"attnlint verify: run 2 of at most 7 \[\d+\.\d s\]: 3 of 3 fixes "
        r"\(buffers\.py:3,4,5\)",
        lines[0],
    )
    assert re.fullmatch(
        r"attnlint verify: run 2 of at most 7 still running: 10 s so far, \d+ s in all",
        lines[1],
    )
    assert lines[2].startswith(
        "attnlint verify: run 2 of at most 7 still running: 20 s"
    )
    assert lines[3] == "attnlint verify: run 2 of at most 7 passed (12.3 s)"
    assert len(lines) == 4 and stream.getvalue().endswith("\n")


def test_progress_on_a_terminal_ends_the_open_line_for_a_heartbeat() -> None:
    stream = _Tty()
    progress = Progress(stream, interactive=True)
    progress.expect_runs(3)
    progress.start(1, "unchanged files")
    progress.finish(_result())
    progress.start(2, "1 of 1 fixes (buffers.py:3)")
    progress.beat(10.0)
    progress.finish(_result(passed=False))
    lines = stream.getvalue().splitlines()
    assert re.fullmatch(
        r"attnlint verify: run 1 of at most 3 \[ *\d+\.\d s\] unchanged files "
        r"\.\.\. passed \(12\.3 s\)",
        lines[0],
    )
    assert lines[1].endswith("1 of 1 fixes (buffers.py:3) ... ")
    assert lines[2].startswith(
        "attnlint verify: run 2 of at most 3 still running: 10 s"
    )
    assert lines[3] == (
        "attnlint verify: run 2 of at most 3 failed (exit code 1) (12.3 s)"
    )


@pytest.mark.parametrize(
    ("value", "seconds"), [("", HEARTBEAT_SECONDS), ("0.25", 0.25), (" 3 ", 3.0)]
)
def test_heartbeat_interval(value: str, seconds: float) -> None:
    assert heartbeat_seconds({HEARTBEAT_ENV: value}) == seconds
    assert HEARTBEAT_SECONDS <= 15  # a line at least every 15 s


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "inf"])
def test_bad_heartbeat_interval_is_a_usage_error(
    fake_project: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    with pytest.raises(ValueError, match=HEARTBEAT_ENV):
        heartbeat_seconds({HEARTBEAT_ENV: value})
    monkeypatch.setenv(HEARTBEAT_ENV, value)
    code, _, err = run(VerifyOptions(["buffers.py"], fake_command()))
    assert code == EXIT_USAGE and f"{HEARTBEAT_ENV}=" in err


class _StubTransaction:
    """Keeps what verify would write, in memory."""

    def __init__(self) -> None:
        self.texts: dict[Path, bytes] = {}

    def write(self, path: Path, data: bytes) -> bool:
        self.texts[path] = data
        return True


class _StubRunner:
    """Fails exactly when a fix of a buffer in ``breaking`` is in the file."""

    def __init__(self, transaction: _StubTransaction, breaking: set[str]) -> None:
        self.transaction = transaction
        self.breaking = breaking
        self.runs = 0

    def run(self, poison: bool = True, **heartbeat: object) -> RunResult:
        self.runs += 1
        text = b"".join(self.transaction.texts.values()).decode()
        applied = set(re.findall(r"^(\w+) = torch\.empty", text, re.M))
        return RunResult(not applied & self.breaking, 0, 0.0, [], True, "")


def test_the_announced_most_runs_is_never_exceeded(fake_project: Path) -> None:
    names = ["a", "b", "c", "d", "e", "f"]
    module = "import torch\n\n" + "".join(f"{n} = torch.zeros(1)\n" for n in names)
    (fake_project / "buffers.py").write_text(module)
    exact = 0
    for mask in range(1 << len(names)):
        breaking = {name for index, name in enumerate(names) if mask >> index & 1}
        states = collect_candidates(["buffers.py"], None, zeros_to_empty_findings, None)
        transaction = _StubTransaction()
        runner = _StubRunner(transaction, breaking)
        progress = Progress(io.StringIO(), enabled=False)
        report = Verifier(states, runner, transaction, progress).verify()
        assert report.exit_code == EXIT_OK
        assert runner.runs <= progress.most_runs == most_runs(len(names))
        exact += runner.runs == most_runs(len(names))
        rejected = {
            c.finding.location.row - 2
            for c in report.candidates
            if c.status == "rejected"
        }
        assert {names[row - 1] for row in rejected} == breaking
    assert exact  # the bound is reached, not just safe


# --------------------------------------------------------------------------
# The engine with a fake test command (no pytest, no torch: fast)


def test_fake_bisection_rejects_the_breaking_fixes_and_keeps_the_rest(
    fake_project: Path,
) -> None:
    options = VerifyOptions(["buffers.py"], fake_command("--fail-if", "b"))
    code, out, _ = run(options)
    assert code == EXIT_OK
    assert "buffers.py:4:5: ATN102 rejected\n" in out
    assert "    rejected by  test_fake.py::test_b\n" in out
    assert (fake_project / "buffers.py").read_text() == FAKE_MODULE.replace(
        "a = torch.zeros", "a = torch.empty"
    ).replace("c = torch.zeros", "c = torch.empty")


def test_nothing_to_verify_runs_nothing(fake_project: Path) -> None:
    (fake_project / "buffers.py").write_text("import torch\n\na = torch.ones(1)\n")
    options = VerifyOptions(["buffers.py"], ["false"], output_format="json")
    code, out, _ = run(options)
    assert code == EXIT_OK
    report = json.loads(out)
    assert (report["outcome"], report["runs"], report["fixes"]) == (
        "nothing-to-verify",
        0,
        [],
    )


def test_dry_run_reports_and_restores_every_file(fake_project: Path) -> None:
    path = fake_project / "buffers.py"
    before = snapshot(path)
    options = VerifyOptions(
        ["buffers.py"],
        fake_command("--fail-if", "c"),
        dry_run=True,
        output_format="json",
    )
    code, out, _ = run(options)
    assert code == EXIT_OK
    report = json.loads(out)
    assert [f["status"] for f in report["fixes"]] == [
        "confirmed",
        "confirmed",
        "rejected",
    ]
    assert report["files_changed"] == [] and report["dry_run"]
    assert snapshot(path) == before


def test_failing_final_run_restores_every_file_and_exits_1(fake_project: Path) -> None:
    # Runs: baseline, all, [a], [a b], [a c], then the final [a] fails (flaky).
    path = fake_project / "buffers.py"
    before = snapshot(path)
    options = VerifyOptions(
        ["buffers.py"], fake_command("--fail-if", "b,c", "--fail-on-run", "6")
    )
    code, out, err = run(options)
    assert code == EXIT_NOT_CONFIRMED
    assert "final run with the rejected fixes reverted failed" in err
    assert "1 unconfirmed" in out and "every file restored" in out
    assert snapshot(path) == before


def test_an_edit_made_while_verify_runs_is_kept_and_the_summary_says_so(
    fake_project: Path,
) -> None:
    # Run 1 (the baseline, on the unchanged files) edits the module: the
    # first write of a fix finds the edit and stops, and nothing puts the
    # original back over it; the summary names the file instead of saying
    # every file was restored.
    path = fake_project / "buffers.py"
    options = VerifyOptions(["buffers.py"], fake_command("--edit-on-run", "1"))
    code, out, err = run(options)
    assert code == EXIT_USAGE
    assert path.read_text() == FAKE_MODULE + "# edited while verify ran\n"
    assert "buffers.py changed on disk while verify ran: left as found" in err
    assert "every file restored" not in out
    assert (
        "every other file restored (buffers.py changed meanwhile: left as found)" in out
    )


def test_baseline_failing_only_when_poisoned_stops_with_exit_2(
    fake_project: Path,
) -> None:
    path = fake_project / "buffers.py"
    before = snapshot(path)
    code, _, err = run(
        VerifyOptions(["buffers.py"], fake_command("--fail-if-poisoned"))
    )
    assert code == EXIT_USAGE
    assert (
        "passes on the unchanged files but fails with uninitialized memory poisoned"
        in err
    )
    assert snapshot(path) == before


def test_timeout_aborts_and_restores_every_file(fake_project: Path) -> None:
    path = fake_project / "buffers.py"
    before = snapshot(path)
    pid_file = fake_project / "tests.pid"
    options = VerifyOptions(
        ["buffers.py"],
        fake_command("--sleep-if", "a", "--pid-file", str(pid_file)),
        timeout=2,
        output_format="json",
    )
    started = time.monotonic()
    code, out, err = run(options)
    assert code == EXIT_TIMEOUT
    assert time.monotonic() - started < 30
    assert json.loads(out)["outcome"] == "timeout" and "--timeout of 2 s" in err
    assert snapshot(path) == before
    assert not process_alive(int(pid_file.read_text()))


@pytest.mark.parametrize(
    ("sig", "expected"),
    [(signal.SIGINT, EXIT_INTERRUPTED), (signal.SIGTERM, 128 + signal.SIGTERM)],
    ids=["ctrl-c", "sigterm"],
)
def test_interruption_restores_every_file_and_stops_the_tests(
    fake_project: Path, sig: int, expected: int
) -> None:
    path = fake_project / "buffers.py"
    path.chmod(0o600)
    before = snapshot(path)
    pid_file = fake_project / "tests.pid"
    command = fake_command("--sleep-if", "b", "--pid-file", str(pid_file))
    verifier = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.verify_fixtures.synthetic",
            "buffers.py",
            "--",
            *command,
        ],
        cwd=fake_project,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while (
        not pid_file.exists()
        and verifier.poll() is None
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert pid_file.exists(), verifier.communicate()
    assert path.read_bytes() != before[0]  # the fixes are in the file now
    verifier.send_signal(sig)
    out, err = verifier.communicate(timeout=30)
    assert verifier.returncode == expected, err
    assert snapshot(path) == before
    assert not process_alive(int(pid_file.read_text()))


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not process_alive(pid):
            return True
        time.sleep(0.05)
    return False


def _temporary_folders() -> set[str]:
    import tempfile

    return {
        name
        for name in os.listdir(tempfile.gettempdir())
        if name.startswith("attnlint-verify")
    }


def _start_verify_and_wait_for_the_tests(project: Path, pid_file: Path):
    command = fake_command("--sleep-if", "b", "--pid-file", str(pid_file))
    verifier = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.verify_fixtures.synthetic",
            "buffers.py",
            "--",
            *command,
        ],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while (
        not pid_file.exists()
        and verifier.poll() is None
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert pid_file.exists(), verifier.communicate()
    return verifier


# The real command on a real ATN102 finding; each fake test run lasts as long
# as --delay says.
GRAPH_STATE = (
    "import torch\n\n\nclass Backend:\n"
    "    def init_cuda_graph_state(self, max_bs):\n"
    "        self.lens = torch.zeros(max_bs)\n"
)


def attnlint_verify(*test_options: str, dry_run: bool = False) -> list[str]:
    """``attnlint verify backend.py -- python fake_tests.py backend.py ...``"""
    return [
        sys.executable,
        "-m",
        "lint_rules",
        "verify",
        *(["--dry-run"] if dry_run else []),
        "backend.py",
        "--",
        sys.executable,
        str(FAKE_TESTS),
        "backend.py",
        *test_options,
    ]


def test_heartbeat_lines_in_ci_and_off_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "backend.py").write_text(GRAPH_STATE)
    result = subprocess.run(
        attnlint_verify("--delay", "1.2", dry_run=True),
        cwd=tmp_path,
        env={**os.environ, "CI": "true", HEARTBEAT_ENV: "0.3"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == EXIT_OK, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith("attnlint verify: run 1 of at most 3 [")
    for number in (1, 2):
        beat = f"attnlint verify: run {number} of at most 3 still running: "
        assert sum(line.startswith(beat) for line in lines) >= 2, result.stderr
    assert "attnlint verify: run 2 of at most 3 passed (" in result.stderr
    assert (tmp_path / "backend.py").read_text() == GRAPH_STATE  # --dry-run


def _sh() -> str:
    return shutil.which("sh") or "/bin/sh"


def test_a_background_job_of_sh_starts_with_sigint_ignored(tmp_path: Path) -> None:
    # The premise of the next test: without job control, `sh -c 'cmd &'`
    # starts cmd with SIGINT ignored, and Python keeps it ignored.
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"
    result = subprocess.run(
        [_sh(), "-c", f"'{sys.executable}' -c '{probe}' & wait"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.stdout.strip() == "True", result.stderr


@pytest.mark.parametrize("started_by", ["sh-background-job", "sig-ign"])
def test_ctrl_c_stops_verify_that_inherited_sigint_ignored(
    tmp_path: Path, started_by: str
) -> None:
    path = tmp_path / "backend.py"
    path.write_text(GRAPH_STATE)
    pid_file = tmp_path / "tests.pid"
    command = attnlint_verify("--sleep-if", "lens", "--pid-file", str(pid_file))
    if started_by == "sig-ign":
        starter = subprocess.Popen(
            command,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
    else:
        quoted = " ".join(f"'{part}'" for part in command)
        starter = subprocess.Popen(
            [_sh(), "-c", f"{quoted} & echo $! > verify.pid; wait $!"],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    deadline = time.monotonic() + 30
    while (
        not pid_file.exists() and starter.poll() is None and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert pid_file.exists(), starter.communicate()
    verify_pid = (
        starter.pid
        if started_by == "sig-ign"
        else int((tmp_path / "verify.pid").read_text())
    )
    assert "torch.empty" in path.read_text()  # a fix is in the file
    os.kill(verify_pid, signal.SIGINT)
    try:
        _, err = starter.communicate(timeout=30)
    finally:
        if starter.poll() is None:  # SIGINT did nothing: end it as SIGTERM does
            os.kill(verify_pid, signal.SIGTERM)
            starter.communicate(timeout=30)
    assert starter.returncode == EXIT_INTERRUPTED, err
    assert "attnlint verify: interrupted" in err
    assert path.read_text() == GRAPH_STATE
    assert _gone_within(int(pid_file.read_text()), 10)


def test_after_sigkill_verify_restore_puts_every_file_back(
    fake_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lint_rules.cli import main

    path = fake_project / "buffers.py"
    before = snapshot(path)
    folders_before = _temporary_folders()
    pid_file = fake_project / "tests.pid"
    verifier = _start_verify_and_wait_for_the_tests(fake_project, pid_file)
    assert path.read_bytes() != before[0]  # the fixes are in the file now
    verifier.kill()  # SIGKILL: no chance to restore anything
    verifier.communicate(timeout=30)
    # The test command does not outlive verify, and no temporary folder is left.
    assert _gone_within(int(pid_file.read_text()), 15)
    assert _temporary_folders() <= folders_before
    assert path.read_bytes() != before[0]

    # A new verify refuses to start, and says what to do.
    code, out, err = run(VerifyOptions(["buffers.py"], fake_command()))
    assert code == EXIT_USAGE
    assert "attnlint verify --restore" in err
    assert path.read_bytes() != before[0]

    capsys.readouterr()
    assert main(["verify", "--restore"]) == EXIT_OK
    assert snapshot(path) == before
    assert "restored buffers.py" in capsys.readouterr().out
    assert sorted(p.name for p in fake_project.iterdir()) == [
        "buffers.py",
        "runs.count",
        "tests.pid",
    ]
    # Nothing left to restore: a second --restore says so, and verify runs again.
    assert main(["verify", "--restore"]) == EXIT_OK
    assert "nothing to restore" in capsys.readouterr().out
    code, _, err = run(VerifyOptions(["buffers.py"], fake_command()))
    assert code == EXIT_OK, err


def test_a_journal_keeps_the_originals_on_disk_before_any_file_is_touched(
    fake_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the first write, the journal already holds every original, fsync'd."""
    import lint_rules.fixer as fixer_module
    from lint_rules.verify.journal import Journal

    path = fake_project / "buffers.py"
    original = path.read_bytes()
    seen: list[dict[Path, bytes]] = []
    real = fixer_module.write_atomic
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append(descriptor)
        real_fsync(descriptor)

    def write_atomic(target, data, *args, **kwargs):
        if not seen:
            journal = Journal.find(fake_project)
            assert journal is not None and synced
            seen.append(journal.originals())
        return real(target, data, *args, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(fixer_module, "write_atomic", write_atomic)
    code, _, err = run(VerifyOptions(["buffers.py"], fake_command(), dry_run=True))
    assert code == EXIT_OK, err
    assert seen == [{path.resolve(): original}]
    assert Journal.find(fake_project) is None  # removed at the end


def _disk_full_after_the_first_write(monkeypatch: pytest.MonkeyPatch):
    """Make every file write after the first fail as a full disk does;
    return the real ``write_atomic``."""
    import errno

    import lint_rules.fixer as fixer_module

    real = fixer_module.write_atomic
    writes: list[bytes] = []

    def disk_full_after_the_first_write(target, data, *args, **kwargs):
        writes.append(data)
        if len(writes) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(target, data, *args, **kwargs)

    monkeypatch.setattr(fixer_module, "write_atomic", disk_full_after_the_first_write)
    return real


def test_a_write_that_fails_stops_with_a_message_and_the_journal_kept(
    fake_project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The disk fills up during the second test run: the next write fails,
    and so does putting the file back. Verify says which file and why, and
    how to put it back (exit 2), instead of failing as an internal error."""

    import lint_rules.fixer as fixer_module
    from lint_rules.cli import main
    from lint_rules.verify.journal import Journal

    path = fake_project / "buffers.py"
    before = snapshot(path)
    real = _disk_full_after_the_first_write(monkeypatch)
    options = VerifyOptions(["buffers.py"], fake_command("--fail-if", "c"))
    code, out, err = run(options)
    assert code == EXIT_USAGE
    assert "buffers.py" in err and "No space left on device" in err
    assert "bug" not in err
    assert "every file restored" not in out
    assert "buffers.py not restored (No space left on device)" in out
    assert "attnlint verify --restore" in out
    assert Journal.find(fake_project) is not None  # the original is still there
    assert path.read_bytes() != before[0]

    monkeypatch.setattr(fixer_module, "write_atomic", real)
    capsys.readouterr()
    assert main(["verify", "--restore"]) == EXIT_OK
    assert snapshot(path) == before


def test_a_failed_restore_is_in_the_json_report(
    fake_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    _disk_full_after_the_first_write(monkeypatch)
    options = VerifyOptions(
        ["buffers.py"], fake_command("--fail-if", "c"), output_format="json"
    )
    code, out, _ = run(options)
    assert code == EXIT_USAGE
    report = json.loads(out)
    assert report["outcome"] == "error"
    assert report["files_not_restored"] == ["buffers.py"]


# --------------------------------------------------------------------------
# The engine on a real project: real pytest runs, real poisoning


def make_backend_project(root: Path, planted: bool) -> Path:
    (root / "tiny_backend.py").write_text(synthetic.backend_source(planted))
    (root / "test_tiny_backend.py").write_text(synthetic.TESTS)
    return root / "tiny_backend.py"


def pytest_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", *QUIET_PYTEST, *extra]


def test_every_fix_confirmed_when_no_buffer_is_read_before_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = make_backend_project(tmp_path, planted=False)
    original = path.read_text()
    stream = io.StringIO()
    progress = Progress(stream, enabled=True)
    options = VerifyOptions(["."], pytest_command(), output_format="json")
    code, out, _ = run(options, progress)
    assert code == EXIT_OK
    report = json.loads(out)
    assert [f["status"] for f in report["fixes"]] == ["confirmed"] * 3
    assert report["runs"] == 2 and report["files_changed"] == ["tiny_backend.py"]
    assert path.read_text() == original.replace("torch.zeros", "torch.empty")
    assert "run 2 of at most 7 [" in stream.getvalue()
    assert "3 of 3 fixes" in stream.getvalue()


def test_planted_early_read_rejects_exactly_that_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = make_backend_project(tmp_path, planted=True)
    original = path.read_text()
    options = VerifyOptions(["tiny_backend.py"], pytest_command(), output_format="json")
    code, out, _ = run(options)
    assert code == EXIT_OK
    report = json.loads(out)
    # Baseline, all four, the first two, the first three (which is what is kept).
    assert report["runs"] == 4
    fixes = {f["row"]: f for f in report["fixes"]}
    planted_row = original.splitlines().index(synthetic.PLANTED.rstrip("\n")) + 1
    assert fixes.pop(planted_row)["rejecting_tests"] == [
        "test_tiny_backend.py::test_replay_values"
    ]
    assert [f["status"] for f in fixes.values()] == ["confirmed"] * 3
    expected = original.replace("torch.zeros", "torch.empty").replace(
        "self.acc = torch.empty", "self.acc = torch.zeros"
    )
    assert path.read_text() == expected


def test_a_run_without_the_plugin_is_an_error_not_a_confirmation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "buffers.py").write_text(FAKE_MODULE)
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    before = snapshot(tmp_path / "buffers.py")
    options = VerifyOptions(["buffers.py"], pytest_command("-p", "no:attnlint"))
    code, _, err = run(options)
    assert code == EXIT_USAGE
    assert "no pytest session in it ran with poisoning on" in err
    assert snapshot(tmp_path / "buffers.py") == before


# --------------------------------------------------------------------------
# End to end on the reference backend: the real checker, ATN102's fixes, the
# backend's graph-path tests on a copy of the unoptimized fixture. Slow: each
# run captures and replays graphs; the planted case needs about six runs.

FIXTURE = REPO / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
BACKEND_GRAPH_TESTS = pytest_command(
    "tests/backend/test_graph_path.py", "-k", "unoptimized"
)
# Target-verify capture writes cu_seqlens_q once per batch size. Planted: it
# takes the maximum with what the buffer held, which reads it first. Harmless
# on zeros (every capture writes the same prefix); garbage on torch.empty.
CAPTURE_WRITE = """\
            cu_seqlens_q.copy_(
                torch.arange(
                    0,
                    bs * draft_token_num + 1,
                    draft_token_num,
                    dtype=torch.int32,
                    device=self.device,
                )
            )
"""
CAPTURE_READ_FIRST = """\
            cu_seqlens_q.copy_(
                torch.maximum(
                    cu_seqlens_q,
                    torch.arange(
                        0,
                        bs * draft_token_num + 1,
                        draft_token_num,
                        dtype=torch.int32,
                        device=self.device,
                    ),
                )
            )
"""
PLANTED_BUFFER = '"cu_seqlens_q": torch.zeros('


def copy_reference_project(root: Path) -> Path:
    """reference_backend/, tests/backend/ and the unoptimized fixture, under ``root``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(
        REPO / "reference_backend", root / "reference_backend", ignore=ignore
    )
    shutil.copytree(
        REPO / "tests" / "backend", root / "tests" / "backend", ignore=ignore
    )
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "fixtures").mkdir()
    return Path(shutil.copy2(FIXTURE, root / "tests" / "fixtures" / FIXTURE.name))


def verify_reference_fixture(fixture: Path) -> tuple[int, dict, str]:
    options = VerifyOptions(
        [str(fixture.relative_to(Path.cwd()))],
        BACKEND_GRAPH_TESTS,
        select=("ATN102",),
        output_format="json",
    )
    out, err = io.StringIO(), io.StringIO()
    code = verify(
        options, stdout=out, stderr=err, progress=Progress(err, enabled=False)
    )
    return code, json.loads(out.getvalue()), err.getvalue()


@pytest.mark.slow
def test_reference_backend_fixture_every_atn102_fix_confirmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fixture = copy_reference_project(tmp_path)
    code, report, err = verify_reference_fixture(fixture)
    assert code == EXIT_OK, err
    statuses = [(f["row"], f["status"]) for f in report["fixes"]]
    assert statuses and all(status == "confirmed" for _, status in statuses), statuses
    assert report["runs"] == 2  # the baseline, then every fix at once
    assert report["files_changed"] == ["tests/fixtures/" + FIXTURE.name]


@pytest.mark.slow
def test_reference_backend_planted_early_read_rejects_exactly_that_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fixture = copy_reference_project(tmp_path)
    text = fixture.read_text()
    assert text.count(CAPTURE_WRITE) == 1 and text.count(PLANTED_BUFFER) == 1
    planted = text.replace(CAPTURE_WRITE, CAPTURE_READ_FIRST)
    fixture.write_text(planted)
    planted_row = planted[: planted.index(PLANTED_BUFFER)].count("\n") + 1
    code, report, err = verify_reference_fixture(fixture)
    assert code == EXIT_OK, err
    rejected = [f for f in report["fixes"] if f["status"] == "rejected"]
    assert [f["row"] for f in rejected] == [planted_row]
    assert rejected[0]["rejecting_tests"]
    assert all("target_verify" in test for test in rejected[0]["rejecting_tests"])
    others = [f for f in report["fixes"] if f["row"] != planted_row]
    assert others and all(f["status"] == "confirmed" for f in others)
    final = fixture.read_text().splitlines()
    assert PLANTED_BUFFER in final[planted_row - 1]  # that buffer kept its zeros
