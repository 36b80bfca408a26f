"""ATN203: a sync in a fallback for a missing host copy is not reported
(``_host_fallbacks``): the path that reads the copy is the one taken per
step. A copy a public function's caller may leave out is no such copy."""

from __future__ import annotations

import ast
import re
import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

SETTINGS = Settings(select=("ATN203",))


def findings(
    body: str, params: str = "self, batch, lens, lens_cpu", name: str = "forward"
):
    source = "import torch\n\nclass Backend:\n"
    source += f"    def {name}({params}):\n"
    source += textwrap.indent(textwrap.dedent(body), " " * 8)
    source += "\n    def forward_decode(self, batch, lens):\n"
    source += f"        return self.{name}(batch, lens, batch.seq_lens_cpu)\n"
    return check_source(source, "b.py", SETTINGS)


FALLBACKS = {
    "else_of_is_not_none": (
        "if batch.seq_lens_cpu is not None:\n    n = batch.seq_lens_cpu.max()\n"
        "else:\n    n = batch.seq_lens.max().item()\nreturn n\n"
    ),
    "body_of_is_none": (
        "if batch.seq_lens_cpu is None:\n"
        "    batch.seq_lens_cpu = batch.seq_lens.cpu()\n"
        "return batch.seq_lens_cpu\n"
    ),
    "after_early_return": (
        "if batch.seq_lens_cpu is not None:\n    return int(batch.seq_lens_cpu.max())\n"
        "return int(batch.seq_lens.max().item())\n"
    ),
    "conditional_expression": (
        "return (\n    batch.seq_lens_cpu.tolist()\n"
        "    if batch.seq_lens_cpu is not None\n    else batch.seq_lens.tolist()\n)\n"
    ),
    "negated_is_not_none": (
        "if not batch.seq_lens_cpu is not None:\n    return batch.seq_lens.tolist()\n"
    ),
    "and_in_the_body": (
        "if batch.seq_lens_cpu is None and lens is not None:\n"
        "    return lens.tolist()\n"
    ),
    "or_in_the_else": (
        "if batch.seq_lens_cpu is not None or lens is None:\n    return 0\n"
        "else:\n    return lens.tolist()\n"
    ),
    "local_read_from_a_field": (
        "seq_cpu = batch.seq_lens_cpu\nif seq_cpu is None:\n    return lens.tolist()\n"
        "return seq_cpu.tolist()\n"
    ),
    # A parameter with no default: the caller hands over the copy it has.
    "required_parameter": ("if lens_cpu is None:\n    return lens.tolist()\n"),
}


@pytest.mark.parametrize("body", FALLBACKS.values(), ids=FALLBACKS.keys())
def test_a_sync_in_a_fallback_for_a_missing_host_copy_is_not_reported(body: str):
    assert findings(body) == []


def test_a_private_functions_optional_copy_is_its_callers_to_give():
    body = "if lens_cpu is None:\n    return lens.tolist()\n"
    assert findings(body, "self, batch, lens, lens_cpu=None", name="_plan") == []


OPTIONAL = {
    # A public function's optional copy: callers that leave it out take the
    # fallback on every call.
    "public_default_none": ("self, batch, lens, lens_cpu=None", "lens_cpu is None"),
    "public_keyword_only": ("self, batch, lens, *, lens_cpu=None", "lens_cpu is None"),
}


@pytest.mark.parametrize(("params", "test"), OPTIONAL.values(), ids=OPTIONAL.keys())
def test_an_optional_copy_of_a_public_function_is_reported(params: str, test: str):
    body = f"if {test}:\n    return lens.tolist()\n"
    (finding,) = findings(body, params)
    assert ".tolist()" in finding.message


