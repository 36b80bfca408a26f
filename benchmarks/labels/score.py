"""Precision and recall of attnlint's rules against the hand-written labels.

    python -m benchmarks.labels.score --set dev|heldout
        [--select ATN101,ATN102,ATN104,ATN203,ATN205] [--config KEY=VALUE ...]
        [--findings FILE] [--json FILE] [--list]

Runs ``attnlint check --output-format json --no-cache --exit-zero --select ...``
on the set's files (from the set's root folder), matches each finding to a
label, and prints, per rule: TP, FP, FN, precision, recall, with the false
positives and misses listed under ``--list``. A code attnlint does not know yet
is reported with no findings (recall 0), so the report works before the rule
exists. ``--findings`` scores a saved JSON report instead of running attnlint.

Matching. A finding matches a label of the same file whose candidate call
spans the finding's row (``line <= row <= end_line``) and whose kind belongs
to the rule's family (below); among several, the one starting on the row,
then the one starting at the finding's column, then the shortest span, then
the nearest column wins. A label is matched at
most once per rule: a second finding on it counts as a duplicate (a false
positive). A finding that matches no label is "unlabelled" (also a false
positive; it is listed, so a missing label can be added).

What each rule should report (the truth of a label for that rule):

- ATN101 zeros-overwritten, ATN102 zeros-persistent-buffer: a zero-filling
  allocation (``zeros``, ``zeros_like``, ``new_zeros``, ``full``/``full_like``/
  ``new_full`` with fill 0) whose zeros are never observed
  (``overwritten = yes``); ``no`` is a false positive, ``unsure`` is neither.
  Recall is given over all positives, over those written in full
  (``cover = full``) and over those whose write a module-local analysis can
  see (``write_visible`` local/helper/method/self/collective); ATN102's
  recall counts only start-up allocations kept in persistent state (its
  scope), while its precision judges every finding by the same truth.
- ATN104 redundant-zero-fill: ``x.zero_()`` / ``x.fill_(0)`` overwritten before
  any read, same truth.
- ATN203 host-sync-in-hot-path: a device-to-host synchronization
  (``device_or_host = device``) in code that runs per step
  (``phase = per_step``). Host values, device-side operations, blocking
  host-to-device copies and start-up code are false positives; ``unsure`` or
  ``unknown`` is neither. Recall is also given over the forms the rule lists
  (``IN_SCOPE_SYNC_KINDS``). "worth" is the share of true positives a
  maintainer would want to read (``worth_reporting = yes``).
- ATN205 non-blocking-from-pageable: a ``non_blocking`` copy host-to-device
  from memory that is not pinned (``direction = h2d``, ``source_pinned = no``).
- Any other code: findings are matched and listed, with no truth.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

LABELS_DIR = Path(__file__).resolve().parent
DEFAULT_RULES = ("ATN101", "ATN102", "ATN104", "ATN203", "ATN205")

ALLOC_KINDS = frozenset(
    {"zeros", "zeros_like", "new_zeros", "full", "full_like", "new_full"}
)
INPLACE_FILL_KINDS = frozenset({"zero_", "fill_"})
# The forms ATN203's specification names (issue text): the rest of the host-sync
# candidates (repeat_interleave without output_size, tensor sizes and slice
# bounds...) are real syncs the rule is not asked to find.
IN_SCOPE_SYNC_KINDS = frozenset(
    {
        "item",
        "tolist",
        "cpu",
        "numpy",
        "to_cpu",
        "int",
        "float",
        "bool",
        "truth_test",
        "equal",
        "nonzero",
        "unique",
        "unique_consecutive",
        "masked_select",
        "bool_mask_index",
        "synchronize",
        "tensor_slice_bound",
        "tensor_as_size",
        "repeat_interleave",
    }
)
VISIBLE_WRITES = frozenset({"local", "helper", "method", "self", "coll"})

Label = dict[str, Any]
Finding = dict[str, Any]


def _zero_truth(label: Label) -> bool | None:
    if label["zero"] == "no":
        return False
    if label["zero"] != "yes":
        return None
    return {"yes": True, "no": False}.get(label["overwritten"])


def _sync_truth(label: Label) -> bool | None:
    if label["phase"] in ("startup", "never"):
        return False
    where = label["device_or_host"]
    if where in ("host", "none", "h2d_blocking"):
        return False
    if where == "device" and label["phase"] == "per_step":
        return True
    return None


def _pageable_truth(label: Label) -> bool | None:
    if label.get("direction") not in ("h2d", "unsure"):
        return False
    pinned = label.get("source_pinned")
    if label.get("direction") == "h2d" and pinned == "no":
        return True
    if pinned == "yes":
        return False
    return None


class RuleSpec:
    """Which labels a rule is judged on, what it should say of each, and the
    subsets its recall is also reported over."""

    def __init__(
        self,
        family: str,
        kinds: Callable[[Label], bool],
        truth: Callable[[Label], bool | None],
        recall_subsets: dict[str, Callable[[Label], bool]],
        scope: Callable[[Label], bool] = lambda label: True,
    ):
        self.family = family
        self.kinds = kinds
        self.truth = truth
        self.recall_subsets = recall_subsets
        # Which positives the rule is expected to find (its recall's
        # denominator); a finding on any other label is still judged by truth.
        self.scope = scope


def _persistent_startup(label: Label) -> bool:
    return label["phase"] == "startup" and label["storage"] in (
        "self",
        "attr",
        "other",
        "ret",
    )


SPECS: dict[str, RuleSpec] = {
    "ATN101": RuleSpec(
        "zero_fill",
        lambda label: label["kind"] in ALLOC_KINDS,
        _zero_truth,
        {
            "written in full": lambda label: label["cover"] == "full",
            "write visible in the module": lambda label: (
                label["cover"] == "full" and label["write_visible"] in VISIBLE_WRITES
            ),
            "per step": lambda label: label["phase"] == "per_step",
        },
    ),
    "ATN102": RuleSpec(
        "zero_fill",
        lambda label: label["kind"] in ALLOC_KINDS,
        _zero_truth,
        {
            "write visible in the module": lambda label: (
                label["write_visible"] in VISIBLE_WRITES
            ),
        },
        scope=_persistent_startup,
    ),
    "ATN104": RuleSpec(
        "zero_fill",
        lambda label: label["kind"] in INPLACE_FILL_KINDS,
        _zero_truth,
        {
            "write visible in the module": lambda label: (
                label["write_visible"] in VISIBLE_WRITES
            ),
            "per step": lambda label: label["phase"] == "per_step",
        },
    ),
    "ATN203": RuleSpec(
        "host_sync",
        lambda label: label["kind"] != "non_blocking",
        _sync_truth,
        {"forms the rule lists": lambda label: label["kind"] in IN_SCOPE_SYNC_KINDS},
    ),
    "ATN205": RuleSpec(
        "host_sync",
        lambda label: label["kind"] == "non_blocking",
        _pageable_truth,
        {},
    ),
}


def load_labels(set_name: str, labels_dir: Path = LABELS_DIR) -> list[Label]:
    labels: list[Label] = []
    for family in ("zero_fills", "host_syncs"):
        path = labels_dir / f"{set_name}_{family}.jsonl"
        if not path.exists():
            continue
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                label = json.loads(line)
                label["family"] = "zero_fill" if family == "zero_fills" else "host_sync"
                label["_where"] = f"{path.name}:{number}"
                labels.append(label)
    return labels


def known_rules() -> set[str]:
    """The codes this attnlint knows (``attnlint rule --all``)."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lint_rules",
            "rule",
            "--all",
            "--output-format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return {rule["code"] for rule in json.loads(result.stdout)}


