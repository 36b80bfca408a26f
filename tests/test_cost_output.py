"""Every output says what a finding costs: concise, full, JSON, SARIF, GitHub, statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lint_rules.cli import main

BACKEND = (
    "class Backend:\n"
    "    def init_forward_metadata(self, lens):\n"
    "        for i in lens:\n"
    "            j = i\n"
    "            print(j)\n"
    "        self._update(lens)\n"
    "\n"
    "    def _update(self, lens):\n"
    "        for i in lens:\n"
    "            k = i\n"
    "            print(k)\n"
    "\n"
    "    def init_cuda_graph_state(self, lens):\n"
    "        for i in lens:\n"
    "            k = i\n"
    "            print(k)\n"
    "\n"
    "    def helper(self, lens):\n"
    "        for i in lens:\n"
    "            k = i\n"
    "            print(k)\n"
)
PER_STEP = "per step (init_forward_metadata)"
CHAIN = "per step (init_forward_metadata -> _update)"
START_UP = "start-up (init_cuda_graph_state)"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.attnlint]\nhot-paths-only = false\n"
    )
    (tmp_path / "backend.py").write_text(BACKEND)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(["check", "--no-cache", "--select", "ATN301", *argv, "backend.py"])
    assert code == 1
    return capsys.readouterr().out


def test_concise_appends_a_known_cost(project: Path, capsys) -> None:
    lines = run(capsys).splitlines()[:4]
    assert lines[0].endswith(f"[{PER_STEP}]")
    assert lines[1].endswith(f"[{CHAIN}]")
    assert lines[2].endswith(f"[{START_UP}]")
    assert lines[3].endswith("use `i` directly")  # unknown: nothing appended


def test_json_has_a_cost_field_beside_ruffs(project: Path, capsys) -> None:
    data = json.loads(run(capsys, "--output-format", "json"))
    assert [item["cost"] for item in data] == [PER_STEP, CHAIN, START_UP, "unknown"]
    assert all(isinstance(item["message"], str) for item in data)


def test_sarif_has_a_cost_property(project: Path, capsys) -> None:
    document = json.loads(run(capsys, "--output-format", "sarif"))
    results = document["runs"][0]["results"]
    assert [r["properties"]["cost"] for r in results] == [
        PER_STEP,
        CHAIN,
        START_UP,
        "unknown",
    ]


def test_github_and_full_carry_the_cost(project: Path, capsys) -> None:
    github = run(capsys, "--output-format", "github")
    assert f"[{CHAIN}]" in github.splitlines()[1]
    full = run(capsys, "--output-format", "full")
    assert f"[{START_UP}]" in full


def test_statistics_split_counts_by_cost(project: Path, capsys) -> None:
    out = run(capsys, "--statistics")
    assert out.splitlines()[0] == (
        "4\tATN301\t[*] dead-loop-alias\t(per step 2, start-up 1, unknown 1)"
    )
    data = json.loads(run(capsys, "--statistics", "--output-format", "json"))
    assert data[0]["cost"] == {"per step": 2, "start-up": 1, "unknown": 1}


def test_the_cost_survives_the_cache(project: Path, capsys) -> None:
    argv = ["check", "--select", "ATN301", "--output-format", "json", "backend.py"]
    assert main(argv) == 1
    cold = json.loads(capsys.readouterr().out)
    assert main(argv) == 1
    warm = json.loads(capsys.readouterr().out)
    assert [item["cost"] for item in warm] == [item["cost"] for item in cold]
    assert warm[1]["cost"] == CHAIN


def test_by_default_only_per_step_code_is_reported(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text("[tool.attnlint]\n")
    data = json.loads(run(capsys, "--output-format", "json"))
    assert [item["cost"] for item in data] == [PER_STEP, CHAIN]
