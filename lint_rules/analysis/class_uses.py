"""Graph-state buffers of a class and where its methods use them (ATN102).

A *buffer* is a zero-filled allocation that a graph-state setup method
(``init_cuda_graph_state`` and the patterns of ``graph-state-methods``)
stores into persistent state: ``self.x = ...``, a dict or list literal or
comprehension assigned to ``self.x``, ``self.x[k] = ...``, or a zero-filled
local that ends up there. ``ClassUses`` finds, in the other methods of the
class, the first use of each buffer that reads or writes its memory;
``offset_written_names`` the buffers some method writes only from a fixed
offset (whose head must stay zero).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Callable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.analysis.nodes import walk_rows
from lint_rules.analysis.tensor_effects import (
    Allocation,
    Detail,
    UseEffect,
    allocation_of,
    context_effect,
    literal_zero,
    own_statements,
)
from lint_rules.analysis.use_forms import may_follow_dot
from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.model import FunctionNode, ModuleModel
    from lint_rules.analysis.scopes import Scope
    from lint_rules.context import Context
    from lint_rules.source import Locator

#: The key of a buffer held directly by the attribute (``self.x``).
WHOLE = object()
#: The key of a buffer stored under a key the analysis cannot name (``self.x[k]``).
UNNAMED = object()


class Buffer(Record):
    """A zero-filled allocation stored into persistent state: ``attribute``
    is ``x`` of ``self.x``, ``key`` WHOLE, UNNAMED, or the constant key or
    index under ``self.x``."""

    __slots__ = ("attribute", "key", "allocation")
    _fields = __slots__

    def __init__(self, attribute: str, key: object, allocation: Allocation) -> None:
        self.attribute = attribute
        self.key = key
        self.allocation = allocation

    @property
    def name(self) -> str:
        """The name views of the buffer go by: its key, or its attribute."""
        return self.key if isinstance(self.key, str) else self.attribute

    @property
    def display(self) -> str:
        if self.key is WHOLE:
            return f"self.{self.attribute}"
        if self.key is UNNAMED:
            return f"self.{self.attribute}[...]"
        if isinstance(self.key, str):
            escaped = self.key.replace("\\", "\\\\").replace('"', '\\"')
            return f'self.{self.attribute}["{escaped}"]'
        return f"self.{self.attribute}[{self.key!r}]"


class BufferUse(Record):
    """A use of a buffer in some method of the class, and what it does."""

    __slots__ = ("node", "method", "effect", "detail")
    _fields = __slots__

    def __init__(
        self, node: ast.AST, method: FunctionNode, effect: UseEffect, detail: Detail
    ) -> None:
        self.node = node
        self.method = method
        self.effect = effect
        self.detail = detail

    @property
    def is_write(self) -> bool:
        return self.effect is UseEffect.FULL_WRITE

    @property
    def verb(self) -> str:
        if self.effect is UseEffect.READ:
            return "read"
        if self.is_write:
            return "written"
        return self.detail.value or "used"


def buffer_attributes(
    model: ModuleModel,
    cls: ast.ClassDef,
    patterns: tuple[str, ...],
    buffers: Callable[[FunctionNode, str], list[Buffer]] | None = None,
) -> set[str]:
    """The attributes that the class's graph-state methods may store a buffer
    in (computed without their local names, which can only drop buffers).
    ``buffers(method, receiver)``: ``stored_buffers`` of a method (a caller
    that has them already)."""
    attributes: set[str] = set()
    for method in model.methods_of(cls):
        receiver = receiver_of(method)
        if receiver is not None and method_matches(method.name, patterns):
            found = (
                stored_buffers(method, receiver, model.scope(method))
                if buffers is None
                else buffers(method, receiver)
            )
            for buffer in found:
                attributes.add(buffer.attribute)
    return attributes


def method_matches(name: str, patterns: tuple[str, ...]) -> bool:
    matcher = _MATCHERS.get(patterns)
    if matcher is None:
        if len(_MATCHERS) > 16:
            _MATCHERS.clear()
        joined = "|".join(fnmatch.translate(pattern) for pattern in patterns)
        matcher = _MATCHERS[patterns] = re.compile(joined).match
    return matcher(name) is not None


#: Method-name patterns -> one compiled matcher for all of them.
_MATCHERS: dict[tuple[str, ...], Callable[[str], re.Match[str] | None]] = {}


def receiver_of(method: FunctionNode) -> str | None:
    """The name of the instance (or class) parameter, if the method has one."""
    for decorator in method.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id == "staticmethod":
            return None
    params = (*method.args.posonlyargs, *method.args.args)
    return params[0].arg if params else None


def stored_buffers(
    method: FunctionNode, receiver: str, names: Scope
) -> Iterator[Buffer]:
    def allocation(node: ast.AST | None) -> Allocation | None:
        found = allocation_of(node, names) if node is not None else None
        return found if found is not None and found.zero_filled else None

    statements = list(own_statements(method.body))
    # Locals bound once, to a zero-filled allocation: they may end up in state.
    bound: dict[str, list[ast.stmt]] = {}
    for stmt in statements:
        for target in _targets(stmt):
            for node in walk_nodes(target):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    bound.setdefault(node.id, []).append(stmt)
    zero_locals: dict[str, Allocation] = {}
    for name, stmts in bound.items():
        stmt = stmts[0]
        if len(stmts) == 1 and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            found = allocation(stmt.value)
            if isinstance(target, ast.Name) and found is not None:
                zero_locals[name] = found
    reported: set[int] = set()

    def through_locals(value: ast.AST) -> Iterator[Allocation]:
        """Zero-filled locals the stored value holds or is made of
        (``[buf] + [buf.clone() for _ in range(n)]``), once each."""
        for node in walk_nodes(value):
            if isinstance(node, ast.Name) and node.id in zero_locals:
                found = zero_locals[node.id]
                if id(found) not in reported:
                    reported.add(id(found))
                    yield found

    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        for target in targets:
            attribute = receiver_attribute(target, receiver)
            if attribute is not None:
                found = allocation(value)
                if found is not None:
                    yield Buffer(attribute, WHOLE, found)
                elif isinstance(value, ast.Dict):
                    for key, item in zip(value.keys, value.values, strict=True):
                        found = allocation(item)
                        if found is not None:
                            yield Buffer(attribute, constant_key(key), found)
                elif isinstance(value, (ast.List, ast.Tuple)):
                    for index, item in enumerate(value.elts):
                        found = allocation(item)
                        if found is not None:
                            yield Buffer(attribute, index, found)
                elif isinstance(value, (ast.ListComp, ast.DictComp)):
                    # ``[torch.zeros(n) for _ in range(k)]``, ``{k: torch.zeros(n) ...}``
                    item = value.elt if isinstance(value, ast.ListComp) else value.value
                    found = allocation(item)
                    if found is not None:
                        yield Buffer(attribute, UNNAMED, found)
                for found in through_locals(value):
                    key = (
                        WHOLE
                        if isinstance(value, ast.Name) and value.id in zero_locals
                        else UNNAMED
                    )
                    yield Buffer(attribute, key, found)
                continue
            if isinstance(target, ast.Subscript):
                attribute = receiver_attribute(target.value, receiver)
                found = allocation(value)
                if attribute is not None and found is not None:
                    yield Buffer(attribute, constant_key(target.slice), found)
                elif attribute is not None:
                    for found in through_locals(value):
                        yield Buffer(attribute, UNNAMED, found)


def _targets(stmt: ast.stmt) -> list[ast.AST]:
    """What a statement of the method's own code binds names in (its body's
    statements are visited on their own); ``:=`` anywhere in it, too."""
    if isinstance(stmt, ast.Assign):
        targets: list[ast.AST] = list(stmt.targets)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [stmt.target]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in stmt.items if i.optional_vars]
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [ast.Name(stmt.name, ast.Store())]
    else:
        targets = []
    header = getattr(stmt, "value", None) or getattr(stmt, "test", None)
    if header is not None:
        targets += [
            n.target for n in walk_nodes(header) if isinstance(n, ast.NamedExpr)
        ]
    return targets


#: A subscript whose first component may start at a positive literal (``[1:``,
#: ``[(1):``, ``[0x1:``, a line or comments apart): the pre-filter of
#: ``offset_written_names`` (``_from_offset`` on the tree). It starts with
#: a literal ``[``, which the regular expression engine scans for at C speed.
_OFFSET_INDEX = re.compile(
    r"\[(?:\s|\\|\(|#[^\r\n]*(?![^\r\n]))*(?:[1-9][0-9_]*|0[xXoObB][0-9a-fA-F_]+)"
    r"(?:\s|\\|\)|#[^\r\n]*(?![^\r\n]))*:"
)


def offset_written_names(cls: ast.ClassDef, locator: Locator | None = None) -> set[str]:
    """Names of buffers the class writes only from an offset somewhere:
    ``kv_indptr[1 : bs + 1] = ...``, ``m.cu_seqlens_k[1:].copy_(...)``,
    ``torch.cumsum(x, 0, out=self.meta["cu_seqlens_k"][1:])``. The name is
    the subscripted value's last name (a local, an attribute, a constant
    key): views of one buffer go by its name across the class. Such a buffer
    keeps the head the writes skip (element 0 of an indptr) at zero on every
    replay, so the zeros are needed.

    With the module's text (``locator``) and the pre-filters on, only the
    code spanning the rows where such a subscript opens is walked: the
    subscript, and the statement or call writing it, span its ``[``."""
    found: set[str] = set()
    rows: list[int] | None = None
    if locator is not None and prefilter.enabled():
        first = min([cls.lineno, *(d.lineno for d in cls.decorator_list)])
        start = locator.line_start(first)
        end = locator.full_line_end(cls.end_lineno or cls.lineno)
        positions = [
            match.start() for match in _OFFSET_INDEX.finditer(locator.text, start, end)
        ]
        if not positions:
            return found  # no ``[1:`` anywhere in the class
        rows = sorted(locator.rows_of(positions))
    # (No leaf writes: constants, contexts and operators are not walked.)
    for node in walk_rows(cls, rows, {}, leaves=False):
        for written in _written_subscripts(node):
            if not _from_offset(written.slice):
                continue
            name = _buffer_name(written.value)
            if name is not None:
                found.add(name)
    return found


def viewed_names(
    cls: ast.ClassDef, names: set[str], locator: Locator | None = None
) -> set[str]:
    """``names`` and the names of what the class binds one of them to a
    view of, transitively: a view under another name written from an
    offset (``v = self.buf[: bs + 1]``, ``v = self.buf``, ``helper(v=self.buf)``)
    leaves the buffer's head unwritten too. (Asked only of a class with a
    buffer ``offset_written_names`` does not name.)"""
    found = set(names)
    viewed = found
    while viewed:
        viewed = _head_views_of(cls, viewed, locator) - found
        found |= viewed
    return found


def _head_views_of(
    cls: ast.ClassDef, names: set[str], locator: Locator | None
) -> set[str]:
    """The names of what the class binds one of ``names`` to a view of,
    by assignment or as a call's keyword argument (``v = self.buf[: bs + 1]``,
    ``v = self.meta["buf"]``, ``v = buf``: ``buf``). With the module's text and the pre-filters on,
    only the code spanning the rows where one of ``names`` is followed by
    a ``=`` (not ``==``) is walked."""
    rows: list[int] | None = None
    if (
        locator is not None
        and prefilter.enabled()
        and not prefilter.may_respell_ascii(locator.text)
    ):
        first = min([cls.lineno, *(d.lineno for d in cls.decorator_list)])
        start = locator.line_start(first)
        end = locator.full_line_end(cls.end_lineno or cls.lineno)
        positions = _bound_positions(locator.text, names, start, end)
        if not positions:
            return set()
        rows = sorted(locator.rows_of(positions))
    found: set[str] = set()
    # (Only keywords and assignments are looked at: no leaf is walked.)
    for node in walk_rows(cls, rows, {}, leaves=False):
        if type(node) is ast.keyword:
            # ``helper(out=self.buf)``: what the parameter ``out`` names.
            if node.arg in names:  # type: ignore[attr-defined]
                name = _buffer_name(_head_view_base(node.value))  # type: ignore[attr-defined]
                if name is not None:
                    found.add(name)
            continue
        if type(node) is not ast.Assign:
            continue
        if not any(
            type(target) is ast.Name and target.id in names
            for target in node.targets  # type: ignore[attr-defined]
        ):
            continue
        name = _buffer_name(_head_view_base(node.value))  # type: ignore[attr-defined]
        if name is not None:
            found.add(name)
    return found


#: What may stand between a bound name and its ``=``: blanks, a line's
#: continuation, the ``)`` of a parenthesized target.
_BEFORE_EQUALS = frozenset(" \t\n\r\f\v\\)")


def _bound_positions(text: str, names: set[str], start: int, end: int) -> list[int]:
    """Where in ``text[start:end]`` one of ``names`` stands as a word
    followed by a ``=`` that is not ``==``: as ``re`` would find
    ``\\b(?:name|...)\\b[\\s\\\\)]*=(?!=)``, by one search of the text
    per name (a pattern of several names is searched at every position)."""
    positions: list[int] = []
    for name in names:
        if not name.isidentifier():
            continue  # (a key no assignment or keyword binds)
        size = len(name)
        position = text.find(name, start, end)
        while position >= 0:
            after = position + size
            before = text[position - 1] if position > 0 else " "
            if not (before.isalnum() or before == "_") and not (
                after < len(text) and (text[after].isalnum() or text[after] == "_")
            ):
                while after < end and text[after] in _BEFORE_EQUALS:
                    after += 1
                if (
                    after < end
                    and text[after] == "="
                    and (after + 1 >= len(text) or text[after + 1] != "=")
                ):
                    positions.append(position)
            position = text.find(name, position + size, end)
    return positions


def _head_view_base(value: ast.expr) -> ast.expr | None:
    """What ``value`` is a view of, element 0 of the view at or after the
    buffer's (so a write from an offset of the view leaves the buffer's
    head): ``buf`` for ``buf``, ``buf[:n]``, ``buf[1:]``, ``buf[0:n, ...]``
    and ``meta["buf"]``; else None."""
    if isinstance(value, ast.Subscript):
        index = value.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, str):
            return value  # a buffer by its key, whole
        first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
        if not isinstance(first, ast.Slice) or first.step is not None:
            return None
        lower = first.lower
        if lower is not None and not (
            isinstance(lower, ast.Constant)
            and type(lower.value) is int
            and lower.value >= 0
        ):
            return None
        return value.value
    if isinstance(value, (ast.Name, ast.Attribute)):
        return value
    return None


def _buffer_name(value: ast.expr | None) -> str | None:
    """The name a buffer goes by across the class: a local's or an
    attribute's, or a constant key's (``self.meta["kv_indptr"]``)."""
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute):
        return value.attr
    if (
        isinstance(value, ast.Subscript)
        and isinstance(value.slice, ast.Constant)
        and isinstance(value.slice.value, str)
    ):
        return value.slice.value
    return None


def _from_offset(index: ast.expr) -> bool:
    """A first dimension sliced from a fixed positive start (``1:``,
    ``1 : bs + 1``): a head no such write reaches. (A start that varies,
    ``x[i : i + 1]`` in a loop, fills the buffer piece by piece.)"""
    first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
    if not isinstance(first, ast.Slice):
        return False
    lower = first.lower
    return (
        isinstance(lower, ast.Constant) and type(lower.value) is int and lower.value > 0
    )


def _written_subscripts(node: ast.AST) -> Iterator[ast.Subscript]:
    """The subscripts ``node`` writes that are not a zero fill: assignment
    targets (``x[n:] = 0`` zeroes a tail, with ``x[:n]`` written all of it),
    receivers of an in-place method (not ``zero_()`` nor ``fill_(0)``), and
    ``out=`` arguments."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        if value is not None and literal_zero(value) is not None:
            return
        for target in targets:
            if isinstance(target, ast.Subscript):
                yield target
    elif isinstance(node, ast.Call):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr.endswith("_")
            and isinstance(func.value, ast.Subscript)
        ):
            zero_fill = func.attr == "zero_" or (
                func.attr == "fill_"
                and len(node.args) == 1
                and literal_zero(node.args[0]) is not None
            )
            if not zero_fill:
                yield func.value
        for keyword in node.keywords:
            if keyword.arg == "out" and isinstance(keyword.value, ast.Subscript):
                yield keyword.value