def run_attnlint(
    root: Path, files: list[str], codes: Iterable[str], config: list[str]
) -> list[Finding]:
    codes = sorted(set(codes) & known_rules())
    if not codes:
        return []
    command = [sys.executable, "-m", "lint_rules", "check", "--no-cache"]
    command += ["--output-format", "json"]
    command += ["--exit-zero", "--select", ",".join(codes)]
    for setting in config:
        command += ["--config", setting]
    result = subprocess.run(
        [*command, *files], cwd=root, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"attnlint failed ({result.returncode}):\n{result.stderr}")
    return json.loads(result.stdout or "[]")


def relative_filename(finding: Finding, root: Path) -> str:
    path = Path(finding["filename"])
    if path.is_absolute():
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def match(
    findings: list[Finding], labels: list[Label], spec: RuleSpec | None, root: Path
) -> tuple[list[tuple[Finding, Label]], list[Finding], list[tuple[Finding, Label]]]:
    """(matched, unlabelled, duplicates) for one rule's findings."""
    by_file: dict[str, list[Label]] = {}
    for label in labels:
        if spec is not None and (
            label["family"] != spec.family or not spec.kinds(label)
        ):
            continue
        by_file.setdefault(label["file"], []).append(label)
    matched: list[tuple[Finding, Label]] = []
    unlabelled: list[Finding] = []
    duplicates: list[tuple[Finding, Label]] = []
    taken: set[int] = set()
    ordered = sorted(
        findings,
        key=lambda f: (f["filename"], f["location"]["row"], f["location"]["column"]),
    )
    for finding in ordered:
        row = finding["location"]["row"]
        column = finding["location"]["column"] - 1
        spanning = [
            label
            for label in by_file.get(relative_filename(finding, root), [])
            if label["line"] <= row <= label["end_line"]
        ]
        if not spanning:
            unlabelled.append(finding)
            continue
        spanning.sort(
            key=lambda label: (
                label["line"] != row,
                label["col"] != column,
                label["end_line"] - label["line"],
                id(label) in taken,
                abs(label["col"] - column),
            )
        )
        best = spanning[0]
        if id(best) in taken:
            duplicates.append((finding, best))
        else:
            taken.add(id(best))
            matched.append((finding, best))
    return matched, unlabelled, duplicates


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def score_rule(
    code: str, findings: list[Finding], labels: list[Label], root: Path
) -> dict[str, Any]:
    spec = SPECS.get(code)
    own = [f for f in findings if f["code"] == code]
    matched, unlabelled, duplicates = match(own, labels, spec, root)
    report: dict[str, Any] = {"code": code, "findings": len(own)}
    if spec is None:
        report["matched"] = [_brief(label) for _, label in matched]
        report["unlabelled"] = [_finding_brief(f, root) for f in unlabelled]
        return report
    tp = [label for _, label in matched if spec.truth(label) is True]
    fp = [label for _, label in matched if spec.truth(label) is False]
    unsure = [label for _, label in matched if spec.truth(label) is None]
    reported = {id(label) for _, label in matched}
    judged = [
        label
        for label in labels
        if label["family"] == spec.family and spec.kinds(label)
    ]
    positives = [
        label for label in judged if spec.truth(label) is True and spec.scope(label)
    ]
    fn = [label for label in positives if id(label) not in reported]
    in_scope = {id(label) for label in positives}
    false_positives = len(fp) + len(unlabelled) + len(duplicates)
    report.update(
        tp=len(tp),
        fp=false_positives,
        fn=len(fn),
        on_unsure_labels=len(unsure),
        precision=_ratio(len(tp), len(tp) + false_positives),
        recall=_ratio(sum(1 for label in tp if id(label) in in_scope), len(positives)),
        positives=len(positives),
        recall_over={
            name: {
                "positives": sum(1 for label in positives if subset(label)),
                "found": sum(
                    1 for label in tp if subset(label) and id(label) in in_scope
                ),
                "recall": _ratio(
                    sum(1 for label in tp if subset(label) and id(label) in in_scope),
                    sum(1 for label in positives if subset(label)),
                ),
            }
            for name, subset in spec.recall_subsets.items()
        },
        false_positives=[_brief(label) for label in fp]
        + [_finding_brief(f, root, "unlabelled") for f in unlabelled]
        + [_finding_brief(f, root, "duplicate") for f, _ in duplicates],
        misses=[_brief(label) for label in fn],
    )
    if code == "ATN203":
        report["worth_reading"] = _ratio(
            sum(1 for label in tp if label["worth_reporting"] == "yes"), len(tp)
        )
    return report


