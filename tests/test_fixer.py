"""Applying fixes, the fix loop, and atomic writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lint_rules.diagnostics import Applicability, Edit, Fix
from lint_rules.fixer import MAX_PASSES, apply_fixes, write_atomic
from lint_rules.fixer import fix_file as _fix_file
from lint_rules.fixer import fix_text as _fix_text
from lint_rules.rules import Registry
from tests.engine_rules import ENGINE, BrokenFix, SafeRename, UnsafeRename

SETTINGS = ENGINE.settings()


def fix_text(text, filename, settings, unsafe_fixes, **kwargs):
    """The fixer, choosing among the test-only rules."""
    return _fix_text(text, filename, settings, unsafe_fixes, registry=ENGINE, **kwargs)


def fix_file(path, settings, unsafe_fixes, **kwargs):
    return _fix_file(path, settings, unsafe_fixes, registry=ENGINE, **kwargs)


def fix(*edits: Edit, isolation: int | None = None) -> Fix:
    return Fix(tuple(edits), Applicability.SAFE, "test", isolation=isolation)


# ------------------------------------------------------------------ apply_fixes


def test_non_overlapping_fixes_all_apply() -> None:
    text = "abcdefgh"
    new, applied = apply_fixes(text, [fix(Edit(6, 7, "G")), fix(Edit(0, 1, "A"))])
    assert new == "AbcdefGh" and len(applied) == 2


def test_overlapping_fix_is_skipped() -> None:
    first, second = fix(Edit(0, 4, "X")), fix(Edit(2, 6, "Y"))
    new, applied = apply_fixes("abcdefgh", [second, first])
    assert new == "Xefgh" and applied == [first]


def test_fix_is_all_or_nothing() -> None:
    taken = fix(Edit(0, 2, "X"))
    partial = fix(Edit(5, 6, "Z"), Edit(1, 3, "Y"))  # second edit overlaps
    new, applied = apply_fixes("abcdefgh", [taken, partial])
    assert new == "Xcdefgh" and applied == [taken]


def test_adjacent_edits_do_not_overlap() -> None:
    new, applied = apply_fixes("abcd", [fix(Edit(0, 2, "X")), fix(Edit(2, 4, "Y"))])
    assert new == "XY" and len(applied) == 2


def test_two_insertions_at_one_point_conflict() -> None:
    new, applied = apply_fixes("ab", [fix(Edit(1, 1, "X")), fix(Edit(1, 1, "Y"))])
    assert new == "aXb" and len(applied) == 1


def test_insertion_before_a_replacement_at_the_same_point() -> None:
    new, _ = apply_fixes("abcd", [fix(Edit(1, 3, "Z")), fix(Edit(1, 1, "+"))])
    assert new == "a+Zd"


def test_identical_fix_reported_twice_counts_once_in_text() -> None:
    same = fix(Edit(0, 1, "X"))
    twin = fix(Edit(0, 1, "X"))
    new, applied = apply_fixes("abc", [same, twin])
    assert new == "Xbc" and len(applied) == 2


def test_fix_with_edits_out_of_range_or_self_overlapping_is_skipped() -> None:
    new, applied = apply_fixes(
        "abc", [fix(Edit(2, 9, "X")), fix(Edit(0, 2), Edit(1, 3))]
    )
    assert new == "abc" and applied == []


def test_isolation_group_applies_one_fix_per_pass() -> None:
    first, second = fix(Edit(0, 1, "X"), isolation=7), fix(Edit(2, 3, "Y"), isolation=7)
    new, applied = apply_fixes("abc", [first, second])
    assert new == "Xbc" and applied == [first]


def test_text_outside_edits_is_byte_identical() -> None:
    text = "a\r\n\tb  # c\r\nd\x0ce\u00e9\n"
    new, _ = apply_fixes(text, [fix(Edit(3, 4, "T"))])
    assert new == text[:3] + "T" + text[4:]


# --------------------------------------------------------------------- fix_text


def test_fix_loop_runs_until_nothing_is_left() -> None:
    result = fix_text("step1()\nold()\n", "m.py", SETTINGS, False)
    assert result.text == "step3()\nnew()\n"
    assert result.fixed_count_by_code == {"TST201": 2, "TST101": 1}
    assert result.fixed_count == 3
    assert result.remaining_findings == [] and result.error is None
    assert result.changed and result.converged


def test_unsafe_fixes_need_the_flag() -> None:
    text = "risky()\nold()\n"
    safe_only = fix_text(text, "m.py", SETTINGS, False)
    assert safe_only.text == "risky()\nnew()\n"
    assert [f.code for f in safe_only.remaining_findings] == ["TST102"]
    both = fix_text(text, "m.py", SETTINGS, True)
    assert both.text == "careful()\nnew()\n"


def test_unfixable_findings_remain() -> None:
    result = fix_text("plain()\n", "m.py", SETTINGS, True)
    assert result.text == "plain()\n" and not result.changed
    assert [f.code for f in result.remaining_findings] == ["TST103"]


def test_fix_loop_is_bounded() -> None:
    result = fix_text("ping()\n", "m.py", SETTINGS, False)
    assert not result.converged
    assert result.fixed_count_by_code == {"TST202": MAX_PASSES}
    assert result.text == "ping()\n"  # an even number of flips
    assert [f.code for f in result.remaining_findings] == ["TST202"]


def test_broken_fix_is_left_out_and_the_others_apply() -> None:
    text = "old()\nbreaks()\n# keep\n"
    errors: list[str] = []
    result = fix_text(text, "m.py", SETTINGS, False, errors=errors)
    assert result.text == "new()\nbreaks()\n# keep\n" and result.changed
    assert result.fixed_count_by_code == {"TST101": 1}
    assert result.error is None
    assert len(errors) == 1
    assert "m.py" in errors[0] and "TST301" in errors[0] and "left out" in errors[0]
    assert [f.code for f in result.remaining_findings] == ["TST301"]


def test_fixes_that_break_the_code_only_together_leave_the_original_text(
    monkeypatch,
) -> None:
    import lint_rules.fixer

    real_parse = lint_rules.fixer.parse

    def parse(text, filename):  # each fix parses alone, both together do not
        if "new()" in text and "step2()" in text:
            return real_parse("(", filename)
        return real_parse(text, filename)

    monkeypatch.setattr(lint_rules.fixer, "parse", parse)
    text = "old()\nstep1()\n"
    result = fix_text(text, "m.py", SETTINGS, False)
    assert result.text == text and not result.changed
    assert result.fixed_count_by_code == {}
    assert result.error is not None
    assert "m.py" in result.error and "left unchanged" in result.error


def test_syntax_error_text_is_returned_unchanged() -> None:
    text = "old(\n"
    result = fix_text(text, "m.py", SETTINGS, True)
    assert result.text == text and result.error is None
    assert [f.code for f in result.remaining_findings] == ["E999"]


def test_rule_crash_during_fixing_goes_to_errors() -> None:
    errors: list[str] = []
    result = fix_text("old()\nexplode()\n", "m.py", SETTINGS, False, errors=errors)
    assert result.text == "new()\nexplode()\n"
    assert errors and all("TST401" in message for message in errors)


# ----------------------------------------------------------------- write_atomic


def test_write_atomic_replaces_content_and_keeps_mode(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old")
    path.chmod(0o751)
    write_atomic(path, b"new bytes")
    assert path.read_bytes() == b"new bytes"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert os.listdir(tmp_path) == ["m.py"]


def test_write_atomic_follows_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(b"old")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_write_atomic_creates_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "fresh.py"
    write_atomic(path, b"x")
    assert path.read_bytes() == b"x"


def test_write_atomic_cleans_up_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old")

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.py"]


# --------------------------------------------------------------------- fix_file


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"x = 1\r\nold()  # c\r\n", b"x = 1\r\nnew()  # c\r\n"),
        (b"\xef\xbb\xbfold()\n", b"\xef\xbb\xbfnew()\n"),
        (
            b"# -*- coding: latin-1 -*-\ns = '\xe9'; old()\n",
            b"# -*- coding: latin-1 -*-\ns = '\xe9'; new()\n",
        ),
        (b"old()", b"new()"),
        (b"old()\r", b"new()\r"),
    ],
    ids=["crlf", "bom", "latin-1", "no-final-newline", "lone-cr"],
)
def test_fix_file_keeps_every_other_byte(
    tmp_path: Path, before: bytes, after: bytes
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(before)
    result = fix_file(path, SETTINGS, False)
    assert result.changed
    assert path.read_bytes() == after


def test_fix_file_does_not_write_unchanged_files(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"plain()\n")
    before = path.stat()
    fix_file(path, SETTINGS, True)
    after = path.stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_fix_file_with_broken_fix_writes_the_other_fixes(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old()\nbreaks()\n")
    errors: list[str] = []
    result = fix_file(path, SETTINGS, False, errors=errors)
    assert result.error is None and len(errors) == 1
    assert path.read_bytes() == b"new()\nbreaks()\n"


def test_fix_file_write_false(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old()\n")
    result = fix_file(path, SETTINGS, False, write=False)
    assert result.text == "new()\n" and path.read_bytes() == b"old()\n"


def test_write_atomic_without_proc_names_its_temporary_file_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An unnamed temporary file is named through /proc; without it, a named
    # temporary file is written instead.
    path = tmp_path / "m.py"
    path.write_bytes(b"old")
    path.chmod(0o640)
    real_link = os.link

    def no_proc(source, *args, **kwargs):
        if str(source).startswith("/proc/"):
            raise FileNotFoundError(2, "No such file or directory", source)
        return real_link(source, *args, **kwargs)

    monkeypatch.setattr(os, "link", no_proc)
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["m.py"]


def test_isolation_keys_are_stable_positions_not_addresses() -> None:
    from lint_rules.checker import check_source
    from lint_rules.config import Settings

    source = "def f(a):\n    x = a * 2\n    x = a * 2\n    x = a * 2\n    return x\n"
    settings = Settings(select=("ATN202",), hot_paths_only=False)
    runs = [check_source(source, "t.py", settings) for _ in range(2)]
    keys = [[f.fix.isolation for f in found] for found in runs]
    # The offset of the body's first statement, the same in every run.
    assert keys[0] == keys[1] == [source.index("x = a"), source.index("x = a")]


class _SafeWhileRisky(SafeRename):
    """Flags ``old()`` only while ``risky()`` is called: a safe fix whose
    proof rests on a call that TST102's unsafe fix renames."""

    code = "TST601"
    name = "safe-while-risky"

    def check(self, ctx):
        if "risky(" in ctx.text:
            for finding in super().check(ctx):
                finding.code = self.code
                yield finding


