"""Can anything executed between two points of a function change what an expression reads?

An expression reads *access paths*: a root name followed by attribute names and
subscripts (``self.meta[bs].max_len`` is ``("self", "meta", "[]", "max_len")``;
every subscript is the same ``[]``, its index being read separately). Code
between the two points makes *changes* (``Change``), listed per block in
evaluation order:

- ``REBIND name``: the name is bound again or deleted;
- ``STORE path``: an attribute or item store (or ``del``) at ``path``: the
  slot changes, and with it the object that holds it, not the objects that
  were or are now stored there; into an object other code holds, it may be
  a store into the module's namespace (``globals()``, ``f.__globals__``),
  rebinding any global;
- ``WRITE path``: the object at ``path``, or something reachable from it, may
  change in place: an augmented assignment, an in-place tensor method (a name
  ending in ``_``), any other method called on it (a method a class of the
  module defines is that code, whatever torch's of the name does), passing
  it to a call that is not known to leave its arguments alone (a torch
  function given it as
  ``out``, by keyword or position, or with ``inplace``, ``training`` or
  ``max_norm`` set, is not), or formatting it (``print(o)``, ``str(o)``,
  ``f"{o}"`` run its ``__str__``/``__format__``);
- ``CALL path``: the object at ``path`` is called: a local holding a bound
  method (``add = x.add_``) changes the object it is bound to;
- ``ANY_CODE``: code this function cannot see runs (an unknown call, a
  ``sorted(key=...)``, a generator iterated), so what it can reach may change:
  globals and closure cells, and the objects that escaped to such code (a
  local bound to what unknown code returned, ``t = get()``; a path given to
  it, ``register(t)``, ``t.attach()``);
- ``BARRIER``: ``await``/``yield``: the function is suspended, anything may change;
  so may it while entering or leaving ``with lock:`` (other threads run), and
  ``loss.backward()`` accumulates into the ``.grad`` of any leaf;
- ``MODE``: a torch function sets a global mode (``torch.set_grad_enabled``,
  ``torch.set_default_dtype``): no object changes, but a tensor operation
  after it may compute another value than the same one before
  (``mode_may_change_between``; unknown code and ``with`` blocks may too).

A read path and a written path conflict when one is a prefix of the other:
``m.buf.copy_(y)`` writes ``m.buf``, which changes ``m.buf[0]`` and (through its
contents) any computation over ``m``'s ``buf``, but not ``m.k``. Views of a
tensor's own memory (``x.data``, ``x.T``, ``x.mT``, ``x.real``) are the
tensor, and ``o.__dict__[k] = v`` stores any attribute of ``o`` (as
``o.__class__ = C`` does: ``C`` decides what each attribute access runs).

Aliasing is per function: ``y = x[:2]`` (or ``m.k = x``, or ``lst.append(x)``)
makes writes through one reach reads through the other, if the alias is made
anywhere the later read can be reached from. Distinct parameters, and paths
with distinct roots the function never connects, are assumed to name distinct
objects, and a parameter's object is not reachable by unknown code unless the
function gives it away; but an object that came from unknown code (``t =
get()``, ``t = g()`` of a closure) or was given to it (``keep(x)``, a
pointer from ``x.data_ptr()``) may be, or be inside, any object such code
reaches (a global, a name a nested scope uses, anything else handed over),
and a tensor's ``.grad`` is reached by any ``backward()`` unknown code
runs; attribute stores and loads are assumed to be plain (no properties
with side effects), and so are the operators and conversions
applied to values (``+``, ``<``, ``len``, ``int``: no ``__add__`` or
``__len__`` that changes state); arithmetic makes new objects (true of tensors
and numbers), but a container joined or repeated by an operator (``[x] + ys``,
``(x,) * 2``, ``d | {"k": x}``) holds its operands' items, and ``+x`` is
``x``: the assumptions a
reader of a replay path makes too. Who a name is (a torch function, a
builtin, a local) the function's scope says; what a torch method or function
does, ``torch_api``.

Use: ``analysis = invalidation_for(flow, model.scope(function))``;
``analysis.point(node)`` (or ``Point(block, stmt)``) names a place;
``executes_before(p1, p2)`` says the first always runs before the second;
``changed_between(analysis.read_paths(e), p1, p2)`` returns the first change
that may change what ``e`` reads, or None.
"""

from __future__ import annotations

import ast
import enum
import weakref
from collections.abc import Container, Iterable, Iterator

from lint_rules.analysis.class_hooks import (
    FORMATTING_HOOKS,
    ClassHooks,
    module_class_hooks,
    module_runs_finalizers,
)
from lint_rules.analysis.flow import Block, FunctionFlow, Kind
from lint_rules.analysis.nodes import LEAVES, TryStar, child_nodes
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.analysis.scopes import Scope
from lint_rules.analysis.torch_api import (
    CALLING_METHODS,
    DETERMINISTIC_METHODS,
    DUCK_CALLS,
    FRESH_METHODS,
    GRAD_MODE_MANAGERS,
    GRAD_MODE_READERS,
    GRAD_MODE_SETTERS,
    GRADIENT_FUNCTIONS,
    GRADIENT_METHODS,
    ITERATING_FUNCTIONS,
    METADATA_ATTRIBUTES,
    MODE_NEUTRAL_MANAGERS,
    MODE_SETTER_NAMES,
    NAMESPACE_ATTRIBUTES,
    NO_EFFECT_METHODS,
    SHARING_IN_PLACE_METHODS,
    VIEW_ATTRIBUTES,
    is_inplace_method,
    sets_global_mode,
    written_arguments,
)
from lint_rules.analysis.value_kinds import number_names
from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.imports import ImportMap

    Names = Scope | ImportMap

Path = tuple[str, ...]
SUBSCRIPT = "[]"

# Builtins that change none of their arguments.
NO_EFFECT_BUILTINS = frozenset(
    {
        "len", "isinstance", "issubclass", "int", "float", "bool", "str",
        "repr", "min", "max", "abs", "round", "sum", "any", "all", "range",
        "enumerate", "zip", "tuple", "list", "dict", "set", "frozenset",
        "sorted", "reversed", "hash", "id", "type", "hasattr", "getattr",
        "divmod", "pow", "format", "print", "callable", "iter", "slice", "ord",
        "chr", "bin", "hex",
    }
)  # fmt: skip
# ... of which these return a value sharing nothing with the arguments.
# (Not ``sum``: it returns its start when there is nothing to add,
# ``sum([], x)``, and a sum of lists holds their items.)
FRESH_BUILTINS = frozenset(
    {
        "len", "isinstance", "issubclass", "int", "float", "bool", "str",
        "repr", "abs", "round", "any", "all", "hash", "id", "hasattr",
        "divmod", "pow", "format", "print", "callable", "range", "ord", "chr",
        "bin", "hex",
    }
)  # fmt: skip
# ... and these are deterministic functions of what they read.
DETERMINISTIC_BUILTINS = frozenset(
    {"len", "isinstance", "int", "float", "bool", "str", "abs", "min", "max", "round"}
)
# Builtins that format their arguments, running their ``__str__``,
# ``__repr__`` or ``__format__`` (user code, which may change them).
_FORMATTING_BUILTINS = frozenset({"print", "str", "repr", "format", "ascii"})
# Builtins that iterate over an argument (running a generator's code).
_ITERATING_BUILTINS = frozenset(
    {
        "list", "tuple", "dict", "set", "frozenset", "sorted", "sum", "any",
        "all", "min", "max", "enumerate", "zip", "reversed", "iter",
    }
)  # fmt: skip
# ... of which these iterate their argument only when given one (``min(a, b)``
# compares two values).
_ONE_ITERABLE = frozenset({"min", "max"})
# Tensor methods whose results (lists, tuples of tensors) are iterated
# without running user code. (A dict's ``items()`` would be too, but a
# method known by name only may be another type's, returning a generator.)
_PLAIN_ITERABLE_METHODS = frozenset({"tolist", "split", "chunk", "unbind"})
_MUTATING_KEYWORDS = frozenset({"out", "inplace"})
#: Methods of a ``list`` that run no other code: they change the list (and
#: ``append`` keeps its argument) and nothing else. (``pop`` and ``insert``
#: read an index through ``__index__``, ``extend`` iterates, ``remove``,
#: ``index`` and ``sort`` compare elements: code of the elements' classes.)
_LIST_METHODS_RUNNING_NO_CODE = frozenset({"append", "clear", "copy", "reverse"})
# Expressions whose value holds (or is) the value of a part: a call given
# one of them receives that part's object too.
_CARRIERS = (
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.Starred,
    ast.keyword,
    ast.IfExp,
    ast.BoolOp,
    ast.NamedExpr,
    ast.Attribute,
    ast.Subscript,
)
_DEFINITIONS = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FOREIGN_BINDERS = (ast.Import, ast.ImportFrom, ast.ExceptHandler, ast.pattern)
_COMPREHENSION_TYPES = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_ALIAS_LIMIT = 64
_HUB = "<call>"  # root of the synthetic path linking a call's arguments
_GRAD = "grad"
_SCOPE_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ALIASING_NODES = (
    ast.Assign,
    ast.AnnAssign,
    ast.NamedExpr,
    ast.AugAssign,
    ast.For,
    ast.AsyncFor,
    ast.withitem,
    ast.Call,
    ast.Match,
    ast.comprehension,
)


class ChangeKind(enum.Enum):
    """The kinds of ``Change`` (see the module's documentation)."""

    REBIND = "rebind"
    STORE = "store"
    WRITE = "write"
    CALL = "call"
    ANY_CODE = "any-code"
    BARRIER = "barrier"
    MODE = "mode"


class Change(Record):
    """Something evaluated code does that may change what a later read sees,
    at ``node`` (``tensor_effects.UseEffect`` is the other question: what one
    use of a tensor does to its elements)."""

    __slots__ = ("kind", "path", "node")
    _fields = __slots__

    def __init__(
        self, kind: ChangeKind, path: Path = (), node: ast.AST | None = None
    ) -> None:
        self.kind = kind
        self.path = path
        self.node = node


class Point(Record):
    """A point in a function: just before or just after evaluating ``node`` in ``block``."""

    __slots__ = ("block", "node")
    _fields = __slots__

    def __init__(self, block: Block, node: ast.AST) -> None:
        self.block = block
        self.node = node


class Chains:
    """A function's blocks cut into straight runs: in a run, each block after
    the first has the one before as its only predecessor, and is that one's
    only successor. So a block reaches every later block of its run, and
    reaches the second or a later block of a run only through the run's
    first. Which blocks can reach a block (asked for most blocks of a long
    function) is then a question about runs, of which a function of
    thousands of plain statements has few: listed block by block, the
    answers took the square of the number of statements.
    """

    __slots__ = ("chain", "position", "heads", "_runs")

    def __init__(self, blocks: list[Block]) -> None:
        count = len(blocks)
        preds = [{pred.index for pred in block.preds} for block in blocks]
        successors = [0] * count  # how many blocks name each as a predecessor
        for indices in preds:
            for index in indices:
                successors[index] += 1
        after = [-1] * count  # the next block of the run
        first = [True] * count
        for index, indices in enumerate(preds):
            if len(indices) == 1:
                (pred,) = indices
                if pred != index and successors[pred] == 1:
                    after[pred] = index
                    first[index] = False
        self.chain = [-1] * count
        self.position = [0] * count
        self.heads: list[Block] = []
        for block in blocks:
            if first[block.index]:
                self._run(block, after)
        # Runs closed in a ring have no first block (code nothing reaches):
        # each of their blocks is a run of its own.
        for block in blocks:
            if self.chain[block.index] < 0:
                self._run(block, None)
        self._runs: dict[int, frozenset[int]] = {}

    def _run(self, head: Block, after: list[int] | None) -> None:
        chain = len(self.heads)
        self.heads.append(head)
        index, position = head.index, 0
        while index >= 0:
            self.chain[index] = chain
            self.position[index] = position
            position += 1
            index = after[index] if after is not None else -1

    def runs_reaching(self, chain: int) -> frozenset[int]:
        """The runs with a block from which the first block of ``chain`` can
        be reached (``chain`` itself if it is in a loop)."""
        found = self._runs.get(chain)
        if found is None:
            heads, chains = self.heads, self.chain
            seen: set[int] = set()
            stack = [chains[pred.index] for pred in heads[chain].preds]
            while stack:
                run = stack.pop()
                if run not in seen:
                    seen.add(run)
                    stack.extend(chains[pred.index] for pred in heads[run].preds)
            found = self._runs[chain] = frozenset(seen)
        return found


class Reaching:
    """The indices of the blocks from which a block can be reached, itself
    included (``index in reaching``), told by their runs (``Chains``): a
    block of a run that reaches this block's run, or an earlier block of its
    run (or itself)."""

    __slots__ = ("_chains", "_chain", "_position", "_runs")

    def __init__(self, chains: Chains, index: int) -> None:
        self._chains = chains
        self._chain = chains.chain[index]
        self._position = chains.position[index]
        self._runs = chains.runs_reaching(self._chain)

    def __contains__(self, index: object) -> bool:
        chains = self._chains
        if not isinstance(index, int) or not 0 <= index < len(chains.chain):
            return False
        chain = chains.chain[index]
        return chain in self._runs or (
            chain == self._chain and chains.position[index] <= self._position
        )


