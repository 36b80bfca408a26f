"""Bad input: every case gives a clear message and the right exit code, never a
traceback, and leaves files byte-identical unless a verified fix rewrote them
(then keeping their encoding, byte-order mark and line endings).

Cases already covered elsewhere, and extended here rather than repeated:
tests/test_cli.py (a syntax error never rewritten, a missing path, an unknown
config key, a bad boolean, invalid TOML, an undecodable file, an unreadable
file, CRLF/BOM/latin-1 kept by --fix), tests/test_checker.py (syntax error
locations, 300 nested parentheses, a missing file) and tests/test_discover.py
(a symlink loop inside a walked folder, an unreadable folder).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.cli import main
from lint_rules.config import Settings
from lint_rules.fixer import fix_text
from tests.permissions import make_unreadable

ROOT = Path(__file__).resolve().parents[1]
ALIAS = (
    "def forward(table, cache, lens):\n"
    "    for idx, n in enumerate(lens):\n"
    "        start = idx\n"
    "        table[start, :n] = cache[start, :n]\n"
)
ALIAS_FIXED = (
    "def forward(table, cache, lens):\n"
    "    for idx, n in enumerate(lens):\n"
    "        table[idx, :n] = cache[idx, :n]\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def check_and_fix(capsys, *paths: str) -> list[tuple[int, str, str]]:
    """``check``, then ``check --fix --unsafe-fixes``, on ``paths``."""
    return [
        run(capsys, "check", "--no-cache", *paths),
        run(capsys, "check", "--no-cache", "--fix", "--unsafe-fixes", *paths),
    ]


# ----------------------------------------------------------------- syntax errors


def test_syntax_error_next_to_good_files_only_the_good_ones_are_fixed(
    project: Path, capsys
) -> None:
    broken = b"def f(xs):\n    for i in xs:\n        j = i\n        print(j\n"
    (project / "bad.py").write_bytes(broken)
    (project / "good.py").write_text(ALIAS)
    code, out, err = run(capsys, "check", "--no-cache", "--fix", ".")
    assert code == 1 and err == ""
    assert "bad.py:4:14: E999 SyntaxError: '(' was never closed" in out
    assert (project / "bad.py").read_bytes() == broken
    assert (project / "good.py").read_text() == ALIAS_FIXED


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (b"def f(:\n    pass\n", "E999 SyntaxError: invalid syntax"),
        (
            b"def f():\n\tx = 1\n        y = 2\n",
            "E999 TabError: inconsistent use of tabs",
        ),
        (b"def f():\n  x = 1\n    y = 2\n", "E999 IndentationError: unexpected indent"),
        (b"def f():\n    return 1 +\n", "E999 SyntaxError: invalid syntax"),
        (b"def f():\n    x = '''\n", "E999 SyntaxError: unterminated triple-quoted"),
    ],
    ids=["invalid", "tabs-and-spaces", "indent", "dangling-operator", "open-string"],
)
def test_syntax_errors_are_e999_and_never_rewritten(
    project: Path, capsys, source: bytes, message: str
) -> None:
    path = project / "bad.py"
    path.write_bytes(source)
    for code, out, err in check_and_fix(capsys, "bad.py"):
        assert code == 1 and err == ""
        assert message in out
    assert path.read_bytes() == source


def test_syntax_error_on_stdin_with_fix_echoes_the_input(
    project: Path, capsys, monkeypatch
) -> None:
    data = b"def f(:\n"

    class Stdin:
        buffer = __import__("io").BytesIO(data)

    monkeypatch.setattr(sys, "stdin", Stdin)
    written: list[bytes] = []

    class Stdout:
        class buffer:  # noqa: N801 - mimics sys.stdout.buffer
            @staticmethod
            def write(chunk: bytes) -> None:
                written.append(chunk)

            @staticmethod
            def flush() -> None:
                pass

        @staticmethod
        def write(text: str) -> None:
            written.append(text.encode())

        @staticmethod
        def flush() -> None:
            pass

    monkeypatch.setattr(sys, "stdout", Stdout)
    code = main(["check", "--fix", "--stdin-filename", "m.py"])
    err = capsys.readouterr().err
    assert code == 1
    assert b"".join(written) == data
    assert "m.py:1:7: E999 SyntaxError: invalid syntax" in err


# --------------------------------------------------------------- bytes and text


def test_nul_byte_is_e902_and_never_rewritten(project: Path, capsys) -> None:
    data = ALIAS.encode().replace(b"start = idx", b"start = idx\x00")
    (project / "nul.py").write_bytes(data)
    for code, out, err in check_and_fix(capsys, "nul.py"):
        assert code == 1 and err == ""
        assert out.startswith("nul.py:1:1: E902 source contains a NUL byte at 3:20\n")
    assert (project / "nul.py").read_bytes() == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"x = '\xe9'\n" + ALIAS.encode(),
            "E902 cannot decode as utf-8: byte 5 (0xe9)",
        ),
        (
            b"# -*- coding: klingon -*-\n" + ALIAS.encode(),
            "E902 unknown encoding in coding cookie: 'klingon'",
        ),
        (
            b"\xef\xbb\xbf# coding: latin-1\n" + ALIAS.encode(),
            "E902 encoding cookie 'latin-1' contradicts the UTF-8 BOM",
        ),
        (
            b"# coding: ascii\nx = '\xc3\xa9'\n" + ALIAS.encode(),
            "E902 cannot decode as ascii",
        ),
    ],
    ids=["latin-1-without-cookie", "unknown-cookie", "bom-and-cookie", "not-ascii"],
)
def test_undecodable_files_are_e902_and_never_rewritten(
    project: Path, capsys, data: bytes, message: str
) -> None:
    (project / "enc.py").write_bytes(data)
    for code, out, err in check_and_fix(capsys, "enc.py"):
        assert code == 1 and err == ""
        assert out.startswith(f"enc.py:1:1: {message}")
    assert (project / "enc.py").read_bytes() == data


def test_latin1_with_a_cookie_columns_count_characters_and_fix_keeps_latin1(
    project: Path, capsys
) -> None:
    head = "# -*- coding: latin-1 -*-\n"
    text = head + ALIAS.replace("start = idx\n", 'print("\u00e9\u00e8"); start = idx\n')
    data = text.encode("latin-1")
    (project / "l1.py").write_bytes(data)
    code, out, _ = run(capsys, "check", "--no-cache", "l1.py")
    # `start` begins after 8 spaces and `print("éè"); ` (13 characters).
    assert code == 1 and out.startswith("l1.py:4:22: ATN301")
    code, _, err = run(capsys, "check", "--no-cache", "--fix", "l1.py")
    assert code == 0, err
    expected = head + ALIAS_FIXED.replace(
        "    for idx, n in enumerate(lens):\n",
        '    for idx, n in enumerate(lens):\n        print("\u00e9\u00e8")\n',
    )
    assert (project / "l1.py").read_bytes() == expected.encode("latin-1")


@pytest.mark.parametrize(
    "head",
    [
        # The directive's "reason" is the cookie: removing it would leave
        # latin-1 bytes with no declaration (a SyntaxError).
        "# noqa: ATN101 -*- coding: latin-1 -*-\n",
        # A row holding only the directive goes whole: the comment of line 3,
        # which declares nothing there, would move up to line 2 and declare
        # latin-1 for bytes written as UTF-8 ("\u00e9" would read as two
        # characters).
        "# noqa: ATN101\n#!/usr/bin/env python\n# coding: latin-1\n",
        # The #! line runs the file: it is not the fixer's to change.
        "#!/usr/bin/env python  # noqa: ATN101\n",
    ],
    ids=["cookie-in-the-reason", "cookie-moving-up", "shebang"],
)
def test_a_fix_never_changes_the_encoding_declaration_or_the_shebang(
    project: Path, capsys, head: str
) -> None:
    body = 'ACCENT = "\u00e9"  # noqa: ATN202\n'
    encoding = "latin-1" if "-*-" in head else "utf-8"
    path = project / "m.py"
    path.write_bytes((head + body).encode(encoding))
    code, _, err = run(
        capsys, "check", "--no-cache", "--select", "ATN001", "--fix", "m.py"
    )
    # The directive of the body is removed; the one in the header stays.
    assert path.read_bytes() == (head + 'ACCENT = "\u00e9"\n').encode(encoding), err
    assert code == 1  # the header's finding remains
    namespace: dict[str, object] = {}
    exec(compile(path.read_bytes(), "m.py", "exec"), namespace)
    assert namespace["ACCENT"] == "\u00e9"


@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["cr", "crlf"])
def test_the_encoding_declaration_is_read_by_rows_as_python_reads_them(
    project: Path, capsys, newline: str
) -> None:
    # Python ends a row at CR, LF or CRLF: with CR alone the cookie of row 3
    # declares nothing, and deleting row 1 would move it to row 2, where it
    # declares latin-1 for bytes written as UTF-8.
    rows = ["# noqa: ATN101", "# a comment", "# coding: latin-1"]
    text = newline.join(rows + ['ACCENT = "\u00e9"  # noqa: ATN202', ""])
    path = project / "m.py"
    path.write_bytes(text.encode("utf-8"))
    run(capsys, "check", "--no-cache", "--select", "ATN001", "--fix", "m.py")
    namespace: dict[str, object] = {}
    exec(compile(path.read_bytes(), "m.py", "exec"), namespace)
    assert namespace["ACCENT"] == "\u00e9"
    assert path.read_bytes().startswith(b"# noqa: ATN101" + newline.encode())


@pytest.mark.parametrize(
    "newline", ["\r\n", "\r", "mixed"], ids=["crlf", "cr", "mixed"]
)
@pytest.mark.parametrize("bom", [False, True], ids=["no-bom", "bom"])
def test_fix_keeps_every_line_ending_and_the_bom(
    project: Path, capsys, newline: str, bom: bool
) -> None:
    def encode(text: str) -> bytes:
        lines = text.splitlines(keepends=True)
        endings = ["\r\n", "\n", "\r"] if newline == "mixed" else [newline]
        out = "".join(
            line[:-1] + endings[number % len(endings)]
            for number, line in enumerate(lines)
        )
        return (b"\xef\xbb\xbf" if bom else b"") + out.encode()

    # Each line keeps the ending it had; the deleted line takes its own with it.
    source = ALIAS + "# tail\n"
    endings = ["\r\n", "\n", "\r"] if newline == "mixed" else [newline]
    expected = "".join(
        line[:-1].replace("start", "idx") + endings[number % len(endings)]
        for number, line in enumerate(source.splitlines(True))
        if number != 2
    )
    path = project / "m.py"
    path.write_bytes(encode(source))
    code, out, err = run(capsys, "check", "--no-cache", "m.py")
    assert code == 1 and "m.py:3:9: ATN301" in out
    code, _, err = run(capsys, "check", "--no-cache", "--fix", "m.py")
    assert code == 0, err
    assert path.read_bytes() == (b"\xef\xbb\xbf" if bom else b"") + expected.encode()


def test_tab_indented_file_is_fixed_keeping_its_tabs(project: Path, capsys) -> None:
    source = ALIAS.replace("        ", "\t\t").replace("    ", "\t")
    (project / "tabs.py").write_bytes(source.encode())
    code, out, _ = run(capsys, "check", "--no-cache", "tabs.py")
    # Columns count characters: two tabs, then `start`.
    assert code == 1 and out.startswith("tabs.py:3:3: ATN301")
    code, _, err = run(capsys, "check", "--no-cache", "--fix", "tabs.py")
    assert code == 0, err
    expected = ALIAS_FIXED.replace("        ", "\t\t").replace("    ", "\t")
    assert (project / "tabs.py").read_bytes() == expected.encode()


@pytest.mark.parametrize(
    "data",
    [b"", b"\xef\xbb\xbf", b"\n\n", b"# only a comment", b"\r\n", b"   "],
    ids=[
        "empty",
        "bom-only",
        "blank-lines",
        "comment-no-newline",
        "crlf-only",
        "spaces",
    ],
)
def test_empty_and_blank_files_pass_and_stay_as_they_are(
    project: Path, capsys, data: bytes
) -> None:
    (project / "empty.py").write_bytes(data)
    for code, out, err in check_and_fix(capsys, "empty.py"):
        assert (code, err) == (0, "")
        assert "All checks passed!" in out
    assert (project / "empty.py").read_bytes() == data


def test_ten_megabyte_file_is_checked_and_fixed(project: Path, capsys) -> None:
    # About 10 MB of generated code (mostly comments, as in generated tables),
    # then the loop alias: one finding, and every other byte kept by the fix.
    unit = ("# " + "generated padding " * 5 + "\n") * 9
    unit += "PAD = '" + "generated padding " * 5 + "'\n"
    padding = unit * (10 * 1024 * 1024 // len(unit) + 1) + "\n\n"
    assert len(padding) > 10 * 1024 * 1024
    path = project / "big.py"
    path.write_text(padding + ALIAS)
    code, out, _ = run(capsys, "check", "--no-cache", "big.py")
    rows = padding.count("\n")
    assert code == 1 and out.startswith(f"big.py:{rows + 3}:9: ATN301")
    code, _, err = run(capsys, "check", "--no-cache", "--fix", "big.py")
    assert code == 0, err
    assert path.read_text() == padding + ALIAS_FIXED


# -------------------------------------------------------------------- deep nesting


def test_a_thousand_nested_parentheses_is_e999(project: Path, capsys) -> None:
    data = (
        "def forward(xs):\n    for i in xs:\n        j = i\n        x = "
        + "(" * 1000
        + "j"
        + ")" * 1000
        + "\n"
    ).encode()
    (project / "deep.py").write_bytes(data)
    for code, out, err in check_and_fix(capsys, "deep.py"):
        assert code == 1 and err == ""
        assert "E999 SyntaxError: too many nested parentheses" in out
    assert (project / "deep.py").read_bytes() == data


def test_two_hundred_nested_ifs_is_e999(project: Path, capsys) -> None:
    lines = ["def forward(a, xs):", "    for i in xs:", "        j = i"]
    lines += ["    " * (level + 2) + "if a:" for level in range(200)]
    lines.append("    " * 202 + "print(j)")
    data = ("\n".join(lines) + "\n").encode()
    (project / "deep.py").write_bytes(data)
    for code, out, err in check_and_fix(capsys, "deep.py"):
        assert code == 1 and err == ""
        assert "E999 IndentationError: too many levels of indentation" in out
    assert (project / "deep.py").read_bytes() == data


def test_ninety_five_nested_ifs_are_analyzed(project: Path, capsys) -> None:
    lines = ["def forward(a, xs):", "    for i in xs:", "        j = i"]
    lines += ["    " * (level + 2) + "if a:" for level in range(95)]
    lines.append("    " * 97 + "print(j)")
    (project / "deep.py").write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "check", "--no-cache", "--fix", "deep.py")
    assert code == 0, out + err
    assert "    " * 97 + "print(i)\n" in (project / "deep.py").read_text()


# Expressions nested far deeper than the default recursion limit of 1,000: they
# parse, and the analysis must neither overflow nor give up on them.
DEEP = 2500
DEEP_SOURCES = {
    "unary": (
        f"def forward(xs):\n    for i in xs:\n        j = i\n        print({'-' * DEEP}j)\n",
        "ATN301",
    ),
    "not": (
        f"def forward(xs):\n    for i in xs:\n        j = i\n        print({'not ' * DEEP}j)\n",
        "ATN301",
    ),
    "attribute": (
        f"def forward(xs):\n    for i in xs:\n        j = i\n        print(j{'.a' * DEEP})\n",
        "ATN301",
    ),
    "call": (
        f"def forward(xs):\n    for i in xs:\n        j = i\n        print(j{'()' * DEEP})\n",
        "ATN301",
    ),
    "subscript": (
        f"def forward(xs):\n    for i in xs:\n        j = i\n        print(j{'[0]' * DEEP})\n",
        "ATN301",
    ),
    "conditional": (
        f"def forward(xs, c):\n    for i in xs:\n        j = i\n        print({'j if c else ' * DEEP}j)\n",
        "ATN301",
    ),
    "binary": (
        f"def forward(xs):\n    for i in xs:\n        j = i\n        print({' + '.join(['j'] * DEEP)})\n",
        "ATN301",
    ),
    "host-sync": (
        f"def f(x):\n    a = x{'.abs()' * DEEP}.item()\n    b = x{'.abs()' * DEEP}.item()\n",
        "ATN201",
    ),
    "zeros": (
        f"import torch\ndef f(a, n):\n    x = torch.zeros(n)\n    x.copy_({'-' * DEEP}a)\n"
        "    return x\n",
        "ATN101",
    ),
}


@pytest.mark.parametrize("shape", sorted(DEEP_SOURCES))
def test_deeply_nested_expressions_are_analyzed(shape: str) -> None:
    source, code = DEEP_SOURCES[shape]
    errors: list[str] = []
    findings = check_source(source, "deep.py", Settings(), errors=errors)
    assert errors == []
    assert [finding.code for finding in findings] == [code]
    result = fix_text(source, "deep.py", Settings(), True, errors=errors)
    assert errors == [] and result.error is None
    assert result.fixed_count_by_code == {code: 1}
    assert check_source(result.text, "deep.py", Settings(), errors=errors) == []
    assert errors == []


def test_deep_nesting_leaves_the_recursion_limit_as_it_was() -> None:
    limit = sys.getrecursionlimit()
    check_source(DEEP_SOURCES["unary"][0], "deep.py", Settings())
    assert sys.getrecursionlimit() == limit


def test_deeply_nested_file_through_the_cli(project: Path, capsys) -> None:
    source, _ = DEEP_SOURCES["conditional"]
    (project / "deep.py").write_text(source)
    code, out, err = run(capsys, "check", "--no-cache", "--fix", "deep.py")
    assert (code, err) == (0, ""), out
    assert "j = i" not in (project / "deep.py").read_text()


# ------------------------------------------------------------------ file system


def test_unreadable_file_is_an_error_and_the_others_are_still_fixed(
    project: Path, capsys, monkeypatch
) -> None:
    (project / "good.py").write_text(ALIAS)
    secret = project / "secret.py"
    secret.write_text(ALIAS)
    make_unreadable(secret, monkeypatch)
    code, out, err = run(capsys, "check", "--no-cache", "--fix", ".")
    assert code == 2
    assert err == "error: secret.py: Permission denied\n"
    assert (project / "good.py").read_text() == ALIAS_FIXED
    monkeypatch.undo()
    secret.chmod(0o644)
    assert secret.read_text() == ALIAS


def _without_read_override() -> list[str] | None:
    """A command prefix under which a file of mode 000 cannot be read: none
    needed for a normal user; for root, ``setpriv`` dropping the capabilities
    that bypass file modes. None if root and that is not possible here."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [
        setpriv,
        "--bounding-set=-dac_override,-dac_read_search",
        "--inh-caps=-dac_override,-dac_read_search",
        "--",
    ]
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else None


