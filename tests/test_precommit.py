"""The pre-commit hooks, run by the real ``pre-commit try-repo``.

``try-repo`` clones this repository at HEAD (plus uncommitted changes to
tracked files), builds a virtual environment and pip-installs attnlint into it,
then runs the hooks of ``.pre-commit-hooks.yaml`` in a throwaway git
repository. It needs this checkout to be a git repository, ``pre-commit`` and
``git`` on PATH, and a reachable package index (for the build backend).
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


@pytest.fixture
def scratch_repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not (REPO / ".git").exists():
        pytest.skip("the attnlint checkout is not a git repository")
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        if shutil.which("pre-commit") is None:
            pytest.skip("pre-commit is not installed")
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "rows.py").write_text(ACCEPTANCE)
    (repo / "clean.py").write_text("def f(xs):\n    return list(xs)\n")
    _git(repo, "add", "rows.py", "clean.py")
    return repo


def test_check_hook_fails_and_fix_hook_rewrites(
    scratch_repo: Path, tmp_path: Path
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
            str(REPO),
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