def access_path(expr: ast.AST) -> Path | None:
    """``("m", "buf", "[]")`` for ``m.buf[i]``; None unless names, attributes, subscripts."""
    parts: list[str] = []
    while True:
        if isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        elif isinstance(expr, ast.Subscript):
            parts.append(SUBSCRIPT)
            expr = expr.value
        elif isinstance(expr, ast.Name):
            parts.append(expr.id)
            return tuple(reversed(parts))
        else:
            return None


def paths_conflict(a: Path, b: Path) -> bool:
    """One path is a prefix of the other: a write to one may change a read of
    the other. Views of a tensor's own memory (``x.data``, ``x.T``,
    ``x.real``) are the tensor, and ``o.__dict__[k]`` (or ``o.__class__``)
    is any attribute of ``o``: paths are compared without them."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return True
    if _SEE_THROUGH.isdisjoint(a) and _SEE_THROUGH.isdisjoint(b):
        return False
    a, b = _seen_through(a), _seen_through(b)
    n = min(len(a), len(b))
    return a[:n] == b[:n]


_SEE_THROUGH = VIEW_ATTRIBUTES | NAMESPACE_ATTRIBUTES


def _seen_through(path: Path) -> Path:
    """``path`` without view attributes, cut at a namespace attribute
    (``("o", "__dict__", "[]")`` is every attribute of ``o``: ``("o",)``)."""
    kept: list[str] = [path[0]]
    for part in path[1:]:
        if part in NAMESPACE_ATTRIBUTES:
            break
        if part not in VIEW_ATTRIBUTES:
            kept.append(part)
    return tuple(kept)


_UNKNOWN = object()


def invalidation_for(flow: FunctionFlow, names: Names | None = None) -> Invalidation:
    """The (cached) invalidation analysis of ``flow``: rules of one file share
    it. ``names`` is the function's scope (who each name is)."""
    analysis = flow.analyses.get("invalidation")
    if analysis is None:
        analysis = flow.analyses["invalidation"] = Invalidation(flow, names)
    return analysis


