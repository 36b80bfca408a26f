"""``attnlint server`` end to end: a subprocess spoken to as an editor speaks.

Each test starts the server, exchanges JSON-RPC messages with it over stdio
(``tests/lsp_client.py``, every wait with a deadline), and checks what an
editor would show and do: the diagnostics against ``attnlint check``'s, the
edits of every code action applied to the text against ``attnlint check
--fix``, and the exit code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lint_rules.checker import check_source
from lint_rules.config import load_settings
from tests.lsp_client import LspClient, apply_text_edits, code_units

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
_SCRIPT = Path(sys.executable).with_name("attnlint")
# The console script an editor runs; the module where it is not installed.
SERVER = (
    [str(_SCRIPT), "server"]
    if _SCRIPT.exists()
    else [sys.executable, "-m", "lint_rules", "server"]
)

# ATN102 (unsafe fix), ATN101 after non-ASCII and astral characters on its
# line (its column differs in every encoding), ATN301 (safe fix).
BACKEND = """\
import torch


class Backend:
    def init_cuda_graph_state(self, max_bs):
        self.seq_lens = torch.zeros(max_bs, dtype=torch.int32)

    def forward(self, n):
        label = "ключ 😀"; x = torch.zeros(n)
        x.copy_(torch.ones(n))
        return x, label

    def forward_pages(self, seq_lens, table, req):
        for idx, seq_len in enumerate(seq_lens):
            start = idx
            table[start, :seq_len] = req[start, :seq_len]
"""
# Diagnostic severities by code (LSP: 1 Error, 2 Warning, 3 Information).
EDITOR_SEVERITY = {"ATN101": 2, "ATN102": 3, "ATN301": 2}
CONFIG = '[tool.attnlint]\nselect = ["ATN"]\n'


def capabilities(
    encodings: list[str] | None = None, *, watch: bool = True
) -> dict[str, Any]:
    """What VS Code says it can do (the parts the server looks at)."""
    result: dict[str, Any] = {
        "textDocument": {
            "synchronization": {"didSave": True},
            "publishDiagnostics": {"versionSupport": True},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "codeAction": {
                "codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["quickfix", "source"]}
                },
                "isPreferredSupport": True,
                "dataSupport": True,
                "resolveSupport": {"properties": ["edit"]},
            },
        },
        "workspace": {
            "workspaceEdit": {"documentChanges": True},
            "didChangeWatchedFiles": {"dynamicRegistration": watch},
        },
    }
    if encodings is not None:
        result["general"] = {"positionEncodings": encodings}
    return result


def start(
    folder: Path, *, arguments: tuple[str, ...] = (), **kwargs: Any
) -> tuple[LspClient, dict[str, Any]]:
    client = LspClient([*SERVER, *arguments], cwd=folder, env=ENV, timeout=30)
    result = client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}],
            "capabilities": capabilities(**kwargs),
        },
    )
    client.notify("initialized", {})
    return client, result


def open_document(
    client: LspClient, path: Path, text: str, version: int = 1
) -> dict[str, Any]:
    uri = path.as_uri()
    client.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": uri,
                "languageId": "python",
                "version": version,
                "text": text,
            }
        },
    )
    return diagnostics_of(client, uri, version)


def diagnostics_of(client: LspClient, uri: str, version: int) -> dict[str, Any]:
    return client.notification(
        "textDocument/publishDiagnostics",
        lambda params: params["uri"] == uri and params.get("version") == version,
    )


def stop(client: LspClient) -> None:
    assert client.request("shutdown") is None
    client.notify("exit")
    assert client.wait() == 0
    assert b"Traceback" not in client.stderr, client.stderr.decode()


def code_actions(
    client: LspClient, uri: str, diagnostic: dict[str, Any], only: list[str] | None
) -> list[dict[str, Any]]:
    context: dict[str, Any] = {"diagnostics": [diagnostic]}
    if only is not None:
        context["only"] = only
    return client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": diagnostic["range"],
            "context": context,
        },
    )


def edits_of(edit: dict[str, Any], uri: str, version: int | None) -> list[dict]:
    """The text edits of a workspace edit for ``uri`` (document changes,
    checked to name ``version``)."""
    (change,) = edit["documentChanges"]
    assert change["textDocument"] == {"uri": uri, "version": version}
    return change["edits"]


def cli(*arguments: str, cwd: Path, stdin: str | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", *arguments],
        cwd=cwd,
        env=ENV,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def expected_diagnostics(
    project: Path, name: str, text: str, encoding: str = "utf-16"
) -> list[tuple[str, int, int, int, int, str]]:
    """What ``attnlint check`` reports for the file, as (code, range, message)
    in the client's ``encoding``, counted by encoding each character."""
    lines = text.split("\n")

    def position(location: dict[str, int]) -> tuple[int, int]:
        line = lines[location["row"] - 1]
        prefix = line[: location["column"] - 1]
        return location["row"] - 1, sum(code_units(c, encoding) for c in prefix)

    findings = json.loads(
        cli("check", "--no-cache", "--output-format", "json", name, cwd=project)
    )
    return [
        (
            finding["code"],
            *position(finding["location"]),
            *position(finding["end_location"]),
            finding["message"],
        )
        for finding in findings
    ]


