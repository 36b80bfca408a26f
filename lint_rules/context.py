"""Everything a rule may ask about one file, computed once and shared."""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from functools import cached_property
from itertools import accumulate

from lint_rules import prefilter
from lint_rules.analysis.nodes import span_text
from lint_rules.diagnostics import Finding, Fix, Location
from lint_rules.source import Locator

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from lint_rules.analysis.hot_paths import HotPaths
    from lint_rules.analysis.model import ModuleModel
    from lint_rules.config import RuleOptions


#: A word: what a name may be (``Context.rows_naming``).
_WORD = re.compile(r"\w+")
#: Up to how many names ``Context.rows_naming`` looks for each one at once,
#: without first finding which the rows' words hold.
_FEW_NAMES = 4
#: Each byte kept where it is a word's ASCII character (``\\w``: letters,
#: digits, ``_``), else a space: an ASCII text's words are then its
#: ``split()``.
_ASCII_WORDS = bytes(
    code if code < 128 and (chr(code).isalnum() or chr(code) == "_") else ord(" ")
    for code in range(256)
)


def _is_word(char: str) -> bool:
    """Whether ``char`` is one ``\\w`` matches (in a ``str`` pattern: what
    ``str.isalnum`` accepts, and ``_``)."""
    return char == "_" or char.isalnum()


class Context:
    """One parsed file: its text, tree, positions, analysis model, and the
    options rules read (``options``: the ``for_rules`` options of
    :data:`lint_rules.config.OPTIONS`, as ``ctx.options.graph_state_methods``)."""

    def __init__(
        self,
        text: str,
        tree: ast.Module,
        filename: str,
        options: RuleOptions,
        locator: Locator | None = None,
    ) -> None:
        self.text = text
        self.tree = tree
        self.filename = filename
        self.options = options
        self.locator = locator or Locator(text)
        self.findings: list[Finding] = []

    @cached_property
    def model(self) -> ModuleModel:
        """The shared def-use model of the module (built on first request)."""
        from lint_rules.analysis.model import ModuleModel

        rows = None
        if prefilter.enabled() and not prefilter.may_respell_ascii(self.text):
            rows = self.rows_naming
        return ModuleModel(self.tree, self.text, rows)

    @cached_property
    def hot_paths(self) -> HotPaths:
        """Which functions of the module run per step (``hot-path-methods``)."""
        from lint_rules.analysis.hot_paths import HotPaths

        options = self.options
        rows = None
        if prefilter.enabled() and not prefilter.may_respell_ascii(self.text):
            rows = self.rows_naming
        return HotPaths(
            self.model, options.hot_path_methods, options.graph_state_methods, rows
        )

    @cached_property
    def _ascii(self) -> bool:
        return self.text.isascii()

    @cached_property
    def utf8(self) -> tuple[bytes, list[int]] | None:
        """The text in UTF-8 and the offset at which each row starts there
        (``ast``'s columns count these bytes), for pre-filters that look at
        where a node's text is; None where a row may end otherwise than
        with a line feed, or the text is no UTF-8."""
        if "\r" in self.text:
            return None
        try:
            data = self.text.encode("utf-8")
        except UnicodeEncodeError:  # (a lone surrogate)
            return None
        # (each row's length and its line feed, summed at C speed)
        starts = list(
            accumulate(map((1).__add__, map(len, data.split(b"\n"))), initial=0)
        )
        starts.pop()  # (where a row after the last would start)
        return data, starts

    def node_text(self, nodes: list[ast.AST]) -> str:
        """The text of ``nodes``: from the earliest start to the latest end
        (whole rows where the text is not ASCII, since ``ast`` counts
        columns in UTF-8 bytes). For pre-filters: at least the nodes' text."""
        starts = self.locator.line_starts
        text = self.text
        if self._ascii:
            return span_text(text, starts, nodes)
        first = min(node.lineno for node in nodes)  # type: ignore[attr-defined]
        last = max(node.end_lineno or node.lineno for node in nodes)  # type: ignore[attr-defined]
        return text[
            starts[first - 1] : starts[last] if last < len(starts) else len(text)
        ]

    def rows_matching(
        self, pattern: re.Pattern[str], first: int, last: int
    ) -> list[int]:
        """The rows from ``first`` to ``last`` that hold a match of
        ``pattern`` (which matches within one row: no match holds a line
        break), in order: for pre-filters (``Locator.rows_matching``)."""
        return self.locator.rows_matching(pattern, first, last)

    def rows_naming(self, names: frozenset[str], first: int, last: int) -> list[int]:
        """The rows from ``first`` to ``last`` that hold one of ``names`` as
        a word (a whole run of ``\\w``), in order: for pre-filters (one
        pattern of many names would cost more to compile than to search).

        Of many names, those the rows' words hold (one search of the span,
        at C speed); then each occurrence of one of those is looked up (a
        run of ``\\w`` never holds a line break, so each lies on one row).
        The span's runs of ASCII word characters are split off at C speed
        (its UTF-8 bytes, each byte of a non-ASCII character a space): an
        ASCII name that is a run of ``\\w`` is one of them, bounded as it is
        by characters that are no ASCII word character; a name that is not
        ASCII is kept (looked up)."""
        starts = self.locator.line_starts
        text = self.text
        begin = starts[first - 1]
        end = starts[last] if last < len(starts) else len(text)
        if len(names) > _FEW_NAMES:
            span = text[begin:end]
            words = span.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS)
            if span.isascii():
                names = names.intersection(words.decode().split())
            else:
                names = names.intersection(words.decode().split()).union(
                    [name for name in names if not name.isascii()]
                )
            if not names:
                return []
        fullmatch = _WORD.fullmatch
        find = text.find
        size_of_text = len(text)
        found: set[int] = set()
        for name in names:
            if not fullmatch(name):
                continue  # (never a word: no row holds it as one)
            size = len(name)
            position = find(name, begin, end)
            while position >= 0:
                after = position + size
                if (position == 0 or not _is_word(text[position - 1])) and (
                    after >= size_of_text or not _is_word(text[after])
                ):
                    found.add(bisect_right(starts, position))
                position = find(name, position + 1, end)
        return sorted(found)

    def reset_model(self) -> None:
        """Forget the model, so the next request builds it afresh."""
        self.__dict__.pop("model", None)
        self.__dict__.pop("hot_paths", None)

    def release(self) -> None:
        """Free the model's graphs now (the rules are done with this file)."""
        self.__dict__.pop("hot_paths", None)  # (it holds ``rows_naming``)
        model = self.__dict__.pop("model", None)
        if model is not None:
            model.release()

    def report(
        self,
        rule: Any,
        node: ast.AST,
        message: str,
        fix: Fix | None = None,
    ) -> Finding:
        """Record a finding of ``rule`` (a rule or its class: what has a
        ``code`` and a ``name``) spanning ``node``."""
        locator = self.locator
        row = node.lineno  # type: ignore[attr-defined]
        start = locator.offset(row, node.col_offset)  # type: ignore[attr-defined]
        end_row = node.end_lineno or row  # type: ignore[attr-defined]
        end = locator.offset(end_row, node.end_col_offset)  # type: ignore[attr-defined]
        finding = Finding(
            code=rule.code,
            name=rule.name,
            message=message,
            location=Location(row, start - locator.line_start(row) + 1),
            end_location=Location(end_row, end - locator.line_start(end_row) + 1),
            fix=fix,
            filename=self.filename,
            offset=start,
        )
        self.findings.append(finding)
        return finding