class Invalidation:
    """Effects of a function's code, and whether they can change a set of reads."""

    def __init__(self, flow: FunctionFlow, names: Names | None = None) -> None:
        self.flow = flow
        self.names = names
        self._escapes: dict[str, list[tuple[Path, int]]] = {}
        self._handed: dict[str, list[tuple[Path, int]]] = {}
        self._shared: dict[str, bool] = {}
        self._walks: dict[Block, _BlockWalk] = {}
        self._aliases: dict[str, dict[Path, list[tuple[Path, bool, int]]]] | None = None
        # The (path, other path, exact) of ``_aliases``' entries made where
        # they always count, and the earliest position of those made in each
        # run of blocks (``_alias``).
        self._alias_always: set[tuple[Path, Path, bool]] = set()
        self._alias_earliest: dict[tuple[tuple[Path, Path, bool], int], int] = {}
        self._alias_site = -1  # the block index of the alias being recorded
        self._site_node: ast.AST | None = None
        self._reaching: dict[Block, Reaching] = {}
        self._expanded: dict[
            tuple[Path, bool, Reaching | None], frozenset[Path] | None
        ] = {}
        self._parts: dict[Block, ast.AST] | None = None
        # The context managers of ``with`` items, whose ``__enter__`` (an
        # ``ANY_CODE`` effect at them) the walks have met.
        self._with_entries: set[int] = set()
        args = flow.function.args
        positional = [*args.posonlyargs, *args.args]
        self.first_parameter = positional[0].arg if positional else None

    def release(self) -> None:
        """Drop the per-block walks (each points back here): see ``FunctionFlow.release``."""
        self._walks.clear()

    # -- what an expression reads ---------------------------------------------

    def read_paths(self, expr: ast.expr) -> frozenset[Path] | None:
        """The access paths a deterministic, effect-free ``expr`` reads; else None.

        Allowed: names, attributes, subscripts, constants, arithmetic,
        comparisons, boolean and conditional expressions, tuples and slices,
        calls of read-only methods (``DETERMINISTIC_METHODS``) and builtins
        (``DETERMINISTIC_BUILTINS``).
        """
        found: set[Path] = set()
        return frozenset(found) if self._collect_reads(expr, found) else None

    def _collect_reads(self, expr: ast.AST, found: set[Path]) -> bool:
        path = access_path(expr)
        if path is not None:
            found.add(path)
            node = expr
            while isinstance(node, (ast.Attribute, ast.Subscript)):
                if isinstance(node, ast.Subscript) and not self._collect_reads(
                    node.slice, found
                ):
                    return False
                node = node.value
            return True
        if isinstance(expr, ast.Constant):
            return True
        if isinstance(expr, ast.Call):
            parts = self._deterministic_call_parts(expr)
            if parts is None:
                return False
            return all(self._collect_reads(part, found) for part in parts)
        if isinstance(expr, (ast.Attribute, ast.Subscript)):
            parts = [expr.value] + (
                [expr.slice] if isinstance(expr, ast.Subscript) else []
            )
            return all(self._collect_reads(part, found) for part in parts)
        if isinstance(
            expr,
            (
                ast.BinOp,
                ast.UnaryOp,
                ast.Compare,
                ast.BoolOp,
                ast.IfExp,
                ast.Tuple,
                ast.Slice,
            ),
        ):
            return all(
                self._collect_reads(child, found)
                for child in child_nodes(expr)
                if isinstance(child, ast.expr)
            )
        return False

    def _deterministic_call_parts(self, call: ast.Call) -> list[ast.expr] | None:
        """The sub-expressions a deterministic read-only call reads, else None."""
        if any(isinstance(arg, ast.Starred) for arg in call.args):
            return None
        values = [*call.args, *(kw.value for kw in call.keywords)]
        if any(kw.arg is None for kw in call.keywords):
            return None
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in DETERMINISTIC_METHODS:
            if self._module_function(func) is not None:
                return None  # ``torch.max(...)``: a function, not a method
            return [func.value, *values]
        if isinstance(func, ast.Name) and self.is_builtin(
            func.id, DETERMINISTIC_BUILTINS
        ):
            return values
        return None

    def is_builtin(self, name: str, among: frozenset[str]) -> bool:
        """``name`` is one of ``among`` and Python's builtin here: not bound
        by this function, an enclosing one or the module, nor imported."""
        if name not in among or self.flow.has_stores(name):
            return False
        return self.names is None or self.names.is_builtin(name)

    def _module_function(self, func: ast.expr) -> str | None:
        """The qualified name of an imported function called as ``func``
        (``torch.cumsum``, ``F.relu``, ``cumsum`` imported from torch)."""
        if self.names is None:
            return None
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or self.flow.has_stores(root.id):
            return None
        return self.names.qualified_name(func)

    # -- what an expression may be --------------------------------------------

    def alias_paths(self, expr: ast.AST) -> set[Path]:
        """Paths whose object the value of ``expr`` may be, or be inside of.

        Empty for values that share nothing with any path (arithmetic,
        reductions, constants).
        """
        path = access_path(expr)
        if path is not None:
            return {path}
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Name) and func.id == "super" and not expr.args:
                return {(self.first_parameter,)} if self.first_parameter else set()
            if isinstance(func, ast.Name) and self.is_builtin(func.id, FRESH_BUILTINS):
                return set()
            parts: list[ast.AST] = [*expr.args, *(kw.value for kw in expr.keywords)]
            qualified = self._module_function(func)
            if qualified is not None:
                if _fresh_torch_function(qualified):
                    return set()  # ``torch.sum(x)``: new, as ``x.sum()`` is
            elif isinstance(func, ast.Attribute):
                if func.attr in FRESH_METHODS:
                    return set()
                parts.append(func.value)
            elif not isinstance(func, ast.Name):
                parts.append(func)
            return _union(self.alias_paths(part) for part in parts)
        if isinstance(expr, ast.BinOp) and may_join_containers(expr):
            # ``[x] + ys``, ``[x] * 2``, ``{"k": x} | d``: a new container of
            # the operands' items (tensors and numbers make new values).
            return self.alias_paths(expr.left) | self.alias_paths(expr.right)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.UAdd):
            return self.alias_paths(expr.operand)  # ``+x`` is ``x``
        if isinstance(expr, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant)):
            return set()
        if isinstance(expr, (ast.JoinedStr, ast.Lambda, ast.Await, ast.Yield)):
            return set()
        if isinstance(expr, (ast.Attribute, ast.Subscript, ast.Starred, ast.NamedExpr)):
            return self.alias_paths(expr.value)
        if isinstance(expr, ast.IfExp):
            return self.alias_paths(expr.body) | self.alias_paths(expr.orelse)
        if isinstance(expr, (ast.BoolOp, ast.Tuple, ast.List, ast.Set, ast.Dict)):
            return _union(
                self.alias_paths(child)
                for child in child_nodes(expr)
                if isinstance(child, ast.expr)
            )
        if isinstance(expr, _COMPREHENSION_TYPES):
            # A new container of what its element makes of the iterables'
            # items: the element's objects, its own targets standing for
            # those items.
            targets = {
                node.id
                for generator in expr.generators
                for node in walk_nodes(generator.target)
                if isinstance(node, ast.Name)
            }
            parts = (
                [expr.key, expr.value] if isinstance(expr, ast.DictComp) else [expr.elt]  # type: ignore[attr-defined]
            )
            found = {
                path
                for part in parts
                for path in self.alias_paths(part)
                if path[0] not in targets
            }
            for generator in expr.generators:
                found |= {
                    path
                    for path in self.alias_paths(generator.iter)
                    if path[0] not in targets
                }
            return found
        # Anything else: whatever names occur in it.
        return {
            (node.id,)
            for node in walk_nodes(expr)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        }

    def formatted_paths(self, expr: ast.AST) -> set[Path]:
        """The paths whose objects formatting ``expr`` may run the code of
        (``__str__``, ``__format__``): those it may be, but a tensor's
        metadata (``x.shape``, ``x.dtype``), which formats as a plain value."""
        return {
            path
            for path in self.alias_paths(expr)
            if len(path) < 2 or path[-1] not in METADATA_ATTRIBUTES
        }

    @property
    def aliases(self) -> dict[str, dict[Path, list[tuple[Path, bool, int]]]]:
        """root name -> path -> [(other path, exact, site)]: ``exact`` when
        ``path`` *is* the other's object (``y = x.a``), else it may be anything
        reachable from it; ``site`` is the index of the block that makes the
        alias (-1: unknown)."""
        if self._aliases is None:
            self._aliases = {}
            for node in _own_nodes(self.flow.function.body):
                if isinstance(node, _ALIASING_NODES):
                    self._alias_site = -2  # computed when first needed
                    self._site_node = node
                    self._record_aliases(node)
        return self._aliases

    def _site_of(self, node: ast.AST) -> int:
        flow = self.flow
        block: Block | None
        if isinstance(node, (ast.For, ast.AsyncFor)):
            block = next(
                (b for b in flow.blocks if b.stmt is node and b.role == "target"), None
            )
        elif isinstance(node, ast.stmt):
            info = flow.stmt_info.get(node)
            block = info.block if info is not None else None
        elif isinstance(node, ast.withitem):
            block = self.block_holding(node.context_expr)
        else:
            block = self.block_holding(node)
        return block.index if block is not None else -1

    def _alias(self, key: Path, other: Path, exact: bool) -> None:
        if key == other:
            return
        if self._alias_site == -2:
            self._alias_site = self._site_of(self._site_node)
        site = self._alias_site
        # An entry is left out when an earlier one with the same paths is
        # counted wherever it is (``expand``'s ``within``): one made where it
        # is always counted, or earlier in the same run of blocks (it reaches
        # wherever this one does). Following the later one would add nothing,
        # and a path aliased again and again would be followed as many times.
        group = (key, other, exact)
        always = self._alias_always
        if group in always:
            return
        if site < 0:
            always.add(group)
        else:
            chains = self.chains
            run = (group, chains.chain[site])
            earliest = self._alias_earliest.get(run)
            if earliest is not None and earliest <= chains.position[site]:
                return
            self._alias_earliest[run] = chains.position[site]
        by_key = self._aliases.setdefault(key[0], {})  # type: ignore[union-attr]
        by_key.setdefault(key, []).append((other, exact, site))

    def reaching(self, block: Block) -> Reaching:
        """Indices of the blocks from which ``block`` can be reached (itself
        included), as a set answering ``in``.

        An alias made anywhere else cannot exist yet when ``block`` runs.
        """
        found = self._reaching.get(block)
        if found is None:
            found = self._reaching[block] = Reaching(self.chains, block.index)
        return found

    @property
    def chains(self) -> Chains:
        """The function's blocks in straight runs (see ``Chains``)."""
        found = self.__dict__.get("_chains")
        if found is None:
            found = self.__dict__["_chains"] = Chains(self.flow.blocks)
        return found

    def _bind(
        self, target: ast.AST, value: ast.AST | None, exact_ok: bool = True
    ) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            if (
                exact_ok
                and isinstance(value, (ast.Tuple, ast.List))
                and len(value.elts) == len(target.elts)
                and not any(
                    isinstance(e, ast.Starred) for e in (*value.elts, *target.elts)
                )
            ):
                for sub_target, sub_value in zip(target.elts, value.elts, strict=True):
                    self._bind(sub_target, sub_value)
                return
            for element in target.elts:
                self._bind(element, value, exact_ok=False)
            return
        if isinstance(target, ast.Starred):
            self._bind(target.value, value, exact_ok=False)
            return
        key = access_path(target)
        if isinstance(target, ast.Subscript):
            # ``d[x] = v``: the container keeps the index (a dict's key).
            holders = {key} if key is not None else self.alias_paths(target.value)
            for index in self.alias_paths(target.slice):
                for holder in holders:
                    self._alias(holder, index, exact=False)
        if value is None:
            return
        if key is None:
            # ``f(a).x = v``: v may now be reachable from a.
            holders = self.alias_paths(getattr(target, "value", target))
            for holder in holders:
                for other in self.alias_paths(value):
                    self._alias(holder, other, exact=False)
            return
        value_path = access_path(value)
        if exact_ok and value_path is not None:
            self._alias(key, value_path, exact=True)
            return
        for other in self.alias_paths(value):
            self._alias(key, other, exact=False)

    def _record_aliases(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
            self._bind(node.target, node.value)
        elif isinstance(node, ast.AugAssign):
            self._bind(node.target, node.value, exact_ok=False)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._bind(node.target, node.iter, exact_ok=False)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._bind(node.optional_vars, node.context_expr, exact_ok=False)
        elif isinstance(node, ast.comprehension):
            # ``[t.add_(1) for t in (x,)]``: the target names each item (a
            # name of the comprehension's own scope, taken as the function's:
            # more aliasing, never less).
            self._bind(node.target, node.iter, exact_ok=False)
        elif isinstance(node, ast.Match):
            # A capture (``case t:``, ``case [t]:``, ``case {**rest}:``) names
            # the subject or something inside it.
            for case in node.cases:
                for part in walk_nodes(case.pattern):
                    name = getattr(part, "name", None) or getattr(part, "rest", None)
                    if isinstance(name, str):
                        target = ast.Name(id=name, ctx=ast.Store())
                        self._bind(target, node.subject, exact_ok=False)
        elif isinstance(node, ast.Call):
            # A call may store one argument inside another, or inside the receiver.
            func = node.func
            if self.leaves_arguments_alone(node):
                if not (
                    isinstance(func, ast.Attribute)
                    and func.attr in SHARING_IN_PLACE_METHODS
                ):
                    return
            holders = [*node.args, *(kw.value for kw in node.keywords)]
            if isinstance(func, ast.Attribute) and self._module_function(func) is None:
                # (The receiver of a method; not the module of a function,
                # ``F`` of ``F.relu(x, True)``.)
                holders.append(func.value)
            paths = _union(self.alias_paths(holder) for holder in holders)
            if len(paths) > 1:
                # Each may now hold any other: link them all through one hub
                # (linear in the arguments, where pairs would be quadratic).
                hub = (f"{_HUB}{id(node)}",)
                for path in paths:
                    self._alias(path, hub, exact=False)
                    self._alias(hub, path, exact=False)

    def expand(
        self,
        path: Path,
        store: bool = False,
        within: Reaching | None = None,
    ) -> frozenset[Path] | None:
        """``path`` and every path whose object may be, contain, or be inside it.

        With ``store``, ``path`` is a slot being stored to: only aliases of the
        objects holding it count, not those of what it holds. With ``within``,
        only aliases made in those blocks count. None when aliasing is too
        tangled to follow (callers then assume a change). Each question is
        answered once (the effects of a region name the same paths again and
        again).
        """
        question = (path, store, within)
        known = self._expanded.get(question, _UNKNOWN)
        if known is not _UNKNOWN:
            return known  # type: ignore[return-value]
        found = self._expand(path, store, within)
        self._expanded[question] = found
        return found

    def _expand(
        self, path: Path, store: bool, within: Reaching | None
    ) -> frozenset[Path] | None:
        aliases = self.aliases
        found: set[Path] = {path}
        work = [path]
        while work:
            current = work.pop()
            for key, others in aliases.get(current[0], {}).items():
                if store:
                    if len(key) >= len(current) or current[: len(key)] != key:
                        continue
                elif not paths_conflict(key, current):
                    continue
                suffix = current[len(key) :] if len(current) > len(key) else ()
                for other, exact, site in others:
                    if within is not None and site >= 0 and site not in within:
                        continue
                    new = other + suffix if exact else other
                    for size in range(len(new) + 1):
                        if new[:size] in found:
                            break  # an extension of a known path adds nothing
                    else:
                        found.add(new)
                        work.append(new)
                        if len(found) > _ALIAS_LIMIT:
                            return None
        return frozenset(found)

    def is_shared_root(self, name: str) -> bool:
        """Whether code elsewhere can rebind ``name`` or reach its object by
        name: a global, a free variable, a name a nested scope uses."""
        found = self._shared.get(name)
        if found is None:
            flow = self.flow
            found = self._shared[name] = not name.startswith(_HUB) and (
                not flow.is_private_local(name)
                or not flow.has_stores(name)
                or any(event.nested for event in flow.events_of(name))
            )
        return found

    def is_reachable(self, path: Path, within: Reaching | None = None) -> bool:
        """Whether unknown code may change the object at ``path``: its root
        is shared, or the object (or one holding it, or one it holds)
        escaped to code this function cannot see. With ``within``, only
        escapes in those blocks count. A tensor's ``.grad`` is: a
        ``backward()`` that unknown code runs accumulates into the ``.grad``
        of every leaf its graph reaches, given the function's or not."""
        if self.is_shared_root(path[0]) or _GRAD in path[1:]:
            return True
        for escaped, site in self.escapes(path[0]):
            if (within is None or site in within) and paths_conflict(escaped, path):
                return True
        return False

    def may_store_into_namespace(self, effect: Change, at: Block | None) -> bool:
        """Whether the store ``effect`` (made in block ``at``) may rebind a
        global: a store into an object other code holds may be one into the
        module's namespace (``globals()["X"] = v``, ``f.__globals__["X"] = v``,
        ``sys.modules[__name__].X = v``). A store into the function's own
        objects (a parameter's, a new one's) is not."""
        root = effect.path[0]
        if self.is_shared_root(root):
            return True  # (asked first: the blocks reaching ``at`` cost a walk)
        escapes = self.escapes(root)
        if not escapes:
            return False
        within = self.reaching(at) if at is not None else None
        return self.is_reachable(effect.path[:1], within)

    @property
    def aliased_roots(self) -> frozenset[str]:
        """Root names some alias connects to another path."""
        found = self.__dict__.get("_aliased_roots")
        if found is None:
            roots: set[str] = set()
            for root, by_path in self.aliases.items():
                roots.add(root)
                for entries in by_path.values():
                    roots.update(other[0] for other, _, _ in entries)
            found = self.__dict__["_aliased_roots"] = frozenset(roots)
        return found

    @property
    def any_local_shared(self) -> bool:
        """Whether code elsewhere can reach any object a local of this
        function names (shared, or escaped anywhere): if none, unknown code
        changes nothing the function reads through its locals, whatever
        they alias."""
        found = self.__dict__.get("_any_local_shared")
        if found is None:
            flow = self.flow
            found = self.__dict__["_any_local_shared"] = (
                any(
                    self.is_shared_root(name) or bool(self.escapes(name))
                    for name in flow.events_by_name
                    if flow.has_stores(name)
                )
                or any(  # ``g = w.grad``: see ``is_reachable``
                    _GRAD in key[1:]
                    or any(_GRAD in other[1:] for other, _, _ in entries)
                    for by_path in self.aliases.values()
                    for key, entries in by_path.items()
                )
            )
        return found

    def escapes(self, name: str) -> list[tuple[Path, int]]:
        """Where objects reached through the local ``name`` escape to code
        this function cannot see, as (path, block index): the name bound to
        what unknown code returned (``t = get()``: its whole object), or a
        path given to unknown code (``register(t)``, ``t.attach()``,
        ``f((t, u))``, ``f(t.buf)``: that object)."""
        found = self._escapes.get(name)
        if found is None:
            found = self._escapes[name] = self._escape_sites(name, False)
        return found

    def _escape_sites(self, name: str, torch_known: bool) -> list[tuple[Path, int]]:
        """``escapes`` of ``name``; ``torch_known``: torch's functions keep
        nothing (``handed_escapes``)."""
        found: list[tuple[Path, int]] = []
        for event in self.flow.events_of(name):
            if event.nested:
                continue
            if event.kind is Kind.LOAD:
                given = self._given_to_unknown_code(event.node, torch_known)
                if given is not None:
                    found.append((given, event.block.index))
            elif (
                event.kind is Kind.STORE
                and self._binds_foreign(event.node)
                and not (torch_known and self._binds_torch_result(event.node))
            ):
                found.append(((name,), event.block.index))
        return found

    @property
    def definition_roots(self) -> frozenset[str]:
        """Locals bound to a class or function the function defines, whose
        attributes its body set (``class K: v = x``): such an object may
        hold any object its body reaches."""
        found = self.__dict__.get("_definition_roots")
        if found is None:
            found = self.__dict__["_definition_roots"] = frozenset(
                name
                for name, events in self.flow.events_by_name.items()
                if any(
                    event.kind is Kind.STORE
                    and not event.nested
                    and isinstance(event.node, _SCOPE_DEFINITIONS)
                    for event in events
                )
            )
        return found

    def torch_function(self, call: ast.Call) -> bool:
        """Whether ``call`` is of a function of torch whose effects on its
        arguments are known (``torch.add(y, 1, out=x)``): it keeps none."""
        func = call.func
        qualified = self._module_function(func)
        return qualified is not None and written_arguments(qualified, call) is not None

    def handed_escapes(self, name: str) -> list[tuple[Path, int]]:
        """``escapes``, but for torch's functions, which keep nothing they
        are given and return a new tensor or one they were given (``t =
        torch.add(y, 1, out=x)`` is ``x``: an alias, not unknown code's)."""
        found = self._handed.get(name)
        if found is None:
            found = self._handed[name] = self._escape_sites(name, True)
        return found

    def _binds_torch_result(self, target: ast.AST) -> bool:
        parent = self.flow.parents.get(target)
        return (
            isinstance(parent, (ast.Assign, ast.AnnAssign))
            and isinstance(parent.value, ast.Call)
            and self.torch_function(parent.value)
            and not any(
                self.may_be_foreign(argument)
                for argument in (
                    *parent.value.args,
                    *(keyword.value for keyword in parent.value.keywords),
                )
            )
        )

    def handed_over(self, path: Path, within: Reaching | None = None) -> bool:
        """Whether the object at ``path`` came from unknown code or was given
        to it (``escapes``: ``t = get()``, ``t = g()`` of a closure, ``for t
        in gen()``, ``keep(t)``; with ``within``, those in these blocks
        only), or is a class or function the function defines
        (``definition_roots``): unknown code may have made it any object it
        reaches, or stored it in any of them, not only reached it by name."""
        if path[0] in self.definition_roots:
            return True
        return any(
            (within is None or site in within) and paths_conflict(escaped, path)
            for escaped, site in self.handed_escapes(path[0])
        )

    def in_reach(self, path: Path, within: Reaching | None = None) -> bool:
        """Whether unknown code may reach the object at ``path`` (by name,
        a tensor's ``.grad``, or because it was handed over)."""
        return (
            self.is_shared_root(path[0])
            or _GRAD in path[1:]
            or self.handed_over(path, within)
        )

    def _meets_handed_over(
        self,
        written: frozenset[Path],
        watched: Watched,
        store: bool,
        at: Block | None = None,
    ) -> bool:
        """Whether a change of the ``written`` paths may reach the watched
        reads through unknown code's hands, whatever aliases this function
        makes: one side is an object from unknown code (``t = get()``;
        ``t.add_(1)``), which may be the other's if unknown code can reach
        that (a global, a name a closure uses: ``def g(): return x``, ``t =
        g()``); or one side was given to unknown code (``keep(x)``), which
        may have stored it in what the other reaches (``REG[0].add_(1)``,
        ``hold[0]`` of a list a closure appends to). Both must be within
        that reach when the change is made (in block ``at``, if known)."""
        within = self.reaching(at) if at is not None else watched.within
        # A read of an immutable value (a number) changes only by a store
        # into the object holding it: never, where a name holds it.
        reads = [
            path
            for path in watched.expanded
            if not any(
                path[: len(i)] == i and (not store or len(i) == 1)
                for i in watched.immutable
            )
        ]
        if any(self.handed_over(path, within) for path in written) and any(
            self.in_reach(path, within) for path in reads
        ):
            return True
        return any(self.handed_over(path, within) for path in reads) and any(
            self.in_reach(path, within) for path in written
        )

    def _given_to_unknown_code(
        self, node: ast.AST, torch_keeps_nothing: bool = False
    ) -> Path | None:
        """The path of the object that the use ``node`` of a name gives to
        code that may keep it: a call (as an argument, inside a tuple or
        keyword, or as the receiver of a method), a function or class that
        keeps it (a default value, a base), or a store into an object other
        code reaches by name (``HOLD.t = x``, ``REG[:] = [x]``); also when
        what is given is a view of it (``register(x.view(-1))``). None if
        none of these. With ``torch_keeps_nothing``, a function of torch
        that writes what it is given (``torch.add(y, 1, out=x)``) keeps
        none of it either."""
        parents = self.flow.parents
        top = node
        parent = parents.get(top)
        path: Path | None = None
        while (
            isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is top
        ):
            call = parents.get(parent)
            if isinstance(call, ast.Call) and call.func is parent:
                # ``t.attach()``: the method receives ``t``.
                if not self.leaves_arguments_alone(call):
                    if self.runs_list_method(call):
                        return None  # ``out.append(v)``: no code receives ``out``
                    if torch_keeps_nothing and self.torch_function(call):
                        return None
                    return path or access_path(top)
                if isinstance(parent, ast.Attribute) and parent.attr in FRESH_METHODS:
                    return None
                # ``t.view(-1)``, ``t.detach()``: the result may be ``t``'s
                # memory; where it goes, ``t`` goes.
                if path is None:
                    path = access_path(top)
                    if path is None:
                        return None
                top, parent = call, parents.get(call)
                continue
            top, parent = parent, parents.get(parent)
        if path is None:
            path = access_path(top)
        if path is None:
            return None
        child = top
        keyed = False  # the use is the index of a subscript (``D[x] = 0``)
        while parent is not None:
            if isinstance(parent, ast.Call):
                if child is parent.func:
                    return None
                if (
                    self.leaves_arguments_alone(parent)
                    or self.runs_list_method(parent)
                    or (torch_keeps_nothing and self.torch_function(parent))
                ):
                    # (``out.append(t)`` stores ``t`` in ``out``: an alias,
                    # given to code only where ``out`` is.) The call keeps
                    # nothing, but its value may hold or be what it was
                    # given (``zip(ks, [x])``, ``torch.narrow(x, 0, 0, 2)``,
                    # ``getattr(x, "data")``): where that value goes, the
                    # argument goes.
                    if not self._result_may_carry(parent):
                        return None
                    child, parent = parent, parents.get(parent)
                    continue
                return path
            if isinstance(parent, _DEFINITIONS) and not any(
                child is decorator
                for decorator in getattr(parent, "decorator_list", ())
            ):
                # A default value (``lambda t=x: t.add_(1)``, ``def f(t=x)``)
                # or a base class: the new function or class keeps it, and
                # whoever calls it may change it.
                return path
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                if child is not parent.value:
                    # In a target: an index stored into a shared object is
                    # kept by it (``D[x] = 0``: a key of a global's dict).
                    return path if keyed and self._stores_into_shared(child) else None
                targets = (
                    parent.targets
                    if isinstance(parent, ast.Assign)
                    else [parent.target]
                )
                return path if any(map(self._stores_into_shared, targets)) else None
            if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
                # ``for HOLD.t in [x]``: each item is stored into the target.
                if child is parent.iter:
                    return path if self._stores_into_shared(parent.target) else None
                if child is parent.target:
                    return path if keyed and self._stores_into_shared(child) else None
                return None
            if isinstance(parent, ast.withitem):
                # ``with x as HOLD.t``: what entering returns is stored there.
                if child is parent.context_expr and parent.optional_vars is not None:
                    return (
                        path if self._stores_into_shared(parent.optional_vars) else None
                    )
                if child is parent.optional_vars:
                    return path if keyed and self._stores_into_shared(child) else None
                return None
            if not (
                isinstance(parent, _CARRIERS)
                # ``[x] + ys``, ``[x] * 2``: a new container of the items;
                # ``+x`` is ``x``
                or isinstance(parent, ast.BinOp)
                and may_join_containers(parent)
                or isinstance(parent, ast.UnaryOp)
                and isinstance(parent.op, ast.UAdd)
            ):
                return None
            if isinstance(parent, ast.Subscript) and child is parent.slice:
                keyed = True
            child, parent = parent, parents.get(parent)
        return None

    def _result_may_carry(self, call: ast.Call) -> bool:
        """Whether the value of ``call`` (which keeps none of its arguments)
        may be, or hold, one of them: not a builtin or a method of torch that
        makes a new value (``len``, ``str``, ``x.sum()``, ``torch.add``),
        nor ``out.append(v)`` of a list; ``out=`` returns ``out``."""
        func = call.func
        if any(kw.arg in _MUTATING_KEYWORDS for kw in call.keywords):
            return True
        if isinstance(func, ast.Name) and self.is_builtin(func.id, FRESH_BUILTINS):
            return False
        if self.runs_list_method(call):
            return False
        qualified = self._module_function(func)
        if qualified is not None:
            return not _fresh_torch_function(qualified)
        return not (isinstance(func, ast.Attribute) and func.attr in FRESH_METHODS)

    def _stores_into_shared(self, target: ast.AST) -> bool:
        """Whether a store to ``target`` puts the value where code elsewhere
        reaches it by name: a global's (or free variable's) attribute or
        item, or a name that is itself shared."""
        if isinstance(target, (ast.Tuple, ast.List)):
            return any(map(self._stores_into_shared, target.elts))
        while isinstance(target, (ast.Attribute, ast.Subscript, ast.Starred)):
            target = target.value
        if isinstance(target, ast.Call):
            # ``globals()["K"] = x``, ``get()[k] = x``: into an object other
            # code returned (the module's namespace, for ``globals()``)
            return True
        return isinstance(target, ast.Name) and self.is_shared_root(target.id)

    def _binds_foreign(self, target: ast.AST) -> bool:
        """Whether the store at ``target`` binds an object unknown code may
        hold: a result of unknown code, an awaited or yielded value, what
        ``with`` enters, an item of such an iterable, an imported module, a
        caught exception, a ``match`` capture."""
        if isinstance(target, _FOREIGN_BINDERS):
            return True
        parents = self.flow.parents
        child = target
        parent = parents.get(child)
        while isinstance(parent, (ast.Tuple, ast.List, ast.Starred)):
            child, parent = parent, parents.get(parent)
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            return parent.value is not None and self.may_be_foreign(parent.value)
        if isinstance(parent, (ast.For, ast.AsyncFor)):
            return isinstance(parent, ast.AsyncFor) or self.may_be_foreign(parent.iter)
        if isinstance(parent, ast.withitem):
            return True
        if isinstance(parent, (ast.With, ast.AsyncWith)):
            return True
        return isinstance(parent, (ast.ExceptHandler, ast.Import, ast.ImportFrom))

    def may_be_foreign(self, expr: ast.AST) -> bool:
        """Whether the value of ``expr`` may be an object that unknown code
        returned (and may still hold), rather than one of the function's own
        objects or a new one."""
        if isinstance(expr, ast.Call):
            if not self.leaves_arguments_alone(expr):
                return True
            func = expr.func
            if isinstance(func, ast.Attribute) and self._module_function(func) is None:
                if func.attr in FRESH_METHODS:
                    return False
                return self.may_be_foreign(func.value)  # a view or the receiver
            return any(self.may_be_foreign(argument) for argument in expr.args)
        if isinstance(expr, (ast.Await, ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(expr, ast.Name):
            # A global's object (``m = MODEL``), or a name a nested scope uses:
            # other code reaches it by that name.
            return self.is_shared_root(expr.id)
        if isinstance(expr, (ast.Attribute, ast.Subscript, ast.Starred, ast.NamedExpr)):
            return self.may_be_foreign(expr.value)
        if isinstance(expr, ast.IfExp):
            return self.may_be_foreign(expr.body) or self.may_be_foreign(expr.orelse)
        if isinstance(expr, ast.BinOp) and may_join_containers(expr):
            return self.may_be_foreign(expr.left) or self.may_be_foreign(expr.right)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.UAdd):
            return self.may_be_foreign(expr.operand)
        if isinstance(expr, (ast.BoolOp, ast.Tuple, ast.List, ast.Set, ast.Dict)):
            return any(
                self.may_be_foreign(child)
                for child in child_nodes(expr)
                if isinstance(child, ast.expr)
            )
        if isinstance(expr, _COMPREHENSION_TYPES):
            # A new container of what its element expression makes of the
            # items of its iterables.
            parts = [generator.iter for generator in expr.generators]
            if isinstance(expr, ast.DictComp):
                parts += [expr.key, expr.value]
            else:
                parts.append(expr.elt)
            return any(self.may_be_foreign(part) for part in parts)
        return False  # names, constants, arithmetic, f-strings, lambdas

    # -- effects ------------------------------------------------------------------

    def leaves_arguments_alone(self, call: ast.Call) -> bool:
        """A call that changes none of its arguments nor keeps them: a known
        builtin, a read-only or in-place method of the torch vocabulary, a
        function of torch's pure namespaces given nothing it writes."""
        func = call.func
        if isinstance(func, ast.Name):
            if self.is_builtin(func.id, NO_EFFECT_BUILTINS):
                return not any(kw.arg in _MUTATING_KEYWORDS for kw in call.keywords)
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return False
        qualified = self._module_function(func)
        if qualified is not None:
            return self._torch_written(qualified, call) == []
        if not isinstance(func, ast.Attribute):
            return False
        if any(kw.arg in _MUTATING_KEYWORDS for kw in call.keywords):
            return False
        if self.module_class_defines(func.attr):
            return False  # maybe a method of the module's own class
        if func.attr in CALLING_METHODS:
            return False  # ``x.apply_(f)`` calls ``f``
        return func.attr in NO_EFFECT_METHODS or is_inplace_method(func.attr)

    def holds_only_new_lists(self, name: str) -> bool:
        """Whether every binding of the local ``name`` is an assignment of a
        list display or comprehension (``out = []``) in the function itself:
        it holds a ``list``, no subclass (not a parameter, global, nonlocal,
        loop target, ``+=`` or a name a nested scope binds)."""
        flow = self.flow
        if not flow.is_private_local(name):
            return False
        stores = flow.stores_of(name)
        if not stores:
            return False
        parents = flow.parents
        for event in stores:
            node = event.node
            if event.kind is not Kind.STORE or event.nested or event.augmented:
                return False
            if not isinstance(node, ast.Name):
                return False
            statement = parents.get(node)
            if isinstance(statement, ast.Assign):
                if not any(target is node for target in statement.targets):
                    return False
            elif isinstance(statement, ast.AnnAssign):
                if statement.target is not node:
                    return False
            else:
                return False
            if not isinstance(statement.value, (ast.List, ast.ListComp)):
                return False
        return True

    def runs_list_method(self, call: ast.Call) -> bool:
        """Whether ``call`` is ``out.append(v)`` (or ``clear``, ``copy``,
        ``reverse``) of a local bound only to list displays: list's own
        method, which runs no other code."""
        func = call.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr in _LIST_METHODS_RUNNING_NO_CODE
            and isinstance(func.value, ast.Name)
            and self.holds_only_new_lists(func.value.id)
        )

    def module_class_defines(self, method: str) -> bool:
        """Whether a class of the module binds ``method``: a call of it on an
        object of that class (``h.size()``, ``h.add_(1)``) runs the module's
        code, not torch's method of that name."""
        names = self.names
        if not isinstance(names, Scope):
            return False
        return module_class_hooks(names).defines(method)

    def _torch_written(self, qualified: str, call: ast.Call) -> list[ast.expr] | None:
        """``written_arguments`` of a call of ``qualified``, or None where it
        may run the module's code: a torch function written in Python that
        calls its argument's methods by name (``torch.split(o, 2)`` is
        ``o.split(2)``) where a class of the module binds one of them."""
        written = written_arguments(qualified, call)
        if written is not None and any(
            self.module_class_defines(name) for name in DUCK_CALLS.get(qualified, ())
        ):
            return None
        return written

    def call_effects(self, call: ast.Call) -> list[Change]:
        """What a call may change, once its callee and arguments are evaluated."""
        func = call.func
        arguments = [*call.args, *(kw.value for kw in call.keywords)]
        qualified = (
            self._module_function(func)
            if isinstance(func, (ast.Name, ast.Attribute))
            else None
        )
        if qualified is not None:
            if qualified in GRADIENT_FUNCTIONS:
                return [Change(ChangeKind.BARRIER, (), call)]
            written = self._torch_written(qualified, call)
            if written is not None:  # a torch function: it writes these only
                effects: list[Change] = []
                for argument in written:
                    effects += _writes(self.alias_paths(argument), call)
                if sets_global_mode(qualified):
                    effects.append(Change(ChangeKind.MODE, (), call))
                if qualified in ITERATING_FUNCTIONS and not all(
                    plainly_iterable(argument) for argument in call.args
                ):
                    # ``torch.Size(g)`` runs a generator's code
                    effects.append(Change(ChangeKind.ANY_CODE, (), call))
                return effects
        elif isinstance(func, ast.Attribute):
            name = func.attr
            if name in GRADIENT_METHODS:
                # ``loss.backward()`` accumulates into the ``.grad`` of every leaf.
                return [Change(ChangeKind.BARRIER, (), call)]
            effects = []
            if any(kw.arg in _MUTATING_KEYWORDS for kw in call.keywords):
                for argument in arguments:
                    effects += _writes(self.alias_paths(argument), call)
            # A method a class of the module defines is that code, whatever
            # torch's method of the name does.
            own = self.module_class_defines(name)
            if name in NO_EFFECT_METHODS and not own:
                return effects
            receiver = self.alias_paths(func.value)
            if is_inplace_method(name) and not own and name not in CALLING_METHODS:
                # PyTorch's in-place methods change their receiver, not their
                # arguments (but ``x.apply_(f)`` runs ``f``: any other method).
                return effects + _writes(receiver, call)
            if self.runs_list_method(call):
                # ``out.append(v)`` of a local bound only to list displays:
                # list's own method, which changes the list only.
                return effects + _writes(receiver, call)
            # Any other method: the receiver, the arguments, anything shared.
            effects += _writes(receiver, call)
            for argument in arguments:
                effects += _writes(self.alias_paths(argument), call)
            effects.append(Change(ChangeKind.ANY_CODE, (), call))
            return effects
        elif isinstance(func, ast.Name) and self.is_builtin(
            func.id, NO_EFFECT_BUILTINS
        ):
            return self._builtin_effects(func.id, call, arguments)
        # An unknown function, or an object called (a bound method, a
        # closure): it may change its arguments, itself and what it holds.
        effects = []
        if qualified is not None and sets_global_mode(qualified):
            # ``torch.backends.mkldnn.set_flags(False)``, ``torch.cuda.set_device(1)``
            effects.append(Change(ChangeKind.MODE, (), call))
        for argument in arguments:
            effects += _writes(self.alias_paths(argument), call)
        for path in self.alias_paths(func):
            # A callee held by a local may be bound to the function's own
            # objects (``add = x.add_``); one from elsewhere reaches only
            # what is shared, as any unknown code does.
            if self.flow.has_stores(path[0]):
                effects.append(Change(ChangeKind.CALL, path, call))
        effects.append(Change(ChangeKind.ANY_CODE, (), call))
        return effects

    def _builtin_effects(
        self, name: str, call: ast.Call, arguments: list[ast.expr]
    ) -> list[Change]:
        effects: list[Change] = []
        if any(kw.arg in _MUTATING_KEYWORDS for kw in call.keywords):
            for argument in arguments:
                effects += _writes(self.alias_paths(argument), call)
        runs_code = False
        if name in _FORMATTING_BUILTINS:
            # ``__str__``/``__repr__``/``__format__`` of the arguments run;
            # ``print`` writes to ``sys.stdout``, which may be anything.
            for argument in arguments:
                paths = self.formatted_paths(argument)
                effects += _writes(paths, call)
                runs_code = runs_code or bool(paths)
            runs_code = runs_code or name == "print"
        if any(kw.arg == "key" for kw in call.keywords) or any(
            isinstance(argument, ast.Lambda) for argument in arguments
        ):
            runs_code = True  # ``sorted(xs, key=...)`` calls the function given
        if name == "type" and (
            len(call.args) != 1
            or call.keywords
            or isinstance(call.args[0], ast.Starred)
        ):
            # ``type(name, bases, namespace)`` makes a class: the bases'
            # ``__init_subclass__``, a metaclass's code and the namespace's
            # ``__set_name__`` run.
            runs_code = True
        iterated = call.args
        if name in _ONE_ITERABLE:
            iterated = call.args[:1] if len(call.args) == 1 else []
        if name in _ITERATING_BUILTINS and not all(
            plainly_iterable(argument) for argument in iterated
        ):
            runs_code = True  # ``list(gen)`` runs the generator's code
        if runs_code:
            effects.append(Change(ChangeKind.ANY_CODE, (), call))
        return effects

    def fetch_role(self, stmt: ast.AST) -> str:
        """The block role that fetches a ``for`` loop's items: ``next`` where the
        flow has such a block, else ``target``."""
        has_next = any(b.stmt is stmt and b.role == "next" for b in self.flow.blocks)
        return "next" if has_next else "target"

    def _walk(self, block: Block) -> _BlockWalk:
        walk = self._walks.get(block)
        if walk is None:
            walk = self._walks[block] = _BlockWalk(self, block, self._part(block))
        return walk

    def _part(self, block: Block) -> ast.AST | None:
        """The handler or case a ``handler``/``case`` block evaluates."""
        if block.role not in ("handler", "case"):
            return None
        if self._parts is None:
            self._parts = {}
            seen: dict[tuple[int, str], int] = {}
            for candidate in self.flow.blocks:
                if candidate.role in ("handler", "case"):
                    key = (id(candidate.stmt), candidate.role)
                    index = seen.get(key, 0)
                    seen[key] = index + 1
                    items = getattr(
                        candidate.stmt,
                        "handlers" if candidate.role == "handler" else "cases",
                    )
                    if index < len(items):
                        self._parts[candidate] = items[index]
        return self._parts.get(block)

    def block_effects(self, block: Block) -> list[Change]:
        """Every effect of ``block``, in evaluation order."""
        return self._walk(block).effects

    def block_holding(self, node: ast.AST) -> Block | None:
        """The block that evaluates ``node`` (None inside nested scopes or patterns)."""
        flow = self.flow
        child: ast.AST = node
        parent = flow.parents.get(child)
        while parent is not None and not isinstance(parent, ast.stmt):
            child, parent = parent, flow.parents.get(parent)
        stmt = (
            parent
            if parent is not None
            else (child if isinstance(child, ast.stmt) else None)
        )
        if stmt is None or stmt not in flow.stmt_info:
            return None
        block = flow.block_of(stmt)
        if isinstance(stmt, (ast.For, ast.AsyncFor)) and child is stmt.target:
            return next(
                (b for b in flow.blocks if b.stmt is stmt and b.role == "target"), None
            )
        if isinstance(stmt, (ast.Try, TryStar)) and child is not stmt:
            return None
        return block

    def point(self, node: ast.AST) -> Point | None:
        """The point of ``node`` in its block; None where effects are not tracked
        node by node (nested scopes, comprehension bodies, patterns)."""
        block = self.block_holding(node)
        if block is None or id(node) not in self._walk(block).spans:
            return None
        return Point(block, node)

    def conditional(self, point: Point) -> bool:
        """Whether ``point.node`` is evaluated on some paths only within its
        block (an arm of ``a if c else b``, after ``and``/``or``)."""
        return id(point.node) in self._walk(point.block).conditional

    def executes_before(self, first: Point, second: Point) -> bool:
        """Whenever ``second.node`` is evaluated, ``first.node`` was evaluated before
        it (unconditionally within its statement; dominance across blocks)."""
        if first.block is second.block:
            walk = self._walk(first.block)
            span1, span2 = (
                walk.spans.get(id(first.node)),
                walk.spans.get(id(second.node)),
            )
            ticks1, ticks2 = (
                walk.ticks.get(id(first.node)),
                walk.ticks.get(id(second.node)),
            )
            if span1 is None or span2 is None or ticks1 is None or ticks2 is None:
                return False
            return ticks1[1] < ticks2[0] and id(first.node) not in walk.conditional
        if id(first.node) in self._walk(first.block).conditional:
            return False
        return self.flow.dominates(first.block, second.block)

    def region(self, first: Block, second: Block) -> set[Block]:
        """Blocks that may run after ``first`` and before a later ``second``, with
        ``first`` not running again in between (``second`` itself when it sits on
        a cycle that avoids ``first``)."""
        if first is second:
            return set()
        # Forward from ``first`` only through blocks that can reach ``second``:
        # the same intersection, without walking the rest of the function.
        backward = _reach(second.preds, lambda b: b.preds, first)
        forward = _reach(
            (b for b in first.succs if b.index in backward),
            lambda b: (s for s in b.succs if s.index in backward),
            first,
        )
        blocks = self.flow.blocks  # in index order
        return {blocks[index] for index in forward}

    def _builtin_of_numbers(self, call: ast.Call, hooks: ClassHooks) -> bool:
        """Whether ``call`` is a builtin (``print``, ``str``, ``format``)
        given only constants and names that always hold a number, or
        f-strings of those: it runs no special method of the module's
        classes. (``print`` writes to ``sys.stdout``, which may be an object
        of one whose ``write`` is the module's.)"""
        func = call.func
        if not isinstance(func, ast.Name) or not self.is_builtin(
            func.id, _NUMBER_BUILTINS
        ):
            return False
        if func.id == "print" and hooks.defines("write"):
            return False
        # (an annotation ``n: int`` is not checked at the call)
        numbers = number_names(self.flow, self.names, annotations=False)
        values = [*call.args, *(keyword.value for keyword in call.keywords)]
        for value in values:
            if isinstance(value, ast.JoinedStr):
                parts = [
                    part.value
                    for part in value.values
                    if isinstance(part, ast.FormattedValue)
                ]
                if any(
                    part.format_spec is not None
                    for part in value.values
                    if isinstance(part, ast.FormattedValue)
                ):
                    return False
            else:
                parts = [value]
            for part in parts:
                if isinstance(part, ast.Constant):
                    continue
                if isinstance(part, ast.Name) and part.id in numbers:
                    continue
                return False
        return True

    def class_code_between(self, first: Point, second: Point) -> bool:
        """Whether a special method a class of the module defines may run
        between ``first`` and ``second`` (their own statements included):
        an operator's, a subscript's, a truth test's or a loop's
        (``if o:`` runs ``o.__bool__``, ``o + 1`` its ``__add__``, ``for v
        in o`` its ``__iter__``), an attribute's (a property, a descriptor,
        ``__getattr__``, ``__setattr__``), one a call may run on what it is
        given (``len(o)``, ``range(o)``, ``{o: 1}``), or a finalizer
        (``__del__``, a weakref callback: wherever a reference drops), which
        the analysis otherwise takes for plain."""
        names = self.names
        if not isinstance(names, Scope):
            return False
        if module_runs_finalizers(names):
            # A finalizer (``__del__``, a weakref callback) runs wherever a
            # reference is dropped: any rebinding, ``del``, a temporary.
            return True
        hooks = module_class_hooks(names)
        if not hooks:
            return False
        dunders = hooks.dunders
        truth = bool({"__bool__", "__len__"} & dunders)
        iteration = bool({"__iter__", "__getitem__", "__next__"} & dunders)
        hashing = bool({"__hash__", "__eq__"} & dunders)
        # ``f"{o}"`` runs ``o.__format__`` (``__str__``, ``__repr__``).
        formatting = bool(FORMATTING_HOOKS & dunders)
        # The syncs' own chains run no class code but torch's (a module that
        # changes torch's code has no safe fix: ``torch_overrides``).
        own = {id(node) for node in walk_nodes(first.node)}
        own.update(id(node) for node in walk_nodes(second.node))
        blocks = {first.block, second.block}
        if first.block is not second.block:
            blocks |= self.region(first.block, second.block)
        for block in blocks:
            stmt = block.stmt
            if stmt is None:
                continue
            role = block.role
            if role == "stmt":
                if isinstance(
                    stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                ):
                    continue  # a class body is a barrier; a def's parts are calls
                roots: list[ast.AST] = [stmt]
                if truth and isinstance(stmt, ast.Assert):
                    return True
            elif role == "test":
                if truth and isinstance(stmt, (ast.If, ast.While)):
                    return True
                roots = [stmt.subject if isinstance(stmt, ast.Match) else stmt.test]  # type: ignore[attr-defined]
            elif role == "iter":
                if iteration:
                    return True
                roots = [stmt.iter]  # type: ignore[attr-defined]
            elif role == "target":
                roots = [stmt.target]  # type: ignore[attr-defined]
            elif role == "case":
                # A pattern matches by running the subject's code; the guard
                # is a truth test.
                case = self._part(block)
                if not isinstance(case, ast.match_case):
                    return True
                if hooks.pattern_may_run_code(case.pattern):
                    return True
                if case.guard is None:
                    continue
                if truth:
                    return True
                roots = [case.guard]
            else:
                continue
            for root in roots:
                for node in walk_nodes(root):
                    if isinstance(node, _CLASS_CODE) and hooks.runs_code(node):
                        return True
                    if (
                        isinstance(node, ast.Call)
                        and id(node) not in own
                        and hooks.getattr_runs_code(node)
                    ):
                        return True  # ``getattr(o, "k")`` runs a property
                    if (
                        hooks.run_by_calls
                        and isinstance(node, ast.Call)
                        and id(node) not in own
                        and not self._builtin_of_numbers(node, hooks)
                    ):
                        return True  # ``len(o)`` runs ``o.__len__``
                    if hashing and isinstance(node, _HASHING):
                        return True  # ``{o: 1}`` runs ``o.__hash__``
                    if (
                        formatting
                        and isinstance(node, ast.FormattedValue)
                        and id(node) not in own
                    ):
                        return True  # ``f"{o}"`` runs ``o.__format__``
                    if iteration and (
                        isinstance(node, ast.Starred)
                        or isinstance(node, ast.Tuple | ast.List)
                        and isinstance(node.ctx, ast.Store)
                    ):
                        return True  # ``p, q = o`` runs ``o.__iter__``
                    if truth and isinstance(node, (ast.BoolOp, ast.IfExp)):
                        return True
                    if truth and isinstance(node, ast.comprehension) and node.ifs:
                        return True
                    if iteration and isinstance(node, ast.comprehension):
                        return True
        return False

    def mode_may_change_between(
        self,
        first: Point,
        second: Point,
        values_only: bool = False,
        with_first: bool = False,
    ) -> bool:
        """Whether a global mode of torch that tensor operations read may
        change between ``first`` and ``second``: grad and inference mode
        (whether a result requires grad, is an inference tensor), autocast
        (a matmul's dtype and value), the default dtype (``x / 3`` of
        integers), flushing denormals, the number of threads (the order a
        sum adds in). The same computation before and after may then give
        another value: a value is not the same to reuse.

        A torch function that sets one does (``torch.set_grad_enabled(False)``),
        and so may entering or leaving a ``with`` block (but for managers
        known to leave the modes alone: ``nullcontext()``, ``suppress(E)``),
        and what runs at a ``yield`` or an ``await``. Other unknown code
        may where the module itself sets a mode outside a ``with``
        (``module_sets_torch_modes``): its functions may be that code. Code
        of other modules is taken to leave the modes as it found them, as
        it is taken not to replace torch's functions.

        ``values_only``: only what the values computed depend on counts
        (``t.item()``), not grad mode, which only decides whether a result
        requires grad (``reads_grad_mode`` tells a value that reads that).
        ``with_first``: ``first.node``'s own evaluation counts too (a
        stretch asked in two parts at a statement between: the parts
        together are the whole).
        """
        unknown_code_counts: bool | None = None
        for _, effect in self.placed_effects_between(first, second, with_first):
            kind = effect.kind
            node = effect.node
            if kind is ChangeKind.BARRIER:
                return True
            if kind is ChangeKind.MODE:
                if not (values_only and self._sets_grad_mode(node)):
                    return True
            elif kind is ChangeKind.ANY_CODE:
                if isinstance(node, (ast.With, ast.AsyncWith)) or (
                    id(node) in self._with_entries
                ):
                    if not self._mode_neutral(node, values_only):
                        return True
                else:
                    if unknown_code_counts is None:
                        unknown_code_counts = module_sets_torch_modes(self.names)
                    if unknown_code_counts:
                        return True
        return False

    def _sets_grad_mode(self, node: ast.AST | None) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and self._module_function(node.func) in GRAD_MODE_SETTERS
        )

    def _mode_neutral(self, node: ast.AST | None, values_only: bool) -> bool:
        """Whether unknown code run at ``node`` is a context manager's
        ``__enter__`` or ``__exit__`` known to leave torch's modes alone
        (``nullcontext()``, ``suppress(E)``; with ``values_only``, a grad
        mode manager too: ``torch.no_grad()``)."""
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return all(
                self._mode_neutral(item.context_expr, values_only)
                for item in node.items
            )
        if not isinstance(node, ast.Call) or not isinstance(
            node.func, (ast.Name, ast.Attribute)
        ):
            return False
        qualified = self._module_function(node.func)
        return qualified in MODE_NEUTRAL_MANAGERS or (
            values_only and qualified in GRAD_MODE_MANAGERS
        )

    def effects_between(self, first: Point, second: Point) -> Iterator[Change]:
        """Effects of code that may run after ``first.node`` and before ``second.node``."""
        for _, effect in self.placed_effects_between(first, second):
            yield effect

    def placed_effects_between(
        self, first: Point, second: Point, with_first: bool = False
    ) -> Iterator[tuple[Block, Change]]:
        """``effects_between``, each with the block whose evaluation makes it
        (``with_first``: and those of ``first.node``'s own evaluation)."""
        walk1 = self._walk(first.block)
        end1 = walk1.spans[id(first.node)][0 if with_first else 1]
        walk2 = self._walk(second.block)
        start2 = walk2.spans[id(second.node)][0]
        if first.block is second.block:
            for effect in walk1.effects[end1:start2]:
                yield first.block, effect
            return
        for effect in walk1.effects[end1:]:
            yield first.block, effect
        for block in sorted(
            self.region(first.block, second.block), key=lambda b: b.index
        ):
            for effect in self._walk(block).effects:
                yield block, effect
        for effect in walk2.effects[:start2]:
            yield second.block, effect
        # Leaving a ``with`` body calls ``__exit__``.
        stmt1 = first.block.stmt
        stmt2 = second.block.stmt
        if stmt1 is not None:
            around2 = set(self.flow.enclosing_statements(stmt2)) if stmt2 else set()
            for outer in self.flow.enclosing_statements(stmt1):
                if (
                    isinstance(outer, (ast.With, ast.AsyncWith))
                    and outer not in around2
                ):
                    for effect in _BlockWalk.context_exit(self, outer):
                        yield second.block, effect

    def watch(
        self,
        paths: Iterable[Path],
        before: Block | None = None,
        immutable: frozenset[Path] = frozenset(),
    ) -> Watched | None:
        """Prepare reads of ``paths`` for ``changes``; None if aliasing is too tangled.

        With ``before``, the reads happen there: aliases made only where that
        block cannot be reached from do not count.
        """
        paths = list(paths)
        within = self.reaching(before) if before is not None else None
        expanded: set[Path] = set()
        for path in paths:
            more = self.expand(path, within=within)
            if more is None:
                return None
            expanded |= more
        return Watched(
            roots=frozenset(path[0] for path in paths),
            expanded=frozenset(expanded),
            within=within,
            immutable=immutable,
        )

    def reached_by_unknown_code(
        self, watched: Watched, at: Block | None = None
    ) -> bool:
        """Whether code this function cannot see, run in block ``at``, may
        change a watched path: one of them (or of their aliases) is reachable
        (``is_reachable``), or a reachable path may be one of their objects
        (``y = x`` where a closure uses ``y``). Escapes and aliases count only
        where made before ``at`` may run (in blocks that can reach it)."""
        if at is not None and not self.reached_by_unknown_code(watched):
            return False  # not even by code run just before the reads
        key = -1 if at is None else at.index
        shared = watched.reached.get(key)
        if shared is None:
            within = watched.within if at is None else self.reaching(at)
            expanded = watched.expanded
            shared = any(self.is_reachable(path, within) for path in expanded)
            if not shared:
                for path in self.reachable_paths(within):
                    reach = self.expand(path, within=within)
                    if reach is None or any(
                        paths_conflict(r, w) for r in reach for w in expanded
                    ):
                        shared = True
                        break
            watched.reached[key] = shared
        return shared

    def reachable_paths(self, within: Reaching | None) -> list[Path]:
        """The paths of the function's locals that code it cannot see may
        reach: shared names, and the paths that escaped (in ``within``)."""
        return [
            path
            for path, site in self._reachable_sites
            if site is None or within is None or site in within
        ]

    @property
    def _reachable_sites(self) -> list[tuple[Path, int | None]]:
        """``reachable_paths`` with the block of each escape (None: shared)."""
        found = self.__dict__.get("_reachable")
        if found is None:
            found = self.__dict__["_reachable"] = []
            flow = self.flow
            for name in flow.events_by_name:
                if not flow.has_stores(name):
                    continue
                if self.is_shared_root(name):
                    found.append(((name,), None))
                else:
                    found.extend(self.escapes(name))
        return found

    def changes(
        self, effect: Change, watched: Watched, at: Block | None = None
    ) -> bool:
        """Whether ``effect`` (made in block ``at``, if known) may change
        what a read of the watched paths sees."""
        kind = effect.kind
        if kind is ChangeKind.BARRIER:
            return True
        if kind is ChangeKind.MODE:
            return False  # changes no object
        if kind is ChangeKind.REBIND:
            return effect.path[0] in watched.roots
        if kind is ChangeKind.ANY_CODE:
            return self.reached_by_unknown_code(watched, at)
        if (
            kind is ChangeKind.STORE
            and any(map(self.is_shared_root, watched.roots))
            and self.may_store_into_namespace(effect, at)
        ):
            return True
        written = self.expand(
            effect.path, store=kind is ChangeKind.STORE, within=watched.within
        )
        if written is None:
            return True
        if kind is ChangeKind.CALL:
            # Calling an object may change it and, for a bound method
            # (``add = x.add_``), the object it is bound to.
            written = frozenset((path[0],) for path in written)
        if watched.immutable and kind is not ChangeKind.STORE:
            written = frozenset(
                w
                for w in written
                if not any(w[: len(i)] == i for i in watched.immutable)
            )
        if any(paths_conflict(w, r) for w in written for r in watched.expanded):
            return True
        if isinstance(effect.node, ast.Call) and self.runs_list_method(effect.node):
            return False  # changes a new list only, never another's object
        return self._meets_handed_over(written, watched, kind is ChangeKind.STORE, at)

    def changed_between(
        self,
        paths: Iterable[Path],
        first: Point,
        second: Point,
        ignore: Container[ast.AST] = (),
        immutable: frozenset[Path] = frozenset(),
    ) -> Change | None:
        """An effect between the points that may change a read of ``paths``.

        Effects at nodes in ``ignore`` do not count (a caller that knows a store
        puts back the value already there). ``immutable`` paths hold an
        immutable value (a number) at ``first``: a write to (or through) one
        changes nothing; binding or storing another value there does. Returns
        None when nothing can change the reads; a changing effect otherwise (a
        synthetic BARRIER when aliasing is too tangled to tell).
        """
        paths = list(paths)
        roots = frozenset(path[0] for path in paths)
        # A global read may be rebound by a store into the module's namespace.
        reads_global = any(map(self.is_shared_root, roots))
        # Aliases are followed last, and only for an effect that needs them:
        # rebinding a name changes no object, and unknown code that can reach
        # one of the roots by name changes the reads whatever the aliases.
        rest: list[tuple[Block, Change]] = []
        reached: dict[int, bool] = {}  # by the block of unknown code
        for block, effect in self.placed_effects_between(first, second):
            if effect.node in ignore:
                continue
            kind = effect.kind
            if kind is ChangeKind.BARRIER:
                return effect
            if kind is ChangeKind.MODE:
                continue  # changes no object (``mode_may_change_between``)
            if kind is ChangeKind.REBIND:
                if effect.path[0] in roots:
                    return effect
                continue
            if (
                reads_global
                and kind is ChangeKind.STORE
                and self.may_store_into_namespace(effect, block)
            ):
                return effect
            if kind is ChangeKind.ANY_CODE:
                # Escapes before the reads first (a superset of those before
                # the unknown code): most often none, and no block to ask.
                shared = reached.get(-1)
                if shared is None:
                    within = self.reaching(second.block)
                    shared = reached[-1] = any(
                        self.is_reachable(path, within) for path in paths
                    )
                if shared:
                    shared = reached.get(block.index)
                    if shared is None:
                        within = self.reaching(block)
                        shared = reached[block.index] = any(
                            self.is_reachable(path, within) for path in paths
                        )
                if shared:
                    return effect
                if not self.any_local_shared:
                    continue  # nothing of this function's is within its reach
            rest.append((block, effect))
        if not rest:
            return None
        # A write to an object no alias connects to anything, under a root
        # not read, cannot change the reads, however tangled the others.
        # ... unless both may be within unknown code's reach, which may
        # have connected them (``_meets_handed_over``).
        linked = self.aliased_roots
        reads_in_reach = not roots.isdisjoint(linked) or any(
            self.in_reach((root,)) for root in roots
        )
        rest = [
            (block, effect)
            for block, effect in rest
            if effect.kind is ChangeKind.ANY_CODE
            or effect.path[0] in roots
            or effect.path[0] in linked
            or (reads_in_reach and self.in_reach(effect.path[:1]))
        ]
        if not rest:
            return None
        watched = self.watch(paths, before=second.block, immutable=immutable)
        if watched is None:
            return Change(ChangeKind.BARRIER, (), first.node)
        for block, effect in rest:
            if self.changes(effect, watched, block):
                return effect
        return None

    def referenced_between(
        self, path: Path, first: Point, second: Point
    ) -> ast.AST | None:
        """A place between two statements (``first`` and ``second``, each
        its own block) where the object at ``path``, or one holding it, may
        get another reference that outlives the evaluation: bound to a name,
        stored, passed to a call that may keep it, returned, captured by a
        nested scope; or where its identity is taken (``id(a)``,
        ``hash(a)``, ``a is b``, ``a.data_ptr()``), which tells it apart
        from another object of the same value as well. None when every use
        there only reads it (an operand, a read-only method's receiver, an
        index, a formatted value)."""
        region = self.region(first.block, second.block)
        region.discard(first.block)
        for event in self.flow.events_of(path[0]):
            if event.kind is not Kind.LOAD or event.block not in region:
                continue
            if event.nested:
                return event.node
            top: ast.AST = event.node
            parents = self.flow.parents
            parent = parents.get(top)
            while isinstance(parent, (ast.Attribute, ast.Subscript)) and (
                parent.value is top
            ):
                call = parents.get(parent)
                if isinstance(call, ast.Call) and call.func is parent:
                    break  # ``top.method(...)``: the receiver of a call
                top, parent = parent, parents.get(parent)
            found = access_path(top)
            if found is not None and not paths_conflict(found, path):
                continue
            if self._may_keep(top, parent):
                return top
        return None

    def _may_keep(self, expr: ast.AST, parent: ast.AST | None) -> bool:
        """Whether the context ``parent`` may keep a reference to the value
        of ``expr`` beyond its own evaluation."""
        if isinstance(parent, ast.Compare):
            # ``a is b`` compares identities: kept, as ``id(a)`` is.
            return any(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)
        if isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            return False
        if isinstance(parent, ast.Attribute):  # the receiver of a method call
            return parent.attr not in FRESH_METHODS or parent.attr in _IDENTITY_METHODS
        if isinstance(parent, (ast.FormattedValue, ast.Expr)):
            return False
        if isinstance(parent, (ast.If, ast.While, ast.Assert, ast.IfExp)):
            return getattr(parent, "test", None) is not expr
        if isinstance(parent, ast.Subscript):
            return parent.slice is not expr
        if isinstance(parent, (ast.AugAssign, ast.Delete)):
            return False  # a write or a deletion: the caller watches those
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            return (
                getattr(parent, "value", None) is expr
            )  # a store target keeps nothing
        if isinstance(parent, ast.Call):
            func = parent.func
            return not (
                expr is not func
                and isinstance(func, ast.Name)
                and func.id not in _IDENTITY_BUILTINS
                and self.is_builtin(func.id, FRESH_BUILTINS)
            )
        return True