REPORTED = {
    # The arm where the copy is there, or a test of something else.
    "arm_with_the_copy": "if batch.seq_lens_cpu is not None:\n    return lens.tolist()\n",
    "not_a_host_name": "if batch.seq_lens is None:\n    return lens.tolist()\n",
    "equality_not_identity": "if batch.seq_lens_cpu == None:\n    return lens.tolist()\n",
    # `and` in the else: taken when either operand is false, not only then.
    "and_in_the_else": (
        "if batch.seq_lens_cpu is not None and lens is not None:\n    return 0\n"
        "else:\n    return lens.tolist()\n"
    ),
    # A body that does not leave: the rest runs with the copy too.
    "after_a_body_that_stays": (
        "if batch.seq_lens_cpu is not None:\n    n = 1\nreturn lens.tolist()\n"
    ),
    # A local bound to anything but a field of an object.
    "local_from_elsewhere": (
        "seq_cpu = None\nif lens.numel():\n"
        "    seq_cpu = lens.to('cpu', non_blocking=True)\n"
        "if seq_cpu is None:\n    return lens.tolist()\n"
    ),
    "conditional_expression_other_arm": (
        "return lens.tolist() if batch.seq_lens_cpu is not None else 0\n"
    ),
}


@pytest.mark.parametrize("body", REPORTED.values(), ids=REPORTED.keys())
def test_a_sync_outside_such_a_fallback_is_reported(body: str):
    assert len(findings(body)) == 1


def test_the_fallbacks_of_a_real_backend_are_not_reported_and_the_rest_is(tmp_path):
    """vLLM 0.33.0's TurboQuant prefill prefers the metadata's CPU copies and
    falls back to ``.tolist()`` of the device tensors only when they are None."""
    path = extract(
        "vllm", "0.33.0", "vllm/v1/attention/backends/turboquant_attn.py", tmp_path
    )
    text = path.read_text(encoding="utf-8")
    rows = text.splitlines()
    fallbacks = [
        row
        for row, line in enumerate(rows, 1)
        if line.strip()
        in (
            "qsl = query_start_loc.tolist()",
            "seq_lens_list = attn_metadata.seq_lens.tolist()",
        )
    ]
    assert len(fallbacks) == 2
    for row in fallbacks:
        # Each sits in the else of an `is not None` test of a `_cpu` field.
        above = rows[row - 4 : row - 1]
        assert any("_cpu is not None" in line for line in above)
        assert rows[row - 2].strip() == "else:"
    reported = {
        f.location.row for f in check_source(text, "turboquant_attn.py", SETTINGS)
    }
    assert not reported & set(fallbacks)
    # Without the fallback reading, the same file reports them.
    plain = Settings(select=("ATN203",), host_tensor_names=())
    assert set(fallbacks) <= {
        f.location.row for f in check_source(text, "turboquant_attn.py", plain)
    }


SPELLINGS = {
    "continued_attribute": (
        "if batch.\\\n        seq_lens_cpu is not None:\n    return 0\n"
        "return lens.tolist()\n"
    ),
    "parenthesized_subject": ("if(lens_cpu)is None:\n    return lens.tolist()\n"),
    "after_a_keyword_glued_to_a_number": (
        "return lens.tolist() if(0if lens_cpu is None else 1)else 0\n"
    ),
    "conditional_expression_on_rows": (
        "return (\n    batch.seq_lens.tolist()\n    if batch\\\n"
        "    .seq_lens_cpu is None\n    else 0\n)\n"
    ),
}


