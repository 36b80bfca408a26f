"""attnlint's speed, side by side with the parse floor, ruff, flake8 and TorchFix.

    python -m benchmarks.speed            # both tiers, every tool (about 25 minutes)
    python -m benchmarks.speed --quick    # backends tier only, no TorchFix

Two tiers of real code (``benchmarks/corpora.py``, downloaded once from PyPI):
``backends``, the 257 attention-backend files of sglang 0.5.23 and vllm 0.33.0,
and ``packages``, every file of both packages. Each tool runs as a process of
its own, as a user runs it, on the same folder, with its output thrown away;
runs alternate between the tools (one run of each, then the next round) so that
a change in the machine's load hits them all alike, and the table shows the
median wall-clock time of each. The ratios and targets are computed from those
medians, in this one run.

What runs:

- parse floor: ``benchmarks/parse_floor.py``, which reads and ``ast.parse``-es
  every file and does nothing else, with as many worker processes as attnlint
  uses by default: the least any linter whose check path runs on CPython's
  parser can take.
- attnlint cold: ``attnlint check --no-cache``; warm: ``attnlint check`` again
  on unchanged files, its cache filled by a run before the timed ones.
- ruff ``check --select PERF,F``, cold (``--no-cache``) and warm.
- flake8 with its defaults (``--jobs auto``, its default codes and those of
  the installed plugins), once without the attnlint plugin and once with it,
  both through ``benchmarks/flake8_runner.py`` (which leaves the plugin out of
  what flake8 finds, since ``--select`` would only hide its reports).
- TorchFix 0.7.0 with its defaults, backends tier only (a run takes minutes;
  one run unless ``--torchfix-runs``). It is installed in a virtual
  environment of its own under the corpus cache (it needs a newer libcst than
  attnlint's tests pin) that sees the system's torch; TorchFix itself does
  not import torch.

Peak resident memory is each run's ``ru_maxrss`` (the largest of the process
and the worker processes it waited for); the table shows the largest over the
timed runs.

The Python tools (the parse floor, attnlint, flake8 with and without the
plugin) run in a virtual environment of the benchmark's own (under the
corpus cache) holding flake8 and a copy of this checkout's attnlint,
installed as users install it: a regular, byte-compiled install, with no
editable-install finder and none of this machine's site-wide ``.pth`` start-up
code (here those add some 40 ms to every Python start). Every timed run uses
that same copy, even while the checkout is being edited.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.corpora import corpus, python_files

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(__file__).resolve().parent
TORCHFIX_VERSION = "0.7.0"
RUFF_SELECT = "PERF,F"


@dataclass
class Tool:
    """One command to time: ``argv(tier_folder, scratch)`` builds its command line."""

    key: str
    label: str
    argv: Callable[[Path, Path], list[str]]
    tiers: tuple[str, ...] = ("backends", "packages")
    # Run once, untimed, before the timed runs (fills a cache).
    prepare: bool = False
    runs: int | None = None  # None: the tier's number of runs


@dataclass
class Sample:
    seconds: list[float] = field(default_factory=list)
    max_rss_kb: list[int] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def run_once(
    argv: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, int, float]:
    """Wall-clock seconds, peak RSS (kB) and CPU seconds of one run of ``argv``."""
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    stderr = process.stderr.read() if process.stderr else b""  # type: ignore[union-attr]
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.stderr:
        process.stderr.close()
    if process.returncode not in (0, 1):
        raise SystemExit(
            f"{' '.join(argv)} failed with exit code {process.returncode}:\n"
            f"{stderr.decode(errors='replace')[-2000:]}"
        )
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def _version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return out.split("\n")[0].strip()


def torchfix_python(install: bool) -> Path | None:
    """The Python of TorchFix's own virtual environment (created on first use)."""
    from tests.realworld.wheels import cache_dir

    venv = cache_dir() / "torchfix-venv"
    python = venv / "bin" / "python"
    if (venv / "bin" / "torchfix").exists():
        return python
    if not install:
        return None
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True
    )
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            f"torchfix=={TORCHFIX_VERSION}",
        ],
        check=True,
    )
    return python


def benchmark_python(scratch: Path) -> Path:
    """The Python of the benchmark's own virtual environment, holding flake8 (the
    version installed here) and this checkout's attnlint, installed as a user
    installs it: a regular install, byte-compiled, from a copy made now (the
    same code for every run even while the checkout is edited)."""
    from importlib.metadata import version

    from tests.realworld.wheels import cache_dir

    venv = cache_dir() / "speed-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "wheel",
             f"flake8=={version('flake8')}"],
            check=True,
        )  # fmt: skip
    copy = scratch / "attnlint"
    copy.mkdir()
    shutil.copy(REPO / "pyproject.toml", copy)
    shutil.copy(REPO / "README.md", copy)
    shutil.copytree(
        REPO / "lint_rules",
        copy / "lint_rules",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps",
         "--no-build-isolation", "--force-reinstall", str(copy)],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )  # fmt: skip
    return python