def test_unreadable_file_in_a_real_process(project: Path) -> None:
    """The same, end to end: the attnlint process cannot open the file at all.
    Under root without a way to drop its file-mode override, the process
    refuses to open the file itself (the in-process emulation above)."""
    (project / "good.py").write_text(ALIAS)
    secret = project / "secret.py"
    secret.write_text(ALIAS)
    secret.chmod(0)
    prefix = _without_read_override()
    command = [sys.executable, "-m", "lint_rules"]
    if prefix is None:
        command = [
            sys.executable,
            "-c",
            "import builtins, sys\n"
            "from lint_rules.cli import main\n"
            "real = builtins.open\n"
            "def refusing(file, *a, **k):\n"
            "    if str(file).endswith('secret.py'):\n"
            "        raise PermissionError(13, 'Permission denied', str(file))\n"
            "    return real(file, *a, **k)\n"
            "builtins.open = refusing\n"
            "sys.exit(main())\n",
        ]
        prefix = []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [*prefix, *command, "check", "--no-cache", "--fix", "."],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == "error: secret.py: Permission denied\n"
    assert (project / "good.py").read_text() == ALIAS_FIXED
    secret.chmod(0o644)
    assert secret.read_text() == ALIAS


def test_missing_path_next_to_good_ones_changes_nothing(project: Path, capsys) -> None:
    (project / "good.py").write_text(ALIAS)
    code, out, err = run(capsys, "check", "--no-cache", "--fix", "good.py", "gone.py")
    assert (code, out) == (2, "")
    assert err == "error: gone.py: No such file or directory\n"
    assert (project / "good.py").read_text() == ALIAS


