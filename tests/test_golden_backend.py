"""The shipped reference backend is attnlint's own autofix output.

``attnlint check --fix --unsafe-fixes`` on a copy of the unoptimized twin must
reproduce ``reference_backend/flashattention_backend.py`` byte for byte. To
change the backend, change the fixture and regenerate the shipped file:

    cp tests/fixtures/flashattention_backend_unoptimized.py \\
       reference_backend/flashattention_backend.py
    attnlint check --fix --unsafe-fixes reference_backend/flashattention_backend.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
SHIPPED = ROOT / "reference_backend" / "flashattention_backend.py"


def attnlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "lint_rules", "check", "--no-cache", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_fix_of_the_unoptimized_twin_is_the_shipped_file(tmp_path):
    copy = tmp_path / "flashattention_backend.py"
    shutil.copyfile(FIXTURE, copy)
    result = attnlint("--fix", "--unsafe-fixes", str(copy), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert copy.read_bytes() == SHIPPED.read_bytes()


def test_the_twin_holds_exactly_the_seed_waste(tmp_path):
    result = attnlint("--output-format", "json", str(FIXTURE), cwd=tmp_path)
    findings = json.loads(result.stdout)
    assert Counter(f["code"] for f in findings) == {
        "ATN102": 8,
        "ATN201": 1,
        "ATN301": 2,
    }


def test_the_shipped_file_has_nothing_fixable(tmp_path):
    result = attnlint(
        "--unsafe-fixes", "--output-format", "json", str(SHIPPED), cwd=tmp_path
    )
    findings = json.loads(result.stdout)
    assert [f for f in findings if f["fix"] is not None] == []
