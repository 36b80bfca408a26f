"""The language server in this process, with the engine's test-only rules.

Messages go straight to the server's protocol object and its replies are
read back from a writer in memory, so the rules of ``tests/engine_rules.py``
(a fix that breaks the code, a rule that crashes) can be put in front of it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lint_rules.server.server import AttnlintServer
from tests.engine_rules import ENGINE


class Session:
    """An editor's side of a session, in memory."""

    started: list[Session] = []

    def __init__(self, folder: Path, capabilities: dict[str, Any]) -> None:
        Session.started.append(self)
        self.folder = folder
        self.capabilities = capabilities
        # The server chooses among the test-only rules.
        self.server = AttnlintServer(debounce=0.0, registry=ENGINE)
        self.received: list[dict[str, Any]] = []
        self.server.protocol.set_writer(self)
        self._ids = 0

    # The writer the protocol sends through.
    def write(self, data: bytes) -> None:
        _, _, body = data.partition(b"\r\n\r\n")
        self.received.append(json.loads(body))

    def close(self) -> None:
        pass

    def deliver(self, message: dict[str, Any]) -> None:
        protocol = self.server.protocol
        structured = json.loads(
            json.dumps({"jsonrpc": "2.0", **message}),
            object_hook=protocol.structure_message,
        )
        protocol.handle_message(structured)

    async def request(self, method: str, params: Any) -> Any:
        self._ids += 1
        ident = self._ids
        self.deliver({"id": ident, "method": method, "params": params})
        for _ in range(500):
            for message in self.received:
                if message.get("id") == ident and "method" not in message:
                    assert "error" not in message, message
                    return message.get("result")
            await asyncio.sleep(0.01)
        raise AssertionError(f"no response to {method}")

    async def notify(self, method: str, params: Any) -> None:
        self.deliver({"method": method, "params": params})
        await asyncio.sleep(0)

    async def initialize(self) -> None:
        await self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": self.folder.as_uri(),
                "capabilities": self.capabilities,
            },
        )
        await self.notify("initialized", {})

    async def published(self, uri: str, version: int) -> list[dict[str, Any]]:
        for _ in range(500):
            for message in self.received:
                params = message.get("params") or {}
                if (
                    message.get("method") == "textDocument/publishDiagnostics"
                    and params.get("uri") == uri
                    and params.get("version") == version
                ):
                    return params["diagnostics"]
            await asyncio.sleep(0.01)
        raise AssertionError(f"no diagnostics for {uri} version {version}")

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [m["params"] for m in self.received if m.get("method") == method]


def run(scenario: Any) -> None:
    try:
        asyncio.run(scenario)
    finally:
        for session in Session.started:
            session.server.shutdown()
        Session.started.clear()


def open_params(path: Path, text: str) -> dict[str, Any]:
    return {
        "textDocument": {
            "uri": path.as_uri(),
            "languageId": "python",
            "version": 1,
            "text": text,
        }
    }


def test_a_fix_that_breaks_the_code_is_left_out_of_fix_all_and_said_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"

    async def scenario() -> None:
        # A client without codeAction/resolve: fix-all is computed at once.
        session = Session(tmp_path, {})
        await session.initialize()
        await session.notify("textDocument/didOpen", open_params(path, "breaks()\n"))
        (diagnostic,) = await session.published(path.as_uri(), 1)
        assert diagnostic["code"] == "TST301"
        for _ in range(3):  # the cursor moves: code actions each time
            actions = await session.request(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": path.as_uri()},
                    "range": diagnostic["range"],
                    "context": {"diagnostics": [diagnostic]},
                },
            )
            kinds = [action["kind"] for action in actions]
            assert kinds == ["quickfix", "quickfix"]  # the fix and the noqa
        (shown,) = session.notifications("window/showMessage")
        assert shown["type"] == 1 and "TST301 (broken-fix" in shown["message"]
        assert "left out" in shown["message"]

    run(scenario())


def test_a_rule_that_fails_is_logged_and_the_others_still_report(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"

    async def scenario() -> None:
        session = Session(tmp_path, {})
        await session.initialize()
        await session.notify(
            "textDocument/didOpen", open_params(path, "explode()\nold()\n")
        )
        diagnostics = await session.published(path.as_uri(), 1)
        assert [d["code"] for d in diagnostics] == ["TST101"]
        logged = session.notifications("window/logMessage")
        assert any(
            entry["type"] == 1 and "internal error in TST401" in entry["message"]
            for entry in logged
        )
        assert session.notifications("window/showMessage") == []

    run(scenario())


def test_a_stale_check_is_not_published(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    uri = path.as_uri()

    async def scenario() -> None:
        session = Session(tmp_path, {})
        session.server.debounce = 1.0
        await session.initialize()
        await session.notify("textDocument/didOpen", open_params(path, "old()\n"))
        await session.published(uri, 1)
        # Changes faster than the quiet time: only the last is checked.
        for version, text in ((2, "old()\nold()\n"), (3, "new()\n"), (4, "risky()\n")):
            await session.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
        diagnostics = await session.published(uri, 4)
        assert [d["code"] for d in diagnostics] == ["TST102"]
        await asyncio.sleep(0.3)
        versions = [
            params["version"]
            for params in session.notifications("textDocument/publishDiagnostics")
        ]
        assert versions == [1, 4]

    run(scenario())


def test_a_document_under_a_folder_name_that_is_not_utf8_gets_its_settings(
    tmp_path: Path,
) -> None:
    """The URI of ``caf\\xe9/m.py`` percent-encodes the name's bytes
    (``caf%E9``): read back as those bytes, the document finds the
    configuration beside it, as ``attnlint check`` does (read as UTF-8 with
    U+FFFD, it named a folder that does not exist, and the settings came
    from the one above)."""
    import os
    from urllib.parse import quote

    folder = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9"))
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[tool.attnlint]\nignore = ["TST301"]\n')
    uri = "file://" + quote(os.fsencode(folder / "m.py"))

    async def scenario() -> None:
        session = Session(tmp_path, {})
        await session.initialize()
        params = {
            "textDocument": {
                "uri": uri,
                "languageId": "python",
                "version": 1,
                "text": "breaks()\n",
            }
        }
        await session.notify("textDocument/didOpen", params)
        assert await session.published(uri, 1) == []

    run(scenario())