def build_tools(
    python: str, jobs: int, torchfix: Path | None, torchfix_runs: int
) -> list[Tool]:
    floor = str(BENCHMARKS / "parse_floor.py")
    flake8 = str(BENCHMARKS / "flake8_runner.py")

    def attnlint(*extra: str) -> Callable[[Path, Path], list[str]]:
        def argv(folder: Path, scratch: Path) -> list[str]:
            return [
                python, "-m", "lint_rules", "check", "--exit-zero",
                "--output-format", "concise",
                "--cache-dir", str(scratch / "attnlint_cache"),
                *extra, str(folder),
            ]  # fmt: skip

        return argv

    def ruff(*extra: str) -> Callable[[Path, Path], list[str]]:
        def argv(folder: Path, scratch: Path) -> list[str]:
            return [
                "ruff", "check", "--select", RUFF_SELECT, "--exit-zero",
                "--output-format", "concise",
                "--cache-dir", str(scratch / "ruff_cache"),
                *extra, str(folder),
            ]  # fmt: skip

        return argv

    tools = [
        Tool(
            "floor",
            f"parse floor (read + ast.parse, {jobs} processes)",
            lambda folder, scratch: [python, floor, "--jobs", str(jobs), str(folder)],
        ),
        Tool("attnlint_cold", "attnlint, cold (--no-cache)", attnlint("--no-cache")),
        Tool("attnlint_warm", "attnlint, warm (cache, files unchanged)", attnlint(), prepare=True),
        Tool("ruff_cold", f"ruff --select {RUFF_SELECT}, cold (--no-cache)", ruff("--no-cache")),
        Tool("ruff_warm", f"ruff --select {RUFF_SELECT}, warm", ruff(), prepare=True),
        Tool(
            "flake8",
            "flake8 (defaults), without the attnlint plugin",
            lambda folder, scratch: [python, flake8, "--without-attnlint", "--exit-zero", str(folder)],
        ),
        Tool(
            "flake8_attnlint",
            "flake8 (defaults) + the attnlint plugin",
            lambda folder, scratch: [python, flake8, "--exit-zero", str(folder)],
        ),
    ]  # fmt: skip
    if torchfix is not None:
        torchfix_bin = str(torchfix.parent / "torchfix")
        tools.append(
            Tool(
                "torchfix",
                f"TorchFix {TORCHFIX_VERSION} (defaults)",
                lambda folder, scratch: [torchfix_bin, str(folder)],
                tiers=("backends",),
                runs=torchfix_runs,
            )
        )
    return tools


def measure(
    tier: str, folder: Path, tools: list[Tool], runs: int, env: dict[str, str]
) -> dict[str, Sample]:
    samples = {tool.key: Sample() for tool in tools if tier in tool.tiers}
    active = [tool for tool in tools if tier in tool.tiers]
    with tempfile.TemporaryDirectory(prefix="attnlint-speed-") as scratch_name:
        scratch = Path(scratch_name)
        for tool in active:
            if tool.prepare:
                run_once(tool.argv(folder, scratch), scratch, env)
        rounds = max(runs, *(tool.runs or 0 for tool in active))
        for round_ in range(rounds):
            for tool in active:
                if round_ >= (tool.runs or runs):
                    continue
                seconds, rss, cpu = run_once(tool.argv(folder, scratch), scratch, env)
                sample = samples[tool.key]
                sample.seconds.append(seconds)
                sample.max_rss_kb.append(rss)
                sample.cpu_seconds.append(cpu)
                print(
                    f"  {tier} round {round_ + 1}: {tool.key} {seconds:.3f} s",
                    file=sys.stderr,
                    flush=True,
                )
    return samples