#: Builtins and methods that tell an object (or its memory) apart from
#: another one of the same value: ``id(a)``, ``hash(a)`` of a tensor,
#: ``a.data_ptr()``. A program may compare what they return later.
_IDENTITY_BUILTINS = frozenset({"id", "hash"})
_IDENTITY_METHODS = frozenset({"data_ptr", "__hash__", "is_set_to"})


def takes_identities(function: ast.AST) -> bool:
    """Whether ``function`` (its nested scopes too) compares two values'
    identities (``a is b`` where neither is a constant such as ``None``) or
    calls ``id``: after a reuse, the two names hold one object."""
    for node in ast.walk(function):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
                if isinstance(op, (ast.Is, ast.IsNot)) and not (
                    isinstance(left, ast.Constant) or isinstance(right, ast.Constant)
                ):
                    return True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "id"
        ):
            return True
    return False


#: Expressions whose evaluation calls a special method of an operand.
_OPERATIONS = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript)
#: Nodes whose evaluation may run code of the module's classes (an
#: attribute's property or descriptor, ``__getattr__``, ``__setattr__``...).
_CLASS_CODE = (
    *_OPERATIONS,
    ast.Attribute,
    ast.AugAssign,
    ast.Starred,  # ``[*o]``: ``o.__iter__``
    ast.Dict,  # ``{**o}``: ``o.keys()`` and its items
    ast.keyword,  # ``f(**o)``
)
#: Builtins that run only the special methods of what they are given.
_NUMBER_BUILTINS = frozenset(
    {"print", "str", "repr", "format", "int", "float", "bool", "abs", "round"}
)