# (``0if`` is a keyword glued to a number, which Python warns of)
@pytest.mark.filterwarnings("ignore:invalid decimal literal:SyntaxWarning")
@pytest.mark.parametrize(
    "body", [*FALLBACKS.values(), *REPORTED.values(), *SPELLINGS.values()]
)
def test_the_text_shortcut_finds_every_host_name_the_walk_finds(body: str):
    """The rows holding a literal part of ``host-tensor-names``
    (``_rows_holding`` of ``_glob_literals``) hold every name, attribute
    and parameter a walk finds matching them (a fallback's test names one);
    the findings are those found without the pre-filters; and a text with
    no name matching them gives no row (the fallbacks are then not looked
    for)."""
    from lint_rules.analysis.hot_paths import _matcher
    from lint_rules.rules.atn203_host_sync_in_hot_path import (
        _glob_literals,
        _rows_holding,
    )
    from lint_rules.source import Locator
    from tests.fuzzing import findings_both_ways

    globs = Settings().options.host_tensor_names
    pattern = _matcher(globs)
    literals = _glob_literals(globs)
    assert literals is not None

    def rows(text: str) -> list[int]:
        starts = Locator(text).line_starts
        return _rows_holding(text, starts, literals, 1, len(starts))

    source = "def f(self, batch, lens, lens_cpu):\n" + textwrap.indent(body, "    ")
    fields = {ast.Name: "id", ast.Attribute: "attr", ast.arg: "arg"}
    named = {
        node.end_lineno
        for node in ast.walk(ast.parse(source))
        if type(node) in fields and pattern.match(getattr(node, fields[type(node)]))
    }
    assert named
    assert named <= set(rows(source))
    # (each word matching them renamed to one that does not)
    plain = re.sub(
        r"\w+", lambda word: "renamed" if pattern.match(word[0]) else word[0], source
    )
    assert rows(plain) == []
    # (rows counted as ``ast`` counts them, a text that is not ASCII too)
    shifted = f"# 注释 → é\r\n{source}"
    assert {row + 1 for row in named} <= set(rows(shifted))
    for text in (source, plain):
        wrapped = "import torch\n\nclass Backend:\n    def forward" + text[5:]
        filtered, unfiltered, errors = findings_both_ways(wrapped, "b.py", SETTINGS)
        assert errors == []
        assert filtered == unfiltered


@pytest.mark.parametrize(
    ("globs", "literals"),
    [
        (("*_cpu", "*_cpu_*", "*_host"), ("_cpu", "_cpu_", "_host")),
        (("lens?cpu*",), ("lens",)),
        (("*",), None),
        (("*_cpu", "*"), None),
        (("*_[ch]pu",), None),
        (("*_cpü",), None),
    ],
)
def test_glob_literals_every_matching_name_holds(globs, literals):
    """``_glob_literals``: a part of each glob that every name matching it
    holds, or None where it cannot tell."""
    from lint_rules.analysis.hot_paths import _matcher
    from lint_rules.rules.atn203_host_sync_in_hot_path import _glob_literals

    assert _glob_literals(globs) == literals
    if literals is not None:
        pattern = _matcher(globs)
        for name in ("seq_lens_cpu", "x_cpu_y", "lens_cpu", "lensXcpu", "a_host"):
            if pattern.match(name):
                assert any(literal in name for literal in literals)


def module_findings(source: str):
    return check_source(textwrap.dedent(source), "b.py", SETTINGS)


_HELPER = """
import torch

class Backend:
    def update(self, lens, use_ragged, lens_cpu=None):
        if use_ragged:
            if lens_cpu is None:
                return lens.sum().item()
            return sum(lens_cpu)
        return 0

    def forward_decode(self, batch):
        return self.update(batch.seq_lens, True, {passed})
"""


def test_an_optional_copy_every_call_of_the_module_passes_is_provided():
    # A public helper per step only through the module's own calls: on that
    # chain the copy is there.
    source = _HELPER.format(passed="lens_cpu=batch.seq_lens_cpu")
    assert module_findings(source) == []
    source = _HELPER.format(passed="batch.seq_lens_cpu")
    assert module_findings(source) == []


@pytest.mark.parametrize(
    "passed", ["", "None", "lens_cpu=batch.seq_lens", "lens_cpu=lens_cpu_local"]
)
def test_a_call_of_the_module_that_leaves_the_copy_out_keeps_the_fallback(passed):
    source = _HELPER.format(passed=passed).replace(
        "def forward_decode(self, batch):",
        "def forward_decode(self, batch):\n        lens_cpu_local = batch.x",
    )
    (finding,) = module_findings(source)
    assert "forward_decode -> update" in finding.message


