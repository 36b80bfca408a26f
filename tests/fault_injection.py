"""Kill ``attnlint check --fix`` and ``attnlint verify`` at random moments and
look at what they leave behind (used by tests/test_fault_injection.py).

A trial starts the command as a process of its own (in a session of its own,
so that everything it starts can be found again), sends it one signal
(SIGKILL, SIGTERM or SIGINT) at a random moment of its run, and returns the
problems it finds afterwards, none if all is well:

- ``--fix``: every file holds its original bytes or its fully fixed bytes,
  nothing in between; no temporary file is left; no process of the run is
  left. Under SIGKILL alone, which no program can catch, a kill between
  the two system calls that name a temporary file and rename it leaves that
  file (a complete copy of the fixed text, never locked again); the next
  ``--fix`` run must then remove it, fixing every file.
- ``verify``: every file holds one of the versions verify may write (its
  original, or the original with some of the fixes); no temporary file is
  left; the test command's process does not outlive verify; and after
  ``attnlint verify --restore`` every file holds its original bytes (or,
  when verify had already finished, the verified result) and no journal
  is left.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
SHIPPED = ROOT / "reference_backend" / "flashattention_backend.py"
FAKE_TESTS = ROOT / "tests" / "verify_fixtures" / "fake_tests.py"
SIGNALS = {
    "SIGKILL": signal.SIGKILL,
    "SIGTERM": signal.SIGTERM,
    "SIGINT": signal.SIGINT,
}
VERIFY_MODULE = (
    "import torch\n\na = torch.zeros(1)\nb = torch.zeros(2)\nc = torch.zeros(3)\n"
)
#: Each fake test run takes this long: a verification is several of them.
TEST_RUN_SECONDS = 0.3


def _environment() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


#: ``site``'s report of an exception raised by a line of a ``.pth`` file
#: (an editable install's path hook) while the interpreter starts; ``site``
#: prints it, ignores the rest of that file and goes on starting.
_PTH_ERROR = re.compile(
    r"Error processing line \d+ of [^\n]*:\n\n(?:(?:  [^\n]*)?\n)*?"
    r"\nRemainder of file ignored\n"
)


def _traceback(stderr: bytes, signum: int) -> str | None:
    """A traceback the command printed, if any; not counting Python's own
    reports of a Ctrl-C that came while the interpreter was starting, before
    attnlint's code ran: one that ends the interpreter (the text ends in
    ``KeyboardInterrupt``) and ``site``'s report of one that stopped a
    ``.pth`` line (the interpreter goes on, and attnlint runs to its end)."""
    text = stderr.decode("utf-8", "replace")
    if signum == signal.SIGINT:
        text = _PTH_ERROR.sub(
            lambda match: "" if "KeyboardInterrupt" in match.group() else match.group(),
            text,
        )
    if "Traceback" not in text and "Fatal Python error" not in text:
        return None
    if signum == signal.SIGINT and text.rstrip().endswith("KeyboardInterrupt"):
        return None
    return text


def _leftover_temporaries(folder: Path) -> list[str]:
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.name.endswith((".attnlint-tmp", ".tmp"))
    )


def _gone(pgid: int, seconds: float) -> bool:
    """No process is left in the process group ``pgid`` (within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _pid_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _kill_at_random(command: list[str], cwd: Path, signum: int, latest: float, rng):
    """Run ``command``, send ``signum`` after a random delay up to ``latest``
    seconds (unless it ended first); return (process, whether it ended first,
    what it wrote to stderr)."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + rng.uniform(0.0, latest)
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.005)
    ended_first = process.poll() is not None
    if not ended_first:
        process.send_signal(signum)
    _, stderr = process.communicate(timeout=120)
    return process, ended_first, stderr


# ------------------------------------------------------------------ check --fix


def fix_project(folder: Path, copies: int) -> list[Path]:
    """``copies`` copies of the reference backend's unoptimized twin, whose
    fully fixed text (--fix --unsafe-fixes) is the shipped backend."""
    files = []
    for index in range(copies):
        path = folder / f"pkg{index % 4}" / f"backend_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURE, path)
        files.append(path)
    (folder / "pyproject.toml").write_text("[tool.attnlint]\n")
    return files


FIX_COMMAND = [
    sys.executable,
    "-m",
    "lint_rules",
    "check",
    "--fix",
    "--unsafe-fixes",
    "--no-cache",
    "--exit-zero",
    "-q",
    ".",
]


def fix_run_seconds(folder: Path, copies: int) -> float:
    """How long an uninterrupted --fix run of the trial's project takes."""
    fix_project(folder, copies)
    started = time.monotonic()
    subprocess.run(FIX_COMMAND, cwd=folder, env=_environment(), check=True)
    return time.monotonic() - started


def fix_trial(
    folder: Path, signum: int, rng: random.Random, copies: int, seconds: float
) -> list[str]:
    files = fix_project(folder, copies)
    original, fixed = FIXTURE.read_bytes(), SHIPPED.read_bytes()
    process, _, stderr = _kill_at_random(
        FIX_COMMAND, folder, signum, seconds * 1.1, rng
    )
    problems = []
    if not _gone(process.pid, 15):
        problems.append("processes of the run are still alive")
    for path in files:
        data = path.read_bytes()
        if data not in (original, fixed):
            problems.append(f"{path.name}: neither original nor fully fixed")
    leftovers = _leftover_temporaries(folder)
    if leftovers and signum == signal.SIGKILL:
        for name in leftovers:
            if (folder / name).read_bytes() != fixed:
                problems.append(f"{name}: a temporary file left half written")
        subprocess.run(FIX_COMMAND, cwd=folder, env=_environment(), check=True)
        leftovers = _leftover_temporaries(folder)
        problems.extend(
            f"{path.name}: not fixed by the run after the kill"
            for path in files
            if path.read_bytes() != fixed
        )
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    if _traceback(stderr, signum):
        problems.append(f"a traceback: {_traceback(stderr, signum)}")
    return problems


# ----------------------------------------------------------------------- verify


def _renders() -> set[bytes]:
    """Every version of the verify module with a subset of its fixes applied."""
    lines = VERIFY_MODULE.splitlines(keepends=True)
    buffers = [i for i, line in enumerate(lines) if "torch.zeros" in line]
    found = set()
    for count in range(len(buffers) + 1):
        for chosen in itertools.combinations(buffers, count):
            version = [
                line.replace("torch.zeros", "torch.empty") if i in chosen else line
                for i, line in enumerate(lines)
            ]
            found.add("".join(version).encode())
    return found


def verify_command(folder: Path, dry_run: bool) -> list[str]:
    return [
        sys.executable,
        "-m",
        "tests.verify_fixtures.synthetic",
        *(["--dry-run"] if dry_run else []),
        "buffers.py",
        "--",
        sys.executable,
        str(FAKE_TESTS),
        "buffers.py",
        "--fail-if",
        "b",
        "--delay",
        str(TEST_RUN_SECONDS),
        "--pid-file",
        str(folder / "tests.pid"),
    ]


#: Runs of the command above: the baseline, all three, [a], [a c] (kept).
VERIFY_RUNS = 4


def verify_trial(folder: Path, signum: int, rng: random.Random) -> list[str]:
    from lint_rules.cli import main

    folder.mkdir(parents=True, exist_ok=True)
    module = folder / "buffers.py"
    module.write_text(VERIFY_MODULE)
    original = module.read_bytes()
    verified = original.replace(b"a = torch.zeros", b"a = torch.empty").replace(
        b"c = torch.zeros", b"c = torch.empty"
    )
    dry_run = rng.random() < 0.5
    latest = VERIFY_RUNS * (TEST_RUN_SECONDS + 0.4) + 1.0
    process, _, stderr = _kill_at_random(
        verify_command(folder, dry_run), folder, signum, latest, rng
    )
    problems = []
    if _traceback(stderr, signum):
        problems.append(f"a traceback: {_traceback(stderr, signum)}")
    pid_file = folder / "tests.pid"
    if pid_file.exists() and not _pid_gone(int(pid_file.read_text()), 15):
        problems.append("the test command outlived verify")
    if module.read_bytes() not in _renders():
        problems.append("buffers.py holds a version verify never writes")
    leftovers = _leftover_temporaries(folder)
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    journal_left = (folder / ".attnlint_verify").exists()
    here = os.getcwd()
    os.chdir(folder)
    try:
        code = main(["verify", "--restore"])
    finally:
        os.chdir(here)
    if code != 0:
        problems.append(f"verify --restore exited {code}")
    # What the exit says: 0, the verified fixes kept (unless --dry-run); any
    # other exit code, every file restored. Killed outright (SIGKILL), it
    # says nothing: with its journal left, --restore puts the originals back;
    # without one, verify had finished (restored, or kept what it verified)
    # and the signal came before it could exit.
    if process.returncode == 0:
        expected = {original if dry_run else verified}
    elif process.returncode > 0 or journal_left:
        expected = {original}
    else:
        expected = {original} if dry_run else {original, verified}
    if module.read_bytes() not in expected:
        problems.append(
            f"after --restore (verify exited {process.returncode}), buffers.py "
            "is not "
            + ("the verified result" if verified in expected else "its original")
        )
    if (folder / ".attnlint_verify").exists():
        problems.append("the journal is still there after --restore")
    return problems
