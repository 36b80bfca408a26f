"""Facts about one function that several rules ask are computed once: the
rules of a file share them through the flow (as they share the invalidation
analysis), and what they share is what a fresh computation gives."""

from __future__ import annotations

import ast

from lint_rules.analysis import tensor_effects
from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.tensor_effects import (
    TensorUses,
    basic_index_names,
    bound_names,
    local_allocations,
    tensor_uses_for,
)
from lint_rules.checker import check_source
from lint_rules.config import Settings

SOURCE = (
    "import torch\n\n"
    "def f(y, n, idx):\n"
    "    x = torch.zeros(n)\n"
    "    x.copy_(y)\n"
    "    e = torch.empty(n)\n"
    "    i = len(y)\n"
    "    for j in range(n):\n"
    "        pass\n"
    "    w = y + 1\n"
    "    w.zero_()\n"  # ATN104 in the same function
    "    w.copy_(y)\n"
    "    return x, e.sum(), i, j, w\n"
)


def _function_flow():
    tree = ast.parse(SOURCE)
    model = ModuleModel(tree, SOURCE)
    function = tree.body[1]
    return model, model.flow(function), model.scope(function)


def test_each_fact_is_computed_once_per_function():
    model, flow, scope = _function_flow()
    assert tensor_uses_for(flow, scope) is tensor_uses_for(flow, scope)
    assert local_allocations(flow, scope) is local_allocations(flow, scope)
    assert bound_names(flow) is bound_names(flow)
    assert basic_index_names(flow, scope) is basic_index_names(flow, scope)


def test_shared_facts_equal_fresh_ones():
    _, flow, scope = _function_flow()
    assert (
        bound_names(flow)
        == tensor_effects._bound_names(flow)
        == {"y", "n", "idx", "x", "e", "i", "j", "w"}
    )
    assert basic_index_names(flow, scope) == {"i", "j"}
    assert basic_index_names(flow, scope) == tensor_effects._basic_index_names(
        flow, scope
    )
    fresh = tensor_effects._local_allocations(flow, scope)
    assert [a.target.id for a in local_allocations(flow, scope)] == ["x", "e"]
    assert local_allocations(flow, scope) == fresh


def test_other_names_get_their_own_answer():
    # (another scope, or the module's imports, may say other things)
    model, flow, scope = _function_flow()
    first = basic_index_names(flow, scope)
    assert basic_index_names(flow, None) is not first
    assert basic_index_names(flow, scope) is not first  # recomputed, still equal
    assert basic_index_names(flow, scope) == first


def test_tensor_rules_build_one_tensor_uses_per_function(monkeypatch):
    built = []
    original = TensorUses.__init__

    def counting(self, flow, names, calls=None):
        built.append((flow.function.name, calls is not None))
        original(self, flow, names, calls)

    monkeypatch.setattr(TensorUses, "__init__", counting)
    findings = check_source(SOURCE, "f.py", Settings())
    assert sorted(f.code for f in findings) == ["ATN101", "ATN103", "ATN104"]
    # ATN101 and ATN104 ask with what calls do (the summaries), ATN103 without:
    # one each per function, shared by the rules that ask the same.
    assert sorted(built) == [("f", False), ("f", True)]
