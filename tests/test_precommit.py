"""The pre-commit hooks, run by the real ``pre-commit try-repo``.

``try-repo`` clones a repository (HEAD plus uncommitted changes to tracked
files), builds a virtual environment, pip-installs attnlint into it, and runs
the hooks of ``.pre-commit-hooks.yaml`` in a throwaway git repository. The
repository it clones here is a snapshot of this checkout's working tree
(tracked and untracked, not ignored, files), committed in a temporary
repository: the hooks are tested on the same code as every other test, even
while files are not yet added to git. Needs git, pre-commit and a reachable
package index (for the build backend).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import ACCEPTANCE, ACCEPTANCE_FIXED

REPO = Path(__file__).resolve().parents[1]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _pre_commit() -> list[str]:
    if shutil.which("pre-commit"):
        return ["pre-commit"]
    return [sys.executable, "-m", "pre_commit"]


def _require_tools() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not (REPO / ".git").exists():
        pytest.skip("the attnlint checkout is not a git repository")
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        if shutil.which("pre-commit") is None:
            pytest.skip("pre-commit is not installed")


@pytest.fixture
def attnlint_snapshot(tmp_path: Path) -> Path:
    """This checkout's working tree, committed in a repository of its own."""
    _require_tools()
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.decode()
    snapshot = tmp_path / "attnlint-src"
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            target = snapshot / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    _git(snapshot, "init", "-q")
    _git(snapshot, "add", "-A")
    _git(
        snapshot,
        "-c",
        "user.name=attnlint tests",
        "-c",
        "user.email=tests@attnlint.invalid",
        "commit",
        "-q",
        "--no-gpg-sign",
        "-m",
        "snapshot",
    )
    return snapshot


@pytest.fixture
def scratch_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "rows.py").write_text(ACCEPTANCE)
    (repo / "clean.py").write_text("def f(xs):\n    return list(xs)\n")
    _git(repo, "add", "rows.py", "clean.py")
    return repo


def test_check_hook_fails_and_fix_hook_rewrites(
    attnlint_snapshot: Path, scratch_repo: Path, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PRE_COMMIT_COLOR": "never",
    }
    env.pop("PRE_COMMIT", None)
    result = subprocess.run(
        [
            *_pre_commit(),
            "try-repo",
            str(attnlint_snapshot),
            "--files",
            "rows.py",
            "clean.py",
            "--verbose",
        ],
        cwd=scratch_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    check_line = next(
        line for line in output.splitlines() if line.startswith("attnlint.")
    )
    fix_line = next(
        line for line in output.splitlines() if line.startswith("attnlint (fix)")
    )
    assert check_line.endswith("Failed"), output
    assert "rows.py:3:9: ATN301" in output and "rows.py:4:9: ATN301" in output
    assert fix_line.endswith("Failed"), output
    assert "files were modified by this hook" in output
    assert (scratch_repo / "rows.py").read_text() == ACCEPTANCE_FIXED
    assert (
        scratch_repo / "clean.py"
    ).read_text() == "def f(xs):\n    return list(xs)\n"
