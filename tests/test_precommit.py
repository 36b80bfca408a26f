"""The pre-commit hooks, run by the real ``pre-commit try-repo``.

``try-repo`` clones a repository (HEAD plus uncommitted changes to tracked
files), builds a virtual environment, pip-installs attnlint into it, and runs
the hooks of ``.pre-commit-hooks.yaml`` in a throwaway git repository. The
repository it clones here is a snapshot of this checkout's working tree
(tracked and untracked, not ignored, files), committed in a temporary
repository: the hooks are tested on the same code as every other test, even
while files are not yet added to git. Needs git, pre-commit and a reachable
package index (pip fetches the build backend): marked ``realworld``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import ACCEPTANCE, ACCEPTANCE_FIXED

CLEAN = "def f(xs):\n    return list(xs)\n"

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.realworld


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


def _snapshot(target: Path) -> Path:
    """This checkout's working tree, committed in a repository of its own."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            copy = target / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(
        target,
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
    return target


@pytest.fixture(scope="module")
def attnlint_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _require_tools()
    return _snapshot(tmp_path_factory.mktemp("attnlint-src"))


@pytest.fixture(scope="module")
def pre_commit_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """pre-commit's environment: one hook-environment cache for the module's tests.

    ``TRAVIS`` makes pre-commit split a hook's files over two processes
    whatever the number of CPUs here (it caps its concurrency at 2 there):
    a hook without ``require_serial`` would then run attnlint twice, and
    print two summaries, on any machine.
    """
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home")),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PRE_COMMIT_COLOR": "never",
        "TRAVIS": "1",
    }
    for name in ("PRE_COMMIT", "PRE_COMMIT_NO_CONCURRENCY"):
        env.pop(name, None)
    return env


#: Enough files with findings for pre-commit to split them over two processes
#: (it puts at least 4 files in each) if a hook let it.
ROWS_FILES = tuple(f"rows_{index}.py" for index in range(8))


def _scratch_repo(repo: Path) -> Path:
    repo.mkdir()
    _git(repo, "init", "-q")
    for name in ROWS_FILES:
        (repo / name).write_text(ACCEPTANCE)
    (repo / "clean.py").write_text(CLEAN)
    _git(repo, "add", *ROWS_FILES, "clean.py")
    return repo


def _pre_commit_run(args: list[str], repo: Path, env: dict[str, str]) -> str:
    result = subprocess.run(
        [*_pre_commit(), *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    return output


def _hook_line(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(name + "."))


def _summaries(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("Found ")]


@pytest.fixture(scope="module")
def both_hooks(
    attnlint_snapshot: Path,
    pre_commit_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, str]:
    """``pre-commit try-repo`` with both hooks on a fresh project: (project, output)."""
    repo = _scratch_repo(tmp_path_factory.mktemp("both-hooks") / "project")
    output = _pre_commit_run(
        ["try-repo", str(attnlint_snapshot), "--all-files", "--verbose"],
        repo,
        pre_commit_env,
    )
    return repo, output


def test_check_hook_fails_and_fix_hook_rewrites(both_hooks: tuple[Path, str]) -> None:
    repo, output = both_hooks
    assert _hook_line(output, "attnlint").endswith("Failed"), output
    assert _hook_line(output, "attnlint (fix)").endswith("Failed"), output
    for name in ROWS_FILES:
        assert f"{name}:3:9: ATN301" in output and f"{name}:4:9: ATN301" in output
        assert (repo / name).read_text() == ACCEPTANCE_FIXED
    assert "files were modified by this hook" in output
    assert (repo / "clean.py").read_text() == CLEAN


def test_each_hook_runs_one_attnlint_with_one_summary(
    both_hooks: tuple[Path, str],
) -> None:
    _, output = both_hooks
    findings = 2 * len(ROWS_FILES)
    assert _summaries(output) == [
        f"Found {findings} errors.",
        f"Found {findings} errors ({findings} fixed, 0 remaining).",
    ], output


def _readme_pre_commit_config() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### pre-commit") :]
    return re.search(r"```yaml\n(.*?)```", section, flags=re.S).group(1)


def test_readme_config_runs_one_hook_printing_each_finding_once(
    attnlint_snapshot: Path, pre_commit_env: dict[str, str], tmp_path: Path
) -> None:
    scratch_repo = _scratch_repo(tmp_path / "project")
    config = _readme_pre_commit_config()
    hooks = re.findall(r"- id: (\S+)", config)
    assert hooks == ["attnlint"], config
    revision = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        cwd=attnlint_snapshot,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    config = config.replace("<attnlint repository URL>", str(attnlint_snapshot))
    config = config.replace("<tag or commit>", revision)
    (scratch_repo / ".pre-commit-config.yaml").write_text(config)
    output = _pre_commit_run(
        ["run", "--all-files", "--verbose"], scratch_repo, pre_commit_env
    )
    assert _hook_line(output, "attnlint").endswith("Failed"), output
    for name in ROWS_FILES:
        for row in (3, 4):
            assert output.count(f"{name}:{row}:9: ATN301") == 1, output
    assert _summaries(output) == [f"Found {2 * len(ROWS_FILES)} errors."], output
    assert all((scratch_repo / name).read_text() == ACCEPTANCE for name in ROWS_FILES)