def _fresh_torch_function(qualified: str) -> bool:
    """Whether the function named ``qualified`` is torch's of a method
    that returns a new value (``torch.sum``, as ``x.sum()``)."""
    module, _, name = qualified.rpartition(".")
    return module == "torch" and name in FRESH_METHODS


#: Nodes that hash their keys (``__hash__``, ``__eq__``).
_HASHING = (ast.Dict, ast.Set, ast.DictComp, ast.SetComp)


class Watched(Record):
    """Paths being read, with every path they may alias; ``within``: the
    blocks whose aliases count; ``immutable``: paths holding an immutable
    value."""

    __slots__ = ("roots", "expanded", "within", "immutable", "reached")
    _fields = __slots__

    def __init__(
        self,
        roots: frozenset[str],
        expanded: frozenset[Path],
        within: Reaching | None = None,
        immutable: frozenset[Path] = frozenset(),
    ) -> None:
        self.roots = roots
        self.expanded = expanded
        self.within = within
        self.immutable = immutable
        # Whether unknown code run in a block (by index; -1: anywhere before
        # the reads) may change them: ``reached_by_unknown_code``'s answers.
        self.reached: dict[int, bool] = {}


class _BlockWalk:
    """One block's effects in evaluation order, and each node's span in that list."""

    def __init__(
        self, analysis: Invalidation, block: Block, part: ast.AST | None
    ) -> None:
        self.analysis = analysis
        self.effects: list[Change] = []
        self.spans: dict[int, tuple[int, int]] = {}
        # Each expression's entry and exit on a clock of evaluation steps, so
        # that nodes without effects are ordered too.
        self.ticks: dict[int, tuple[int, int]] = {}
        self._clock = 0
        self.conditional: set[int] = set()  # nodes evaluated on some paths only
        self._conditional_depth = 0
        stmt = block.stmt
        start = len(self.effects)
        if stmt is None:
            return
        role = block.role
        if role == "stmt":
            self.statement(stmt)
        elif role == "test":
            self.expr(stmt.subject if isinstance(stmt, ast.Match) else stmt.test)  # type: ignore[attr-defined]
        elif role == "iter":
            self.expr(stmt.iter)  # type: ignore[attr-defined]
        elif role == "target":
            if analysis.fetch_role(stmt) == "target":
                self.fetch(stmt)  # type: ignore[arg-type]
            self.expr(stmt.target)  # type: ignore[attr-defined]
        elif role == "next":
            self.fetch(stmt)  # type: ignore[arg-type]
        elif role == "items":
            self.with_items(stmt)  # type: ignore[arg-type]
        elif role == "handler" and isinstance(part, ast.ExceptHandler):
            if part.type is not None:
                self.expr(part.type)
            if part.name:
                self.rebind(part.name, part)
        elif role == "case" and isinstance(part, ast.match_case):
            for node in walk_nodes(part.pattern):
                name = getattr(node, "name", None) or getattr(node, "rest", None)
                if isinstance(name, str):
                    self.rebind(name, node)
            # Value and class patterns may run ``__eq__`` and ``__match_args__``.
            self.effects.append(Change(ChangeKind.ANY_CODE, (), part.pattern))
            if part.guard is not None:
                self.expr(part.guard)
        if role != "case":
            self.spans.setdefault(id(stmt), (start, len(self.effects)))

    # -- helpers ---------------------------------------------------------------

    def fetch(self, stmt: ast.For | ast.AsyncFor) -> None:
        """Fetching a loop's next item may run a generator's code, or await."""
        if isinstance(stmt, ast.AsyncFor):
            self.effects.append(Change(ChangeKind.BARRIER, (), stmt))
        elif not plainly_iterable(stmt.iter) or items_unpacking_runs_code(
            stmt.target, stmt.iter
        ):
            self.effects.append(Change(ChangeKind.ANY_CODE, (), stmt))

    def formatting(self, value: ast.AST, node: ast.AST) -> None:
        """Formatting ``value`` runs its ``__format__`` (or ``__str__``,
        ``__repr__``): user code, which may change it or anything shared."""
        paths = self.analysis.formatted_paths(value)
        if paths:
            self.write(paths, node)
            self.effects.append(Change(ChangeKind.ANY_CODE, (), node))

    def rebind(self, name: str, node: ast.AST) -> None:
        self.effects.append(Change(ChangeKind.REBIND, (name,), node))

    def write(self, paths: Iterable[Path], node: ast.AST) -> None:
        self.effects.extend(_writes(paths, node))

    @staticmethod
    def context_exit(
        analysis: Invalidation, stmt: ast.With | ast.AsyncWith
    ) -> list[Change]:
        if isinstance(stmt, ast.AsyncWith) or any(
            may_be_lock(item.context_expr) for item in stmt.items
        ):
            return [Change(ChangeKind.BARRIER, (), stmt)]
        effects: list[Change] = []
        for item in stmt.items:
            effects += _writes(
                analysis.alias_paths(item.context_expr), item.context_expr
            )
        effects.append(Change(ChangeKind.ANY_CODE, (), stmt))
        return effects

    # -- statements --------------------------------------------------------------

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            self.expr(stmt.value)
            for target in stmt.targets:
                if unpacking_runs_code(target, stmt.value):
                    # ``p, q = gen``: the generator's code runs.
                    self.effects.append(Change(ChangeKind.ANY_CODE, (), target))
                self.target(target)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.expr(stmt.value)
                self.target(stmt.target)
        elif isinstance(stmt, ast.AugAssign):
            target = stmt.target
            # ``xs += gen`` extends a list with a generator's items: its code runs.
            extends = isinstance(stmt.op, ast.Add) and not plainly_iterable(stmt.value)
            if isinstance(target, ast.Name):
                self.expr(stmt.value)
                if extends:
                    self.effects.append(Change(ChangeKind.ANY_CODE, (), stmt.value))
                self.rebind(target.id, target)
                self.write([(target.id,)], target)  # in place for tensors and lists
            else:
                self.expr(target.value)  # type: ignore[attr-defined]
                if isinstance(target, ast.Subscript):
                    self.expr(target.slice)
                self.expr(stmt.value)
                if extends:
                    self.effects.append(Change(ChangeKind.ANY_CODE, (), stmt.value))
                self.write(self.target_paths(target), target)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                self.target(target)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            # The first import of a module runs its code.
            self.effects.append(Change(ChangeKind.ANY_CODE, (), stmt))
            for alias in stmt.names:
                if alias.name != "*":
                    self.rebind(alias.asname or alias.name.partition(".")[0], stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in stmt.decorator_list:
                self.expr(decorator)
            args = stmt.args
            for default in (*args.defaults, *args.kw_defaults):
                if default is not None:
                    self.expr(default)
            # Annotations are evaluated here too (unless the module postpones
            # them, where counting them only adds what cannot run).
            for arg in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs):
                if arg is not None and arg.annotation is not None:
                    self.expr(arg.annotation)
            for annotation in (
                args.kwarg.annotation if args.kwarg is not None else None,
                stmt.returns,
            ):
                if annotation is not None:
                    self.expr(annotation)
            if stmt.decorator_list:
                self.effects.append(Change(ChangeKind.ANY_CODE, (), stmt))
            self.rebind(stmt.name, stmt)
        elif isinstance(stmt, ast.ClassDef):
            # A class body runs arbitrary code at definition.
            self.effects.append(Change(ChangeKind.BARRIER, (), stmt))
            self.rebind(stmt.name, stmt)
        elif isinstance(stmt, (ast.Try, TryStar, ast.Global, ast.Nonlocal)):
            pass  # the try marker evaluates nothing; its clauses are blocks
        elif isinstance(stmt, ast.Raise):
            for part in (stmt.exc, stmt.cause):
                if part is None:
                    continue
                self.expr(part)
                if not isinstance(part, ast.Call):
                    # ``raise E`` (or ``from E``) of a class calls ``E()``:
                    # its ``__init__`` runs, as in ``raise E()``.
                    self.effects.append(Change(ChangeKind.ANY_CODE, (), part))
        elif isinstance(stmt, ast.Assert):
            # ``python -O`` skips asserts: what they evaluate is conditional.
            self.conditionally(c for c in (stmt.test, stmt.msg) if c is not None)
        else:
            for child in child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.expr(child)
        self.spans[id(stmt)] = (0, len(self.effects))

    def with_items(self, stmt: ast.With | ast.AsyncWith) -> None:
        analysis = self.analysis
        for item in stmt.items:
            self.expr(item.context_expr)
            analysis._with_entries.add(id(item.context_expr))
            if isinstance(stmt, ast.AsyncWith) or may_be_lock(item.context_expr):
                self.effects.append(Change(ChangeKind.BARRIER, (), item.context_expr))
            else:
                self.write(analysis.alias_paths(item.context_expr), item.context_expr)
                self.effects.append(Change(ChangeKind.ANY_CODE, (), item.context_expr))
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        # ``__exit__`` runs whenever ``__enter__`` did; count it here as well.
        self.effects.extend(self.context_exit(analysis, stmt))

    def target_paths(self, target: ast.AST) -> set[Path]:
        path = access_path(target)
        if path is not None:
            return {path}
        return self.analysis.alias_paths(target.value)  # type: ignore[attr-defined]

    def store(self, target: ast.AST) -> None:
        """An attribute or item store (or delete) at ``target``."""
        path = access_path(target)
        if path is not None:
            self.effects.append(Change(ChangeKind.STORE, path, target))
        else:  # ``f(a).x = v``: something inside what ``f(a)`` may be changes
            self.write(self.analysis.alias_paths(target.value), target)  # type: ignore[attr-defined]

    def target(self, target: ast.AST) -> None:
        """A store or delete target: evaluate its parts, then bind or write."""
        start = len(self.effects)
        if isinstance(target, ast.Name):
            self.rebind(target.id, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.target(element)
        elif isinstance(target, ast.Starred):
            self.target(target.value)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            self.expr(target.value)
            if isinstance(target, ast.Subscript):
                self.expr(target.slice)
            self.store(target)
        else:
            self.expr(target)
        self.spans[id(target)] = (start, len(self.effects))

    # -- expressions, in evaluation order -----------------------------------------

    def expr(self, node: ast.AST) -> None:
        start = len(self.effects)
        entry = self._clock
        self._clock += 1
        if self._conditional_depth:
            self.conditional.add(id(node))
        self._expr(node)
        self.spans[id(node)] = (start, len(self.effects))
        self.ticks[id(node)] = (entry, self._clock)
        self._clock += 1

    def conditionally(self, nodes: Iterable[ast.AST]) -> None:
        self._conditional_depth += 1
        for node in nodes:
            self.expr(node)
        self._conditional_depth -= 1

    def _expr(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                self.rebind(node.id, node)
            return
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                self.target(node)
                return
            self.expr(node.value)
            if isinstance(node, ast.Subscript):
                self.expr(node.slice)
            elif iterates_what_may_run_code(node):
                # ``[*gen]``, ``f(*gen)``: the generator's code runs.
                self.effects.append(Change(ChangeKind.ANY_CODE, (), node))
            return
        if isinstance(node, (ast.Tuple, ast.List)) and not isinstance(
            node.ctx, ast.Load
        ):
            self.target(node)
            return
        if isinstance(node, ast.Call):
            func = node.func
            self.expr(func.value if isinstance(func, ast.Attribute) else func)
            for argument in node.args:
                self.expr(argument)
            for keyword in node.keywords:
                self.expr(keyword.value)
            self.effects.extend(self.analysis.call_effects(node))
            return
        if isinstance(node, ast.NamedExpr):
            self.expr(node.value)
            self.rebind(node.target.id, node.target)
            return
        if isinstance(node, ast.FormattedValue):
            self.expr(node.value)
            if node.format_spec is not None:
                self.expr(node.format_spec)
            self.formatting(node.value, node)
            return
        if isinstance(node, ast.BinOp):
            self.expr(node.left)
            self.expr(node.right)
            if formats_with_percent(node):
                self.formatting(node.right, node)  # ``"%s" % o``
            return
        if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
            if node.value is not None:
                self.expr(node.value)
            self.effects.append(Change(ChangeKind.BARRIER, (), node))
            return
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            self.conditionally((node.body, node.orelse))
            return
        if isinstance(node, ast.Compare):
            self.expr(node.left)
            for right in node.comparators:
                self.expr(right)
            if iterates_what_may_run_code(node):
                # ``v in gen`` iterates the generator: its code runs.
                self.effects.append(Change(ChangeKind.ANY_CODE, (), node))
            return
        if isinstance(node, ast.BoolOp):
            self.expr(node.values[0])
            self.conditionally(node.values[1:])
            return
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if key is not None:
                    self.expr(key)
                self.expr(value)
            return
        if isinstance(node, ast.Lambda):
            for default in (*node.args.defaults, *node.args.kw_defaults):
                if default is not None:
                    self.expr(default)
            return  # the body runs when called: its names count as shared
        if isinstance(
            node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
        ):
            first = node.generators[0]
            self.expr(first.iter)
            # Iterating a generator (or unpacking one, an item) runs its code:
            # a list, set or dict comprehension does so at once; a generator
            # expression only when iterated (which counts where it is).
            if not isinstance(node, ast.GeneratorExp) and (
                not plainly_iterable(first.iter)
                or items_unpacking_runs_code(first.target, first.iter)
            ):
                self.effects.append(Change(ChangeKind.ANY_CODE, (), first.iter))
            self._conditional_depth += 1
            for generator in node.generators[1:]:
                if not plainly_iterable(generator.iter) or items_unpacking_runs_code(
                    generator.target, generator.iter
                ):
                    self.effects.append(Change(ChangeKind.ANY_CODE, (), generator.iter))
            for part in _comprehension_parts(node):
                for inner in walk_nodes(part):
                    if isinstance(inner, ast.Call):
                        self.effects.extend(self.analysis.call_effects(inner))
                    elif isinstance(inner, (ast.Await, ast.Yield, ast.YieldFrom)):
                        self.effects.append(Change(ChangeKind.BARRIER, (), inner))
                    elif isinstance(inner, ast.NamedExpr):
                        self.rebind(inner.target.id, inner.target)
                    elif isinstance(inner, ast.FormattedValue):
                        self.formatting(inner.value, inner)
                    elif isinstance(inner, ast.BinOp) and formats_with_percent(inner):
                        self.formatting(inner.right, inner)
                    elif iterates_what_may_run_code(inner):
                        self.effects.append(Change(ChangeKind.ANY_CODE, (), inner))
                    elif isinstance(
                        inner, (ast.Attribute, ast.Subscript)
                    ) and not isinstance(inner.ctx, ast.Load):
                        self.store(inner)
            self._conditional_depth -= 1
            return
        for child in child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child)


def _comprehension_parts(node: ast.AST) -> list[ast.AST]:
    generators = node.generators  # type: ignore[attr-defined]
    parts: list[ast.AST] = [*generators[0].ifs]
    for generator in generators[1:]:
        parts += [generator.target, generator.iter, *generator.ifs]
    parts += [generators[0].target]
    if isinstance(node, ast.DictComp):
        parts += [node.key, node.value]
    else:
        parts.append(node.elt)  # type: ignore[attr-defined]
    return parts


def may_be_lock(context: ast.expr) -> bool:
    """``with self._lock:``: a context manager that exists before the ``with``
    (a name or attribute, not a call) may be a lock, a condition or a
    semaphore. Acquiring or waiting for it lets other threads run and change
    shared state, the point of re-reading it inside (double-checked locking).
    One made by the statement itself (``with torch.no_grad():``) is a scope."""
    return isinstance(context, (ast.Name, ast.Attribute))


def plainly_iterable(expr: ast.AST) -> bool:
    """Iterating ``expr`` runs no user code: a literal, ``range(...)``,
    ``t.tolist()``, ``t.split(n)``, or ``enumerate``/``zip`` of those. A name
    may hold a generator, so it is not."""
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)):
        return True
    if isinstance(expr, (ast.ListComp, ast.SetComp, ast.DictComp, ast.JoinedStr)):
        return True
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    if isinstance(func, ast.Attribute):
        return func.attr in _PLAIN_ITERABLE_METHODS
    if isinstance(func, ast.Name):
        if func.id == "range":
            return True
        if func.id in ("enumerate", "zip", "reversed"):
            return all(plainly_iterable(argument) for argument in expr.args)
    return False


