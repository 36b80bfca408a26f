"""What every rule is: a code, a name, a document, examples, and a check."""

from __future__ import annotations

from collections.abc import Iterator

from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import ClassVar

    from lint_rules.context import Context
    from lint_rules.diagnostics import Finding
    from lint_rules.noqa import SuppressionFacts


class Invalid(Record):
    """Source the rule must flag ``count`` times.

    ``fixed`` is the text after ``check --fix --unsafe-fixes`` on the example
    (None when the rule offers no fix for it). The generic test runs them all.
    """

    __slots__ = ("source", "fixed", "count")
    _fields = __slots__

    def __init__(self, source: str, fixed: str | None = None, count: int = 1) -> None:
        self.source = source
        self.fixed = fixed
        self.count = count


class Rule:
    """A rule. Subclasses set the class attributes and implement ``check``.

    The class docstring is the rule's documentation, in ruff's sections:
    What it does / Why is this bad? / Example / Use instead / Fix safety / Options.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    # The rule can only fire on a file whose text contains one of these.
    triggers: ClassVar[tuple[str, ...]] = ()
    # Examples that are also tests: sources never flagged, and flagged ones.
    valid: ClassVar[tuple[str, ...]] = ()
    invalid: ClassVar[tuple[Invalid, ...]] = ()
    # Which fix applicability this rule can offer: "safe", "unsafe", "sometimes" or "none".
    fix_availability: ClassVar[str] = "none"
    # How CI shows the rule's findings (SARIF level, GitHub annotation, JSON
    # severity), read by every output: "error" where the rule proves the waste
    # or the bug (a safe fix, or a read of garbage), "warning" for an audit,
    # where a person decides whether the code is wrong (an unsafe-only fix).
    severity: ClassVar[str] = "error"
    # Selected only by a selector that names it past the letters of its code
    # (ATN0, ATN001), never by ALL or ATN, which are the default: a rule
    # users opt into (``lint_rules.rules.OPT_IN_CODES`` lists them).
    opt_in: ClassVar[bool] = False
    # The rule judges the suppression comments themselves: the checker calls
    # ``check_suppressions`` (not ``check``) after every other rule ran, and
    # only where it applies suppression comments itself (not under flake8).
    checks_suppressions: ClassVar[bool] = False

    def check(self, ctx: Context) -> Iterator[Finding]:
        raise NotImplementedError

    def check_suppressions(self, facts: SuppressionFacts) -> list[Finding]:
        raise NotImplementedError

    @classmethod
    def documentation(cls) -> str:
        import inspect  # only for documentation: slow to import

        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        """The first sentence of the 'What it does' section."""
        doc = cls.documentation()
        lines = doc.splitlines()
        for index, line in enumerate(lines):
            if line.strip().lower().startswith("## what it does"):
                body = " ".join(
                    part.strip() for part in lines[index + 1 :] if part.strip()
                )
                break
        else:
            body = " ".join(line.strip() for line in lines)
        sentence = body.split(". ")[0].rstrip(".")
        return sentence + "."

    @classmethod
    def url(cls) -> str | None:
        # No hosted documentation exists; `attnlint rule CODE` is the reference.
        return None

    def __repr__(self) -> str:
        return f"{self.code} {self.name}"
