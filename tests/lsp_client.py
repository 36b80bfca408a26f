"""A minimal Language Server Protocol client, as an editor speaks it.

It starts the server as a subprocess and exchanges JSON-RPC messages with it
over stdin/stdout (``Content-Length`` framing). Every wait has a deadline, so
a server that hangs fails the caller instead of blocking it. It answers the
server's own requests (``client/registerCapability``) as an editor would.
Used by the end-to-end tests and by ``benchmarks/server_latency.py``.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]


class LspError(AssertionError):
    """The server answered with an error, or not in time."""


class LspClient:
    def __init__(
        self,
        command: list[str] | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.timeout = timeout
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "lint_rules", "server"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._ids = itertools.count(1)
        self._incoming: queue.Queue[Message | None] = queue.Queue()
        self._pending: list[Message] = []  # notifications not asked for yet
        self._responses: dict[int, Message] = {}
        self.stderr = b""
        # Called with each message as it arrives (and its arrival time).
        self.on_message: Callable[[Message, float], None] | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr_reader = threading.Thread(target=self._drain, daemon=True)
        self._stderr_reader.start()
        self.requests_from_server: list[Message] = []

    # ------------------------------------------------------------- transport

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    raise LspError("a message without Content-Length")
                body = stream.read(length)
                message = json.loads(body.decode("utf-8"))
                if self.on_message is not None:
                    self.on_message(message, time.perf_counter())
                self._incoming.put(message)
        finally:
            self._incoming.put(None)

    def _drain(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        for chunk in iter(lambda: stream.read1(65536), b""):
            self.stderr += chunk

    def send(self, message: Message) -> float:
        """Write one message; the time it was written."""
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        stream = self.process.stdin
        assert stream is not None
        stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stream.flush()
        return time.perf_counter()

    def _next(self, deadline: float) -> Message:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise LspError(f"no message from the server in time\n{self._stderr()}")
        try:
            message = self._incoming.get(timeout=remaining)
        except queue.Empty:
            raise LspError(
                f"no message from the server in time\n{self._stderr()}"
            ) from None
        if message is None:
            self._incoming.put(None)  # the stream stays closed for later calls
            raise LspError(f"the server closed its output\n{self._stderr()}")
        if "method" in message and "id" in message:
            self._answer(message)
        return message

    def _answer(self, request: Message) -> None:
        """Answer a request from the server as an editor would."""
        self.requests_from_server.append(request)
        if request["method"] == "workspace/configuration":
            items = request.get("params", {}).get("items", [])
            self.send({"id": request["id"], "result": [None] * len(items)})
        else:
            self.send({"id": request["id"], "result": None})

    def _stderr(self) -> str:
        return "server stderr:\n" + self.stderr.decode("utf-8", "replace")[-4000:]

    # -------------------------------------------------------------- messages

    def notify(self, method: str, params: Any = None) -> float:
        message: Message = {"method": method}
        if params is not None:
            message["params"] = params
        return self.send(message)

    def request(self, method: str, params: Any = None) -> Any:
        """Send a request and wait for its response; its result."""
        ident = next(self._ids)
        message: Message = {"id": ident, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        deadline = time.monotonic() + self.timeout
        while ident not in self._responses:
            incoming = self._next(deadline)
            if "id" in incoming and "method" not in incoming:
                self._responses[incoming["id"]] = incoming
            elif "method" in incoming and "id" not in incoming:
                self._pending.append(incoming)
        response = self._responses.pop(ident)
        if "error" in response:
            raise LspError(f"{method} failed: {response['error']}")
        return response.get("result")

    def notification(
        self, method: str, where: Callable[[Any], bool] = lambda params: True
    ) -> Any:
        """Wait for a notification of ``method`` whose params satisfy ``where``
        (earlier ones not yet taken count); its params."""
        for index, message in enumerate(self._pending):
            if message["method"] == method and where(message.get("params")):
                del self._pending[index]
                return message.get("params")
        deadline = time.monotonic() + self.timeout
        while True:
            incoming = self._next(deadline)
            if "method" not in incoming:
                if "id" in incoming:
                    self._responses[incoming["id"]] = incoming
                continue
            if "id" in incoming:
                continue  # a request from the server, answered already
            if incoming["method"] == method and where(incoming.get("params")):
                return incoming.get("params")
            self._pending.append(incoming)

    def notifications(self, method: str) -> list[Any]:
        """The params of the notifications of ``method`` received so far and
        not taken yet (takes them)."""
        while True:
            try:
                message = self._incoming.get_nowait()
            except queue.Empty:
                break
            if message is None:
                self._incoming.put(None)
                break
            if "method" in message and "id" in message:
                self._answer(message)
            elif "method" in message:
                self._pending.append(message)
            elif "id" in message:
                self._responses[message["id"]] = message
        taken = [m for m in self._pending if m["method"] == method]
        self._pending = [m for m in self._pending if m["method"] != method]
        return [message.get("params") for message in taken]

    # ------------------------------------------------------------- lifecycle

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the server to end; its exit code."""
        try:
            return self.process.wait(
                timeout=self.timeout if timeout is None else timeout
            )
        except subprocess.TimeoutExpired:
            raise LspError(f"the server did not exit\n{self._stderr()}") from None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def code_units(char: str, encoding: str) -> int:
    """How many code units of ``encoding`` one character takes (by encoding
    it: a second way of counting, beside the server's)."""
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-16":
        return len(char.encode("utf-16-le")) // 2
    return 1


def apply_text_edits(text: str, edits: list[Message], encoding: str = "utf-16") -> str:
    """``text`` with the protocol's text edits applied (positions in
    ``encoding`` code units), as an editor applies them: all against the
    original text, none overlapping."""
    lines = text.splitlines(keepends=True)
    # splitlines also splits at form feeds and the like; rejoin those pieces.
    rows: list[str] = []
    for piece in lines:
        if rows and not rows[-1].endswith(("\n", "\r")):
            rows[-1] += piece
        else:
            rows.append(piece)
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row))

    def offset(position: Message) -> int:
        line, character = position["line"], position["character"]
        if line >= len(rows):
            return len(text)
        content = rows[line].rstrip("\r\n")
        used = 0
        for column, char in enumerate(content):
            if used >= character:
                return starts[line] + column
            used += code_units(char, encoding)
        return starts[line] + len(content)

    spans = sorted(
        (
            (
                offset(edit["range"]["start"]),
                offset(edit["range"]["end"]),
                edit["newText"],
            )
            for edit in edits
        ),
        key=lambda span: (span[0], span[1]),
    )
    for before, after in zip(spans, spans[1:], strict=False):
        if after[0] < before[1]:
            raise AssertionError(f"overlapping edits: {edits}")
    pieces = []
    position = 0
    for start, end, new_text in spans:
        pieces.append(text[position:start])
        pieces.append(new_text)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)