def receiver_attribute(node: ast.AST, receiver: str) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == receiver
    ):
        return node.attr
    return None


def constant_key(node: ast.AST | None) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return node.value
    return UNNAMED


class ClassUses:
    """Where the methods of a class use ``self.<attribute>`` (and its keys),
    for the attributes that may hold a buffer.

    Each method is searched once, when first needed, for every
    ``self.<attribute>`` and every constant subscript of a local bound once
    to ``self.<attribute>``, and only where those can be: in the code
    spanning the rows where one of the attribute names (then one of the
    locals) occurs. A method where a non-ASCII character may spell an ASCII
    one in an identifier (Python reads them in NFKC form) is searched whole.
    """

    def __init__(self, ctx: Context, cls: ast.ClassDef, attributes: set[str]) -> None:
        self.ctx = ctx
        self.model = ctx.model
        self.attributes = attributes
        # (method, receiver, its searchable text or None, the text's offset)
        self._methods: list[tuple[FunctionNode, str, str | None, int]] = []
        for method in ctx.model.methods_of(cls):
            receiver = receiver_of(method)
            if receiver is not None:
                text, offset = _searchable_text(ctx, method)
                self._methods.append((method, receiver, text, offset))
        self._found: dict[FunctionNode, _Uses] = {}

    def _uses_in(
        self, method: FunctionNode, receiver: str, text: str | None, offset: int
    ) -> _Uses:
        """``self.<attribute>`` nodes and alias subscripts of ``method`` by
        attribute, in the order of one depth-first walk, with the parents of
        their ancestors."""
        found = self._found.get(method)
        if found is not None:
            return found
        parents: dict[ast.AST, ast.AST] = {}
        uses: dict[str, list[ast.Attribute]] = {}
        aliases: dict[str, str] = {}
        rows = self._rows(text, offset, self.attributes, attributes=True)
        if rows == []:
            # No row where one of the attributes may follow a dot: no node
            # with a position is walked, and every ``self.<attribute>`` and
            # ``Assign`` has one.
            found = self._found[method] = ({}, {}, parents)
            return found
        for node in walk_rows(method, rows, parents, leaves=False):
            if isinstance(node, ast.Attribute):
                attribute = receiver_attribute(node, receiver)
                if attribute in self.attributes:
                    uses.setdefault(attribute, []).append(node)  # type: ignore[arg-type]
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                attribute = receiver_attribute(node.value, receiver)
                if isinstance(target, ast.Name) and attribute in self.attributes:
                    aliases[target.id] = attribute  # type: ignore[assignment]
        aliased: dict[str, list[ast.Subscript]] = {}
        if aliases:
            # Every store of such a local, and every subscript of one, is on
            # a row holding its name.
            stores: dict[str, int] = {}
            subscripts: list[ast.Subscript] = []
            rows = self._rows(text, offset, set(aliases))
            for node in walk_rows(method, rows, parents, leaves=False):
                if isinstance(node, ast.Name):
                    if node.id in aliases and not isinstance(node.ctx, ast.Load):
                        stores[node.id] = stores.get(node.id, 0) + 1
                elif (
                    isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in aliases
                ):
                    subscripts.append(node)
            for subscript in subscripts:
                name = subscript.value.id  # type: ignore[attr-defined]
                if stores.get(name) == 1:
                    aliased.setdefault(aliases[name], []).append(subscript)
        found = self._found[method] = (uses, aliased, parents)
        return found

    def _rows(
        self, text: str | None, offset: int, words: set[str], attributes: bool = False
    ) -> list[int] | None:
        """Sorted rows of ``text`` holding one of ``words`` (as ``attributes``:
        only where it may be the name after a dot); None: all rows."""
        if text is None or not prefilter.enabled():
            return None
        positions: list[int] = []
        for word in words:
            position = text.find(word)
            while position >= 0:
                if not attributes or may_follow_dot(text, position, len(word)):
                    positions.append(offset + position)
                position = text.find(word, position + 1)
        return sorted(self.ctx.locator.rows_of(positions))

    def first_use(self, buffer: Buffer, exclude: FunctionNode) -> BufferUse | None:
        """The first use of ``buffer`` in source order, outside ``exclude``,
        that reads or writes its memory. Methods are disjoint and in source
        order: those after the one holding it are not looked into."""
        if buffer.key is UNNAMED:
            return None
        # Rebinding the attribute or the slot (``self.meta = {}`` in ``__init__``)
        # neither reads nor writes the buffer's memory.
        skipped = (UseEffect.TRANSPARENT, UseEffect.REBIND)
        for method, receiver, text, offset in self._methods:
            if method is exclude:
                continue
            found = self._uses_in(method, receiver, text, offset)
            uses = self._method_uses(buffer, method, found)
            uses.sort(key=lambda use: (use.node.lineno, use.node.col_offset))  # type: ignore[attr-defined]
            for use in uses:
                if use.effect not in skipped:
                    return use
        return None

    def accesses(
        self, buffer: Buffer
    ) -> Iterator[tuple[ast.AST, FunctionNode, dict[ast.AST, ast.AST]]]:
        """Every node of the class that stands for ``buffer`` (``self.x``,
        ``self.m["k"]``, ``m["k"]`` of a local ``m = self.m``; for a buffer
        held by the attribute, the loads of a local ``v = self.x`` bound once
        too), in every method, with the method and the parents around it."""
        if buffer.key is UNNAMED:
            return
        for method, receiver, text, offset in self._methods:
            by_attribute, aliased, parents = self._uses_in(
                method, receiver, text, offset
            )
            aliases: set[str] = set()
            for node in by_attribute.get(buffer.attribute, ()):
                if buffer.key is WHOLE:
                    yield node, method, parents
                    stmt = parents.get(node)
                    if (
                        isinstance(stmt, ast.Assign)
                        and stmt.value is node
                        and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)
                    ):
                        aliases.add(stmt.targets[0].id)
                    continue
                slot = parents.get(node)
                if isinstance(slot, ast.Subscript) and slot.value is node:
                    if constant_key(slot.slice) == buffer.key:
                        yield slot, method, parents
            if buffer.key is not WHOLE:
                for subscript in aliased.get(buffer.attribute, ()):
                    if constant_key(subscript.slice) == buffer.key:
                        yield subscript, method, parents
            elif aliases:
                # Every node on a row holding the local's name was walked.
                names = [
                    n for n in parents if isinstance(n, ast.Name) and n.id in aliases
                ]
                for alias in aliases:
                    found = [n for n in names if n.id == alias]
                    loads = [n for n in found if isinstance(n.ctx, ast.Load)]
                    if len(found) - len(loads) == 1:
                        for load in loads:
                            yield load, method, parents

    def _method_uses(
        self, buffer: Buffer, method: FunctionNode, found: _Uses
    ) -> list[BufferUse]:
        """The uses of ``buffer`` in ``method`` (whose nodes are ``found``)."""
        by_attribute, aliased, parents = found
        uses: list[BufferUse] = []
        for node in by_attribute.get(buffer.attribute, ()):
            if not isinstance(node.ctx, ast.Load):
                uses.append(
                    BufferUse(node, method, _store_effect(node, parents), Detail.NONE)
                )
            elif buffer.key is WHOLE:
                uses.append(self._use(node, method, parents))
            else:
                slot = parents.get(node)
                if isinstance(slot, ast.Subscript) and slot.value is node:
                    if constant_key(slot.slice) == buffer.key:
                        uses.append(self._use(slot, method, parents))
        if buffer.key is not WHOLE:
            for subscript in aliased.get(buffer.attribute, ()):
                if constant_key(subscript.slice) == buffer.key:
                    uses.append(self._use(subscript, method, parents))
        return uses

    def _use(
        self, expr: ast.AST, method: FunctionNode, parents: dict[ast.AST, ast.AST]
    ) -> BufferUse:
        if isinstance(expr, ast.Subscript) and not isinstance(expr.ctx, ast.Load):
            return BufferUse(expr, method, _store_effect(expr, parents), Detail.NONE)
        effect, detail = context_effect(expr, parents, self.model.scope(method))  # type: ignore[arg-type]
        if effect is UseEffect.FULL_WRITE and _only_sometimes(expr, parents, method):
            effect, detail = UseEffect.UNKNOWN, Detail.PARTIAL
        return BufferUse(expr, method, effect, detail)