def as_tuples(diagnostics: list[dict[str, Any]]) -> list[tuple]:
    return [
        (
            d["code"],
            d["range"]["start"]["line"],
            d["range"]["start"]["character"],
            d["range"]["end"]["line"],
            d["range"]["end"]["character"],
            d["message"],
        )
        for d in diagnostics
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    (tmp_path / "backend.py").write_text(BACKEND, encoding="utf-8")
    return tmp_path


# ------------------------------------------------------------------ the session


def test_an_editor_session(project: Path) -> None:
    path = project / "backend.py"
    uri = path.as_uri()
    client, initialized = start(project)
    with client:
        server = initialized["capabilities"]
        assert server["positionEncoding"] == "utf-16"
        assert server["textDocumentSync"]["change"] == 2  # incremental
        assert server["codeActionProvider"]["resolveProvider"] is True
        assert (
            "source.fixAll.attnlint" in server["codeActionProvider"]["codeActionKinds"]
        )
        assert server["hoverProvider"] is True
        assert initialized["serverInfo"]["name"] == "attnlint"

        # didOpen: the diagnostics of `attnlint check`, positions in UTF-16.
        published = open_document(client, path, BACKEND)
        diagnostics = published["diagnostics"]
        assert as_tuples(diagnostics) == expected_diagnostics(
            project, "backend.py", BACKEND
        )
        assert [d["code"] for d in diagnostics] == ["ATN102", "ATN101", "ATN301"]
        for diagnostic in diagnostics:
            assert diagnostic["source"] == "attnlint"
            assert diagnostic["severity"] == EDITOR_SEVERITY[diagnostic["code"]]
        # 30 characters before `torch.zeros`, the emoji two UTF-16 units.
        atn102, atn101, atn301 = diagnostics
        assert atn101["range"]["start"] == {"line": 8, "character": 31}
        # The server asked to watch configuration files.
        (registration,) = client.requests_from_server
        assert registration["method"] == "client/registerCapability"

        # Quick fixes: a safe fix is preferred; the unsafe one says so.
        actions = code_actions(client, uri, atn101, None)
        titles = [action["title"] for action in actions]
        assert titles == [
            "attnlint (ATN101): Replace `torch.zeros` with `torch.empty`",
            "Disable ATN101 for this line",
            "attnlint: Apply all safe fixes",
        ]
        fix, noqa, fix_all = actions
        assert fix["kind"] == "quickfix" and fix["isPreferred"] is True
        assert fix["diagnostics"] == [atn101]
        fixed = apply_text_edits(BACKEND, edits_of(fix["edit"], uri, 1))
        assert fixed == BACKEND.replace("x = torch.zeros(n)", "x = torch.empty(n)")
        # Disable for this line: the finding is gone, the others stay.
        disabled = apply_text_edits(BACKEND, edits_of(noqa["edit"], uri, 1))
        assert "x = torch.zeros(n)  # noqa: ATN101\n" in disabled
        settings = load_settings(start=project)
        remaining = check_source(disabled, str(path), settings)
        assert [f.code for f in remaining] == ["ATN102", "ATN301"]

        unsafe = code_actions(client, uri, atn102, ["quickfix"])
        assert [a["title"] for a in unsafe] == [
            "attnlint (ATN102): Replace `torch.zeros` with `torch.empty` (unsafe)",
            "Disable ATN102 for this line",
        ]
        assert not unsafe[0].get("isPreferred")
        applied = apply_text_edits(BACKEND, edits_of(unsafe[0]["edit"], uri, 1))
        assert applied == BACKEND.replace("torch.zeros(max_bs", "torch.empty(max_bs")

        # Fix all, as on save: safe fixes only, to a fixpoint, as --fix does.
        cli_fixed = cli(
            "check",
            "--fix",
            "--stdin-filename",
            "backend.py",
            "-",
            cwd=project,
            stdin=BACKEND,
        )
        assert cli_fixed != BACKEND and "torch.zeros(max_bs" in cli_fixed
        (on_save,) = code_actions(client, uri, atn301, ["source.fixAll"])
        assert on_save["kind"] == "source.fixAll.attnlint"
        assert apply_text_edits(BACKEND, edits_of(on_save["edit"], uri, 1)) == cli_fixed
        # Offered with the quick fixes, its edit comes when it is chosen.
        assert "edit" not in fix_all
        resolved = client.request("codeAction/resolve", fix_all)
        assert (
            apply_text_edits(BACKEND, edits_of(resolved["edit"], uri, 1)) == cli_fixed
        )

        # Hover: the rule's "Why is this bad?" section.
        hover = client.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": atn101["range"]["start"]},
        )
        assert hover["range"] == atn101["range"]
        assert hover["contents"]["kind"] == "markdown"
        value = hover["contents"]["value"]
        assert value.startswith("**ATN101** zeros-overwritten: ")
        assert "Zero-filling is a kernel launch" in value
        assert "## " not in value and "Use instead" not in value
        nothing = client.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
        )
        assert nothing is None

        # didChange (incremental): the overwrite becomes a read; ATN101 goes.
        line = BACKEND.split("\n").index("        x.copy_(torch.ones(n))")
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": line, "character": 8},
                            "end": {"line": line, "character": 30},
                        },
                        "text": "x += 1",
                    }
                ],
            },
        )
        changed = BACKEND.replace("x.copy_(torch.ones(n))", "x += 1")
        published = diagnostics_of(client, uri, 2)
        assert as_tuples(published["diagnostics"]) == [
            t
            for t in expected_diagnostics(project, "backend.py", BACKEND)
            if t[0] != "ATN101"
        ]
        assert [d["code"] for d in published["diagnostics"]] == ["ATN102", "ATN301"]
        assert check_source(changed, str(path), settings)[0].code == "ATN102"

        # A text that does not parse: E999, and no code action at all.
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 3},
                "contentChanges": [{"text": changed + "def broken(:\n"}],
            },
        )
        (syntax_error,) = diagnostics_of(client, uri, 3)["diagnostics"]
        assert syntax_error["code"] == "E999"
        assert syntax_error["severity"] == 1
        assert syntax_error["range"]["start"]["line"] == changed.count("\n")
        assert code_actions(client, uri, syntax_error, None) == []
        assert code_actions(client, uri, syntax_error, ["source.fixAll"]) == []

        client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        closed = client.notification(
            "textDocument/publishDiagnostics",
            lambda params: params["uri"] == uri and params["diagnostics"] == [],
        )
        assert closed["diagnostics"] == []
        stop(client)


