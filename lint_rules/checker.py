"""Checking one source text: pre-filter, parse, run the rules, apply suppressions.

Nothing here raises for a problem in the checked file: a file that does not
parse becomes an ``E999`` finding, one that cannot be read or decoded an
``E902`` finding. A rule that fails internally does not stop the run: its
findings for that file are dropped and an error naming rule and file is
handed to the caller (``errors``), or logged when the caller passes no list.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable

from lint_rules import prefilter
from lint_rules.config import Settings, selector_matches
from lint_rules.context import Context
from lint_rules.deep_stack import call_with_deep_stack
from lint_rules.diagnostics import (
    COST_IN_MESSAGE,
    IO_ERROR_CODE,
    IO_ERROR_NAME,
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_NAME,
    Applicability,
    Finding,
    Fix,
    Location,
)
from lint_rules.noqa import NoqaDirectives as NoqaDirectives  # also imported from here
from lint_rules.noqa import SuppressionFacts, has_noqa_comment, may_span_rows
from lint_rules.noqa import add_noqa_edit as add_noqa_edit  # also imported from here
from lint_rules.paths import quote_path
from lint_rules.rules import Registry, default_registry
from lint_rules.rules.base import Rule
from lint_rules.source import Locator, SourceError, SourceFile, read_regular_file

# ------------------------------------------------------------------ reading files


def decode_source(data: bytes) -> SourceFile:
    """Decode file bytes as Python does; SourceError for bad encodings and NUL bytes."""
    source = SourceFile.from_bytes(data)
    nul = source.text.find("\x00")
    if nul >= 0:
        row, column = Locator(source.text).row_column(nul)
        raise SourceError(f"source contains a NUL byte at {row}:{column + 1}")
    return source


def read_source(path: str | os.PathLike[str]) -> SourceFile:
    """Read and decode a regular file; raises OSError (NotRegularFileError
    for a FIFO or a device) or SourceError."""
    return decode_source(read_regular_file(path)[0])


def io_error_finding(filename: str, message: str) -> Finding:
    """An ``E902`` finding: the file could not be read or decoded."""
    return Finding(
        code=IO_ERROR_CODE,
        name=IO_ERROR_NAME,
        message=message,
        location=Location(1, 1),
        end_location=Location(1, 1),
        filename=filename,
    )


def os_error_message(error: OSError) -> str:
    return error.strerror or str(error)


# -------------------------------------------------------------------- parsing


def parse(text: str, filename: str) -> ast.Module | Finding:
    """The module's tree, or an ``E999`` finding saying why it does not parse."""
    try:
        try:
            return ast.parse(text, filename=filename)
        except RecursionError:
            # Deeply nested, not necessarily too deep: parse with room to spare.
            return call_with_deep_stack(lambda: ast.parse(text, filename=filename))
    except SyntaxError as error:
        return syntax_error_finding(error, text, filename)
    except (ValueError, RecursionError, MemoryError) as error:
        # ValueError: NUL bytes (3.11); RecursionError/MemoryError: nesting too deep.
        reason = (
            "too deeply nested to parse"
            if isinstance(error, (RecursionError, MemoryError))
            else str(error)
        )
        return Finding(
            code=SYNTAX_ERROR_CODE,
            name=SYNTAX_ERROR_NAME,
            message=f"SyntaxError: {reason}",
            location=Location(1, 1),
            end_location=Location(1, 1),
            filename=filename,
        )


def syntax_error_finding(error: SyntaxError, text: str, filename: str) -> Finding:
    """Turn the parser's SyntaxError into an ``E999`` finding with row and column."""
    locator = Locator(text)
    rows = len(locator.line_starts)

    def clamp(row: int | None, column: int | None) -> Location:
        row = min(max(row or 1, 1), rows)
        width = len(locator.line_text(row))
        return Location(row, min(max(column or 1, 1), width + 1))

    start = clamp(error.lineno, error.offset)
    end_row = getattr(error, "end_lineno", None)
    end_column = getattr(error, "end_offset", None)
    end = start
    if end_row and end_column and (end_row, end_column) > (start.row, start.column):
        end = clamp(end_row, end_column)
    kind = type(error).__name__
    message = f"{kind}: {error.msg}" if error.msg else kind
    return Finding(
        code=SYNTAX_ERROR_CODE,
        name=SYNTAX_ERROR_NAME,
        message=message,
        location=start,
        end_location=end,
        filename=filename,
        offset=locator.line_start(start.row) + start.column - 1,
    )


# ----------------------------------------------------------------------- checking


def rules_for_file(
    settings: Settings, filename: str, registry: Registry | None = None
) -> tuple[type[Rule], ...]:
    """Selected rules minus those that ``per-file-ignores`` switches off for
    ``filename``, as classes of ``registry`` (default: attnlint's)."""
    rules = (registry or default_registry()).rules_for(settings.enabled_codes)
    ignored = settings.ignored_codes_for(filename)
    if not ignored:
        return rules
    return tuple(
        rule
        for rule in rules
        if not any(selector_matches(selector, rule.code) for selector in ignored)
    )