def formats_with_percent(expr: ast.BinOp) -> bool:
    """``"%s" % o``: a string (or bytes) formatted with ``%``, which runs the
    ``__str__``/``__repr__`` of the right operand's objects."""
    left = expr.left
    return isinstance(expr.op, ast.Mod) and (
        isinstance(left, ast.JoinedStr)
        or isinstance(left, ast.Constant)
        and isinstance(left.value, (str, bytes))
    )


def iterates_what_may_run_code(node: ast.AST) -> bool:
    """Whether evaluating ``node`` iterates a value that may be a generator
    (``plainly_iterable``), running its code: a starred item (``[*gen]``,
    ``f(*gen)``) or a membership test (``v in gen``)."""
    if isinstance(node, ast.Starred):
        return isinstance(node.ctx, ast.Load) and not plainly_iterable(node.value)
    if isinstance(node, ast.Compare):
        return any(
            isinstance(op, (ast.In, ast.NotIn)) and not plainly_iterable(right)
            for op, right in zip(node.ops, node.comparators, strict=True)
        )
    return False


def may_join_containers(expr: ast.BinOp) -> bool:
    """Whether ``expr`` may make a container holding its operands' items:
    lists and tuples joined (``[x] + ys``) or repeated (``[x] * 2``), sets
    and dicts merged (``{"k": x} | d``, ``{x} - s``). Not where an operand
    is a constant no container combines with (``t & 0x0F``, ``t + 1``; only
    an integer repeats a sequence, ``t * 0.5``). The set and dict operators
    (``-``, ``&``, ``^``, ``|``) only with a set or dict display or
    comprehension as an operand: between names (``end - start``) they are
    taken for arithmetic."""
    op = expr.op
    if isinstance(op, (ast.Sub, ast.BitAnd, ast.BitXor, ast.BitOr)):
        return any(
            isinstance(operand, (ast.Set, ast.Dict, ast.SetComp, ast.DictComp))
            for operand in (expr.left, expr.right)
        )
    if not isinstance(op, (ast.Add, ast.Mult)):
        return False
    for operand in (expr.left, expr.right):
        if isinstance(operand, ast.Constant):
            value = operand.value
            if not isinstance(op, ast.Mult) or not isinstance(value, int):
                return False
    return True


