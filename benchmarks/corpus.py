"""The corpus check: attnlint on real code, end to end. Not a CI test (too large).

    python -m benchmarks.corpus [--tier backends|packages ...] [--jobs N]
                                [--findings-dir DIR] [--keep]
                                [--prefilters on|off|compare]

On each tier of ``benchmarks/corpora.py`` (``backends``: 257 attention-backend
files; ``packages``: all 7,950 files of sglang and vllm, 3.1M lines), in order:

1. In process, per file (``--jobs`` worker processes): decode as Python does,
   check with every rule, then fix with unsafe fixes pass by pass, the way
   ``lint_rules.fixer.fix_text`` does, and verify each pass: the applied fixes'
   edits (from ``lint_rules.fixer.apply_fixes``) do not overlap, and the new
   text is the old text with exactly those edits, every character between
   them identical; the new text parses. After the last pass, a second check
   must report no fixable finding.
2. On a copy of the tier: ``attnlint check --fix --unsafe-fixes`` as a user
   runs it (a subprocess). Every file must end byte-identical to what step 1
   predicts (the original bytes when nothing was fixed; otherwise the fixed
   text in the file's own encoding, BOM and line endings), and stderr must be
   empty. Then ``attnlint check --unsafe-fixes --output-format json`` on the
   fixed copy must report no fixable finding.

``--prefilters off`` runs both steps without the rules' pre-filters (as
``ATTNLINT_NO_PREFILTER=1`` does), so every function goes through the
analysis; ``--prefilters compare`` checks each file in step 1 both ways,
before and after fixing, and counts a difference in the findings as a
problem (the pre-filters are shortcuts: they must never change a finding).

Fails (exit 1) on any crash: an internal rule error, an ``E902`` other than an
undecodable file (those are listed), a fix that breaks the code, a fix loop
that does not settle, bytes changed outside the edits, or a fixable finding
left after fixing. Prints findings per rule per tier and writes every finding
to ``DIR/<tier>-findings.jsonl`` for review.
"""

from __future__ import annotations

import argparse
import ast
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.corpora import TIERS, corpus, python_files  # noqa: E402
from lint_rules import prefilter  # noqa: E402
from lint_rules.checker import check_source, decode_source, parse  # noqa: E402
from lint_rules.config import Settings  # noqa: E402
from lint_rules.diagnostics import (  # noqa: E402
    IO_ERROR_CODE,
    SYNTAX_ERROR_CODE,
    Edit,
    Finding,
    Fix,
)
from lint_rules.fixer import MAX_PASSES, applicable_fixes, apply_fixes  # noqa: E402
from lint_rules.rules import ALL_RULES  # noqa: E402
from lint_rules.source import SourceError  # noqa: E402

SETTINGS = Settings()
# "on", "off" or "compare" (``--prefilters``), set before the workers fork.
PREFILTERS = "on"


@dataclass
class FileReport:
    """What step 1 found in one file."""

    relative: str
    findings: list[dict] = field(default_factory=list)
    fixed: Counter = field(default_factory=Counter)
    passes: int = 0
    undecodable: str | None = None
    syntax_error: str | None = None
    problems: list[str] = field(default_factory=list)
    # The bytes the file must hold after ``check --fix --unsafe-fixes``.
    expected: bytes = b""
    changed: bool = False
    lines: int = 0


def _finding_record(finding: Finding, text: str) -> dict:
    row = finding.location.row
    lines = text.splitlines()
    return {
        "code": finding.code,
        "row": row,
        "column": finding.location.column,
        "message": finding.message,
        "fix": None if finding.fix is None else finding.fix.applicability.value,
        "line": lines[row - 1].strip() if 0 < row <= len(lines) else "",
    }


def edits_of(fixes: list[Fix]) -> list[Edit]:
    """The distinct edits of the applied fixes, in text order."""
    return sorted(
        {edit for fix in fixes for edit in fix.edits}, key=lambda e: (e.start, e.end)
    )


