"""How long an editor waits for diagnostics after a change.

    python -m benchmarks.server_latency                 # the 2,000-line backend
    python -m benchmarks.server_latency --real          # a real backend of that size
    python -m benchmarks.server_latency --file PATH --runs 200 --debounce 25

Starts ``attnlint server`` as an editor does (a subprocess spoken to over
stdio, ``tests/lsp_client.py``), opens one backend file, then edits it again
and again: each edit is one ``textDocument/didChange`` (an incremental change
that turns a ``torch.zeros`` of the file into ``torch.empty`` and back, or
an ``empty`` into ``zeros``, so the findings change with the edits). The time measured is from the moment the
change was written to the server's stdin to the moment the
``textDocument/publishDiagnostics`` for that version was read from its
stdout: everything the editor waits for, the server's debounce included
(``--debounce``, the server's default unless given). After each
publication the benchmark pauses briefly, as a typist would.

The file: by default 2,000 lines made of the top-level statements of the
bundled unoptimized backend (``tests/fixtures/``) and the reference backend,
in turn, with their findings; with ``--real``, the real attention backend
of the corpus (``benchmarks/corpora.py``) whose length is nearest 2,000
lines. The report gives the median, the 95th percentile, the extremes, the
time ``check_source`` alone takes on the same text in this process, timed
in the pause after each edit (so the server's own cost can be read off),
and the machine's load average.
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.lsp_client import LspClient

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
REFERENCE = ROOT / "reference_backend" / "flashattention_backend.py"
LINES = 2000


def top_level_chunks(text: str) -> list[str]:
    """The text of each top-level statement with the comments and blank lines
    before it (decorators included), in order."""
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    starts = []
    for node in tree.body:
        decorators = getattr(node, "decorator_list", None) or [node]
        starts.append(min(d.lineno for d in decorators) - 1)
    starts[0] = 0
    ends = [*starts[1:], len(lines)]
    return ["".join(lines[a:b]) for a, b in zip(starts, ends, strict=True)]


def synthetic_backend(lines: int = LINES) -> str:
    """``lines`` lines of backend code: top-level statements of the bundled
    backends in turn (repeated definitions are valid Python), then
    assignments to fill up to the exact count."""
    chunks = top_level_chunks(FIXTURE.read_text(encoding="utf-8"))
    chunks += top_level_chunks(REFERENCE.read_text(encoding="utf-8"))
    text = ""
    count = 0
    progress = True
    while progress:
        progress = False
        for chunk in chunks:
            size = chunk.count("\n")
            if count + size <= lines:
                text += chunk
                count += size
                progress = True
    text += "".join(f"_FILL_{index} = {index}\n" for index in range(lines - count))
    ast.parse(text)
    return text


def real_backend(lines: int = LINES) -> Path:
    """The corpus's attention backend whose length is nearest ``lines``."""
    from benchmarks.corpora import corpus, python_files

    def distance(path: Path) -> int:
        with open(path, "rb") as handle:
            return abs(sum(1 for _ in handle) - lines)

    return min(python_files(corpus("backends")), key=distance)


def toggle_offsets(text: str) -> list[tuple[int, int, str]]:
    """(line, character, word) of each ``torch.zeros``/``torch.empty`` call's
    ``zeros`` or ``empty`` inside a function (indented), nearest the middle of
    the file first."""
    found = []
    for number, line in enumerate(text.split("\n")):
        for word in ("zeros", "empty"):
            at = line.find(f"torch.{word}(")
            if at > 0 and line.startswith(" "):
                found.append((number, at + len("torch."), word))
    middle = text.count("\n") // 2
    return sorted(found, key=lambda position: abs(position[0] - middle))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


