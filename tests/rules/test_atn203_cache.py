"""ATN203: a sync that fills a cache kept on a persistent object on the first
call runs once per object, not per step (``_cache_fills``)."""

from __future__ import annotations

import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings

SETTINGS = Settings(select=("ATN203",))


def findings(body: str, params: str = "self, layer, scale, key"):
    source = "import torch\n_CACHE = {}\n\nclass Backend:\n"
    source += f"    def forward({params}):\n"
    source += textwrap.indent(textwrap.dedent(body), " " * 8)
    return check_source(source, "b.py", SETTINGS)


CACHED = {
    "is_none": "if self._x is None:\n    self._x = scale.item()\n",
    "not_hasattr": 'if not hasattr(self, "_x"):\n    self._x = scale.cpu()\n',
    "hasattr_else": (
        'if hasattr(self, "_x"):\n    pass\nelse:\n'
        '    setattr(self, "_x", scale.tolist())\n'
    ),
    "not_in_dict": "if key not in self._d:\n    self._d[key] = scale.tolist()\n",
    "global_dict": "if key not in _CACHE:\n    _CACHE[key] = scale.tolist()\n",
    "get_alias": (
        "cached = self._d.get(key)\nif cached is None:\n"
        "    cached = scale.tolist()\n    self._d[key] = cached\n"
    ),
    "layer_private": (
        "if layer._o is None:\n    layer._o = scale.cpu().item()\n"
        "    self.k = 1 / layer._o\n"
    ),
    "getattr_alias_early_return": (
        'cached = getattr(layer, "_v", None)\nif cached is not None:\n'
        "    return cached\nif scale is None:\n    v = 1.0\nelse:\n"
        "    v = float(scale.item())\nlayer._v = v\nreturn v\n"
    ),
    "and_test": "if self._x is None and key:\n    self._x = scale.item()\n",
    # In blocks of other statements (each one holding the sync's row is
    # looked into), after a statement with blocks that holds none.
    "nested_blocks": (
        "for i in range(2):\n    with torch.no_grad():\n        pass\n"
        "try:\n    for i in range(2):\n        with torch.no_grad():\n"
        "            if self._x is None:\n                self._x = scale.item()\n"
        "except ValueError:\n    pass\n"
    ),
    "after_leaving_if_in_a_loop": (
        "while key:\n    if self._x is not None:\n        break\n"
        "    self._x = scale.item()\n"
    ),
}


@pytest.mark.parametrize("body", CACHED.values(), ids=CACHED.keys())
def test_a_sync_filling_a_persistent_cache_is_not_reported(body: str) -> None:
    assert findings(body) == []


PER_STEP = {
    # A local is empty again each call.
    "local": "x = None\nif x is None:\n    x = scale.item()\n",
    # The arm does not store the slot.
    "no_store": "if self._x is None:\n    y = scale.item()\n",
    "other_slot": "if self._x is None:\n    self._y = scale.item()\n",
    "other_key": "if key not in self._d:\n    self._d[0] = scale.tolist()\n",
    # The arm may leave before the store.
    "leaves_first": (
        "if self._x is None:\n    v = scale.item()\n    if v:\n        return v\n"
        "    self._x = v\n"
    ),
    # The object between may be built anew each step.
    "deeper_chain": ("if self.meta.x is None:\n    self.meta.x = scale.nonzero()\n"),
    # A public field of another parameter (a per-step batch's).
    # (A field named as a host copy would be a fallback for a missing copy,
    # test_atn203_fallback.py.)
    "public_field_of_parameter": (
        "if layer.lens is None:\n    layer.lens = scale.cpu()\n"
    ),
    # The test says the slot is full: its arm runs every step.
    "full_arm": "if self._x is not None:\n    self._x = scale.item()\n",
    "or_test": "if self._x is None or key:\n    self._x = scale.item()\n",
    # The early return does not always leave.
    "no_early_return": (
        'cached = getattr(layer, "_v", None)\nif cached is not None:\n'
        "    pass\nlayer._v = scale.item()\n"
    ),
    # The alias is rebound between.
    "rebound_alias": (
        'cached = getattr(layer, "_v", None)\ncached = scale\n'
        "if cached is not None:\n    return cached\nlayer._v = scale.item()\n"
    ),
}


@pytest.mark.parametrize("body", PER_STEP.values(), ids=PER_STEP.keys())
def test_a_sync_not_filling_a_persistent_cache_is_reported(body: str) -> None:
    (finding,) = findings(body)
    assert finding.code == "ATN203"


def test_a_private_attribute_of_a_module_functions_parameter_is_reported() -> None:
    source = (
        "def forward(source, lens):\n"
        '    cached = getattr(source, "_m", None)\n'
        "    if cached is None:\n"
        "        cached = int(lens.max().item())\n"
        "        source._m = cached\n"
        "    return cached\n"
    )
    (finding,) = check_source(source, "b.py", SETTINGS)
    assert "item" in finding.message


def test_the_test_itself_and_code_after_the_fill_are_still_reported() -> None:
    body = (
        "if self._x is None:\n    self._x = scale.item()\nif scale.any():\n    pass\n"
    )
    (finding,) = findings(body)
    assert finding.location.row == 8


_BETWEEN = {
    # (the statement between the binding and the test, whether it rebinds)
    "augmented": ("c += 1", True),
    "comprehension_target": ("[c for c in range(3)]", True),
    "walrus": ("print(c := 2)", True),
    "deleted": ("del c", True),
    "loop_target": ("for c in y:\n    pass", True),
    "with_target": ("with f() as c:\n    pass", True),
    "nested_function": ("def g():\n    c = 1", True),
    "over_rows": ("y = [\n    1\n    for\\\n    c in z\n]", True),
    "read_only": ("x = (1,\n     c)", False),
    "other_names": ("x = 1", False),
    "longer_name": ("cc = 1", False),
    "not_ascii": ("x = 'é'  # 注释\ny = x", False),
}


@pytest.mark.parametrize(("between", "rebinds"), _BETWEEN.values(), ids=_BETWEEN.keys())
def test_alias_value_with_the_text_answers_as_the_walk(between: str, rebinds: bool):
    """``_alias_value`` with the statements' text (a pre-filter: a statement
    not holding the name is not walked) answers as it does walking each."""
    import ast

    from lint_rules.context import Context
    from lint_rules.rules.atn203_host_sync_in_hot_path import _alias_value

    source = (
        "def f(self, y, z):\n    c = getattr(self, 'x', None)\n"
        + textwrap.indent(between, "    ")
        + "\n    if c is None:\n        self.x = c = y.sum().item()\n    return c\n"
    )
    tree = ast.parse(source)
    ctx = Context(source, tree, "f.py", Settings().options)
    block = tree.body[0].body
    index = next(i for i, stmt in enumerate(block) if type(stmt) is ast.If)
    walked = _alias_value("c", block, index)
    assert _alias_value("c", block, index, ctx.node_text) is walked
    assert (walked is None) is rebinds