def _seconds(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _megabytes(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def report(
    results: dict[str, dict[str, Sample]],
    tools: list[Tool],
    tiers: list[str],
    describe: dict[str, str],
    runs: dict[str, int],
    header: str,
) -> tuple[str, bool]:
    lines = [header, ""]
    head = "| run |"
    rule = "|---|"
    for tier in tiers:
        head += f" {tier}: {describe[tier]} | x floor | peak RSS |"
        rule += "---:|---:|---:|"
    lines += [head, rule]
    for tool in tools:
        row = f"| {tool.label} |"
        for tier in tiers:
            sample = results[tier].get(tool.key)
            if sample is None or not sample.seconds:
                row += " — | — | — |"
                continue
            floor = results[tier]["floor"].median
            runs_note = (
                ""
                if len(sample.seconds) == runs[tier]
                else f" ({len(sample.seconds)} run)"
            )
            row += (
                f" {_seconds(sample.median)} s{runs_note} | {sample.median / floor:.2f} |"
                f" {_megabytes(max(sample.max_rss_kb))} |"
            )
        lines.append(row)
    lines.append("")

    targets: list[tuple[str, float, str, float, bool]] = []
    for tier in tiers:
        got = results[tier]
        floor = got["floor"].median
        cold = got["attnlint_cold"].median
        targets.append(
            (f"attnlint cold / parse floor ({tier})", cold / floor, "<=", 1.25, True)
        )
    for tier in tiers:
        got = results[tier]
        warm, ruff_warm = got["attnlint_warm"].median, got["ruff_warm"].median
        targets.append(
            (
                f"attnlint warm / ruff warm ({tier})",
                warm / ruff_warm,
                "<=",
                3.0,
                tier == "backends",
            )
        )
    for tier in tiers:
        got = results[tier]
        if "flake8" in got and got["flake8"].seconds:
            added = got["flake8_attnlint"].median / got["flake8"].median - 1
            targets.append(
                (
                    f"flake8 time added by the plugin ({tier})",
                    added,
                    "<=",
                    0.15,
                    tier == "backends",
                )
            )
    got = results.get("backends", {})
    if "torchfix" in got and got["torchfix"].seconds:
        speedup = got["torchfix"].median / got["attnlint_cold"].median
        targets.append(
            ("TorchFix / attnlint cold (backends)", speedup, ">=", 100.0, True)
        )

    all_met = True
    lines.append("Targets (from the medians above):")
    lines.append("")
    for name, value, relation, limit, required in targets:
        met = value <= limit if relation == "<=" else value >= limit
        if required:
            all_met &= met
        if "added" in name:
            shown = f"{value * 100:+.1f}% {relation} {limit * 100:.0f}%"
        else:
            shown = f"{value:.2f}x {relation} {limit:g}x"
        status = "met" if met else "NOT MET"
        note = "" if required else " (not a target; shown for comparison)"
        lines.append(f"- {name}: {shown}: {status}{note}")

    # The spread behind the cold medians: each round's attnlint run against
    # that round's floor run, and the CPU seconds (both processes' children).
    lines += ["", "Spread of the cold runs (not targets):", ""]
    for tier in tiers:
        floor, cold = results[tier]["floor"], results[tier]["attnlint_cold"]
        paired = [c / f for f, c in zip(floor.seconds, cold.seconds, strict=False)]
        cpu = statistics.median(cold.cpu_seconds) / statistics.median(floor.cpu_seconds)
        lines.append(
            f"- {tier}: round by round {min(paired):.2f}x to {max(paired):.2f}x "
            f"the floor; CPU seconds {cpu:.2f}x the floor's"
        )
    return "\n".join(lines) + "\n", all_met


def main() -> int:
    parser = argparse.ArgumentParser(description="attnlint speed, side by side")
    parser.add_argument(
        "--runs", type=int, default=5, help="timed runs per tool (backends)"
    )
    parser.add_argument(
        "--packages-runs", type=int, default=3, help="timed runs per tool (packages)"
    )
    parser.add_argument("--torchfix-runs", type=int, default=1)
    parser.add_argument(
        "--quick", action="store_true", help="backends tier only, no TorchFix"
    )
    parser.add_argument("--no-torchfix", action="store_true", help="skip TorchFix")
    parser.add_argument(
        "--tiers",
        default=None,
        help="comma-separated tiers (default: backends,packages)",
    )
    args = parser.parse_args()

    tiers = args.tiers.split(",") if args.tiers else ["backends", "packages"]
    if args.quick:
        tiers = ["backends"]
    from lint_rules.runner import default_jobs

    jobs = default_jobs()
    torchfix = None
    if not (args.quick or args.no_torchfix) and "backends" in tiers:
        torchfix = torchfix_python(install=True)
    source = Path(tempfile.mkdtemp(prefix="attnlint-speed-src-"))
    python = str(benchmark_python(source))
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
    }
    tools = build_tools(python, jobs, torchfix, args.torchfix_runs)

    describe: dict[str, str] = {}
    results: dict[str, dict[str, Sample]] = {}
    runs = {"backends": args.runs, "packages": args.packages_runs}
    for tier in tiers:
        folder = corpus(tier)
        files = python_files(folder)
        lines = sum(path.read_bytes().count(b"\n") for path in files)
        describe[tier] = f"{len(files):,} files, {lines / 1000:,.0f}k lines"
        print(f"{tier}: {describe[tier]} in {folder}", file=sys.stderr, flush=True)
        results[tier] = measure(tier, folder, tools, runs[tier], env)
    shutil.rmtree(source, ignore_errors=True)

    versions = [
        f"Python {platform.python_version()}",
        _version(["ruff", "--version"]),
        "flake8 " + _version([python, "-m", "flake8", "--version"]).split(" ")[0],
    ]
    if torchfix is not None:
        versions.append(f"TorchFix {TORCHFIX_VERSION}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    run_counts = ", ".join(f"{runs[tier]} ({tier})" for tier in tiers)
    header = (
        f"attnlint speed: {os.cpu_count()} CPUs, {jobs} worker processes; "
        f"{', '.join(versions)}. Median wall-clock seconds of {run_counts} alternating "
        f"runs; load average {load:.1f} at the end."
    )
    text, all_met = report(results, tools, tiers, describe, runs, header)
    print(text)
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