def _brief(label: Label) -> str:
    return (
        f"{label['file']}:{label['line']} {label['qualname']} {label['kind']}: "
        f"{label['reason']}"
    )


def _finding_brief(finding: Finding, root: Path, why: str = "") -> str:
    where = f"{relative_filename(finding, root)}:{finding['location']['row']}"
    return f"{where} ({why}) {finding['message']}" if why else where


def render(reports: list[dict[str, Any]], show_lists: bool) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.0f}%"

    lines = [
        "rule    findings  TP  FP  FN  unsure  precision  recall",
    ]
    for report in reports:
        if "tp" not in report:
            lines.append(f"{report['code']:7} {report['findings']:8}  (no truth)")
            continue
        lines.append(
            f"{report['code']:7} {report['findings']:8} {report['tp']:3} "
            f"{report['fp']:3} {report['fn']:3} {report['on_unsure_labels']:7}  "
            f"{pct(report['precision']):>9}  {pct(report['recall']):>6}"
        )
        for name, subset in report["recall_over"].items():
            lines.append(
                f"        recall over {name}: {subset['found']}/"
                f"{subset['positives']} ({pct(subset['recall'])})"
            )
        if "worth_reading" in report:
            lines.append(
                f"        true positives worth reading: {pct(report['worth_reading'])}"
            )
    if show_lists:
        for report in reports:
            for title, key in (
                ("false positives", "false_positives"),
                ("misses", "misses"),
            ):
                items = report.get(key) or []
                if items:
                    lines.append(f"\n{report['code']} {title} ({len(items)}):")
                    lines += [f"  {item}" for item in items]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.labels.sets import SETS, set_files

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), required=True)
    parser.add_argument(
        "--select", default=",".join(DEFAULT_RULES), help="comma-separated codes"
    )
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--findings", type=Path, help="score this JSON report")
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--list", action="store_true", help="list FPs and misses")
    parser.add_argument("--labels-dir", type=Path, default=LABELS_DIR)
    args = parser.parse_args(argv)
    codes = [code.strip() for code in args.select.split(",") if code.strip()]
    root, files = set_files(args.set)
    labels = load_labels(args.set, args.labels_dir)
    if not labels:
        print(f"no labels for set {args.set!r} in {args.labels_dir}", file=sys.stderr)
        return 2
    if args.findings:
        findings = json.loads(args.findings.read_text(encoding="utf-8"))
    else:
        findings = run_attnlint(root, files, codes, args.config)
    reports = [score_rule(code, findings, labels, root) for code in codes]
    print(render(reports, args.list))
    if args.json:
        tmp = args.json.with_name(args.json.name + f".tmp-{os.getpid()}")
        tmp.write_text(json.dumps(reports, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