def test_symlink_loop_named_on_the_command_line(project: Path, capsys) -> None:
    os.symlink("b.py", project / "a.py")
    os.symlink("a.py", project / "b.py")
    code, out, err = run(capsys, "check", "--no-cache", "a.py")
    assert (code, out) == (2, "")
    assert err == "error: a.py: Too many levels of symbolic links\n"


def test_symlink_loops_inside_a_folder_are_skipped(project: Path, capsys) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "rows.py").write_text(ALIAS)
    os.symlink("b.py", project / "pkg" / "a.py")
    os.symlink("a.py", project / "pkg" / "b.py")
    os.symlink(project, project / "pkg" / "up")  # a folder loop
    code, out, err = run(capsys, "check", "--no-cache", "--fix", "pkg")
    assert (code, err) == (0, ""), out
    assert (project / "pkg" / "rows.py").read_text() == ALIAS_FIXED
    assert os.readlink(project / "pkg" / "a.py") == "b.py"


@pytest.mark.parametrize("named", [True, False], ids=["named", "walked"])
def test_a_folder_named_like_a_python_file_is_walked(
    project: Path, capsys, named: bool
) -> None:
    folder = project / "x.py"
    folder.mkdir()
    (folder / "rows.py").write_text(ALIAS)
    code, out, err = run(capsys, "check", "--no-cache", "x.py" if named else ".")
    assert (code, err) == (1, "")
    assert out.startswith("x.py/rows.py:3:9: ATN301")
    code, out, err = run(
        capsys, "check", "--no-cache", "--fix", "x.py" if named else "."
    )
    assert (code, err) == (0, ""), out
    assert (folder / "rows.py").read_text() == ALIAS_FIXED