def triggered_rules(rules: Iterable[type[Rule]], text: str) -> list[type[Rule]]:
    """Rules that can fire on ``text``: no triggers, or one of them occurs in it.
    Each trigger is looked for once (rules share some, and a trigger that does
    not occur costs a scan of the whole text). All of them without the
    pre-filters, or where an identifier may be spelled with characters that
    Python reads as ASCII ones (``ｚｅｒｏｓ`` is ``zeros``)."""
    if not prefilter.enabled() or prefilter.may_respell_ascii(text):
        return list(rules)
    present: dict[str, bool] = {}
    triggered: list[type[Rule]] = []
    for rule in rules:
        if not rule.triggers:
            triggered.append(rule)
            continue
        for trigger in rule.triggers:
            found = present.get(trigger)
            if found is None:
                found = present[trigger] = trigger in text
            if found:
                triggered.append(rule)
                break
    return triggered


def internal_error_message(
    rule: type[Rule], filename: str, error: BaseException
) -> str:
    import traceback  # only on the error path

    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" (at {os.path.basename(last.filename)}:{last.lineno})"
    return (
        f"{quote_path(filename)}: internal error in {rule.code} ({rule.name}): "
        f"{type(error).__name__}: {error}{where}. This is a bug in attnlint; "
        "please report it together with the file."
    )


def check_source(
    text: str,
    filename: str,
    settings: Settings,
    *,
    tree: ast.Module | None = None,
    errors: list[str] | None = None,
    apply_noqa: bool = True,
    review_suppressions: bool = True,
    registry: Registry | None = None,
) -> list[Finding]:
    """Findings of the selected rules on ``text``, suppressions applied, sorted.

    ``tree`` is ``ast.parse(text)`` when the caller has it (flake8, the fixer);
    otherwise the text is parsed here. Rules run only if one of their
    triggers occurs in the text. A text that does not parse gives one
    ``E999`` finding, whatever is selected. Internal rule failures are appended to ``errors`` (or logged).
    ``apply_noqa=False`` leaves ``# noqa`` comments to the caller. Rules
    that judge the suppression comments (ATN001) run only where they are
    applied, and not with ``review_suppressions=False`` (the flake8 plugin).
    ``registry`` maps the selected codes to rules (default: attnlint's).
    """
    selected = rules_for_file(settings, filename, registry)
    # Rules that judge the suppression comments run last, on every other
    # rule's findings (and only where suppression comments are applied here).
    reviewers = [rule for rule in selected if rule.checks_suppressions]
    if reviewers:
        selected = tuple(rule for rule in selected if not rule.checks_suppressions)
        if not (apply_noqa and review_suppressions and has_noqa_comment(text)):
            reviewers = []
    rules = triggered_rules(selected, text)
    if tree is None:
        # Parsed even when no rule can fire: a file that does not parse is
        # always reported, whatever is selected.
        parsed = parse(text, filename)
        if isinstance(parsed, Finding):
            return [parsed]
        tree = parsed
    if not rules and not reviewers:
        return []
    locator = Locator(text)
    ctx = Context(text, tree, filename, settings.options, locator)
    failed: set[str] = set()
    too_deep = [rule for rule in rules if not _run_rule(rule, ctx, errors, failed)]
    if too_deep:
        # Expressions nested thousands deep exceed the recursion limit in the
        # shared analysis: run those rules again, on a fresh model (the failed
        # run may have left parts of it half built), with room for the depth.
        ctx.reset_model()

        def rerun() -> None:
            for rule in too_deep:
                _run_rule(rule, ctx, errors, failed, deep=True)

        try:
            call_with_deep_stack(rerun)
        except RecursionError as error:
            for rule in too_deep:
                failed.add(rule.code)
                _report_internal_error(rule, ctx, errors, error)
    findings = ctx.findings
    if findings:
        _set_costs(ctx, findings)
    ctx.release()  # the flows' cycles would otherwise wait for the collector
    ignored = settings.ignored_codes_for(filename)
    if ignored:
        findings = [
            finding
            for finding in findings
            if not any(selector_matches(selector, finding.code) for selector in ignored)
        ]
    if findings or reviewers:
        comments = apply_noqa and has_noqa_comment(text)
        directives = NoqaDirectives.scan(
            text,
            comments=comments,
            spans=may_span_rows(text),
            locator=locator,
        )
        for finding in findings:
            finding.noqa_row = directives.noqa_row(finding)
        reviewed: list[Finding] = []
        if reviewers:
            facts = SuppressionFacts(
                text,
                filename,
                locator,
                directives,
                findings,
                enabled_codes=frozenset(rule.code for rule in selected),
                known_codes=settings.available_codes,
                unjudged_codes=frozenset(failed),
            )
            for reviewer in reviewers:
                reviewed += _review_suppressions(reviewer, facts, ctx, errors)
        if comments:
            findings = [
                finding for finding in findings if not directives.suppresses(finding)
            ]
        findings += reviewed
    findings.sort(key=Finding.sort_key)
    return findings