def outside_edits_problem(old: str, new: str, edits: list[Edit]) -> str | None:
    """Why ``new`` is not ``old`` with exactly ``edits`` applied, or None.

    Walks both texts together: every run of ``old`` between two edits must
    appear unchanged in ``new`` at the matching place, and each edit's
    replacement between them.
    """
    old_at = new_at = 0
    for previous, edit in zip([None, *edits], edits, strict=False):
        if previous is not None and previous.overlaps(edit):
            return f"applied edits overlap: {previous} and {edit}"
        if not 0 <= edit.start <= edit.end <= len(old) or edit.start < old_at:
            return f"edit out of range or out of order: {edit}"
        gap = old[old_at : edit.start]
        if new[new_at : new_at + len(gap)] != gap:
            return f"text before offset {edit.start} changed outside the edits"
        new_at += len(gap)
        if new[new_at : new_at + len(edit.content)] != edit.content:
            return f"edit at offset {edit.start} not applied as given"
        new_at += len(edit.content)
        old_at = edit.end
    tail = old[old_at:]
    if new[new_at:] != tail:
        return f"text after offset {old_at} changed outside the edits"
    return None


def analyze(path: str, root: str) -> FileReport:
    """Step 1 for one file."""
    relative = os.path.relpath(path, root)
    report = FileReport(relative)
    with open(path, "rb") as handle:
        data = handle.read()
    report.expected = data
    try:
        source = decode_source(data)
    except SourceError as error:
        report.undecodable = str(error)
        return report
    text = source.text
    report.lines = text.count("\n") + 1
    errors: list[str] = []
    findings = check_source(text, path, SETTINGS, errors=errors)
    _compare_prefilters(text, path, findings, report, "")
    report.findings = [_finding_record(f, text) for f in findings]
    for finding in findings:
        if finding.code == SYNTAX_ERROR_CODE:
            report.syntax_error = finding.message
        elif finding.code == IO_ERROR_CODE:
            report.problems.append(f"E902 on a decodable file: {finding.message}")
    if report.syntax_error is not None:
        report.problems.extend(errors)
        return report  # never fixed

    current = text
    tree: ast.Module | None = None
    for pass_number in range(1, MAX_PASSES + 1):
        if pass_number > 1:
            findings = check_source(current, path, SETTINGS, tree=tree, errors=errors)
        candidates = applicable_fixes(findings, unsafe_fixes=True)
        if not candidates:
            break
        code_of = {id(fix): finding.code for finding, fix in candidates}
        new, applied = apply_fixes(current, [fix for _, fix in candidates])
        if not applied or new == current:
            break
        problem = outside_edits_problem(current, new, edits_of(applied))
        if problem is not None:
            report.problems.append(f"pass {pass_number}: {problem}")
            return report
        parsed = parse(new, path)
        if isinstance(parsed, Finding):
            codes = sorted({code_of[id(fix)] for fix in applied})
            report.problems.append(
                f"pass {pass_number}: fixes by {', '.join(codes)} broke the code: "
                f"{parsed.message} at {parsed.location.row}"
            )
            return report
        report.fixed.update(code_of[id(fix)] for fix in applied)
        report.passes = pass_number
        current, tree = new, parsed
    else:
        report.problems.append(f"fixes did not settle after {MAX_PASSES} passes")
    after = check_source(current, path, SETTINGS, tree=tree, errors=errors)
    if current != text:
        _compare_prefilters(current, path, after, report, " after fixing")
    left = [f for f in after if f.fix is not None]
    if left:
        report.problems.append(
            "fixable findings left after fixing: "
            + ", ".join(f"{f.code} at {f.location.row}" for f in left)
        )
    report.problems.extend(errors)
    if current != text:
        report.changed = True
        try:
            report.expected = source.to_bytes(current)
        except UnicodeEncodeError as error:
            report.problems.append(f"fixed text cannot be encoded: {error}")
    return report