def _searchable_text(ctx: Context, method: FunctionNode) -> tuple[str | None, int]:
    """The method's source text (decorators included) if a text search may
    find its identifiers (it is ASCII, or none of its characters is read as
    an ASCII one, as in a comment's ``→`` or a CJK word), else None; and the
    offset where it starts."""
    first = min(
        [method.lineno, *(decorator.lineno for decorator in method.decorator_list)]
    )
    locator = ctx.locator
    start = locator.line_start(first)
    text = ctx.text[start : locator.full_line_end(method.end_lineno or method.lineno)]
    if text.isascii() or not prefilter.may_respell_ascii(text):
        return text, start
    return None, start


# ``self.<attribute>`` nodes and alias subscripts by attribute, and the parents
# of their ancestors.
_Uses = tuple[
    dict[str, list[ast.Attribute]],
    dict[str, list[ast.Subscript]],
    dict[ast.AST, ast.AST],
]


def _store_effect(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> UseEffect:
    """``self.x += 1`` reads the buffer; ``self.x = v``, ``self.x["k"] = v`` and
    ``del self.x`` replace it without touching its memory."""
    parent = parents.get(node)
    if isinstance(parent, ast.AugAssign) and parent.target is node:
        return UseEffect.READ
    return UseEffect.REBIND


def _only_sometimes(
    node: ast.AST, parents: dict[ast.AST, ast.AST], method: FunctionNode
) -> bool:
    """Whether ``node`` is evaluated on some paths only within its statement
    (an arm of ``a if c else b``, a right operand of ``and``/``or``) or in a
    nested scope."""
    child, parent = node, parents.get(node)
    while parent is not None and parent is not method:
        if isinstance(parent, ast.IfExp) and child is not parent.test:
            return True
        if isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
            return True
        if isinstance(
            parent,
            (
                ast.Lambda,
                ast.FunctionDef,
                ast.AsyncFunctionDef,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
            ),
        ):
            return True
        child, parent = parent, parents.get(parent)
    return False
