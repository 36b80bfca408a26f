"""``attnlint server``: a language server over stdio, on pygls.

Documents are checked when opened, when saved, and a short quiet time
(``debounce``) after each change; a check runs on one worker thread, and
its result is published only while it still describes the document (a
newer change makes it stale and its own check follows). Settings are
looked up once per folder and kept until a configuration file changes
(``workspace/didChangeWatchedFiles``; without that, on each save).

Code actions (``actions.py``) and hover answer from the result for the
document's current text, checking it at once if there is none yet (a
request does not wait for the debounce).

The server keeps its own copy of each open document rather than pygls's:
lines end at ``\\n``, ``\\r\\n`` and ``\\r`` only, as in the protocol and in
Python, where ``str.splitlines`` also splits at form feeds.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any
from urllib.parse import unquote, unquote_to_bytes, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from lint_rules import __version__
from lint_rules.server import actions, convert, engine
from lint_rules.server.text import ENCODINGS, UTF16, Document, LineIndex

#: Quiet time after a change before the document is checked, in seconds.
DEFAULT_DEBOUNCE = 0.025

_CONFIG_GLOBS = tuple(f"**/{name}" for name in engine.CONFIG_FILE_NAMES)


class CheckResult:
    """What one check of one revision of a document found, ready to publish."""

    __slots__ = (
        "revision",
        "generation",
        "version",
        "index",
        "filename",
        "settings",
        "findings",
        "diagnostics",
        "config_error",
        "errors",
        "fixed",
        "noqa_codes",
    )

    def __init__(
        self,
        revision: int,
        generation: int,
        version: int | None,
        index: LineIndex,
        filename: str,
        settings: engine.Settings | None,
        findings: list[engine.Finding],
        diagnostics: list[types.Diagnostic],
        config_error: str | None = None,
        errors: tuple[str, ...] = (),
    ) -> None:
        self.revision = revision
        self.generation = generation
        self.version = version
        self.index = index
        self.filename = filename
        self.settings = settings
        self.findings = findings
        self.diagnostics = diagnostics
        self.config_error = config_error
        self.errors = errors
        # (text, error) of the safe fix-all of this text, once asked for.
        self.fixed: tuple[str, str | None, tuple[str, ...]] | None = None
        # The codes its suppression comments list, once hovered.
        self.noqa_codes: list[tuple[str, int, int]] | None = None

    @property
    def parses(self) -> bool:
        return not any(engine.is_syntax_error(finding) for finding in self.findings)


class _Job:
    """A snapshot of a document to check (taken on the event loop)."""

    __slots__ = ("uri", "revision", "generation", "version", "index", "filename")

    def __init__(self, uri: str, document: _OpenDocument, generation: int) -> None:
        self.uri = uri
        self.revision = document.revision
        self.generation = generation
        self.version = document.version
        # Computed here, once: the document's next incremental change needs it too.
        self.index = document.index
        self.filename = document.filename


class _OpenDocument(Document):
    __slots__ = ("revision", "filename", "folder")

    def __init__(
        self, *args: Any, revision: int, folder: str, filename: str, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        # Unique across the server's documents and their texts, so that a
        # result never passes for that of a later text (one reopened, say).
        self.revision = revision
        # Where its settings are looked up, and the name it is checked under.
        self.folder = folder
        self.filename = filename


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, with the text of open documents kept by the server."""

    _server: AttnlintServer

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> None:
        self._server.did_open(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> None:
        self._server.did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> None:
        self._server.did_close(params)


class AttnlintServer(LanguageServer):
    def __init__(
        self, debounce: float = DEFAULT_DEBOUNCE, registry: Any = None
    ) -> None:
        super().__init__(
            "attnlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=_Protocol,
        )
        self.debounce = debounce
        # The rules to choose from (a lint_rules.rules.Registry; None: attnlint's).
        self.registry = registry
        self.documents: dict[str, _OpenDocument] = {}
        self.results: dict[str, CheckResult] = {}
        self.encoding = UTF16
        self.shutdown_requested = False
        # Settings (or the configuration error) per folder; ``generation``
        # counts invalidations, so that a result tells which settings it used.
        self._settings: dict[str, engine.Settings | engine.ConfigError] = {}
        self.generation = 0
        self._revisions = itertools.count()
        self._shown_errors: set[str] = set()
        self._published: dict[str, tuple[int, int]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: dict[str, tuple[int, int, asyncio.Future[Any]]] = {}
        # One check at a time: a second thread would only wait for the first.
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="attnlint-check")
        self._watching_config = False
        self._markdown = False
        self._document_changes = False
        self._resolve_edits = False
        self._register()

    # ------------------------------------------------------------ lifecycle

    def _register(self) -> None:
        def feature(method: str, options: Any = None) -> Callable[[Any], None]:
            # pygls marks its handlers with attributes, which a bound method
            # cannot take: each is wrapped in a plain function.
            def register(handler: Callable[..., Any]) -> None:
                if asyncio.iscoroutinefunction(handler):

                    async def call(params: Any = None) -> Any:
                        return await handler(params)

                else:

                    def call(params: Any = None) -> Any:
                        return handler(params)

                self.feature(method, options)(call)

            return register

        feature(types.INITIALIZE)(self.on_initialize)
        feature(types.INITIALIZED)(self.on_initialized)
        feature(types.SHUTDOWN)(self.on_shutdown)
        feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))(
            self.did_save
        )
        feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(self.did_change_watched_files)
        feature(
            types.TEXT_DOCUMENT_CODE_ACTION,
            types.CodeActionOptions(
                code_action_kinds=[actions.QUICKFIX, actions.FIX_ALL_KIND],
                resolve_provider=True,
            ),
        )(self.code_action)
        feature(types.CODE_ACTION_RESOLVE)(self.resolve_code_action)
        feature(types.TEXT_DOCUMENT_HOVER)(self.hover)

    def on_initialize(self, params: types.InitializeParams) -> None:
        encoding = self.protocol.workspace.position_encoding
        encoding = getattr(encoding, "value", encoding)  # the enum's plain string
        self.encoding = encoding if encoding in ENCODINGS else UTF16
        capabilities = params.capabilities
        text = capabilities.text_document
        hover = text.hover if text else None
        self._markdown = bool(
            hover
            and hover.content_format
            and types.MarkupKind.Markdown in hover.content_format
        )
        action = text.code_action if text else None
        self._resolve_edits = bool(
            action
            and action.resolve_support
            and "edit" in action.resolve_support.properties
        )
        workspace = capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        self._document_changes = bool(edit and edit.document_changes)
        watched = workspace.did_change_watched_files if workspace else None
        self._watching_config = bool(watched and watched.dynamic_registration)

    async def on_initialized(self, params: types.InitializedParams) -> None:
        if not self._watching_config:
            return
        watchers = [
            types.FileSystemWatcher(glob_pattern=glob) for glob in _CONFIG_GLOBS
        ]
        registration = types.Registration(
            id="attnlint-configuration",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                watchers=watchers
            ),
        )
        try:
            await self.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception as error:  # the client refused: read settings on save
            self._watching_config = False
            self.log(f"watching configuration files failed: {error}")

    def on_shutdown(self, params: Any = None) -> None:
        self.shutdown_requested = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def shutdown(self) -> None:
        """Stop without waiting for the thread that reads stdin (it may block
        until the client closes the pipe); the process exits right after."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)
        if self._server is not None:
            self._server.close()
        self._worker.shutdown(wait=False, cancel_futures=True)

    def log(
        self, message: str, kind: types.MessageType = types.MessageType.Log
    ) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # ------------------------------------------------------------ documents

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = _path_of(item.uri)
        if path is not None:
            folder, filename = os.path.dirname(path), path
        else:
            folder = self._root()
            filename = os.path.join(folder, _name_of(item.uri))
        self.documents[item.uri] = _OpenDocument(
            item.uri,
            path,
            item.text,
            item.version,
            item.language_id,
            revision=next(self._revisions),
            folder=folder,
            filename=filename,
        )
        self._check_now(item.uri)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        document = self.documents.get(params.text_document.uri)
        if document is None:
            return
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start, end = change.range.start, change.range.end
                document.edit(
                    (start.line, start.character),
                    (end.line, end.character),
                    change.text,
                    self.encoding,
                )
            else:
                document.replace(change.text, document.version)
        document.version = params.text_document.version
        document.revision = next(self._revisions)
        self._schedule(document.uri, self.debounce)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        # Without watched files, a save is when settings are read again.
        if not self._watching_config or _is_config_file(uri):
            self._invalidate_settings()
        else:
            self._check_now(uri)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.documents.pop(uri, None)
        self.results.pop(uri, None)
        self._published.pop(uri, None)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def did_change_watched_files(
        self, params: types.DidChangeWatchedFilesParams
    ) -> None:
        if any(_is_config_file(change.uri) for change in params.changes):
            self._invalidate_settings()

    def _invalidate_settings(self) -> None:
        """A configuration file may have changed: read settings again and
        check every open document with them."""
        self._settings.clear()
        self._shown_errors.clear()
        self.generation += 1
        for uri in list(self.documents):
            self._check_now(uri)

    # ------------------------------------------------------------- checking

    def _schedule(self, uri: str, delay: float) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        if delay <= 0:
            self._start(uri)
        else:
            loop = asyncio.get_running_loop()
            self._timers[uri] = loop.call_later(delay, self._start, uri)

    def _check_now(self, uri: str) -> None:
        self._schedule(uri, 0)

    def _is_current(self, result: CheckResult | None, uri: str) -> bool:
        document = self.documents.get(uri)
        return (
            result is not None
            and document is not None
            and result.revision == document.revision
            and result.generation == self.generation
        )

    def _start(self, uri: str) -> asyncio.Future[Any] | None:
        """Check the document's current text unless that is done or under way;
        the future of that check (None: the document is not open)."""
        self._timers.pop(uri, None)
        document = self.documents.get(uri)
        if document is None:
            return None
        running = self._running.get(uri)
        if (
            running is not None
            and running[:2] == (document.revision, self.generation)
            and not running[2].done()
        ):
            return running[2]
        if self._is_current(self.results.get(uri), uri):
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            future.set_result(self.results[uri])
            return future
        job = _Job(uri, document, self.generation)
        settings = self._settings_for(document)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._worker, self._run_check, job, settings)
        self._running[uri] = (job.revision, job.generation, future)
        future.add_done_callback(partial(self._finished, uri))
        return future

    def _settings_for(
        self, document: _OpenDocument
    ) -> engine.Settings | engine.ConfigError:
        folder = document.folder
        settings = self._settings.get(folder)
        if settings is None:
            try:
                settings = engine.settings_for(
                    folder, self._root_of(folder), self.registry
                )
            except engine.ConfigError as error:
                settings = error
            self._settings[folder] = settings
        return settings

    def _run_check(
        self, job: _Job, settings: engine.Settings | engine.ConfigError
    ) -> CheckResult | None:
        """On the worker thread: check a snapshot, unless a newer change made
        it stale before its turn came (its own check is scheduled)."""
        document = self.documents.get(job.uri)
        if document is None or document.revision != job.revision:
            return None
        index = job.index
        if isinstance(settings, engine.ConfigError):
            return CheckResult(
                job.revision,
                job.generation,
                job.version,
                index,
                job.filename,
                None,
                [],
                [],
                config_error=str(settings),
            )
        errors: list[str] = []
        findings: list[engine.Finding] = []
        if not self._skipped(document, settings):
            findings = engine.check_text(
                index.text, job.filename, settings, errors, self.registry
            )
        codes = _codes(findings)
        urls = {code: engine.rule_url(code, self.registry) for code in codes}
        facts = {code: engine.rule_facts(code, self.registry) for code in codes}
        diagnostics = [
            convert.diagnostic(
                finding,
                index,
                self.encoding,
                urls[finding.code],
                facts[finding.code],
            )
            for finding in findings
        ]
        return CheckResult(
            job.revision,
            job.generation,
            job.version,
            index,
            job.filename,
            settings,
            findings,
            diagnostics,
            errors=tuple(errors),
        )

    def _skipped(self, document: _OpenDocument, settings: engine.Settings) -> bool:
        """Documents attnlint check would not check: not Python, or excluded."""
        if document.path is None:
            return document.language_id != "python"
        if document.language_id != "python" and not engine.is_python_file(
            document.path
        ):
            return True
        return engine.is_excluded(document.path, settings)

    def _finished(self, uri: str, future: asyncio.Future[Any]) -> None:
        running = self._running.get(uri)
        if running is not None and running[2] is future:
            del self._running[uri]
        if future.cancelled() or uri not in self.documents:
            return
        error = future.exception()
        if error is not None:
            self.log(f"checking {uri} failed: {error!r}", types.MessageType.Error)
            return
        result: CheckResult | None = future.result()
        if result is None:
            return
        previous = self.results.get(uri)
        if previous is None or (previous.generation, previous.revision) <= (
            result.generation,
            result.revision,
        ):
            self.results[uri] = result
        for message in result.errors:
            self.log(message, types.MessageType.Error)
        if result.config_error and result.config_error not in self._shown_errors:
            self._shown_errors.add(result.config_error)
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error,
                    message=f"attnlint: {result.config_error}",
                )
            )
        if not self._is_current(result, uri):
            return  # a newer change has its own check coming
        stamp = (result.generation, result.revision)
        if self._published.get(uri) == stamp:
            return
        self._published[uri] = stamp
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=result.diagnostics, version=result.version
            )
        )

    async def current_result(self, uri: str) -> CheckResult | None:
        """The result for the document's current text, checking it now if
        needed (a request does not wait for the debounce)."""
        for _ in range(8):
            result = self.results.get(uri)
            if self._is_current(result, uri):
                return result
            timer = self._timers.pop(uri, None)
            if timer is not None:
                timer.cancel()
            future = self._start(uri)
            if future is None:
                return None
            try:
                await asyncio.shield(future)
            except Exception:
                return None
        return None  # the document kept changing while it was checked

    async def _in_worker(self, function: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await asyncio.shield(loop.run_in_executor(self._worker, function, *args))

    # -------------------------------------------------------------- actions

    def _target(self, uri: str, result: CheckResult) -> actions.Target:
        return actions.Target(
            uri, result.version, result.index, self.encoding, self._document_changes
        )

    async def code_action(
        self, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        result = await self.current_result(uri)
        if result is None or result.settings is None or not result.parses:
            return []
        only = params.context.only
        target = self._target(uri, result)
        offered: list[types.CodeAction] = []
        if actions.wanted(only, actions.QUICKFIX):
            for finding, diagnostic in zip(
                result.findings, result.diagnostics, strict=True
            ):
                if actions.touches(diagnostic.range, params.range):
                    offered += actions.finding_actions(target, finding, diagnostic)
        if actions.wanted(only, actions.FIX_ALL_KIND) and any(
            engine.is_safe_fix(finding) for finding in result.findings
        ):
            fix_all = types.CodeAction(
                title=actions.FIX_ALL_TITLE,
                kind=actions.FIX_ALL_KIND,
                data={"uri": uri, "revision": result.revision},
            )
            # Asked for by kind (on save): the edit now; offered among others
            # (a cursor move): the edit when chosen, if the client resolves.
            if only or not self._resolve_edits:
                fix_all = await self.resolve_code_action(fix_all)
                if fix_all.edit is not None:
                    offered.append(fix_all)
            else:
                offered.append(fix_all)
        return offered

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        if action.kind != actions.FIX_ALL_KIND or not isinstance(uri, str):
            return action
        result = await self.current_result(uri)
        if result is None or result.settings is None or not result.parses:
            return action
        if result.fixed is None:
            # Editors ask for code actions at every cursor move; a client that
            # cannot resolve them gets this edit each time: computed once.
            errors: list[str] = []
            result.fixed = await self._in_worker(
                engine.fix_all,
                result.index.text,
                result.filename,
                result.settings,
                errors,
                self.registry,
            )
            shown = [result.fixed[1]] if result.fixed[1] is not None else []
            shown += result.fixed[2]
            for message in errors:
                if message not in shown:
                    self.log(message, types.MessageType.Error)
            for message in shown:  # said once per text
                self.window_show_message(
                    types.ShowMessageParams(
                        type=types.MessageType.Error, message=f"attnlint: {message}"
                    )
                )
        fixed, error, _ = result.fixed
        if error is None:
            action.edit = actions.fix_all_edit(self._target(uri, result), fixed)
        return action

    # ---------------------------------------------------------------- hover

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        result = await self.current_result(params.text_document.uri)
        if result is None or result.settings is None:
            return None
        position = params.position
        point = types.Range(start=position, end=position)
        parts: list[str] = []
        covered: types.Range | None = None
        for finding, diagnostic in zip(
            result.findings, result.diagnostics, strict=True
        ):
            if not actions.touches(diagnostic.range, point):
                continue
            explained = engine.rule_explanation(finding.code, self.registry)
            if explained is None:
                continue
            parts.append(actions.explanation(finding, *explained, self._markdown))
            covered = covered or diagnostic.range
        # A code in a suppression comment: what the rule (or rules) it names do.
        if result.noqa_codes is None:
            result.noqa_codes = engine.noqa_codes(result.index.text)
        index, encoding = result.index, self.encoding
        offset = index.offset(position.line, position.character, encoding)
        for code, start, end in result.noqa_codes:
            if not start <= offset <= end:
                continue
            rules = engine.rules_listed(code, self.registry)
            text = actions.noqa_explanation(code, rules, self._markdown)
            if text is None:
                continue
            parts.append(text)
            covered = covered or convert.to_range(
                index.position(start, encoding), index.position(end, encoding)
            )
        if not parts:
            return None
        kind = (
            types.MarkupKind.Markdown if self._markdown else types.MarkupKind.PlainText
        )
        return types.Hover(
            contents=types.MarkupContent(kind=kind, value="\n\n---\n\n".join(parts)),
            range=covered,
        )

    # ---------------------------------------------------------------- paths

    def _root(self) -> str:
        try:
            root = self.protocol.workspace.root_path
        except RuntimeError:  # before initialize
            root = None
        return root or os.getcwd()

    def _root_of(self, folder: str) -> str:
        """The workspace folder holding ``folder`` (the innermost), or the root."""
        best = ""
        try:
            folders = self.protocol.workspace.folders.values()
        except RuntimeError:
            folders = ()
        for workspace_folder in folders:
            path = _path_of(workspace_folder.uri)
            if path and _within(folder, path) and len(path) > len(best):
                best = path
        return best or self._root()


def _path_of(uri: str) -> str | None:
    if not uri.startswith("file:"):
        return None
    parsed = urlparse(uri)
    if os.name == "posix" and not parsed.netloc:
        # The name's own bytes, as the client percent-encoded them: a name
        # that is not UTF-8 (``caf%E9``) is the file's, not one with U+FFFD.
        return os.fsdecode(unquote_to_bytes(parsed.path))
    return to_fs_path(uri)


def _name_of(uri: str) -> str:
    name = _unquoted(urlparse(uri).path).rstrip("/").rsplit("/", 1)[-1]
    return name or "untitled"


def _unquoted(path: str) -> str:
    return os.fsdecode(unquote_to_bytes(path)) if os.name == "posix" else unquote(path)


def _codes(findings: list[engine.Finding]) -> set[str]:
    return {finding.code for finding in findings}


def _is_config_file(uri: str) -> bool:
    name = unquote(urlparse(uri).path).rsplit("/", 1)[-1]
    return name in engine.CONFIG_FILE_NAMES


def _within(path: str, folder: str) -> bool:
    folder = folder.rstrip(os.sep)
    return path == folder or path.startswith(folder + os.sep)


def serve(debounce: float = DEFAULT_DEBOUNCE) -> int:
    """Serve one client over stdin/stdout; the exit code the protocol asks
    for (0 after ``shutdown`` then ``exit``, 1 otherwise)."""
    protocol_out = sys.stdout.buffer
    # Nothing but the protocol may reach stdout: a stray print goes to stderr.
    sys.stdout = sys.stderr
    server = AttnlintServer(debounce=debounce)
    # What start-up made lives as long as the server: keep the collector from
    # walking it again during every check (pygls and its types are most of it).
    gc.collect()
    gc.freeze()
    server.start_io(sys.stdin.buffer, protocol_out)
    return 0 if server.shutdown_requested else 1