# --------------------------------------------------------------------- bad config


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[tool.attnlint]\nselect = 'ATN'\n", "select: expected an array of strings, got a string"),
        ("[tool.attnlint]\nselect = ['ATN', 3]\n", "select: expected an array of strings, found an integer 3"),
        ("[tool.attnlint]\nselect = ['XYZ1']\n", "select: unknown rule selector 'XYZ1'"),
        ("[tool.attnlint]\nper-file-ignores = ['tests/*']\n", "per-file-ignores: expected a table"),
        ("[tool.attnlint]\nper-file-ignores = { 'tests/*' = 'ATN1' }\n", "expected an array of strings"),
        ("[tool.attnlint]\ngraph-state-methods = 7\n", "graph-state-methods: expected an array of strings, got an integer"),
        ("[tool.attnlint]\nextend-exclude = ['[abc']\n", "extend-exclude: invalid glob: unclosed '['"),
        ("[tool.attnlint]\noutput-format = 'xml'\n", "output-format: expected one of concise"),
        ("[tool.attnlint]\ncache-dir = ''\n", "cache-dir: expected a non-empty string"),
        ("[tool.attnlint]\nunsafe-fixes = 1\n", "unsafe-fixes: expected true or false, got an integer"),
        ("[tool]\nattnlint = 1\n", "[tool.attnlint] must be a table, got an integer"),
        ("tool.attnlint = []\n", "[tool.attnlint] must be a table, got an array"),
        ("[tool.attnlint]\nselect = [\n", "invalid TOML"),
        ("[tool.attnlint]\nselect = ['ATN']\nselect = ['ATN1']\n", "invalid TOML"),
    ],
    ids=[
        "select-string", "select-int", "select-unknown", "per-file-list",
        "per-file-value", "methods-int", "bad-glob", "format", "cache-dir",
        "unsafe-int", "tool-not-table", "tool-array", "unclosed-array",
        "duplicate-key",
    ],
)  # fmt: skip
def test_bad_config_is_one_line_exit_2_and_nothing_is_fixed(
    project: Path, capsys, config: str, message: str
) -> None:
    (project / "pyproject.toml").write_text(config)
    (project / "rows.py").write_text(ALIAS)
    code, out, err = run(capsys, "check", "--no-cache", "--fix", "rows.py")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err
    assert str(project / "pyproject.toml") in err or "pyproject.toml" in err
    assert (project / "rows.py").read_text() == ALIAS