# -------------------------------------------------------------- configuration


# Suppressed findings: ATN101 by its code, after non-ASCII and astral
# characters on its line; ATN301 by a prefix of its code.
SUPPRESSED = """\
import torch


class Backend:
    def forward(self, n, y, table, cache, lens):
        label = "ключ 😀"; x = torch.zeros(n)  # noqa: ATN101
        x.copy_(y)
        for idx, m in enumerate(lens):
            start = idx  # NOQA:ATN3
            table[start, :m] = cache[start, :m]
        return x, label
"""


def test_hover_on_a_code_in_a_noqa_comment(project: Path) -> None:
    """Hovering a code of a ``# noqa`` comment shows what its rule does and
    why it matters (a prefix: each rule it covers); the range is the code's."""
    path = project / "suppressed.py"
    path.write_text(SUPPRESSED, encoding="utf-8")
    assert check_source(SUPPRESSED, str(path), load_settings(start=project)) == []
    lines = SUPPRESSED.split("\n")

    def place(word: str, inside: int = 0) -> tuple[int, int]:
        """The UTF-16 (line, character) of the first ``word`` (``inside`` characters in)."""
        (line,) = [
            i
            for i, text in enumerate(lines)
            if f"# noqa: {word}" in text or f"# NOQA:{word}" in text
        ]
        column = lines[line].index(word, lines[line].index("#")) + inside
        return line, sum(code_units(c, "utf-16") for c in lines[line][:column])

    def hover(line: int, character: int) -> dict[str, Any] | None:
        return client.request(
            "textDocument/hover",
            {
                "textDocument": {"uri": path.as_uri()},
                "position": {"line": line, "character": character},
            },
        )

    client, _ = start(project)
    with client:
        assert open_document(client, path, SUPPRESSED)["diagnostics"] == []
        line, start_of = place("ATN101")
        for inside in (0, 3, 6):  # its first character, within it, just past it
            found = hover(line, start_of + inside)
            assert found is not None, inside
            assert found["range"] == {
                "start": {"line": line, "character": start_of},
                "end": {"line": line, "character": start_of + 6},
            }
            value = found["contents"]["value"]
            assert found["contents"]["kind"] == "markdown"
            assert value.startswith(
                "**ATN101** zeros-overwritten: Checks for zero-filled tensors"
            )
            assert "Zero-filling is a kernel launch" in value  # why it matters
            assert "## " not in value
        # Before the code (the space, the ``noqa:``): nothing.
        assert hover(line, start_of - 1) is None
        assert hover(line, start_of - 3) is None

        line, start_of = place("ATN3", 2)
        found = hover(line, start_of)
        assert found is not None
        value = found["contents"]["value"]
        assert value.startswith("`ATN3` covers:")
        assert "- **ATN301** dead-loop-alias: Checks for assignments" in value
        assert "ATN101" not in value
        stop(client)