def unpacking_runs_code(target: ast.AST, value: ast.AST) -> bool:
    """Whether binding ``value`` to ``target`` may run user code: unpacking
    (``p, q = value``) iterates the value, which may be a generator, as in a
    ``for`` loop (``plainly_iterable``), and nested targets iterate the
    items."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return False
    if (
        isinstance(value, (ast.Tuple, ast.List))
        and len(value.elts) == len(target.elts)
        and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
    ):
        return any(map(unpacking_runs_code, target.elts, value.elts))
    if not plainly_iterable(value):
        return True
    return any(items_unpacking_runs_code(element, value) for element in target.elts)


def items_unpacking_runs_code(target: ast.AST, iterable: ast.AST) -> bool:
    """Whether binding each item of the plainly iterable ``iterable`` to
    ``target`` (``for p, q in iterable``) may run user code: the items
    unpacked may be generators (``for p, q in [gen]``)."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return False  # a starred target gets a list: nothing unpacked
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return any(
            isinstance(item, ast.Starred) or unpacking_runs_code(target, item)
            for item in iterable.elts
        )
    if isinstance(iterable, ast.Dict):
        return any(
            key is None or unpacking_runs_code(target, key) for key in iterable.keys
        )
    if isinstance(iterable, (ast.ListComp, ast.SetComp)):
        return unpacking_runs_code(target, iterable.elt)
    if isinstance(iterable, ast.DictComp):
        return unpacking_runs_code(target, iterable.key)
    if isinstance(iterable, (ast.Constant, ast.JoinedStr)):
        return False  # characters (or numbers, or an error)
    if not isinstance(iterable, ast.Call):
        return True
    func, arguments = iterable.func, iterable.args
    if isinstance(func, ast.Attribute):
        # ``tolist()``: lists and numbers; ``split()``: tensors.
        return func.attr not in _PLAIN_ITERABLE_METHODS
    if not isinstance(func, ast.Name):
        return True
    if func.id == "range":
        return False  # numbers: unpacking one raises
    if func.id == "reversed":
        return any(items_unpacking_runs_code(target, a) for a in arguments)
    if func.id in ("enumerate", "zip"):
        # Each item is a tuple: (index, item) or one item of each argument.
        sources = [None, arguments[0]] if func.id == "enumerate" else arguments
        elements = target.elts
        if len(elements) != len(sources) or any(
            isinstance(e, ast.Starred) for e in elements
        ):
            return True
        return any(
            source is not None and items_unpacking_runs_code(element, source)
            for element, source in zip(elements, sources, strict=True)
        )
    return True