def test_pyproject_that_is_not_utf8(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_bytes(b"[tool.attnlint]\n# caf\xe9\n")
    (project / "rows.py").write_text(ALIAS)
    code, out, err = run(capsys, "check", "--no-cache", "--fix", "rows.py")
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and "invalid TOML: not UTF-8" in err
    assert err.count("\n") == 1
    assert (project / "rows.py").read_text() == ALIAS


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("selcet=['ATN']", "--config: [tool.attnlint] unknown key 'selcet' (did you mean 'select'?)"),
        ("select=[", "--config: 'select=[' is not valid TOML"),
        ("select=ATN1", "brackets: --config 'select = [\"ATN1\"]'"),
        ("fix='yes'", "fix: expected true or false, got a string"),
        ("no-such-file.toml", "--config: no-such-file.toml: no such file"),
    ],
    ids=["unknown-key", "invalid-toml", "bare-string", "wrong-type", "missing-file"],
)  # fmt: skip
def test_bad_config_on_the_command_line(
    project: Path, capsys, override: str, message: str
) -> None:
    (project / "rows.py").write_text(ALIAS)
    code, out, err = run(
        capsys, "check", "--no-cache", "--fix", "--config", override, "rows.py"
    )
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err
    assert (project / "rows.py").read_text() == ALIAS


def test_every_bad_input_at_once_in_a_real_process(tmp_path: Path) -> None:
    """One tree with a file of each kind, checked and fixed by the installed
    command: each problem in one line, no traceback, the fixable files fixed,
    the others byte-identical."""
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    files = {
        "syntax.py": b"def f(:\n",
        "nul.py": b"x = 1\x00\n",
        "latin1.py": b"x = '\xe9'\nfor i in y:\n    pass\n",
        "empty.py": b"",
        "deep.py": ("def f():\n    return " + "(" * 1000 + ")" * 1000 + "\n").encode(),
        "crlf.py": ALIAS.replace("\n", "\r\n").encode(),
        "bom.py": b"\xef\xbb\xbf" + ALIAS.encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "x.py").mkdir()
    os.symlink("loop_b.py", tmp_path / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--fix", "."],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr == ""
    assert "Traceback" not in result.stdout
    lines = sorted(line for line in result.stdout.splitlines() if ": E9" in line)
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["deep.py:2:212:", "E999"],
        ["latin1.py:1:1:", "E902"],
        ["nul.py:1:1:", "E902"],
        ["syntax.py:1:7:", "E999"],
    ]
    for name, data in files.items():
        after = (tmp_path / name).read_bytes()
        if name == "crlf.py":
            assert after == ALIAS_FIXED.replace("\n", "\r\n").encode()
        elif name == "bom.py":
            assert after == b"\xef\xbb\xbf" + ALIAS_FIXED.encode()
        else:
            assert after == data, name


# ------------------------------------------- one bad file never stops a run


# Codecs that exist but are not text encodings: Python refuses them in a
# coding cookie ("encoding problem"); a file declaring one is an E902 finding.
NON_TEXT_CODECS = ("rot13", "hex", "base64", "zlib", "uu", "bz2", "quopri")


@pytest.mark.parametrize("codec", NON_TEXT_CODECS)
def test_a_non_text_codec_cookie_is_e902_and_the_rest_is_checked_and_fixed(
    project: Path, capsys, codec: str
) -> None:
    bad = project / "bad.py"
    data = f"# coding: {codec}\nx = 1\n".encode()
    bad.write_bytes(data)
    with pytest.raises(SyntaxError):  # what Python says of such a file
        compile(data, "bad.py", "exec")
    (project / "good.py").write_text(ALIAS)
    code, out, err = run(capsys, "check", "--no-cache", ".")
    assert (code, err) == (1, "")
    assert "bad.py:1:1: E902" in out and "good.py:3:9: ATN301" in out
    code, out, err = run(capsys, "check", "--no-cache", "--fix", ".")
    assert (code, err) == (1, "")
    assert (project / "good.py").read_text() == ALIAS_FIXED
    assert bad.read_bytes() == data


def test_a_bad_file_among_many_in_worker_processes(project: Path, capsys) -> None:
    for index in range(20):
        (project / f"good_{index}.py").write_text(ALIAS)
    (project / "bad.py").write_bytes(b"# coding: rot13\nx = 1\n")
    code, out, err = run(capsys, "check", "--no-cache", "--fix", "-j", "2", ".")
    assert (code, err) == (1, "")
    assert "bad.py:1:1: E902" in out
    assert all(
        (project / f"good_{index}.py").read_text() == ALIAS_FIXED for index in range(20)
    )


# --------------------------------------------------- configuration never lost


def test_an_unreadable_pyproject_is_an_error_not_skipped(
    project: Path, capsys, monkeypatch
) -> None:
    # Its extend-exclude protects vendored code from --fix: skipping the
    # file would rewrite it.
    (project / "pyproject.toml").write_text(
        '[tool.attnlint]\nextend-exclude = ["vendored"]\n'
    )
    (project / "vendored").mkdir()
    (project / "vendored" / "rows.py").write_text(ALIAS)
    make_unreadable(project / "pyproject.toml", monkeypatch)
    code, out, err = run(capsys, "check", "--no-cache", "--fix", ".")
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "pyproject.toml" in err and "Permission denied" in err
    assert (project / "vendored" / "rows.py").read_text() == ALIAS