@pytest.mark.parametrize("watch", [True, False], ids=["watched", "on-save"])
def test_bad_configuration_is_shown_and_a_fixed_one_recovers(
    project: Path, watch: bool
) -> None:
    (project / "pyproject.toml").write_text('[tool.attnlint]\nselct = ["ATN"]\n')
    path = project / "backend.py"
    uri = path.as_uri()
    client, _ = start(project, watch=watch)
    with client:
        assert open_document(client, path, BACKEND)["diagnostics"] == []
        shown = client.notification("window/showMessage")
        assert shown["type"] == 1  # Error
        assert (
            "selct" in shown["message"] and "did you mean 'select'" in shown["message"]
        )
        # Still running: the configuration is fixed, and the findings come back.
        (project / "pyproject.toml").write_text(
            '[tool.attnlint]\nselect = ["ATN"]\nignore = ["ATN102"]\n'
        )
        if watch:
            client.notify(
                "workspace/didChangeWatchedFiles",
                {
                    "changes": [
                        {"uri": (project / "pyproject.toml").as_uri(), "type": 2}
                    ]
                },
            )
        else:
            client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        recovered = diagnostics_of(client, uri, 1)
        assert [d["code"] for d in recovered["diagnostics"]] == ["ATN101", "ATN301"]
        assert client.notifications("window/showMessage") == []
        stop(client)


def test_settings_are_those_of_the_nearest_configuration(project: Path) -> None:
    nested = project / "generated"
    nested.mkdir()
    (project / "pyproject.toml").write_text(
        CONFIG
        + 'extend-exclude = ["generated"]\nper-file-ignores = { "legacy/*" = ["ATN3"] }\n'
    )
    (project / "legacy").mkdir()
    client, _ = start(project)
    with client:
        # Excluded: nothing, as `attnlint check --force-exclude` would say.
        assert open_document(client, nested / "x.py", BACKEND)["diagnostics"] == []
        legacy = open_document(client, project / "legacy" / "x.py", BACKEND)
        assert [d["code"] for d in legacy["diagnostics"]] == ["ATN102", "ATN101"]
        # A document that is no file takes the workspace root's settings.
        untitled = "untitled:Untitled-1"
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": untitled,
                    "languageId": "python",
                    "version": 1,
                    "text": BACKEND,
                }
            },
        )
        published = diagnostics_of(client, untitled, 1)
        assert [d["code"] for d in published["diagnostics"]] == [
            "ATN102",
            "ATN101",
            "ATN301",
        ]
        # A folder with its own configuration.
        inner = project / "inner"
        inner.mkdir()
        (inner / "pyproject.toml").write_text('[tool.attnlint]\nselect = ["ATN3"]\n')
        own = open_document(client, inner / "y.py", BACKEND)
        assert [d["code"] for d in own["diagnostics"]] == ["ATN301"]
        stop(client)


# ------------------------------------------------------------------ positions