def measure(
    text: str, path: Path, runs: int, warmup: int, debounce: float | None, pause: float
) -> tuple[list[float], list[float]]:
    """Seconds from each change to its diagnostics; and seconds of
    ``check_source`` on the same text in this process, timed in the pause
    after each (so that both see the same load on the machine)."""
    command = [sys.executable, "-m", "lint_rules", "server"]
    if debounce is not None:
        command += ["--debounce", str(debounce)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    arrivals: dict[int, float] = {}
    uri = path.as_uri()

    def on_message(message: dict, at: float) -> None:
        if message.get("method") == "textDocument/publishDiagnostics":
            params = message["params"]
            if params["uri"] == uri and params.get("version") is not None:
                arrivals.setdefault(params["version"], at)

    toggles = toggle_offsets(text)
    if not toggles:
        raise SystemExit(f"{path}: no torch.zeros or torch.empty call to edit")
    line, character, original = toggles[0]
    latencies: list[float] = []
    checks: list[float] = []
    settings = Settings()
    lines = text.split("\n")
    with LspClient(command, cwd=path.parent, env=env, timeout=60) as client:
        client.on_message = on_message
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": path.parent.as_uri(),
                "capabilities": {},
            },
        )
        client.notify("initialized", {})
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "python",
                    "version": 1,
                    "text": text,
                }
            },
        )
        client.notification("textDocument/publishDiagnostics")
        words = (original, "empty" if original == "zeros" else "zeros")
        for version in range(2, 2 + warmup + runs):
            word = words[(version + 1) % 2]  # every edit changes the text
            sent = client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [
                        {
                            "range": {
                                "start": {"line": line, "character": character},
                                "end": {"line": line, "character": character + 5},
                            },
                            "text": word,
                        }
                    ],
                },
            )
            client.notification(
                "textDocument/publishDiagnostics",
                lambda params, version=version: params.get("version") == version,
            )
            lines[line] = lines[line][:character] + word + lines[line][character + 5 :]
            started = time.perf_counter()
            check_source("\n".join(lines), str(path), settings)
            checked = time.perf_counter() - started
            if version >= 2 + warmup:
                latencies.append(arrivals[version] - sent)
                checks.append(checked)
            time.sleep(max(0.0, pause - checked))
        client.request("shutdown")
        client.notify("exit")
        client.wait()
    return latencies, checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--file", type=Path, help="a backend file to edit")
    source.add_argument(
        "--real", action="store_true", help="the corpus backend nearest 2,000 lines"
    )
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument(
        "--debounce", type=float, default=None, help="ms (the server's default)"
    )
    parser.add_argument("--pause", type=float, default=0.1, help="s between edits")
    args = parser.parse_args(argv)

    from lint_rules.server.server import DEFAULT_DEBOUNCE

    debounce_ms = (
        args.debounce if args.debounce is not None else DEFAULT_DEBOUNCE * 1000
    )
    with tempfile.TemporaryDirectory() as folder:
        if args.file or args.real:
            origin = args.file or real_backend()
            text = origin.read_text(encoding="utf-8")
            name = str(origin)
        else:
            text = synthetic_backend()
            name = f"{LINES} lines of {FIXTURE.name} and {REFERENCE.name}"
        path = Path(folder, "backend.py")
        path.write_text(text, encoding="utf-8")
        load_before = os.getloadavg()
        latencies, checks = measure(
            text, path, args.runs, args.warmup, args.debounce, args.pause
        )
        load_after = os.getloadavg()
    milliseconds = [value * 1000 for value in latencies]
    median = statistics.median(milliseconds)
    checked = statistics.median(checks)
    p95 = percentile(milliseconds, 0.95)
    print(f"file:       {name} ({text.count(chr(10))} lines)")
    print(f"edits:      {len(milliseconds)} didChange -> publishDiagnostics")
    print(f"debounce:   {debounce_ms:g} ms (counted in every figure below)")
    print(f"median:     {median:.1f} ms   (target < 100 ms)")
    print(f"p95:        {p95:.1f} ms   (target < 200 ms)")
    print(f"min / max:  {min(milliseconds):.1f} / {max(milliseconds):.1f} ms")
    print(
        f"check_source alone, median: {checked * 1000:.1f} ms (same text, this process)"
    )
    print(
        f"server's own time, median: {median - debounce_ms - checked * 1000:.1f} ms"
        " (median - debounce - check)"
    )
    print(
        f"load average: {load_before[0]:.2f} before, {load_after[0]:.2f} after "
        f"({os.cpu_count()} CPUs)"
    )
    met = median < 100 and p95 < 200
    print("targets met" if met else "targets NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