@pytest.mark.parametrize("name", ["attnlint.toml", "pyproject.toml"])
@pytest.mark.parametrize("kind", ["dangling-link", "fifo", "folder"])
def test_a_configuration_that_is_not_a_regular_file_is_an_error_not_skipped(
    project: Path, capsys, name: str, kind: str
) -> None:
    # A shared configuration linked from a folder that moved, a FIFO, a
    # folder: passing over it would lose its excludes, and --fix would
    # rewrite the vendored code they protect.
    (project / "vendored").mkdir()
    (project / "vendored" / "rows.py").write_text(ALIAS)
    config = project / name
    config.unlink(missing_ok=True)
    if kind == "dangling-link":
        config.symlink_to(project / "moved" / name)
    elif kind == "fifo":
        os.mkfifo(config)
    else:
        config.mkdir()
    code, out, err = run(capsys, "check", "--no-cache", "--fix", ".")
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert f"{name}: cannot read" in err
    assert (project / "vendored" / "rows.py").read_text() == ALIAS


@pytest.mark.parametrize(
    "text",
    ["[tool]\nattnlint = 5\n", "tool = 5\n# attnlint\n"],
    ids=["attnlint-not-a-table", "tool-not-a-table"],
)
def test_the_same_configuration_gets_the_same_answer_found_or_named(
    project: Path, capsys, text: str
) -> None:
    (project / "pyproject.toml").write_text(text)
    (project / "rows.py").write_text(ALIAS)
    found = run(capsys, "check", "--no-cache", "rows.py")
    named = run(capsys, "check", "--no-cache", "--config", "pyproject.toml", "rows.py")
    assert found[0] == named[0] == 2
    assert found[2] == named[2]
    assert "must be a table" in found[2] and found[2].count("\n") == 1


def _deep_toml(depth: int) -> str:
    return "[tool.attnlint]\nselect = " + "[" * depth + "]" * depth + "\n"