def test_unsafe_fixes_apply_alone_and_the_safe_ones_are_proven_again() -> None:
    # In one pass, the unsafe rename would take away what the safe fix was
    # proven against (review 12): the unsafe fixes of a pass apply alone.
    registry = Registry((_SafeWhileRisky, UnsafeRename))
    settings = registry.settings()
    text = "risky()\nold()\n"
    safe_only = _fix_text(text, "m.py", settings, False, registry=registry)
    assert safe_only.text == "risky()\nnew()\n"
    both = _fix_text(text, "m.py", settings, True, registry=registry)
    assert both.text == "careful()\nold()\n"
    assert both.fixed_count_by_code == {"TST102": 1}


class _UnsafeBroken(BrokenFix):
    """Flags ``breaks()`` with an unsafe fix whose result does not parse."""

    code = "TST602"
    name = "unsafe-broken"
    fix_availability = "unsafe"

    def check(self, ctx):
        for finding in super().check(ctx):
            fix = finding.fix
            finding.fix = Fix(fix.edits, Applicability.UNSAFE, fix.message)
            yield finding


def test_an_unsafe_fix_that_breaks_the_code_leaves_the_safe_ones_to_apply() -> None:
    registry = Registry((SafeRename, _UnsafeBroken))
    errors: list[str] = []
    result = _fix_text(
        "old()\nbreaks()\n", "m.py", registry.settings(), True,
        errors=errors, registry=registry,
    )  # fmt: skip
    assert result.text == "new()\nbreaks()\n" and result.error is None
    assert result.fixed_count_by_code == {"TST101": 1}
    assert any("TST602" in message for message in result.left_out)