@pytest.mark.parametrize("encoding", ["utf-8", "utf-32"])
def test_position_encoding_is_negotiated(project: Path, encoding: str) -> None:
    path = project / "backend.py"
    uri = path.as_uri()
    client, initialized = start(project, encodings=[encoding, "utf-16"])
    with client:
        assert initialized["capabilities"]["positionEncoding"] == encoding
        diagnostics = open_document(client, path, BACKEND)["diagnostics"]
        assert as_tuples(diagnostics) == expected_diagnostics(
            project, "backend.py", BACKEND, encoding
        )
        atn101 = diagnostics[1]
        (fix,) = [
            a
            for a in code_actions(client, uri, atn101, ["quickfix"])
            if a.get("isPreferred")
        ]
        edits = edits_of(fix["edit"], uri, 1)
        assert apply_text_edits(BACKEND, edits, encoding) == BACKEND.replace(
            "x = torch.zeros(n)", "x = torch.empty(n)"
        )
        # An incremental change after the astral character, in this encoding.
        line = 8
        text_line = BACKEND.split("\n")[line]
        at = sum(code_units(c, encoding) for c in text_line[: text_line.index("x =")])
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": line, "character": at},
                            "end": {"line": line, "character": at},
                        },
                        "text": "y = 0; ",
                    }
                ],
            },
        )
        changed = BACKEND.replace("; x = torch", "; y = 0; x = torch")
        published = diagnostics_of(client, uri, 2)
        assert as_tuples(published["diagnostics"]) == expected_for_text(
            project, changed, encoding
        )
        stop(client)


def expected_for_text(project: Path, text: str, encoding: str) -> list[tuple]:
    (project / "changed.py").write_text(text, encoding="utf-8")
    return expected_diagnostics(project, "changed.py", text, encoding)


def test_crlf_and_form_feed_lines(project: Path) -> None:
    # A form feed ends no line (str.splitlines would say it does).
    text = "\x0c\n" + BACKEND.replace("\n", "\r\n").replace(
        "import torch", "import torch\x0c"
    )
    path = project / "crlf.py"
    path.write_bytes(text.encode("utf-8"))
    client, _ = start(project)
    with client:
        diagnostics = open_document(client, path, text)["diagnostics"]
        expected = expected_diagnostics(project, "crlf.py", text.replace("\r\n", "\n"))
        assert as_tuples(diagnostics) == expected
        atn101 = diagnostics[1]
        (_, noqa, _) = code_actions(client, path.as_uri(), atn101, None)
        disabled = apply_text_edits(text, edits_of(noqa["edit"], path.as_uri(), 1))
        assert "x = torch.zeros(n)  # noqa: ATN101\r\n" in disabled
        assert disabled.count("\r\n") == text.count("\r\n")
        stop(client)


def test_a_buffer_starting_with_a_bom_is_checked_as_its_file(project: Path) -> None:
    """A client that keeps a file's byte-order mark in the buffer (U+FEFF
    first) gets the diagnostics of the file on disk, not an E999; positions
    on line 0 count the mark (one UTF-16 unit), and fixes, applied to the
    buffer, keep it first."""
    body = (
        "def f(n): x = torch.zeros(n); x.copy_(torch.ones(n)); return x\nimport torch\n"
    )
    text = "\ufeff" + body
    path = project / "bom.py"
    path.write_bytes(text.encode("utf-8"))
    uri = path.as_uri()
    assert cli("check", "--no-cache", "bom.py", cwd=project).startswith(
        "bom.py:1:15: ATN101 "
    )
    client, _ = start(project)
    with client:
        (diagnostic,) = open_document(client, path, text)["diagnostics"]
        assert diagnostic["code"] == "ATN101"
        # `torch.zeros` is the 15th character of the file's text, the 16th
        # of the buffer's.
        assert diagnostic["range"]["start"] == {"line": 0, "character": 15}
        fix, noqa, _ = code_actions(client, uri, diagnostic, None)
        fixed = apply_text_edits(text, edits_of(fix["edit"], uri, 1))
        assert fixed == text.replace("torch.zeros", "torch.empty")
        disabled = apply_text_edits(text, edits_of(noqa["edit"], uri, 1))
        assert disabled == text.replace("return x\n", "return x  # noqa: ATN101\n", 1)
        (on_save,) = code_actions(client, uri, diagnostic, ["source.fixAll"])
        resolved = client.request("codeAction/resolve", on_save)
        assert apply_text_edits(text, edits_of(resolved["edit"], uri, 1)) == fixed
        # An edit typed right after the mark lands after it.
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": 0, "character": 1},
                            "end": {"line": 0, "character": 1},
                        },
                        "text": "import torch\n",
                    }
                ],
            },
        )
        (moved,) = diagnostics_of(client, uri, 2)["diagnostics"]
        assert moved["range"]["start"] == {"line": 1, "character": 14}
        stop(client)