def _compare_prefilters(
    text: str, path: str, findings: list[Finding], report: FileReport, when: str
) -> None:
    """In ``--prefilters compare``: check ``text`` again without the
    pre-filters, and record a problem if the findings differ."""
    if PREFILTERS != "compare":
        return
    errors: list[str] = []
    prefilter.set_enabled(False)
    try:
        unfiltered = check_source(text, path, SETTINGS, errors=errors)
    finally:
        prefilter.set_enabled(True)
    report.problems.extend(errors)
    if unfiltered != findings:
        only_with = [
            f"{f.code}:{f.location.row}" for f in findings if f not in unfiltered
        ]
        only_without = [
            f"{f.code}:{f.location.row}" for f in unfiltered if f not in findings
        ]
        report.problems.append(
            f"the pre-filters change the findings{when}: only with them "
            f"{only_with}, only without them {only_without}"
        )


def _analyze_star(arguments: tuple[str, str]) -> FileReport:
    return analyze(*arguments)


def _attnlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if PREFILTERS == "off":
        env["ATTNLINT_NO_PREFILTER"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "lint_rules", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def run_tier(tier: str, jobs: int, findings_dir: Path, keep: bool) -> bool:
    source_root = corpus(tier)
    files = python_files(source_root)
    print(
        f"\n== {tier}: {len(files)} files in {source_root} (pre-filters: {PREFILTERS})",
        flush=True,
    )
    started = time.monotonic()
    work = [(str(path), str(source_root)) for path in files]
    reports: list[FileReport] = []
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for count, report in enumerate(
            pool.imap_unordered(_analyze_star, work, chunksize=4), 1
        ):
            reports.append(report)
            if count % 1000 == 0:
                print(f"   {count} files analyzed", flush=True)
    reports.sort(key=lambda r: r.relative)
    analysis_seconds = time.monotonic() - started
    ok = True

    # -- step 1 results ---------------------------------------------------------
    lines = sum(r.lines for r in reports)
    by_rule: Counter = Counter()
    fixable: dict[str, Counter] = {}
    fixed: Counter = Counter()
    for report in reports:
        fixed.update(report.fixed)
        for record in report.findings:
            by_rule[record["code"]] += 1
            fixable.setdefault(record["code"], Counter())[record["fix"] or "none"] += 1
    findings_dir.mkdir(parents=True, exist_ok=True)
    out = findings_dir / f"{tier}-findings.jsonl"
    with open(out, "w", encoding="utf-8") as stream:
        for report in reports:
            for record in report.findings:
                stream.write(
                    json.dumps({"file": report.relative, **record}, ensure_ascii=False)
                    + "\n"
                )
    print(
        f"   step 1 (check, fix pass by pass, verify): {lines:,} lines in "
        f"{analysis_seconds:.0f} s with {jobs} processes; findings in {out}"
    )
    print(
        f"   {'rule':<8} {'findings':>8} {'safe':>6} {'unsafe':>6} {'none':>6} {'fixed':>6}"
    )
    codes = [rule.code for rule in ALL_RULES] + sorted(
        set(by_rule) - {rule.code for rule in ALL_RULES}
    )
    for code in codes:
        kinds = fixable.get(code, Counter())
        print(
            f"   {code:<8} {by_rule[code]:>8} {kinds['safe']:>6} {kinds['unsafe']:>6} "
            f"{kinds['none']:>6} {fixed[code]:>6}"
        )
    print(
        f"   {'total':<8} {sum(by_rule.values()):>8} {'':>20} {sum(fixed.values()):>6}"
    )
    changed = [r for r in reports if r.changed]
    passes = Counter(r.passes for r in changed)
    print(
        f"   {len(changed)} files fixed; fix passes per fixed file: "
        + ", ".join(
            f"{n} pass{'es' if n > 1 else ''}: {c}" for n, c in sorted(passes.items())
        )
    )
    undecodable = [r for r in reports if r.undecodable]
    print(f"   undecodable files (E902, listed): {len(undecodable)}")
    for report in undecodable:
        print(f"     {report.relative}: {report.undecodable}")
    syntax = [r for r in reports if r.syntax_error]
    print(
        f"   files that do not parse on Python {sys.version.split()[0]} (E999): {len(syntax)}"
    )
    for report in syntax:
        print(f"     {report.relative}: {report.syntax_error}")
    problems = [(r.relative, p) for r in reports for p in r.problems]
    print(
        f"   problems (crashes, broken or unsettled fixes, changed bytes): {len(problems)}"
    )
    for relative, problem in problems:
        print(f"     {relative}: {problem}")
    ok = ok and not problems

    # -- step 2: the command line on a copy ----------------------------------------
    scratch = Path(tempfile.mkdtemp(prefix=f"attnlint-corpus-{tier}-"))
    copy = scratch / tier
    shutil.copytree(source_root, copy, ignore=shutil.ignore_patterns(".complete"))
    # An empty configuration at the copy's root: nothing excluded but what
    # ``exclude = []`` leaves (hidden folders), so the CLI sees every file.
    (copy / "pyproject.toml").write_text("[tool.attnlint]\nexclude = []\n")
    started = time.monotonic()
    fixing = _attnlint(
        "check",
        "--fix",
        "--unsafe-fixes",
        "--no-cache",
        "--exit-zero",
        "-q",
        ".",
        cwd=copy,
    )
    fix_seconds = time.monotonic() - started
    cli_problems: list[str] = []
    if fixing.returncode != 0 or fixing.stderr:
        cli_problems.append(
            f"check --fix exited {fixing.returncode}; stderr: {fixing.stderr[-3000:]!r}"
        )
    differing = []
    for report in reports:
        if (copy / report.relative).read_bytes() != report.expected:
            differing.append(report.relative)
    if differing:
        cli_problems.append(
            f"{len(differing)} files differ from the verified fix: {differing[:20]}"
        )
    started = time.monotonic()
    second = _attnlint(
        "check",
        "--unsafe-fixes",
        "--no-cache",
        "--output-format",
        "json",
        ".",
        cwd=copy,
    )
    check_seconds = time.monotonic() - started
    if second.returncode not in (0, 1) or second.stderr:
        cli_problems.append(
            f"second check exited {second.returncode}; stderr: {second.stderr[-3000:]!r}"
        )
    try:
        remaining = json.loads(second.stdout or "[]")
    except json.JSONDecodeError as error:
        remaining = []
        cli_problems.append(f"second check printed invalid JSON: {error}")
    left = [f for f in remaining if f.get("fix")]
    if left:
        cli_problems.append(
            f"{len(left)} fixable findings after --fix: "
            + ", ".join(
                f"{f['filename']}:{f['location']['row']} {f['code']}" for f in left[:20]
            )
        )
    left_codes = Counter(f["code"] for f in remaining)
    print(
        f"   step 2 (CLI on a copy): check --fix --unsafe-fixes {fix_seconds:.0f} s, "
        f"{len(reports) - len(differing)}/{len(reports)} files byte-identical to the "
        f"verified fix; second check {check_seconds:.0f} s: "
        f"{sum(left_codes.values())} findings left ({dict(sorted(left_codes.items()))}), "
        f"{len(left)} fixable"
    )
    for problem in cli_problems:
        print(f"     PROBLEM: {problem}")
    ok = ok and not cli_problems
    if keep:
        print(f"   fixed copy kept in {copy}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"   {tier}: {'clean' if ok else 'FAILED'}", flush=True)
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.corpus")
    parser.add_argument("--tier", action="append", choices=TIERS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--findings-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "attnlint-corpus",
    )
    parser.add_argument("--keep", action="store_true", help="keep the fixed copies")
    parser.add_argument(
        "--prefilters",
        choices=("on", "off", "compare"),
        default="on",
        help="run without the rules' pre-filters (off), or check each file "
        "both ways and require the same findings (compare)",
    )
    args = parser.parse_args(argv)
    global PREFILTERS
    PREFILTERS = args.prefilters
    prefilter.set_enabled(PREFILTERS != "off")
    results = [
        run_tier(tier, args.jobs, args.findings_dir, args.keep)
        for tier in (args.tier or TIERS)
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
