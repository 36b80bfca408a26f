"""Whether a module changes what torch's own names do.

Every rule reads torch's functions and methods by their names
(``torch_api``): ``x.copy_(y)`` writes all of ``x``, ``t.item()`` changes
nothing, ``torch.zeros`` fills with zeros; and the builtins (``len``,
``range``) too. A module that replaces one of them (``torch.Tensor.copy_ =
f``, ``setattr(torch.Tensor, "item", g)``, ``F.relu = h``, ``builtins.len =
k``) or defines a tensor subclass or mode whose
``__torch_function__`` / ``__torch_dispatch__`` runs instead of torch's
code makes those names the module's own code: a safe fix that relies on
them may change what the program computes. Such a module's safe fixes are
made unsafe (``checker``); the findings stay.

What another module does to torch is not seen (as any code of another
module replacing a function is not).
"""

from __future__ import annotations

import ast

from lint_rules import prefilter
from lint_rules.analysis.model import ModuleModel

#: Special methods by which a class's objects take over torch's functions.
_OVERRIDES = ("__torch_function__", "__torch_dispatch__")
#: torch's tensor classes (by their last name under ``torch.``).
_TENSOR_CLASSES = frozenset(
    {"Tensor", "Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"}
)
_SETTERS = frozenset({"setattr", "delattr", "__setattr__", "__delattr__"})


def torch_overrides(model: ModuleModel) -> str | None:
    """How the module changes torch's code or a builtin (a short
    description), or None."""
    found = model.derived.get("torch overrides", False)
    if found is False:
        found = model.derived["torch overrides"] = _overrides(model)
    return found  # type: ignore[return-value]


#: Names of what installs a function that runs at every line or call
#: (``sys.settrace``, ``sys.setprofile``, ``threading``'s, ``sys.monitoring``),
#: or at every audited event (``sys.addaudithook``: ``id(x)``, ``open``...).
_TRACING = frozenset(
    {
        "settrace",
        "setprofile",
        "settrace_all_threads",
        "setprofile_all_threads",
        "monitoring",
        "addaudithook",
    }
)


def may_install_tracing(text: str) -> bool:
    """A pre-filter of ``installs_tracing``: False only where the text holds
    none of the names it looks for (an attribute or an imported name must
    be spelled in it; identifiers Python may read as ASCII ones from other
    characters keep it True)."""
    if not prefilter.enabled() or prefilter.may_respell_ascii(text):
        return True
    return any(name in text for name in _TRACING)


def installs_tracing(model: ModuleModel) -> str | None:
    """How the module installs a trace, profile or audit hook (a short
    description), or None. Such a function sees every line and call of
    every function: deleting a statement, reusing a value or calling
    another function changes what it sees, and it may change anything."""
    found = model.derived.get("tracing", False)
    if found is False:
        found = None
        for node in ast.walk(model.tree):
            if isinstance(node, ast.Attribute) and node.attr in _TRACING:
                found = f"`{ast.unparse(node)}`"
            elif isinstance(node, ast.ImportFrom) and node.module in (
                "sys",
                "threading",
            ):
                names = [alias.name for alias in node.names]
                if any(name in _TRACING for name in names):
                    found = f"`{node.module}.{next(n for n in names if n in _TRACING)}`"
            if found is not None:
                break
        model.derived["tracing"] = found
    return found  # type: ignore[return-value]


def _root(expr: ast.AST) -> str | None:
    """The name an attribute chain starts from (``torch`` of
    ``torch.Tensor.copy_``); None for anything else: a call's result or an
    item is a value torch made, not torch's own code."""
    while True:
        if isinstance(expr, ast.Attribute):
            expr = expr.value
        elif (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id in ("getattr", "vars")
            and expr.args
        ):
            expr = expr.args[0]  # ``getattr(torch, "Tensor")``, ``vars(torch)``
        else:
            break
    return expr.id if isinstance(expr, ast.Name) else None


def _bound_names(target: ast.AST) -> list[str]:
    """The names a target binds (not those an attribute or item store reads)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _bound_names(element)]
    return []


def _overrides(model: ModuleModel) -> str | None:
    for cls in model.class_defs:
        for stmt in cls.body:
            names: list[str] = []
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [stmt.name]
            elif isinstance(stmt, ast.Assign | ast.AnnAssign):
                targets = (
                    stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                )
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            for name in names:
                if name in _OVERRIDES:
                    return f"class `{cls.name}` defines `{name}`"
    imports = model.imports
    # A tensor subclass of the module: its methods run for torch's names on
    # its tensors (``x.copy_(y)``, ``x[:] = y``), and torch's functions
    # return it for their results (``zeros_like`` of one).
    tensor_classes: set[str] = set()
    changed = True
    while changed:
        changed = False
        for cls in model.class_defs:
            if cls.name in tensor_classes:
                continue
            for base in cls.bases:
                qualified = imports.qualified_name(base) or ""
                if (
                    isinstance(base, ast.Name)
                    and base.id in tensor_classes
                    or qualified.startswith("torch.")
                    and qualified.rpartition(".")[2] in _TENSOR_CLASSES
                ):
                    tensor_classes.add(cls.name)
                    changed = True
                    break
    for cls in model.class_defs:
        if cls.name in tensor_classes:
            for stmt in cls.body:
                if isinstance(
                    stmt,
                    ast.FunctionDef | ast.AsyncFunctionDef | ast.Assign | ast.AnnAssign,
                ):
                    return f"its tensor subclass `{cls.name}` defines its own code"
    # Names bound to torch or to something reached through it: imports,
    # then (to a fixed point) names assigned such a value anywhere.
    rooted = {
        local
        for local, module in imports.modules.items()
        if module == "torch" or module.startswith("torch.")
    } | {
        local
        for local, name in imports.names.items()
        if name == "torch" or name.startswith("torch.")
    }
    # And names bound to the ``builtins`` module (``len``, ``range``,
    # ``print`` are read by name too).
    builtin = {"__builtins__"} | {
        local for local, module in imports.modules.items() if module == "builtins"
    }
    # A tensor class of the module is one of torch's for this
    # (``Sub.__torch_function__ = f``).
    rooted |= builtin | tensor_classes
    assignments: list[tuple[list[ast.expr], ast.expr]] = []
    stores: list[ast.expr] = []
    setters: list[ast.Call] = []
    for node in ast.walk(model.tree):
        if isinstance(node, ast.Assign):
            assignments.append((node.targets, node.value))
            stores += node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
            if node.value is not None:
                assignments.append(([node.target], node.value))
            stores.append(node.target)
        elif isinstance(node, ast.Delete):
            stores += node.targets
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            stores.append(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            stores.append(node.optional_vars)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else None
            if isinstance(func, ast.Attribute):
                name = func.attr
            if name in _SETTERS:
                setters.append(node)
    changed = True
    while changed:
        changed = False
        for targets, value in assignments:
            if _root(value) in rooted:
                for target in targets:
                    for name in _bound_names(target):
                        if name not in rooted:
                            rooted.add(name)
                            changed = True
    for store in stores:
        for node in ast.walk(store):
            if not isinstance(node, ast.Attribute | ast.Subscript):
                continue
            if not isinstance(node.ctx, ast.Store | ast.Del):
                continue
            # ``builtins.__dict__["len"] = f``, ``vars(torch)["zeros"] = f``.
            if _root(node.value) in rooted:
                return f"it stores into `{ast.unparse(node)}`"
    for call in setters:
        for argument in call.args[:2]:
            if _root(argument) in rooted:
                return (
                    f"it calls `{ast.unparse(call.func)}` on `{ast.unparse(argument)}`"
                )
    return None