# --------------------------------------------------------------- scheduling


def test_changes_are_debounced_and_requests_are_not(project: Path) -> None:
    path = project / "backend.py"
    uri = path.as_uri()
    client, _ = start(project, arguments=("--debounce", "400"))
    with client:
        open_document(client, path, BACKEND)
        texts = [BACKEND + "\n" * count for count in range(1, 5)]
        for version, text in enumerate(texts, start=2):
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
        # A request answers for the latest text at once, not after the quiet time.
        started = time.monotonic()
        hover = client.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 8, "character": 32}},
        )
        assert hover is not None and time.monotonic() - started < 5
        published = diagnostics_of(client, uri, 5)
        assert len(published["diagnostics"]) == 3
        time.sleep(0.6)
        later = client.notifications("textDocument/publishDiagnostics")
        assert later == []  # nothing for the stale versions 2 to 4
        stop(client)


def test_exit_without_shutdown_exits_with_one(project: Path) -> None:
    client, _ = start(project)
    with client:
        client.notify("exit")
        assert client.wait() == 1


# ------------------------------------------------------------------------ CLI


def test_server_without_pygls_says_what_to_install(monkeypatch, capsys) -> None:
    import importlib.util

    from lint_rules.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pygls" else real(name, *a),
    )
    assert main(["server"]) == 2
    # What the `server` extra requires, installable wherever attnlint came
    # from (was `pip install 'attnlint[server]'`: attnlint is installed from
    # its repository, and pip finds no attnlint on PyPI).
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    (extra,) = re.findall(r'^server = \["([^"]+)"\]$', pyproject, flags=re.M)
    err = capsys.readouterr().err
    assert f"pip install '{extra}'" in err and "attnlint[" not in err
    help_text = subprocess.run(
        [sys.executable, "-m", "lint_rules", "server", "--help"],
        capture_output=True,
        text=True,
    ).stdout
    assert f"pip install '{extra}'" in re.sub(r"\s+", " ", help_text)


def test_server_rejects_a_bad_debounce(capsys) -> None:
    from lint_rules.cli import main

    for value in ("soon", "-1", "inf", "nan"):
        assert main(["server", "--debounce", value]) == 2
        assert "milliseconds" in capsys.readouterr().err


def test_noqa_codes_and_their_hover_text() -> None:
    """The codes read from a text's suppression comments (not from a string
    that looks like one), and the plain-text hover for an exact code, a
    prefix and a code that names no rule."""
    from lint_rules.server import actions, engine

    text = 's = "# noqa: ATN101"  # noqa: ATN102,E501\n# attnlint: noqa: ATN3\n'
    codes = engine.noqa_codes(text)
    assert [(code, text[start:end]) for code, start, end in codes] == [
        ("ATN102", "ATN102"),
        ("E501", "E501"),
        ("ATN3", "ATN3"),
    ]
    exact = actions.noqa_explanation(
        "ATN102", engine.rules_listed("ATN102"), markdown=False
    )
    assert exact is not None and exact.startswith("ATN102 ")
    assert "`attnlint rule ATN102`" in exact
    prefix = actions.noqa_explanation("ATN3", engine.rules_listed("ATN3"), False)
    assert prefix is not None and prefix.startswith("ATN3 covers:\n\n- ATN301 ")
    assert engine.rules_listed("E501") == []
    assert actions.noqa_explanation("E501", [], False) is None
    # Compared as written, as the suppression is: ``atn101`` covers nothing.
    assert engine.rules_listed("atn101") == []


@pytest.mark.parametrize("name", [".attnlint.toml", "attnlint.toml"])
def test_the_server_reads_every_configuration_file_the_check_reads(
    tmp_path: Path, name: str
) -> None:
    """The README's Editors section said the nearest `pyproject.toml`; the
    server finds configuration as `attnlint check` does."""
    from lint_rules.server.engine import settings_for

    (tmp_path / name).write_text("select = ['ATN3']\n")
    (tmp_path / "pkg").mkdir()
    settings = settings_for(str(tmp_path / "pkg"))
    assert settings.enabled_codes == {"ATN301"}
    assert settings.enabled_codes == load_settings(start=tmp_path / "pkg").enabled_codes
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    editors = readme[readme.index("## Editors") : readme.index("**VS Code**")]
    assert f"`{name}`" in editors