def _set_costs(ctx: Context, findings: list[Finding]) -> None:
    """Give each finding the cost of the function it is in (``Finding.cost``),
    and name it in the messages of the rules in ``COST_IN_MESSAGE``."""
    hot_paths = ctx.hot_paths
    for finding in findings:
        if finding.cost is not None:
            continue
        cost = hot_paths.cost_at(finding.location.row)
        finding.cost = str(cost)
        if finding.code in COST_IN_MESSAGE and cost.kind != "unknown":
            where = cost.describe_where()
            finding.message = f"{finding.message} ({where})"


def _review_suppressions(
    rule: type[Rule], facts: SuppressionFacts, ctx: Context, errors: list[str] | None
) -> list[Finding]:
    """The findings of a rule that judges suppression comments (none when the
    file exempts its code, or when it fails: an internal error is reported)."""
    if facts.directives.exempts_file(rule.code):
        return []
    try:
        found = rule().check_suppressions(facts)
    except Exception as error:  # a bug in a rule must not end the run
        _report_internal_error(rule, ctx, errors, error)
        return []
    for finding in found:
        finding.noqa_row = finding.location.row
    return found


def _run_rule(
    rule: type[Rule],
    ctx: Context,
    errors: list[str] | None,
    failed: set[str],
    deep: bool = False,
) -> bool:
    """Run one rule; False when it ran out of recursion depth (and ``deep`` is
    False: the caller retries it with more room), True otherwise. The code
    of a rule that failed goes to ``failed``."""
    before = len(ctx.findings)
    try:
        produced = rule().check(ctx)
        # A rule may yield what ctx.report() recorded, or build findings itself.
        yielded = list(produced) if produced is not None else []
        recorded = {id(finding) for finding in ctx.findings[before:]}
        for finding in yielded:
            if id(finding) not in recorded:
                ctx.findings.append(finding)
                recorded.add(id(finding))
        _unsafe_where_torch_is_overridden(ctx, ctx.findings[before:])
    except RecursionError as error:
        del ctx.findings[before:]
        if not deep:
            return False
        failed.add(rule.code)
        _report_internal_error(rule, ctx, errors, error)
    except Exception as error:  # a bug in a rule must not end the run
        del ctx.findings[before:]
        failed.add(rule.code)
        _report_internal_error(rule, ctx, errors, error)
    return True


def _unsafe_where_torch_is_overridden(ctx: Context, findings: list[Finding]) -> None:
    """Make the safe fixes of ``findings`` unsafe where the module changes
    what torch's own names do (every rule reads them by name), installs
    a trace or profile function, which sees every line and call, or gives
    torch code of its own that its operations run (saved-tensor hooks, a
    parametrization; ``analysis.torch_overrides``)."""
    safe = [
        finding
        for finding in findings
        if finding.fix is not None and finding.fix.applicability is Applicability.SAFE
    ]
    if not safe:
        return
    from lint_rules.analysis.torch_overrides import (
        installs_torch_callbacks,
        installs_tracing,
        may_install_torch_callbacks,
        may_install_tracing,
        torch_overrides,
    )

    how = torch_overrides(ctx.model)
    if how is not None:
        why = f"this module changes what torch's own functions or builtins do ({how})"
    else:
        how = installs_tracing(ctx.model) if may_install_tracing(ctx.text) else None
        if how is not None:
            why = (
                f"this module installs a trace, profile or audit hook ({how}), "
                "which runs at lines, calls or events nothing here shows"
            )
        else:
            how = (
                installs_torch_callbacks(ctx.model)
                if may_install_torch_callbacks(ctx.text)
                else None
            )
            if how is None:
                return
            why = (
                f"this module gives torch code of its own to run ({how}), "
                "which torch's operations, module attributes or warnings run "
                "where nothing here shows a call"
            )
    for finding in safe:
        fix = finding.fix
        assert fix is not None
        finding.fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
        finding.message += f"; {why}, so the fix may change what it computes"


def _report_internal_error(
    rule: type[Rule], ctx: Context, errors: list[str] | None, error: BaseException
) -> None:
    message = internal_error_message(rule, ctx.filename, error)
    if errors is None:
        import logging  # only here: a check path without errors never needs it

        logging.getLogger("lint_rules").error("%s", message)
    else:
        errors.append(message)


def check_file(
    path: str | os.PathLike[str],
    settings: Settings,
    *,
    errors: list[str] | None = None,
    registry: Registry | None = None,
) -> list[Finding]:
    """Read, decode and check one file. Unreadable or undecodable: one ``E902`` finding."""
    filename = os.fspath(path)
    try:
        source = read_source(path)
    except OSError as error:
        return [io_error_finding(filename, os_error_message(error))]
    except SourceError as error:
        return [io_error_finding(filename, str(error))]
    return check_source(
        source.text, filename, settings, errors=errors, registry=registry
    )
