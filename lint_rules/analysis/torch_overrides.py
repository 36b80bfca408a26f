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
from collections.abc import Iterable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.class_hooks import class_block, class_hooks
from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.nodes import callee_name, statements_under, walk, walk_rows

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
        found = _overrides(model) or _registers_torch_kernel(model)
        model.derived["torch overrides"] = found
    return found  # type: ignore[return-value]


#: torch's own operator namespaces, whose kernels every rule reads by name.
_TORCH_NAMESPACES = frozenset({"aten", "prims"})
#: What registers a kernel for an operator given by name
#: (``torch.library.impl("aten::neg", "CPU")``).
_KERNEL_REGISTRATIONS = frozenset(
    {"impl", "register_kernel", "register_autograd", "register_torch_dispatch"}
)


def _registers_torch_kernel(model: ModuleModel) -> str | None:
    """How the module registers a kernel of its own for one of torch's
    operators (``torch.library.Library("aten", "IMPL").impl("neg", f,
    "CPU")``, ``@torch.library.impl("aten::neg", "CPU")``): ``torch.neg``
    then runs the module's code. A library of another namespace
    (``Library("mylib", "DEF")``) defines the module's own operators, which
    are unknown code wherever they are called."""
    text = model.text
    if (
        text is not None
        and prefilter.enabled()
        and not prefilter.may_respell_ascii(text)
        and "Library" not in text
        and "library" not in text
        and not any(name in text for name in _TORCH_NAMESPACES)
    ):
        return None
    for node in walk(model.tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = callee_name(node)
        if name is None:
            continue
        first = node.args[0]
        spelled = first.value if isinstance(first, ast.Constant) else None
        qualified = model.imports.qualified_name(func) or ""
        if name in ("Library", "_scoped_library") or qualified in (
            "torch.library.Library",
            "torch.library._scoped_library",
        ):
            # ``Library("aten", "IMPL")``; a namespace not spelled may be one
            if not isinstance(spelled, str) or spelled in _TORCH_NAMESPACES:
                return f"it makes `{ast.unparse(node)}`"
        elif name in _KERNEL_REGISTRATIONS or qualified.startswith("torch.library."):
            if isinstance(spelled, str):
                namespace = spelled.partition("::")[0] if "::" in spelled else None
                torch_s = namespace in _TORCH_NAMESPACES
            else:
                # an operator object (``torch.ops.mylib.f``) names its
                # namespace; any other value (``NS + "::neg"``) may be torch's
                dotted = ast.unparse(first)
                torch_s = "ops." not in dotted or any(
                    f"ops.{n}." in dotted for n in _TORCH_NAMESPACES
                )
            if torch_s:
                return f"it calls `{ast.unparse(node)}`"
        elif isinstance(spelled, str) and (
            spelled in _TORCH_NAMESPACES
            or spelled.partition("::")[0] in _TORCH_NAMESPACES
        ):
            # a library made by another name (``Lib = torch.library.Library;
            # Lib("aten", "IMPL")``), whose ``impl("neg", f)`` then names
            # the operator without its namespace
            return f"it calls `{ast.unparse(node)}`"
    return None


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
    return any(name in text for name in _TRACING_PARTS)


#: Those of ``_TRACING`` that hold no other (``settrace`` is in
#: ``settrace_all_threads``): the text holds one of ``_TRACING`` where it
#: holds one of these.
_TRACING_PARTS = tuple(
    sorted(
        name for name in _TRACING if not any(o != name and o in name for o in _TRACING)
    )
)


def installs_tracing(model: ModuleModel) -> str | None:
    """How the module installs a trace, profile or audit hook (a short
    description), or None. Such a function sees every line and call of
    every function: deleting a statement, reusing a value or calling
    another function changes what it sees, and it may change anything."""
    found = model.derived.get("tracing", False)
    if found is False:
        found = None
        for node in walk(model.tree):
            if isinstance(node, ast.Attribute) and node.attr in _TRACING:
                found = f"`{ast.unparse(node)}`"
            elif isinstance(node, ast.Call) and _names_as_string(node, _TRACING):
                # ``getattr(sys, "settrace")``
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


#: Names of what installs code of the module that torch runs inside its own
#: operations, where no call of that code shows: autograd's saved-tensor
#: hooks (``saved_tensors_hooks(pack, unpack)``, a class deriving from it:
#: ``pack`` runs at every operation that saves a tensor for backward, in
#: the ``with`` and in whatever is called inside it), a parametrization
#: (``register_parametrization(m, "weight", P())``: every load of
#: ``m.weight`` runs ``P``'s ``forward``), and hooks on every module of
#: ``torch.nn`` (``register_module_parameter_registration_hook``: every
#: ``m.p = Parameter(...)`` runs it; the forward and backward ones every
#: call of a module).
_TORCH_CALLBACKS = frozenset(
    {
        "saved_tensors_hooks",
        "_push_saved_tensors_default_hooks",
        "register_parametrization",
        "register_module_forward_hook",
        "register_module_forward_pre_hook",
        "register_module_backward_hook",
        "register_module_full_backward_hook",
        "register_module_full_backward_pre_hook",
        "register_module_buffer_registration_hook",
        "register_module_module_registration_hook",
        "register_module_parameter_registration_hook",
        # (``logging.captureWarnings(True)``: a warning is then logged, by
        # the handlers the module gives ``logging``)
        "captureWarnings",
    }
)
#: What a ``warnings`` display runs (``warnings.showwarning = f``), and
#: where it writes (``sys.stderr = log``, ``redirect_stderr(log)``: its
#: ``write``): torch's operations that warn (``torch.tensor(t)`` of a
#: tensor) call it.
_WARNING_HOOKS = frozenset(
    {"showwarning", "formatwarning", "_showwarnmsg", "_showwarnmsg_impl", "stderr"}
)
_REDIRECTING = "redirect_stderr"


def may_install_torch_callbacks(text: str) -> bool:
    """A pre-filter of ``installs_torch_callbacks``: False only where the
    text holds none of the names it looks for."""
    if not prefilter.enabled() or prefilter.may_respell_ascii(text):
        return True
    return any(name in text for name in _TORCH_CALLBACKS) or any(
        name in text for name in _WARNING_HOOKS
    )  # (``redirect_stderr`` holds ``stderr``)


def installs_torch_callbacks(model: ModuleModel) -> str | None:
    """How the module gives torch (or ``warnings``) code of its own that
    runs inside torch's operations (a short description), or None: a
    tensor operation, an attribute load or store of a module, a call that
    warns then runs that code, which may change anything it reaches, where
    every rule reads the operation as torch's alone."""
    found = model.derived.get("torch callbacks", False)
    if found is False:
        found = None
        for node in walk(model.tree):
            name = None
            if isinstance(node, ast.Attribute):
                name = node.attr
                if name == _REDIRECTING:
                    found = f"`{ast.unparse(node)}`"
                    break
                if name in _WARNING_HOOKS:
                    if not isinstance(node.ctx, ast.Store):
                        continue
                    found = f"`{ast.unparse(node)}`"
                    break
            elif isinstance(node, ast.Name):
                name = node.id
                if name == _REDIRECTING:
                    found = f"`{name}`"
                    break
            elif isinstance(node, ast.ImportFrom):
                names = [alias.name for alias in node.names]
                if _REDIRECTING in names:
                    found = f"`{_REDIRECTING}`"
                    break
                name = next((n for n in names if n in _TORCH_CALLBACKS), None)
            elif isinstance(node, ast.Call) and _names_as_string(
                node, _TORCH_CALLBACKS | {_REDIRECTING}
            ):
                # ``getattr(torch.autograd.graph, "saved_tensors_hooks")``
                found = f"`{ast.unparse(node)}`"
                break
            elif isinstance(node, ast.Call) and len(node.args) >= 2:
                # ``setattr(warnings, "showwarning", f)``
                key = node.args[1]
                if (
                    isinstance(node.func, ast.Name)
                    and node.func.id == "setattr"
                    and isinstance(key, ast.Constant)
                    and key.value in _WARNING_HOOKS
                ):
                    found = f"`{ast.unparse(node)}`"
                    break
            if name is not None and name in _TORCH_CALLBACKS:
                found = f"`{name}`"
                break
        model.derived["torch callbacks"] = found
    return found  # type: ignore[return-value]


def _names_as_string(call: ast.Call, names: frozenset[str] | set[str]) -> bool:
    """Whether ``call`` looks up one of ``names`` given as a string
    (``getattr(sys, "settrace")``, ``attrgetter("settrace")``)."""
    name = callee_name(call)
    if name in ("getattr", "hasattr"):
        arguments = call.args[1:2]
    elif name in ("attrgetter", "methodcaller"):
        arguments = call.args
    else:
        return False
    return any(
        isinstance(argument, ast.Constant) and argument.value in names
        for argument in arguments
    )


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
        for stmt in class_block(cls.body):
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
    # (bound otherwise: a lambda, ``C.__torch_function__ = f``, ``setattr``,
    # a class made by ``type(...)``)
    dunders = class_hooks(model).dunders
    for name in _OVERRIDES:
        if name in dunders:
            return f"a class of the module binds `{name}`"
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
            for stmt in class_block(cls.body):
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
    rows = _expression_rows(model)
    if rows is not None and not _stores_into(rooted, _candidates(model, rows)):
        return None
    # (where the candidates hold one, the walk of every node tells which
    # comes first, as it always did)
    return _stores_into(rooted, walk(model.tree))


#: What ``_stores_into`` looks for inside expressions (everything else it
#: looks for is a statement, or a ``with`` statement's item).
_IN_EXPRESSIONS = (ast.NamedExpr, ast.comprehension, ast.Call)


def _candidates(model: ModuleModel, rows: list[int]) -> Iterator[ast.AST]:
    """The nodes among which ``_stores_into`` finds one exactly when it
    finds one among every node of the module: every statement (by a walk of
    the blocks alone) and ``with`` item, and the nodes of ``_IN_EXPRESSIONS``
    on ``rows`` (``_expression_rows``)."""
    for node in statements_under(model.tree):
        yield node
        if type(node) is ast.With or type(node) is ast.AsyncWith:
            yield from node.items  # type: ignore[attr-defined]
    for node in walk_rows(model.tree, rows, {}, leaves=False):
        if type(node) in _IN_EXPRESSIONS:
            yield node


def _expression_rows(model: ModuleModel) -> list[int] | None:
    """The rows where an expression ``_stores_into`` looks for may stand
    (sorted), or None where the text cannot tell (no text, the pre-filters
    off, a carriage return, identifiers Python may read as ASCII ones from
    other characters):

    - an assignment expression spans the row of its ``:=``;
    - a comprehension's display spans the row of its ``for`` keyword;
    - a call of a setter spans the row where its name (or attribute) ends,
      ``setattr`` or another of ``_SETTERS``."""
    text = model.text
    if text is None or not prefilter.enabled() or prefilter.may_respell_ascii(text):
        return None
    walrus = model.walrus_rows
    if walrus is None or model.rows_naming is None:
        return None
    rows = set(walrus)
    rows.update(model.rows_naming(_SETTERS, 1, text.count("\n") + 1))
    rows.update(keyword_rows(text, "for"))
    return sorted(rows)


def keyword_rows(text: str, keyword: str) -> list[int]:
    """The rows of ``text`` (with no carriage return) where ``keyword`` may
    stand as a keyword: each occurrence not inside a longer name, that is
    followed by no word character and preceded by none, or by what may end
    a number (a digit, the ``j`` of an imaginary one: ``1for`` reads as
    ``1 for``). Comments and strings are not told apart (more rows)."""
    rows: list[int] = []
    row, counted = 1, 0
    size = len(keyword)
    end = len(text)
    position = text.find(keyword)
    while position >= 0:
        after = position + size
        before = text[position - 1] if position else " "
        if (after >= end or not _is_word(text[after])) and (
            not _is_word(before) or before in _NUMBER_ENDS
        ):
            row += text.count("\n", counted, position)
            counted = position
            if not rows or rows[-1] != row:
                rows.append(row)
        position = text.find(keyword, after)
    return rows


_NUMBER_ENDS = frozenset("0123456789jJ")


def _is_word(char: str) -> bool:
    """Whether ``char`` may be part of a name (``\\w``)."""
    return char == "_" or char.isalnum()


def _stores_into(rooted: set[str], nodes: Iterable[ast.AST]) -> str | None:
    """How one of ``nodes`` stores into (or calls a setter on) a name rooted
    in torch or the builtins, given the names ``rooted`` so far (to which
    the names assigned from one are added), or None."""
    rooted = set(rooted)
    assignments: list[tuple[list[ast.expr], ast.expr]] = []
    stores: list[ast.expr] = []
    setters: list[ast.Call] = []
    for node in nodes:
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
    # (each value's root once: most have none, a call's result)
    rooted_assignments = [
        (root, targets)
        for targets, value in assignments
        if (root := _root(value)) is not None
    ]
    changed = True
    while changed:
        changed = False
        for root, targets in rooted_assignments:
            if root in rooted:
                for target in targets:
                    for name in _bound_names(target):
                        if name not in rooted:
                            rooted.add(name)
                            changed = True
    for store in stores:
        if type(store) is ast.Name:
            continue  # (binds a name: no store into an object)
        for node in walk(store):
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