def test_a_deeply_nested_pyproject_is_a_clear_error(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text(_deep_toml(2000))
    (project / "rows.py").write_text(ALIAS)
    code, out, err = run(capsys, "check", "--no-cache", "rows.py")
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "pyproject.toml" in err and "too deeply nested" in err
    assert "RecursionError" not in err and "attnlint failed" not in err


def test_a_deeply_nested_config_override_is_a_clear_error(
    project: Path, capsys
) -> None:
    (project / "rows.py").write_text(ALIAS)
    override = "select = " + "[" * 2000 + "]" * 2000
    code, out, err = run(capsys, "check", "--no-cache", "--config", override, ".")
    assert (code, out) == (2, "")
    assert "too deeply nested" in err and "attnlint failed" not in err


# -------------------------------------------------------- non-regular files


def _attnlint_limited(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m lint_rules ARGV`` with 1 GiB of address space and 60 s."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run(
        [sys.executable, "-m", "lint_rules", *argv],
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit,
    )


def test_a_named_device_is_a_clear_error(project: Path) -> None:
    (project / "rows.py").write_text(ALIAS)
    result = _attnlint_limited(project, "check", "--no-cache", "/dev/zero", "rows.py")
    assert result.returncode == 2, result.stderr
    assert result.stderr == "error: /dev/zero: not a regular file\n"
    assert result.stdout == ""


def test_a_named_fifo_is_a_clear_error_and_never_blocks(project: Path) -> None:
    os.mkfifo(project / "pipe.py")
    result = _attnlint_limited(project, "check", "--no-cache", "--fix", "pipe.py")
    assert result.returncode == 2, result.stderr
    assert result.stderr == "error: pipe.py: not a regular file\n"


def _within_seconds(seconds: int, function, *args):
    """``function(*args)``, failing the test if it blocks for ``seconds``."""
    import signal

    def blocked(signum, frame):
        raise AssertionError(f"blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(seconds)
    try:
        return function(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_walk_skips_fifos_and_devices(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ALIAS)
    os.mkfifo(project / "pipe.py")
    os.symlink("/dev/zero", project / "zero.py")
    code, out, err = _within_seconds(
        20, run, capsys, "check", "--no-cache", "--fix", "."
    )
    assert (code, err) == (0, ""), out
    assert (project / "rows.py").read_text() == ALIAS_FIXED


def test_a_file_that_becomes_a_fifo_after_discovery_is_e902(
    project: Path, capsys, monkeypatch
) -> None:
    # Found as a regular file, replaced by a FIFO before it is read: the read
    # must not block.
    import lint_rules.discover as discover_module

    target = project / "rows.py"
    target.write_text(ALIAS)
    real = discover_module.discover_files

    def discover_then_replace(*args, **kwargs):
        files = real(*args, **kwargs)
        target.unlink()
        os.mkfifo(target)
        return files

    monkeypatch.setattr(discover_module, "discover_files", discover_then_replace)
    code, out, err = _within_seconds(20, run, capsys, "check", "--no-cache", "rows.py")
    assert code in (1, 2)
    assert "rows.py" in out + err and "not a regular file" in out + err


def _attnlint_bytes(project: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-P", "-m", "lint_rules", *argv],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=120,
    )


def test_odd_path_names_are_quoted_as_git_quotes_them_in_every_output(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A name with a newline, or with a byte that is not UTF-8, is written as
    git writes it (``"a\\nb.py"``, ``"c\\377.py"``): one line per finding, a
    --diff that ``git apply`` and ``patch`` read, JSON that is valid UTF-8
    with no lone surrogate, SARIF URIs that percent-encode the name's bytes."""
    import json

    newline = "a\nb.py"
    latin = os.fsdecode(b"c\xff.py")
    for name in (newline, latin):
        (project / name).write_text(ALIAS)
    diff = _attnlint_bytes(project, "check", "--no-cache", "--diff", ".")
    assert diff.returncode == 1, diff.stderr
    headers = [
        line for line in diff.stdout.split(b"\n") if line.startswith((b"---", b"+++"))
    ]
    assert sorted(headers) == [
        b'+++ "a\\nb.py"',
        b'+++ "c\\377.py"',
        b'--- "a\\nb.py"',
        b'--- "c\\377.py"',
    ]
    if shutil.which("git"):
        copy = tmp_path_factory.mktemp("applied") / "project"
        shutil.copytree(project, copy)
        patch = subprocess.run(
            ["git", "apply", "--unsafe-paths", "-p0", "-"],
            cwd=copy,
            input=diff.stdout,
            capture_output=True,
        )
        assert patch.returncode == 0, patch.stderr
        for name in (newline, latin):
            assert (copy / name).read_text() == ALIAS_FIXED
    concise = _attnlint_bytes(project, "check", "--no-cache", ".")
    assert concise.returncode == 1, concise.stderr
    rows = [line for line in concise.stdout.split(b"\n") if b": ATN" in line]
    assert rows and all(
        row.startswith((b'"a\\nb.py":', b'"c\\377.py":')) for row in rows
    )
    report = _attnlint_bytes(
        project, "check", "--no-cache", "--output-file", "report.txt", "."
    )
    assert report.returncode == 1, report.stderr  # was a crash (exit 2)
    assert (project / "report.txt").read_bytes() == concise.stdout
    shown = _attnlint_bytes(project, "check", "--show-files", ".")
    assert shown.returncode == 0, shown.stderr
    root = os.fsencode(project)
    assert sorted(shown.stdout.splitlines()) == [
        b'"' + root + b'/a\\nb.py"',
        b'"' + root + b'/c\\377.py"',
    ]
    for output_format in ("json", "json-lines"):
        result = _attnlint_bytes(
            project, "check", "--no-cache", "--output-format", output_format, "."
        )
        assert result.returncode == 1, result.stderr
        text = result.stdout.decode("utf-8")  # strict: valid UTF-8
        if output_format == "json":
            findings = json.loads(text)
        else:
            findings = [json.loads(line) for line in text.splitlines()]
        names = {finding["filename"] for finding in findings}
        assert names == {
            str(project / newline),
            '"' + str(project).replace("\\", "\\\\") + '/c\\377.py"',
        }
        for name in names:
            name.encode("utf-8")  # no lone surrogate (strict parsers refuse one)
    sarif = _attnlint_bytes(
        project, "check", "--no-cache", "--output-format", "sarif", "."
    )
    assert sarif.returncode == 1, sarif.stderr
    document = json.loads(sarif.stdout.decode("utf-8"))
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in document["runs"][0]["results"]
        for location in result["locations"]
    }
    assert uris == {"a%0Ab.py", "c%FF.py"}


def test_a_bad_path_named_on_the_command_line_is_quoted_in_its_error(
    project: Path,
) -> None:
    """The error for a named path that is missing or not a regular file
    names it on one line, quoted as git quotes it."""
    fifo = "f\nifo.py"
    os.mkfifo(project / fifo)
    result = _attnlint_bytes(project, "check", "--no-cache", fifo)
    assert result.returncode == 2
    assert result.stderr == b'error: "f\\nifo.py": not a regular file\n'
    missing = os.fsdecode(b"miss\xff\ning.py")
    result = _attnlint_bytes(project, "check", "--no-cache", missing)
    assert result.returncode == 2
    assert result.stderr == b'error: "miss\\377\\ning.py": No such file or directory\n'


def test_a_diff_header_of_a_name_with_a_space_ends_at_a_tab_as_git_writes_it(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """GNU patch reads a header's file name up to the first blank unless a
    tab ends it (git's and GNU diff's headers have one): without it, the
    patch for ``my file.py`` named a file ``my`` and did not apply."""
    (project / "my file.py").write_text(ALIAS)
    diff = _attnlint_bytes(project, "check", "--no-cache", "--diff", ".")
    assert diff.returncode == 1, diff.stderr
    assert diff.stdout.startswith(b"--- my file.py\t\n+++ my file.py\t\n@@ ")
    for copy in _applied_by_patch_and_git(project, diff.stdout, tmp_path_factory):
        assert (copy / "my file.py").read_text() == ALIAS_FIXED


def _applied_by_patch_and_git(
    project: Path, patch: bytes, tmp_path_factory: pytest.TempPathFactory
) -> list[Path]:
    """Copies of ``project`` with ``patch`` applied by GNU patch and by
    ``git apply`` (each, where installed), both with ``-p0``; each must
    apply it."""
    copies = []
    for tool in (["patch", "-p0", "--batch"], ["git", "apply", "-p0", "-"]):
        if shutil.which(tool[0]) is None:
            continue
        copy = tmp_path_factory.mktemp(tool[0]) / "project"
        shutil.copytree(project, copy)
        applied = subprocess.run(
            tool, cwd=copy, input=patch, capture_output=True, timeout=60
        )
        assert applied.returncode == 0, applied.stdout + applied.stderr
        copies.append(copy)
    return copies


def test_a_diff_is_in_the_bytes_of_the_file_it_patches(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A Latin-1 file's ``é`` is the byte 0xe9, and a byte-order mark is part
    of the first line: a patch whose lines are their UTF-8 text instead did
    not apply (``git apply``: "patch does not apply"; GNU patch: a failed
    hunk, or one applied with fuzz). Applied by either tool, --diff gives
    the bytes --fix writes, and --output-file holds the same patch."""
    files = {
        "latin.py": b"# -*- coding: latin-1 -*-\n"
        + ALIAS.replace("lens):\n", "lens):  # caf\xe9\n", 1).encode("latin-1"),
        "bom.py": b"\xef\xbb\xbf" + ALIAS.replace("\n", "\r\n").encode(),
    }
    for name, data in files.items():
        (project / name).write_bytes(data)
    diff = _attnlint_bytes(project, "check", "--no-cache", "--diff", ".")
    assert diff.returncode == 1, diff.stderr
    assert b"caf\xe9" in diff.stdout and b"\n \xef\xbb\xbfdef forward" in diff.stdout
    report = _attnlint_bytes(
        project, "check", "--no-cache", "--diff", "--output-file", "patch.diff", "."
    )
    assert report.returncode == 1, report.stderr
    assert (project / "patch.diff").read_bytes() == diff.stdout
    (project / "patch.diff").unlink()
    fixed = tmp_path_factory.mktemp("fixed") / "project"
    shutil.copytree(project, fixed)
    assert _attnlint_bytes(fixed, "check", "--no-cache", "--fix", ".").returncode == 0
    for copy in _applied_by_patch_and_git(project, diff.stdout, tmp_path_factory):
        for name in files:
            assert (copy / name).read_bytes() == (fixed / name).read_bytes(), name


def test_clean_quotes_the_cache_folder_and_the_files_it_left(project: Path) -> None:
    """``attnlint clean`` names the folder it removed, and any file it left
    there, quoted as git quotes a name (it printed them raw: a newline in a
    name split its line, a byte that is not UTF-8 came out as is)."""
    cache = os.fsdecode(b"ca\xffche")
    (project / "rows.py").write_text(ALIAS)
    made = _attnlint_bytes(project, "check", "--cache-dir", cache, "rows.py")
    assert made.returncode == 1, made.stderr
    (project / cache / "left\nby me").write_text("")
    result = _attnlint_bytes(project, "clean", "--cache-dir", cache)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        b'Removed the cache at "ca\\377che"',
        b'warning: left 1 file attnlint did not write in "ca\\377che": '
        b'"ca\\377che/left\\nby me"',
    ]
    (project / "not\na cache").mkdir()
    refused = _attnlint_bytes(project, "clean", "--cache-dir", "not\na cache")
    assert refused.returncode == 2
    root = os.fsencode(project)
    assert refused.stderr.startswith(
        b'error: "' + root + b'/not\\na cache" is not an attnlint cache folder'
    )
    assert refused.stderr.count(b"\n") == 1


def test_configuration_errors_quote_the_file_they_name(tmp_path: Path) -> None:
    """A broken configuration file, and a ``--config`` that names no file,
    are named in the error on one line, quoted as git quotes a name."""
    project = tmp_path / os.fsdecode(b"p\nr\xe9")
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.attnlint\n")
    (project / "rows.py").write_text(ALIAS)
    broken = _attnlint_bytes(project, "check", "--no-cache", "rows.py")
    assert broken.returncode == 2
    quoted = os.fsencode(tmp_path) + b"/p\\nr\\351/pyproject.toml"
    assert broken.stderr.startswith(b'error: "' + quoted + b'": invalid TOML')
    assert broken.stderr.count(b"\n") == 1
    (project / "pyproject.toml").write_text("[tool.attnlint]\nselcet = []\n")
    unknown = _attnlint_bytes(project, "check", "--no-cache", "rows.py")
    assert unknown.returncode == 2
    assert unknown.stderr.startswith(
        b'error: "' + quoted + b"\": [tool.attnlint] unknown key 'selcet'"
    )
    missing = _attnlint_bytes(project, "check", "--config", "no\nsuch.toml", ".")
    assert missing.returncode == 2
    assert missing.stderr == (
        b'error: --config: "no\\nsuch.toml": no such file (nor a KEY = VALUE setting)\n'
    )


def test_verify_restore_quotes_the_names_in_its_errors(tmp_path: Path) -> None:
    """``attnlint verify --restore`` names the journal, and a file it could
    not put back, quoted as git quotes a name (they were printed raw)."""
    from lint_rules.verify.journal import Journal

    project = tmp_path / "pro\nject"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.attnlint]\n")
    odd = project / os.fsdecode(b"od\xffd.py")
    odd.write_text("x = 1\n")
    journal = Journal.begin(project, [(odd, odd.read_bytes(), odd.stat())], ["pytest"])
    odd.unlink()
    odd.mkdir()  # where the file was: cannot be put back
    running = _attnlint_bytes(project, "verify", "--restore")  # this process wrote it
    assert running.returncode == 2
    assert running.stderr.startswith(
        b"attnlint verify: error: the verify that wrote .attnlint_verify (process "
    )
    result = _attnlint_bytes(project, "verify", "--restore", "--force")
    assert result.returncode == 2
    assert result.stderr == (
        b'attnlint verify: error: "'
        + os.fsencode(tmp_path)
        + b'/pro\\nject/od\\377d.py": not a regular file\n'
    )
    journal.path.write_text("{damaged\n")
    damaged = _attnlint_bytes(project, "verify", "--restore", "--force")
    assert damaged.returncode == 2
    assert damaged.stderr == (
        b'attnlint verify: error: the journal "'
        + os.fsencode(journal.path).replace(b"\n", b"\\n")
        + b'" is damaged\n'
    )


@pytest.mark.parametrize(
    "options",
    [(), ("--statistics",), ("--fix",), ("--diff",), ("--output-format", "json")],
    ids=["check", "statistics", "fix", "diff", "json"],
)
def test_a_file_that_vanishes_after_discovery_is_named_and_nothing_claims_success(
    project: Path, capsys, monkeypatch, options: tuple[str, ...]
) -> None:
    """Found, then deleted before it is read: one error naming it, exit 2,
    and the other files still checked; the summary does not say "All checks
    passed!" of a run that did not read every file (it did)."""
    import lint_rules.discover as discover_module

    (project / "good.py").write_text("x = 1\n")
    target = project / "gone.py"
    target.write_text(ALIAS)
    real = discover_module.discover_files

    def discover_then_delete(*args, **kwargs):
        files = real(*args, **kwargs)
        target.unlink()
        return files

    monkeypatch.setattr(discover_module, "discover_files", discover_then_delete)
    code, out, err = run(capsys, "check", "--no-cache", *options, ".")
    assert code == 2
    assert err.endswith("error: gone.py: No such file or directory\n")
    assert "All checks passed!" not in out + err
    if options in ((), ("--statistics",), ("--fix",)):
        assert out.endswith(
            "No findings, but the check did not complete: 1 error (below).\n"
        )
    if options == ("--output-format", "json"):
        assert out == "[]\n"