_SWITCHED = """
import torch

class Backend:
    def update(self, lens, use_ragged, lens_cpu=None):
        if {test}:
            if lens_cpu is None:
                return lens.sum().item()
        return 0

    def forward_decode(self, batch):
        self.update(batch.seq_lens, {switch})

    def forward_extend(self, batch):
        self.update(batch.seq_lens, True, lens_cpu=batch.seq_lens_cpu)
"""


@pytest.mark.parametrize(
    ("test", "switch"),
    [("use_ragged", "False"), ("use_ragged", "0"), ("not use_ragged", "True")],
)
def test_a_call_whose_constant_argument_skips_the_fallback_does_not_reach_it(
    test, switch
):
    assert module_findings(_SWITCHED.format(test=test, switch=switch)) == []


@pytest.mark.parametrize(
    ("test", "switch"),
    [
        ("use_ragged", "True"),  # it reaches the fallback
        ("use_ragged", "flag"),  # not known
        ("not use_ragged", "False"),
        ("use_ragged and lens is not None", "False"),  # not the parameter alone
    ],
)
def test_a_call_that_may_reach_the_fallback_without_the_copy_keeps_it(test, switch):
    (finding,) = module_findings(
        _SWITCHED.format(test=test, switch=switch).replace(
            "def forward_decode(self, batch):", "def forward_decode(self, batch, flag):"
        )
    )
    assert ".item()" in finding.message


@pytest.mark.parametrize(
    "rebinding",
    [
        "use_ragged = lens.numel() > 0",
        # bound otherwise than by a name: a capture, a handler, an import
        "match lens.dim():\n            case use_ragged:\n                pass",
        "try:\n            pass\n        except Exception as use_ragged:\n"
        "            pass",
        "from flags import use_ragged",
    ],
)
def test_a_switch_the_function_rebinds_is_not_read_off_its_callers(rebinding):
    source = _SWITCHED.format(test="use_ragged", switch="False").replace(
        "        if use_ragged:",
        f"        {rebinding}\n        if use_ragged:",
    )
    (finding,) = module_findings(source)
    assert ".item()" in finding.message


def test_calls_through_a_method_stored_on_the_instance_are_its_calls():
    # ``self.update = self.update_single_wrapper`` (SGLang's updaters): every
    # call of an attribute ``update`` may be one of it; one that does not fit
    # its signature raises before its body runs.
    source = """
    import torch

    class Updater:
        def __init__(self):
            self.update = self.update_single_wrapper

        def update_single_wrapper(self, lens, lens_cpu=None):
            if lens_cpu is None:
                return lens.sum().item()
            return sum(lens_cpu)

    class Backend:
        def __init__(self):
            self.updater = Updater()
            self.cache = {{}}

        def forward_decode(self, batch):
            self.cache.update(a=1)
            return self.updater.update(batch.seq_lens, {passed})
    """
    assert module_findings(source.format(passed="batch.seq_lens_cpu")) == []
    (finding,) = module_findings(source.format(passed="None"))
    assert "update_single_wrapper" in finding.message


def test_an_entry_point_keeps_its_optional_copy_whatever_the_module_passes():
    # The engine calls ``forward_extend`` itself, and may leave the copy out.
    source = """
    import torch

    class Backend:
        def forward_extend(self, lens, lens_cpu=None):
            if lens_cpu is None:
                return lens.sum().item()
            return sum(lens_cpu)

        def forward_decode(self, batch):
            return self.forward_extend(batch.seq_lens, batch.seq_lens_cpu)
    """
    (finding,) = module_findings(source)
    assert ".item()" in finding.message


def test_a_helper_named_in_a_string_may_be_called_without_the_copy():
    source = _HELPER.format(passed="batch.seq_lens_cpu") + '\nNAME = "update"\n'
    (finding,) = module_findings(source)
    assert ".item()" in finding.message