_SETS_MODES: weakref.WeakKeyDictionary[Scope, bool] = weakref.WeakKeyDictionary()


def reads_grad_mode(value: ast.AST) -> bool:
    """Whether ``value`` reads what grad or inference mode decided about a
    tensor it makes (``(x * 2).requires_grad``, ``.grad_fn``,
    ``.is_inference()``) or the mode itself (``torch.is_grad_enabled()``):
    then even a Python number it makes depends on those modes."""
    for node in walk_nodes(value):
        if type(node) is ast.Attribute and node.attr in GRAD_MODE_READERS:
            return True
        if type(node) is ast.Name and node.id in GRAD_MODE_READERS:
            return True
    return False


def module_sets_torch_modes(names: Names | None) -> bool:
    """Whether the module's own code may set one of torch's global modes
    outside a ``with`` block: it calls a function by the name of one of
    torch's setters (``torch.set_grad_enabled``, ``set_default_dtype``;
    whatever it is called on, ``torch.autograd.set_grad_enabled`` and
    ``torch._C._set_grad_enabled`` too), or enters a context manager by
    hand (``m.__enter__()``, ``stack.enter_context(m)``), or spells such a
    name in a string (``getattr(torch, "set_grad_enabled")``). Then a call
    of its functions between two statements may change what a tensor
    operation computes. True where the module is not known."""
    if not isinstance(names, Scope):
        return True
    module = names.module
    found = _SETS_MODES.get(module)
    if found is None:
        found = False
        for node in walk_nodes(module.node):
            if type(node) is ast.Attribute:
                name = node.attr
            elif type(node) is ast.Name:
                name = node.id
            elif type(node) is ast.Constant and type(node.value) is str:
                name = node.value  # ``getattr(torch, "set_grad_enabled")``
            elif type(node) is ast.alias:
                # ``from torch import set_default_dtype as sdd``: calls
                # spell ``sdd``
                name = node.name.rpartition(".")[2]
            else:
                continue
            if name in _ENTERING or name.lstrip("_") in MODE_SETTER_NAMES:
                found = True
                break
        _SETS_MODES[module] = found
    return found


#: Attributes that enter a context manager without a ``with``.
_ENTERING = frozenset(
    {"__enter__", "__aenter__", "enter_context", "enter_async_context"}
)


def _writes(paths: Iterable[Path], node: ast.AST) -> list[Change]:
    return [Change(ChangeKind.WRITE, path, node) for path in paths]


def _union(sets: Iterable[set[Path]]) -> set[Path]:
    result: set[Path] = set()
    for item in sets:
        result |= item
    return result


def _reach(starts: Iterable[Block], step, avoid: Block | None) -> set[int]:
    seen: set[int] = set()
    stack = [b for b in starts if b is not avoid]
    while stack:
        block = stack.pop()
        if block.index in seen:
            continue
        seen.add(block.index)
        stack.extend(b for b in step(block) if b is not avoid)
    return seen


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a function body (depth first), not descending into nested
    functions, classes or lambdas (whose code runs elsewhere), and without the
    leaves that hold nothing (names, constants, contexts, operators)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(
            [
                child
                for child in reversed(child_nodes(node))
                if not isinstance(child, _BARE)
            ]
        )


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_BARE = (ast.Name, *LEAVES)
