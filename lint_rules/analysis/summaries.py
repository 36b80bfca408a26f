"""Summaries of the module's own functions: what a call does to its arguments.

Passing a tensor to a call is, by default, an escape: the callee may read
it, write part of it, or keep it. When the callee is a function of the same
module (``_fill(dst, src)``), or a method of the same class called on the
receiver (``self._fill(dst, src)``), its body says what it does: a
*summary* gives, for each parameter, the effect of the callee's first use of
it on every path from its entry (``tensor_effects.UseEffect``):

- a full write when every path first overwrites all of it (``dst.copy_``,
  ``torch.mul(..., out=dst)``, another summarized helper that does) and no
  path returns, raises out or rebinds the parameter before that, nor
  makes that write inside a CUDA graph's capture (``with
  torch.cuda.graph(g):``, which runs it at each replay, not at the call);
- a read when every path first reads it;
- transparent when the body never loads the parameter;
- unknown otherwise (part written, passed on, stored, returned, viewed).

Summaries are computed bottom-up on demand: a callee's summary is built
from its own flow, whose calls ask for their callees' summaries in turn.
A call back into a function whose summary is being computed (recursion),
or deeper than ``MAX_DEPTH`` summaries, is unknown.

Beside the summaries, ``CallEffects`` knows two other kinds of callee that
write an argument whole: the ``torch.distributed`` collectives whose output
is written whole (``torch_api.COLLECTIVE_OUTPUTS``, and those whose output
list has each of its tensors written whole, ``COLLECTIVE_LIST_OUTPUTS``),
and the calls the project declares in the ``full-write-calls`` setting (a
kernel attnlint cannot see into). A write through a same-class method (a subclass may
override it) or through a declared call carries a ``Detail`` saying so, and
the rules that fix on such a write make the fix unsafe.

A method has a second summary, of what it does to the attributes of its
instance (``AttributeSummary``): for ``self.buf``, the effect of its first
use on every path, where the uses are ``self.buf`` itself and the calls
``self.m(...)`` of summarized methods of the class (their own summaries,
bottom-up, as deep as ``MAX_DEPTH``). Any other use of ``self`` (passed on,
a method the analysis cannot see, a property) is unknown. Whether the method
is *quiet* (calls nothing but torch, the builtins and quiet methods of the
class, and lets ``self`` go nowhere, so that nothing it runs can reach an
attribute but through ``self.x``) is part of it.

A function is summarized only where the call certainly runs its body as
written: a plain ``def`` (not ``async``, not decorated, not a generator),
bound once in the module and by nothing else the module shows
(``REBINDERS``: no ``globals()``, ``exec``, ``import *``...; a write
through a public one, which other modules may replace, carries
``Detail.PUBLIC``), or once in the class body and never assigned
as an instance attribute, whose parameters can be matched with the
call's arguments (no ``*args`` before the argument, no ``**kwargs`` in
the callee holding it), and where the tensor is passed only once (``f(x, x)``
may read through one parameter what it writes through the other).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.flow import Kind
from lint_rules.analysis.nodes import WideNode, dotted_name, string_values, walk_rows
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.analysis.scopes import Argument, Definition
from lint_rules.analysis.tensor_effects import (
    CallOracle,
    Detail,
    TensorUses,
    Use,
    UseEffect,
    context_effect,
    enclosing_managers,
)
from lint_rules.analysis.torch_api import (
    CAPTURE_MANAGERS,
    COLLECTIVE_LIST_OUTPUTS,
    COLLECTIVE_OUTPUTS,
    METHODS,
    OVERWRITING_METHODS,
    collective_in_a_group,
    collective_output,
)
from lint_rules.analysis.use_forms import (
    _WORD_CHARS,
    _occurrences,
    call_argument_spans,
    called_method_names,
    function_text,
    may_follow_dot,
    may_fully_write,
    spelled_within,
    spelled_words,
    spells_word,
)
from lint_rules.source import Locator

_WORD = re.compile(r"\w+")
#: What every string literal holds (``Locator.rows_matching``).
_QUOTE = re.compile("[\"']")


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.flow import Event, FunctionFlow
    from lint_rules.analysis.model import FunctionInfo, FunctionNode, ModuleModel
    from lint_rules.analysis.scopes import Scope

#: How many summaries may be computed inside one another (a chain of helpers).
MAX_DEPTH = 8
#: What ``ModuleSummaries.bounded`` answers for recursion or too deep.
REFUSED = object()

Effect = tuple[UseEffect, Detail]
_UNKNOWN: Effect = (UseEffect.UNKNOWN, Detail.ESCAPE)

#: Declared full writes: (call name, positions and keyword names written whole).
Declarations = tuple[tuple[str, tuple[int | str, ...]], ...]


class FunctionSummary:
    """What one function does to each of its parameters."""

    __slots__ = ("function", "positional", "keyword", "effects")

    def __init__(self, function: FunctionNode, effects: dict[str, Effect]) -> None:
        self.function = function
        args = function.args
        #: Parameters a positional argument may fill, in order.
        self.positional = [arg.arg for arg in (*args.posonlyargs, *args.args)]
        #: Parameters a keyword argument may fill.
        self.keyword = {arg.arg for arg in (*args.args, *args.kwonlyargs)}
        self.effects = effects

    def effect(self, parameter: str) -> Effect:
        return self.effects.get(parameter, _UNKNOWN)


class ModuleSummaries:
    """Summaries of a module's functions and methods, computed on demand."""

    def release(self) -> None:
        """Drop everything at once: the summaries and call oracles kept here
        refer back to this object, and workers check without the cyclic
        collector. Not to be used afterwards."""
        vars(self).clear()

    def __init__(self, model: ModuleModel, locator: Locator | None = None) -> None:
        self.model = model
        #: The module's text (None: every function may write its parameters).
        self.locator = locator
        #: The text pre-filter's facts (``may_write``), made on demand.
        self._respelled: bool | None = None
        self._functions_by_name: dict[str, list[FunctionNode]] | None = None
        self._collectives: set[str] | None = None
        self._facts: dict[FunctionNode, tuple[bool, list[str]]] = {}
        self._writes: dict[FunctionNode, bool] = {}
        self._last_spans: (
            tuple[str, list[tuple[str, list[tuple[int, int]]]] | None] | None
        ) = None
        #: The ``full-write-calls`` of the file's settings (the same for every
        #: caller: ``ModuleModel.call_effects`` sets them).
        self.declarations: Declarations = ()
        self._summaries: dict[FunctionNode, FunctionSummary | None] = {}
        self._computing: list[FunctionNode] = []
        self._module_functions: dict[str, FunctionNode] | None = None
        self._class_methods: dict[ast.ClassDef, dict[str, FunctionNode]] = {}
        self._attributes_assigned: dict[tuple[ast.ClassDef, str], bool] = {}
        self._plain: dict[ast.AST, bool] = {}
        #: ``call_effects``' answers, by function and declarations (rules
        #: asking the same share one, and so one ``TensorUses``).
        self.call_effects: dict[tuple[FunctionNode, Declarations], CallEffects] = {}
        self._attribute_summaries: dict[FunctionNode, AttributeSummary | None] = {}
        #: ``may_write_attributes``' answers by method name, and the methods.
        self._attribute_writers: dict[str, bool] = {}
        self._method_texts: dict[str, list[FunctionNode]] | None = None
        #: ``call_sites``' answers, and the mentions of each name asked.
        self._call_sites: dict[FunctionNode, list[CallSite] | None] = {}
        self._module_call_sites: dict[FunctionNode, list[CallSite] | None] = {}
        # The module's wide nodes, for its walks by rows (``walk_rows``).
        self._wide: dict[ast.AST, WideNode] = {}
        self._name_mentions: dict[
            str, list[tuple[ast.AST, dict[ast.AST, ast.AST]]]
        ] = {}

    # -- who is called ----------------------------------------------------------

    def module_function(self, name: str, scope: Scope) -> FunctionNode | None:
        """The summarizable function a call of ``name`` from ``scope`` runs."""
        found, bindings = scope.lookup(name)
        if found is None or found is not scope.module or len(bindings) != 1:
            return None
        binding = bindings[0]
        if not isinstance(binding, Definition):
            return None
        node = binding.node
        if self._module_level().get(name) is not node or not self._summarizable(node):
            return None
        if self._rebindable(name):
            return None
        return node  # type: ignore[return-value]

    def _rebindable(self, name: str) -> bool:
        """Whether the module's own code may rebind its function ``name``
        with no statement binding the name, or change what the function
        runs (``REBINDERS`` says how): then a call of ``name`` may not run
        the ``def``'s body."""
        if self.model.module_scope.star_import:
            return True  # ``from m import *`` after the ``def`` may bind it
        if self._reaches_namespace():
            return True
        return any(  # ``me._fill = g``, ``me`` the module imported by itself
            type(node) is ast.Attribute and not isinstance(node.ctx, ast.Load)  # type: ignore[attr-defined]
            for node, _ in self._mentions(name)
        )

    def reaches_namespace(self) -> bool:
        """Whether the module's own code may rebind one of its names with no
        statement that binds it (``REBINDERS``: ``globals()[...] = v``,
        ``vars()``, ``exec``, ``setattr`` of the module object)."""
        return self._reaches_namespace()

    def _reaches_namespace(self) -> bool:
        """Whether the module spells an identifier of ``REBINDING_WORDS``
        (as a name, an attribute or an imported name), found once. The
        text pre-filter answers no where the text spells none of them as a
        word (each identifier spelled as written)."""
        found = self.__dict__.get("_namespace")
        if found is None:
            found = self.__dict__["_namespace"] = self._find_namespace_words()
        return found

    def _find_namespace_words(self) -> bool:
        locator = self.locator
        nodes: Iterator[ast.AST] | None = None
        if locator is not None and prefilter.enabled() and not self._respells():
            spelled = spelled_words(locator.text, REBINDING_WORDS)
            if not spelled:
                return False
            rows_naming = self.model._rows_naming
            if rows_naming is not None:
                # Each node sought spells one of the words on a row it spans
                # (a name, an attribute's name, a part of an imported one),
                # as does each node around it: only those rows are walked.
                rows = rows_naming(frozenset(spelled), 1, len(locator.line_starts))
                nodes = walk_rows(self.model.tree, rows, {}, leaves=False)
        if nodes is None:
            nodes = walk_nodes(self.model.tree)
        for node in nodes:
            kind = type(node)
            if kind is ast.Name:
                words: tuple[str, ...] = (node.id,)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                words = (node.attr,)  # type: ignore[attr-defined]
            elif kind is ast.alias:
                words = tuple(node.name.split("."))  # type: ignore[attr-defined]
            else:
                continue
            if any(word in REBINDING_WORDS for word in words):
                return True
        return False

    def _module_level(self) -> dict[str, FunctionNode]:
        if self._module_functions is None:
            top = {id(stmt) for stmt in self.model.tree.body}
            self._module_functions = {
                info.node.name: info.node
                for info in self.model.functions
                if info.cls is None and info.parent is None and id(info.node) in top
            }
        return self._module_functions

    def method(self, cls: ast.ClassDef, name: str) -> FunctionNode | None:
        """The summarizable method ``name`` defined once in ``cls``'s body,
        never assigned as an attribute of anything."""
        methods = self._class_methods.get(cls)
        if methods is None:
            defined: dict[str, list[ast.stmt]] = {}
            for stmt in cls.body:
                for bound in _names_bound_by(stmt):
                    defined.setdefault(bound, []).append(stmt)
            methods = self._class_methods[cls] = {
                bound: stmts[0]  # type: ignore[misc]
                for bound, stmts in defined.items()
                if len(stmts) == 1 and isinstance(stmts[0], ast.FunctionDef)
            }
        method = methods.get(name)
        if method is None or self._assigned_attribute(cls, name):
            return None
        return method if self._summarizable(method) else None

    def _summarizable(self, function: ast.AST) -> bool:
        """``_summarizable``, kept; a function whose text spells neither
        ``yield`` nor ``await`` (keywords, spelled in ASCII only) holds
        neither, and its nodes are not walked."""
        found = self._plain.get(function)
        if found is None:
            if (
                isinstance(function, ast.FunctionDef)
                and not function.decorator_list
                and self.locator is not None
                and prefilter.enabled()
            ):
                text = function_text(self.locator, function)
                if "yield" not in text and "await" not in text:
                    found = self._plain[function] = True
                    return found
            found = self._plain[function] = _summarizable(function)
        return found

    def _assigned_attribute(self, cls: ast.ClassDef, name: str) -> bool:
        """Whether the class assigns (or deletes) an attribute ``name`` of
        anything. Such a node ends on a row where ``name`` follows a dot
        (``may_follow_dot``): only the code spanning those rows is walked
        (all of it where an identifier may be spelled otherwise)."""
        key = (cls, name)
        found = self._attributes_assigned.get(key)
        if found is None:
            rows = self._attribute_rows(cls, name)
            found = self._attributes_assigned[key] = any(
                type(node) is ast.Attribute
                and node.attr == name
                and not isinstance(node.ctx, ast.Load)
                for node in walk_rows(cls, rows, {}, leaves=False)
            )
        return found

    def _attribute_rows(self, cls: ast.ClassDef, name: str) -> list[int] | None:
        """Sorted rows of the class where ``name`` may be an attribute's
        name; None: every row (no text, the pre-filters off, or a text that
        may spell an identifier otherwise)."""
        return self.spelled_rows(cls, name, True)

    def spelled_rows(
        self, cls: ast.ClassDef, name: str, after_dot: bool
    ) -> list[int] | None:
        """Sorted rows of the class where an identifier ``name`` may end (as
        an attribute's name only, with ``after_dot``); None: every row (no
        text, the pre-filters off, or a text that may spell an identifier
        otherwise). A walk of these rows (``walk_rows``) finds every such
        name of the class."""
        locator = self.locator
        if locator is None or not prefilter.enabled() or self._respells():
            return None
        text = locator.text
        first = min([cls.lineno, *(d.lineno for d in cls.decorator_list)])
        start = locator.line_start(first)
        end = locator.full_line_end(cls.end_lineno or cls.lineno)
        positions = []
        length = len(name)
        position = text.find(name, start, end)
        while position >= 0:
            if after_dot:
                if may_follow_dot(text, position, length):
                    positions.append(position)
            elif (position == 0 or text[position - 1] not in _WORD_CHARS) and (
                position + length >= len(text)
                or text[position + length] not in _WORD_CHARS
            ):
                positions.append(position)
            position = text.find(name, position + 1, end)
        return sorted(locator.rows_of(positions))

    # -- who calls ---------------------------------------------------------------

    def call_sites(self, function: FunctionNode) -> list[CallSite] | None:
        """Every call of ``function`` the module holds, in source order, when
        those are all its calls; None otherwise (``CALLERS`` says when).

        A mention of the function's name must be the called expression of a
        call: ``_f(...)`` for a module function, ``<receiver>._m(...)`` for a
        method (any receiver: a mention that names another object's method
        counts, which can only ask more of the callers). Any other mention
        (stored, passed on, deleted, a bare method name in a class body, an
        attribute named like a module function) makes the callers unknown.
        The mentions are found on the rows whose text spells the name as a
        word (all rows where an identifier may be spelled otherwise, or with
        the pre-filters off)."""
        found = self._call_sites.get(function)
        if found is None and function not in self._call_sites:
            found = self._call_sites[function] = self._find_call_sites(function)
        return found

    def module_call_sites(self, function: FunctionNode) -> list[CallSite] | None:
        """Every call of ``function`` the module holds, in source order, for
        a public function too, when each mention of its name (the conditions
        of ``call_sites``, its name in no string of the module) is the called
        expression of a call; None otherwise. Unlike ``call_sites``, code
        elsewhere may call a public function: these are the calls by which
        the module's own code reaches it (``hot_paths``' chains)."""
        found = self._module_call_sites.get(function)
        if found is None and function not in self._module_call_sites:
            found = self._find_call_sites(function, public=True)
            if found is not None and self.spelled_in_a_string(function.name):
                found = None
            self._module_call_sites[function] = found
        return found

    def _find_call_sites(
        self, function: FunctionNode, public: bool = False
    ) -> list[CallSite] | None:
        info = self.model._info_of(function)
        if info is None or info.parent is not None:
            return None
        if not public and not _private(function.name):
            return None
        if function.name.startswith("__") and function.name.endswith("__"):
            return None  # (Python itself calls a dunder: ``obj(x)``, ``a + b``)
        name = function.name
        cls = info.cls
        if cls is None:
            bindings = self.model.module_scope.bindings.get(name, ())
            if (
                len(bindings) != 1
                or not isinstance(bindings[0], Definition)
                or bindings[0].node is not function
                or self._module_level().get(name) is not function
                or not self._summarizable(function)
            ):
                return None
        elif self.method(cls, name) is not function:
            return None
        mentions = self._mentions(name)
        classes = {
            c.name for c in self.model.classes
        }  # (``Class._m(obj, ...)`` passes the instance itself)
        sites: list[CallSite] = []
        aliases: list[str] = []
        for node, parents in mentions:
            parent = parents.get(node)
            if public and cls is not None and _method_alias(node, parent):
                aliases.append(parent.targets[0].attr)  # type: ignore[union-attr]
                continue
            if not (isinstance(parent, ast.Call) and parent.func is node):
                return None
            if cls is None:
                if type(node) is not ast.Name:
                    return None
                bound = False
            else:
                if type(node) is not ast.Attribute:
                    return None
                receiver = node.value  # type: ignore[attr-defined]
                bound = not (isinstance(receiver, ast.Name) and receiver.id in classes)
            sites.append(
                CallSite(
                    _caller(parent, parents),
                    parent,
                    bind_arguments(function, parent, bound),
                )
            )
        for alias in dict.fromkeys(aliases):
            # (``self.update = self.update_single_wrapper``: every call of an
            # attribute named ``update`` may be one of it; one the module
            # never calls is a callback handed to other code)
            if self.spelled_in_a_string(alias) or not any(
                type(parents.get(node)) is ast.Call and parents.get(node).func is node  # type: ignore[union-attr]
                for node, parents in self._mentions(alias)
            ):
                return None
            for node, parents in self._mentions(alias):
                parent = parents.get(node)
                if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    continue  # (a store runs nothing)
                if not (
                    type(node) is ast.Attribute
                    and isinstance(parent, ast.Call)
                    and parent.func is node
                ):
                    return None
                sites.append(
                    CallSite(
                        _caller(parent, parents),
                        parent,
                        bind_arguments(function, parent, True),
                    )
                )
        sites.sort(key=lambda site: (site.call.lineno, site.call.col_offset))
        return sites

    def _mentions(self, name: str) -> list[tuple[ast.AST, dict[ast.AST, ast.AST]]]:
        """The ``Name`` and ``Attribute`` nodes of the module spelling
        ``name``, in source order, each with the parents of the walk that
        found it (kept per name)."""
        found = self._name_mentions.get(name)
        if found is not None:
            return found
        rows = None
        locator = self.locator
        if locator is not None and prefilter.enabled() and not self._respells():
            positions = [start for start, _ in _occurrences(locator.text, name)]
            rows = sorted(locator.rows_of(positions))
        parents: dict[ast.AST, ast.AST] = {}
        found = []
        if rows is None or rows:
            for node in walk_rows(
                self.model.tree, rows, parents, leaves=False, wide=self._wide
            ):
                kind = type(node)
                if (kind is ast.Name and node.id == name) or (  # type: ignore[attr-defined]
                    kind is ast.Attribute and node.attr == name  # type: ignore[attr-defined]
                ):
                    found.append(node)
        found.sort(key=lambda node: (node.lineno, node.col_offset))  # type: ignore[attr-defined]
        result = [(node, parents) for node in found]
        self._name_mentions[name] = result
        return result

    # -- summaries --------------------------------------------------------------

    def summary(self, function: FunctionNode) -> FunctionSummary | None:
        """The summary of ``function``; None while it is being computed
        (recursion) or too deep."""
        if function in self._summaries:
            return self._summaries[function]
        summary = self.bounded(function, lambda: self._summarize(function))
        if summary is REFUSED:
            return None  # not kept
        self._summaries[function] = summary  # type: ignore[assignment]
        return summary  # type: ignore[return-value]

    def bounded(self, function: FunctionNode, compute: Callable[[], object]) -> object:
        """``compute()`` with ``function`` among those being summarized;
        ``REFUSED`` where it already is (recursion) or past ``MAX_DEPTH``."""
        if function in self._computing or len(self._computing) >= MAX_DEPTH:
            return REFUSED
        self._computing.append(function)
        try:
            return compute()
        finally:
            self._computing.pop()

    # -- the text pre-filter -----------------------------------------------------

    def _filtering(self) -> bool:
        """Whether the text pre-filter may answer no: with the module's text,
        no declared kernel (which any name may call), the pre-filters on, and
        no identifier that may be spelled otherwise (``ｆill`` is ``fill``)."""
        if self.locator is None or self.declarations or not prefilter.enabled():
            return False
        return not self._respells()

    def spelled_in_a_string(self, name: str) -> bool:
        """Whether a string constant of the module spells ``name`` as a word:
        then ``getattr(obj, "_m")(...)`` or ``globals()["_f"](...)`` may call
        it, and ``call_sites`` (which sees no such call) are not all its
        callers. Apart from ``call_sites``, and asked only where its answer
        matters: finding it walks the whole module, once."""
        return name in self._string_words()

    def _string_words(self) -> frozenset[str]:
        """The words spelled in the module's string constants (a name looked
        up by ``getattr(obj, "_m")``, ``globals()["_f"]``), found once."""
        found = self.__dict__.get("_strings")
        if found is None:
            # (one search over the values joined by a line break, which no
            # word holds: the words of each value)
            rows = None
            if self.locator is not None and prefilter.enabled():
                rows = self.locator.rows_matching(_QUOTE)
            values = string_values(self.model.tree, rows)
            words = _WORD.findall("\n".join(values))
            found = self.__dict__["_strings"] = frozenset(words)
        return found

    def _respells(self) -> bool:
        """Whether the module's text may spell an identifier otherwise."""
        if self._respelled is None:
            text = self.locator.text if self.locator is not None else ""
            self._respelled = prefilter.may_respell_ascii(text)
        return self._respelled

    def may_pass_to_writer(self, text: str, name: str) -> bool:
        """Whether a call in ``text`` (a function's) may write ``name`` whole
        through a summary or a collective (a text pre-filter: a necessary
        condition). The summary's write needs ``name`` as an argument of a
        call of one of the module's functions or methods that ``may_write``,
        called by its name (``fill(x)``, ``self.fill(dst=x[:])``): ``name``
        spelled between the parentheses of such a call (``call_argument_spans``).
        Any text spelling a collective's name (or a local name imported for
        one), which a call may reach by a name of its own, may; so may
        anything when the pre-filter cannot tell (``_filtering``)."""
        if not self._filtering():
            return True
        last = self._last_spans
        if last is not None and last[0] is text:
            calls = last[1]  # (the rules ask per name, of one text)
        else:
            calls = self._calls_spelled(text)
            self._last_spans = (text, calls)
        if calls is None:
            return True
        by_name = self._by_name()
        return any(
            spelled_within(text, name, spans)
            and any(self.may_write(node) for node in by_name[callee])
            for callee, spans in calls
        )

    def _calls_spelled(
        self, text: str
    ) -> list[tuple[str, list[tuple[int, int]]]] | None:
        """Each of the module's functions and methods that ``text`` may call
        by name, with the spans of ``text`` its calls' arguments may be in
        (None: a collective, which a call may reach by any name)."""
        if self._spells_collective(text):
            return None
        return [
            (callee, spans)
            for callee in self._mentioned(text)
            if (spans := call_argument_spans(text, (callee,)))
        ]

    def may_write(self, function: FunctionNode) -> bool:
        """Whether ``function``'s summary may write a parameter whole, by the
        texts (a necessary condition, computed lazily): some function it may
        call (by a name its text spells, transitively) uses a parameter in a
        form that can write all of it (``p.copy_``, ``p[:] =``, ``out=p``) or
        spells a collective's name. True whenever the pre-filter cannot tell."""
        if not self._filtering():
            return True
        known = self._writes.get(function)
        if known is not None:
            return known
        # Reachability over the names the texts spell, from ``function``: it
        # may write iff a function that writes directly is reachable (a
        # function reached is False only when nothing it reaches writes).
        by_name = self._by_name()
        seen = {function}
        stack = [function]
        while stack:
            node = stack.pop()
            known = self._writes.get(node)
            if known is False:
                continue
            direct, mentioned = self._text_facts(node)
            if known or direct:
                self._writes[function] = True
                return True
            for name in mentioned:
                for callee in by_name[name]:
                    if callee not in seen:
                        seen.add(callee)
                        stack.append(callee)
        for node in seen:  # each reaches only functions that do not write
            self._writes[node] = False
        return False

    def _by_name(self) -> dict[str, list[FunctionNode]]:
        """The module's functions and methods (not nested ones) by name."""
        if self._functions_by_name is None:
            found: dict[str, list[FunctionNode]] = {}
            for info in self.model.functions:
                if info.parent is None:
                    found.setdefault(info.node.name, []).append(info.node)
            self._functions_by_name = found
        return self._functions_by_name

    def _collective_words(self) -> set[str]:
        """Names a call of a collective that writes an output whole spells."""
        if self._collectives is None:
            collectives = (*COLLECTIVE_OUTPUTS, *COLLECTIVE_LIST_OUTPUTS)
            words = {name.rpartition(".")[2] for name in collectives}
            for local, qualified in self.model.imports.names.items():
                if qualified in collectives:
                    words.add(local)
            self._collectives = words
        return self._collectives

    def _spells_collective(self, text: str) -> bool:
        """Whether ``text`` spells the name of a collective that writes an
        output whole as a whole word (``dist.scatter``, not ``x.scatter_``):
        a call reaches one only through a name the scope resolves to it, an
        attribute's or an import's, spelled in full (the callers filter only
        where no identifier may be spelled otherwise, ``_filtering``)."""
        words = self._collective_words()
        if not any(word in text for word in words):
            return False  # (the common case, at the speed of ``in``)
        return bool(spelled_words(text, words))

    def _text_facts(self, function: FunctionNode) -> tuple[bool, list[str]]:
        """Whether ``function``'s text may write a parameter whole by itself
        (a write form, or a collective's name), and the names of the module's
        functions its text spells."""
        facts = self._facts.get(function)
        if facts is None:
            text = function_text(self.locator, function)  # type: ignore[arg-type]
            args = function.args
            direct = self._spells_collective(text) or (
                _may_write_form(text)
                and any(
                    may_fully_write(text, a.arg)
                    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                )
            )
            mentioned = [] if direct else self._mentioned(text)
            facts = self._facts[function] = (direct, mentioned)
        return facts

    def _mentioned(self, text: str) -> list[str]:
        """The names of the module's functions that ``text`` spells as a
        whole word (``spelled_words``: one scan of the text for all)."""
        return spelled_words(text, self._by_name())

    def attribute_summary(self, method: FunctionNode) -> AttributeSummary | None:
        """What ``method`` (a summarizable method of a class of the module,
        with an instance parameter never bound again) does to the attributes
        of its instance; None where it cannot be summarized."""
        if method in self._attribute_summaries:
            return self._attribute_summaries[method]
        summary = None
        info = self.model._info_of(method)
        if info is not None and info.cls is not None and info.parent is None:
            receiver = _receiver(method)
            scope = self.model.scope(method)
            if (
                receiver is not None
                and _summarizable(method)
                and _only_parameter(scope, receiver)
            ):
                summary = AttributeSummary(self, info, receiver, scope)
        self._attribute_summaries[method] = summary
        return summary

    def may_write_attributes(self, names: set[str]) -> bool:
        """Whether a method of the module named in ``names`` may write an
        attribute of its instance whole, by its text (a pre-filter beside
        the attribute summaries): a form that can write a tensor whole, or a
        call of another such method; True without the module's text."""
        if self.locator is None or not prefilter.enabled():
            return True
        if self._method_texts is None:
            self._method_texts = {}
            for info in self.model.functions:
                if info.parent is None and info.cls is not None:
                    self._method_texts.setdefault(info.node.name, []).append(info.node)
        return any(self._attribute_writer(name) for name in names)

    def _attribute_writer(self, name: str) -> bool:
        """Whether a method ``name`` of the module, or one it may call (by
        the names its text calls), holds a form that may write a tensor."""
        known = self._attribute_writers.get(name)
        if known is not None:
            return known
        texts = self._method_texts or {}
        seen = {name}
        stack = [name]
        found = False
        while stack and not found:
            current = stack.pop()
            if self._attribute_writers.get(current):
                found = True
                break
            for method in texts.get(current, ()):
                text = function_text(self.locator, method)  # type: ignore[arg-type]
                called = called_method_names(text)
                if _may_write_form(text) or called is None:
                    found = True
                    break
                for other in called - seen:
                    if other in texts:
                        seen.add(other)
                        stack.append(other)
        if found:
            self._attribute_writers[name] = True
        else:  # nothing reachable from it writes: none of them does
            for other in seen:
                self._attribute_writers[other] = False
        return found

    def _summarize(self, function: FunctionNode) -> FunctionSummary | None:
        model = self.model
        info = model._info_of(function)
        if info is None:
            return None
        flow = model.flow(function)
        scope = model.scope(function)
        uses = TensorUses(
            flow, scope, CallEffects(self, info, scope, self.declarations)
        )
        effects: dict[str, Effect] = {}
        args = function.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            effects[arg.arg] = _parameter_effect(flow, uses, arg)
        return FunctionSummary(function, effects)


def _parameter_effect(flow, uses: TensorUses, arg: ast.arg) -> Effect:
    name = arg.arg
    if not flow.is_private_local(name):
        return _UNKNOWN
    events = flow.events_of(name)
    binding = next((e for e in events if e.node is arg), None)
    if binding is None or any(e.nested for e in events):
        return _UNKNOWN
    if all(e is binding for e in events):
        return UseEffect.TRANSPARENT, Detail.NONE  # never used
    firsts, reaches_exit = uses.first_uses(name, binding)
    if reaches_exit or not firsts:
        return _UNKNOWN  # some path leaves the caller's tensor as it was
    kinds = {use.effect for use in firsts}
    if kinds == {UseEffect.FULL_WRITE}:
        if any(
            enclosing_managers(use.event.node, flow, uses.names, CAPTURE_MANAGERS)
            for use in firsts
        ):
            # Captured into a CUDA graph: it runs at each replay, not at the call.
            return _UNKNOWN
        # The weakest reason of any path (a declared call, an overridable method).
        details = [use.detail for use in firsts if use.detail is not Detail.NONE]
        return UseEffect.FULL_WRITE, (details[0] if details else Detail.NONE)
    if kinds == {UseEffect.READ}:
        return UseEffect.READ, Detail.NONE
    if any(use.detail is Detail.PARTIAL for use in firsts):
        return UseEffect.UNKNOWN, Detail.PARTIAL
    return _UNKNOWN


def _may_write_form(text: str) -> bool:
    """Whether ``text`` may hold a form that writes a tensor whole: an
    overwriting method's name, the word ``out``, or a ``]`` before an ``=``
    (an assignment to a subscript), each found at C speed; the pre-filter
    ``may_fully_write`` is asked after, per parameter."""
    return (
        any(method in text for method in OVERWRITING_METHODS)
        or spells_word(text, "out")
        or _SUBSCRIPT_STORE.search(text) is not None
    )


#: ``]`` and ``=`` with what Python allows between (it starts with a literal,
#: which the regular expression engine scans for at C speed).
_SUBSCRIPT_STORE = re.compile(r"\](?:\s|\\)*=")


def _method_alias(node: ast.AST, parent: ast.AST | None) -> bool:
    """Whether ``node`` (a mention of a method's name) is the value stored
    to an attribute of an object, alone: ``self.update = self._m``."""
    return (
        type(node) is ast.Attribute
        and type(parent) is ast.Assign
        and parent.value is node  # type: ignore[attr-defined]
        and len(parent.targets) == 1  # type: ignore[attr-defined]
        and type(parent.targets[0]) is ast.Attribute  # type: ignore[attr-defined]
    )


def _summarizable(function: ast.AST) -> bool:
    """A plain ``def`` whose call runs its body: not async, not decorated,
    not a generator."""
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return False
    return not any(
        isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await))
        for node in _own_nodes(function)
    )


def _own_nodes(function: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of the function's own code (nested scopes left out)."""
    stack: list[ast.AST] = [*function.body]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _names_bound_by(stmt: ast.stmt) -> Iterator[str]:
    """Names a statement of a class body binds there."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
        return
    for node in walk_nodes(stmt):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                yield (alias.asname or alias.name).partition(".")[0]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name


# --------------------------------------------------------------------------- calls


class CallEffects(CallOracle):
    """What the calls in one function do to a tensor passed to them: the
    oracle ``tensor_effects.context_effect`` asks about a call it does not
    know."""

    __slots__ = ("summaries", "scope", "cls", "receiver", "declarations")

    def __init__(
        self,
        summaries: ModuleSummaries,
        info: FunctionInfo,
        scope: Scope,
        declarations: Declarations = (),
    ) -> None:
        self.summaries = summaries
        self.scope = scope
        self.cls = info.cls if info.parent is None else None
        self.receiver = _receiver(info.node) if self.cls is not None else None
        self.declarations = declarations

    def effect(self, call: ast.Call, argument: ast.expr, whole: bool) -> Effect | None:
        """The effect of ``call`` on the tensor that ``argument`` (one of its
        arguments, or a keyword's value) stands for, all of it when
        ``whole``; None when no summary, collective or declaration knows."""
        root = _root_name(argument)
        if root is None or _count_name(call, root) != 1:
            return None
        position, keyword = _where(call, argument)
        if position is None and keyword is None:
            return None
        effect = self._declared(call, position, keyword)
        if effect is None:
            effect = self._collective(call, position, keyword)
        if effect is None:
            effect = self._summarized(call, position, keyword)
        if effect is None:
            return None
        if effect[0] is UseEffect.FULL_WRITE and not whole:
            return UseEffect.UNKNOWN, Detail.PARTIAL
        return effect

    def declaration(self, call: ast.Call) -> tuple[str, tuple[int | str, ...]] | None:
        """The ``full-write-calls`` entry naming the callee of ``call``: its
        name as written (``ops.kernel``, the kernel of a Triton launch
        ``kernel[grid](...)``) or as imported (``pkg.ops.kernel``), equal to
        the entry's or ending in ``.`` and the entry's."""
        if not self.declarations:
            return None
        func = call.func
        if isinstance(func, ast.Subscript):
            func = func.value  # a Triton launch ``kernel[grid](...)``
        names = [n for n in (dotted_name(func), self.scope.qualified_name(func)) if n]
        for declared, written in self.declarations:
            if any(n == declared or n.endswith("." + declared) for n in names):
                return declared, written
        return None

    def _declared(
        self, call: ast.Call, position: int | None, keyword: str | None
    ) -> Effect | None:
        entry = self.declaration(call)
        if entry is None:
            return None
        written = entry[1]
        if (position is not None and position in written) or (
            keyword is not None and keyword in written
        ):
            return UseEffect.FULL_WRITE, Detail.DECLARED
        return None

    def _collective(
        self, call: ast.Call, position: int | None, keyword: str | None
    ) -> Effect | None:
        if isinstance(call.func, ast.Subscript):
            return None
        qualified = self.scope.qualified_name(call.func)
        if qualified is None:
            return None
        written = collective_output(qualified, call)
        if written is None:
            return None
        if (position is not None and position == written[0]) or (
            keyword is not None and keyword == written[1]
        ):
            if collective_in_a_group(qualified, call):
                return UseEffect.FULL_WRITE, Detail.GROUP
            return UseEffect.FULL_WRITE, Detail.NONE
        return None

    def _summarized(
        self, call: ast.Call, position: int | None, keyword: str | None
    ) -> Effect | None:
        func = call.func
        offset = 0
        detail = Detail.NONE
        if isinstance(func, ast.Name):
            function = self.summaries.module_function(func.id, self.scope)
            if not _private(func.id):
                detail = Detail.PUBLIC  # other modules may replace it
        elif (
            isinstance(func, ast.Attribute)
            and self.cls is not None
            and isinstance(func.value, ast.Name)
            and func.value.id == self.receiver
            and _only_parameter(self.scope, func.value.id)
        ):
            function = self.summaries.method(self.cls, func.attr)
            offset = 1  # the receiver fills the first parameter
            detail = Detail.METHOD
        else:
            return None
        if function is None:
            return None
        summary = self.summaries.summary(function)
        if summary is None:
            return None
        if position is not None:
            if any(isinstance(arg, ast.Starred) for arg in call.args[: position + 1]):
                return None
            index = position + offset
            if index >= len(summary.positional):
                return None
            parameter = summary.positional[index]
        else:
            if keyword not in summary.keyword:
                return None
            parameter = keyword  # type: ignore[assignment]
        effect = summary.effect(parameter)
        if effect[0] is UseEffect.FULL_WRITE and detail is not Detail.NONE:
            return effect[0], detail
        return effect


def _receiver(method: FunctionNode) -> str | None:
    """The instance parameter of a method (not of a static or class method)."""
    for decorator in method.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id in (
            "staticmethod",
            "classmethod",
        ):
            return None
    params = (*method.args.posonlyargs, *method.args.args)
    return params[0].arg if params else None


def _only_parameter(scope: Scope, name: str) -> bool:
    """Whether ``name`` is a parameter of the function never bound again."""
    bindings = scope.bindings.get(name, ())
    return bool(bindings) and all(isinstance(b, Argument) for b in bindings)


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _count_name(call: ast.Call, name: str) -> int:
    return sum(
        1 for node in walk_nodes(call) if isinstance(node, ast.Name) and node.id == name
    )


def _where(call: ast.Call, argument: ast.expr) -> tuple[int | None, str | None]:
    """The position (from 0) or keyword ``argument`` is passed at."""
    for index, arg in enumerate(call.args):
        if arg is argument:
            return index, None
    for kw in call.keywords:
        if kw.value is argument and kw.arg is not None:
            return None, kw.arg
    return None, None


def enclosing_call(node: ast.AST, parents) -> ast.Call | None:
    """The call ``node`` (a tensor's name, maybe subscripted) is passed to,
    by position or keyword."""
    child, parent = node, parents.get(node)
    while isinstance(parent, ast.Subscript) and parent.value is child:
        child, parent = parent, parents.get(parent)
    if isinstance(parent, ast.keyword):
        child, parent = parent, parents.get(parent)
    if isinstance(parent, ast.Call) and child is not parent.func:
        return parent
    return None


# --------------------------------------------------------------------------- attributes of self


class AttributeSummary:
    """What one method does to the attributes of its instance (``self.x``):
    the effect of the first use of each on every path from its entry, and
    whether the method is quiet."""

    __slots__ = ("summaries", "info", "receiver", "scope", "_effects", "_quiet")

    def __init__(
        self, summaries: ModuleSummaries, info: FunctionInfo, receiver: str, scope
    ) -> None:
        self.summaries = summaries
        self.info = info
        self.receiver = receiver
        self.scope = scope
        self._effects: dict[str, Effect] = {}
        self._quiet: bool | None = None

    def effect(self, attribute: str) -> Effect:
        """The effect of the method on ``self.<attribute>``: a full write
        (``Detail.METHOD`` when it rests on another method), a read, a part
        written (``UNKNOWN`` with ``Detail.PARTIAL``), transparent (never
        used), or unknown."""
        found = self._effects.get(attribute)
        if found is not None:
            return found
        found = self.summaries.bounded(self.info.node, lambda: self._compute(attribute))
        if found is REFUSED:
            return _UNKNOWN  # recursion, or too deep: not kept
        self._effects[attribute] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    def _compute(self, attribute: str) -> Effect:
        model = self.summaries.model
        flow = model.flow(self.info.node)
        uses = _AttributeUses(self, attribute, flow)
        events = flow.events_of(self.receiver)
        binding = next((e for e in events if isinstance(e.node, ast.arg)), None)
        if binding is None:
            return _UNKNOWN
        firsts, reaches_exit = uses.first_uses(self.receiver, binding)
        if not firsts:
            return (UseEffect.TRANSPARENT, Detail.NONE) if reaches_exit else _UNKNOWN
        if reaches_exit:
            return _UNKNOWN  # some path leaves it as it was
        kinds = {use.effect for use in firsts}
        if kinds == {UseEffect.FULL_WRITE}:
            details = [use.detail for use in firsts if use.detail is not Detail.NONE]
            return UseEffect.FULL_WRITE, (details[0] if details else Detail.NONE)
        if kinds == {UseEffect.READ}:
            return UseEffect.READ, Detail.NONE
        if kinds <= {UseEffect.FULL_WRITE, UseEffect.UNKNOWN} and all(
            use.effect is UseEffect.FULL_WRITE or use.detail is Detail.PARTIAL
            for use in firsts
        ):
            return UseEffect.UNKNOWN, Detail.PARTIAL
        return _UNKNOWN

    def quiet(self) -> bool:
        """Whether nothing the method runs can reach an attribute of the
        instance but through ``self.x`` in its own body or in quiet methods it
        calls on ``self``: no call but a method of torch's vocabulary, a
        function of torch or a builtin, and ``self`` used only as ``self.x``."""
        if self._quiet is not None:
            return self._quiet
        summaries = self.summaries
        method = self.info.node
        if method in summaries._computing or len(summaries._computing) >= MAX_DEPTH:
            return False
        summaries._computing.append(method)
        try:
            quiet = self._compute_quiet()
        finally:
            summaries._computing.pop()
        self._quiet = quiet
        return quiet

    def _compute_quiet(self) -> bool:
        receiver = self.receiver
        scope = self.scope
        cls = self.info.cls
        parents: dict[ast.AST, ast.AST] = {}
        for node in _own_nodes(self.info.node):  # type: ignore[arg-type]
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in _own_nodes(self.info.node):  # type: ignore[arg-type]
            if isinstance(node, ast.Name) and node.id == receiver:
                parent = parents.get(node)
                if not (isinstance(parent, ast.Attribute) and parent.value is node):
                    return False  # ``self`` passed on
                if _property_like(self.summaries, cls, parent.attr):
                    return False
            elif isinstance(node, ast.Call):
                func = node.func
                if (
                    isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name)
                    and func.value.id == receiver
                ):
                    called = self.summaries.method(cls, func.attr)  # type: ignore[arg-type]
                    summary = (
                        self.summaries.attribute_summary(called)
                        if called is not None
                        else None
                    )
                    if summary is None or not summary.quiet():
                        return False
                    continue
                if isinstance(func, ast.Attribute) and func.attr in METHODS:
                    continue
                if isinstance(func, ast.Name) and scope.is_builtin(func.id):
                    continue
                qualified = scope.qualified_name(func)
                if qualified is None or qualified.partition(".")[0] != "torch":
                    return False
            elif isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda)):
                return False
        return True


def _property_like(summaries: ModuleSummaries, cls, name: str) -> bool:
    """Whether ``self.<name>`` may run code: a decorated function of the
    class body (a property), or a name the class binds otherwise than by a
    plain ``def`` or ``self.<name> = ...``."""
    if summaries.method(cls, name) is not None:
        return False
    for stmt in cls.body:
        if name in _names_bound_by(stmt) and not isinstance(stmt, ast.FunctionDef):
            return False  # a class attribute: a value
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            stmt.name == name
        ):
            return True
    return False


class _AttributeUses(TensorUses):
    """The events of the instance parameter, each with its effect on one
    attribute of the instance (``TensorUses``' path questions then answer
    for ``self.<attribute>``)."""

    def __init__(self, summary: AttributeSummary, attribute: str, flow) -> None:
        super().__init__(
            flow,
            summary.scope,
            CallEffects(summary.summaries, summary.info, summary.scope),
        )
        self.summary = summary
        self.attribute = attribute

    def _event_effect(self, event: Event) -> Effect:
        if event.kind is not Kind.LOAD:
            return UseEffect.REBIND, Detail.NONE
        if event.nested:
            return _UNKNOWN
        parents = self.flow.parents
        node = event.node
        parent = parents.get(node)  # type: ignore[arg-type]
        if not (isinstance(parent, ast.Attribute) and parent.value is node):
            return _UNKNOWN  # ``self`` passed on
        summary = self.summary
        cls = summary.info.cls
        if parent.attr == self.attribute:
            if isinstance(parent.ctx, ast.Store):
                target_of = parents.get(parent)
                if isinstance(target_of, ast.AugAssign):
                    return UseEffect.READ, Detail.NONE
                return UseEffect.REBIND, Detail.NONE
            if isinstance(parent.ctx, ast.Del):
                return UseEffect.REBIND, Detail.NONE
            effect, detail = context_effect(
                parent, parents, self.names, facts=self.facts
            )
            if effect is UseEffect.FULL_WRITE:
                call = _call_around(parent, parents)
                if event.conditional or (
                    call is not None and _mentions(call, summary.receiver)
                ):
                    return UseEffect.UNKNOWN, Detail.PARTIAL
            return effect, detail
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            method = summary.summaries.method(cls, parent.attr)  # type: ignore[arg-type]
            called = (
                summary.summaries.attribute_summary(method)
                if method is not None
                else None
            )
            if called is None or _mentions_in_arguments(call, summary.receiver):
                return _UNKNOWN
            effect, detail = called.effect(self.attribute)
            if effect is UseEffect.FULL_WRITE:
                if event.conditional:
                    return UseEffect.UNKNOWN, Detail.PARTIAL
                return UseEffect.FULL_WRITE, Detail.METHOD
            return effect, detail
        if _property_like(summary.summaries, cls, parent.attr):
            return _UNKNOWN
        return UseEffect.TRANSPARENT, Detail.NONE  # another attribute


def _call_around(node: ast.AST, parents) -> ast.Call | None:
    """The call whose method ``node`` (maybe indexed) is the receiver of."""
    parent = parents.get(node)
    while isinstance(parent, ast.Subscript) and parent.value is node:
        node, parent = parent, parents.get(parent)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            return call
    return None


def _mentions_in_arguments(call: ast.Call, name: str) -> bool:
    return any(_mentions(argument, name) for argument in (*call.args, *call.keywords))


def _mentions(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Call):
        return _mentions_in_arguments(node, name)
    return any(isinstance(n, ast.Name) and n.id == name for n in walk_nodes(node))


# --------------------------------------------------------------------------- stores to self


def overwritten_after_store(
    flow: FunctionFlow,
    uses: TensorUses,
    name: str,
    store: Use,
    receiver: str | None,
) -> tuple[str, Use] | None:
    """``table = zeros(...); self._table = table; table.copy_(host)``: when
    ``store``, the first use of ``name``, is the value of an assignment to
    attributes of ``receiver`` (the method's instance) only, and the
    statements that follow it in the same block run nothing that could read
    the attribute before an unconditional full write of ``name`` (no use of
    the receiver, no call outside torch's vocabulary, no control flow):
    the attribute stored and that write. None otherwise. The write may be a
    call ``self.m(...)`` of a quiet method whose first use of the attribute
    writes it whole on every path (``AttributeSummary``).

    The write may still raise, and the attribute then keeps the zeros: a
    fix resting on this is never safe."""
    if receiver is None or store.effect is not UseEffect.UNKNOWN:
        return None
    node = store.event.node
    stmt = flow.parents.get(node)
    if not (isinstance(stmt, ast.Assign) and stmt.value is node):
        return None
    attributes = []
    for target in stmt.targets:
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == receiver
        ):
            return None
        attributes.append(target.attr)
    names = uses.names
    scope_of = flow.stmt_info
    current: ast.stmt = stmt
    while True:
        info = scope_of.get(current)
        if info is None:
            return None
        for following in info.body[info.index + 1 :]:
            write = _full_write_statement(flow, uses, following, name)
            if write is not None:
                call = following.value  # type: ignore[attr-defined]
                if _quiet(call, receiver, name, names, allowed=write.event.node):
                    return attributes[0], write
                return None
            write = _method_write_statement(flow, uses, following, name, attributes)
            if write is not None:
                return attributes[0], write
            if not _quiet(following, receiver, name, names):
                return None
        # The end of an ``if`` branch or a ``with`` body: what follows the
        # compound statement runs next (a loop body would run again).
        parent = info.parent
        if not isinstance(parent, (ast.If, ast.With)):
            return None
        current = parent


def _full_write_statement(
    flow: FunctionFlow, uses: TensorUses, stmt: ast.stmt, name: str
) -> Use | None:
    """The full write of ``name`` that the expression statement ``stmt`` is
    (``name.copy_(...)``, ``torch.mul(..., out=name)``), if it is one."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    for event in flow.events_of(name):
        if event.node is not None and _within(event.node, stmt, flow.parents):
            effect, detail = uses.effect(event)
            if effect is UseEffect.FULL_WRITE and detail is Detail.NONE:
                return Use(event, effect, detail)
            return None
    return None


def _method_write_statement(
    flow: FunctionFlow,
    uses: TensorUses,
    stmt: ast.stmt,
    name: str,
    attributes: list[str],
) -> Use | None:
    """The call ``self.m(...)`` that the expression statement ``stmt`` is,
    when ``m`` is a quiet method of the class whose first use of the stored
    attributes, on every path, writes one of them whole (the others it
    leaves alone), and the arguments are quiet: the use it stands for."""
    calls = uses.facts.calls
    if not (isinstance(calls, CallEffects) and calls.cls is not None):
        return None
    receiver = calls.receiver
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    func = call.func
    if not (
        receiver is not None
        and isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == receiver
        and _only_parameter(calls.scope, receiver)
    ):
        return None
    names = uses.names
    if not all(
        _quiet(argument, receiver, name, names)
        for argument in (*call.args, *call.keywords)
    ):
        return None
    summaries = calls.summaries
    method = summaries.method(calls.cls, func.attr)
    summary = summaries.attribute_summary(method) if method is not None else None
    if summary is None or not summary.quiet():
        return None
    effects = {summary.effect(attribute)[0] for attribute in attributes}
    if UseEffect.FULL_WRITE not in effects or not effects <= {
        UseEffect.FULL_WRITE,
        UseEffect.TRANSPARENT,
    }:
        return None
    event = next((e for e in flow.events_of(receiver) if e.node is func.value), None)
    if event is None:
        return None
    return Use(event, UseEffect.FULL_WRITE, Detail.METHOD)


def _within(node: ast.AST, stmt: ast.stmt, parents) -> bool:
    while node is not None:
        if node is stmt:
            return True
        node = parents.get(node)
    return False


def _quiet(
    root: ast.AST, receiver: str, name: str, names, allowed: ast.AST | None = None
) -> bool:
    """Whether running ``root`` cannot read an attribute of ``receiver`` nor
    touch ``name`` (but at ``allowed``), and falls through to what follows:
    no use of either name, no call but torch's (a method of its vocabulary,
    a function of its namespaces) and the builtins', no ``return``,
    ``raise``, ``break``, ``continue``, nested scope or ``yield``."""
    for node in walk_nodes(root):
        if isinstance(node, ast.Name):
            if node.id == receiver or (node.id == name and node is not allowed):
                return False
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in METHODS:
                continue
            if isinstance(func, ast.Name) and names.is_builtin(func.id):
                continue
            qualified = names.qualified_name(func)
            if qualified is None or qualified.partition(".")[0] != "torch":
                return False
        elif isinstance(node, _LEAVING):
            return False
    return True


#: Nodes after which the code that follows may not run, or that run code later.
_LEAVING = (
    ast.Return,
    ast.Raise,
    ast.Break,
    ast.Continue,
    ast.Lambda,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.NamedExpr,
    ast.Try,
    ast.With,
    ast.AsyncWith,
)


# --------------------------------------------------------------------------- callers


#: How the module's own code may rebind one of its functions with no
#: statement that binds its name, or change what it runs, as ``_rebindable``
#: sees it.
REBINDERS = """A module function is taken to be what its ``def`` says only
where the module's own code shows no other way to rebind its name: no
``from m import *`` (which may bind it after the ``def``), no store into
an attribute of that name (``me._fill = g``, the module importing itself),
and no identifier of ``REBINDING_WORDS``: the namespace as a dictionary
(``globals()["_fill"] = g``, ``vars()``, ``locals()`` at module level,
``f.__globals__``, a frame's ``f_globals``, ``mod.__dict__``), the module
object (``sys.modules[__name__]``, ``importlib.import_module``,
``__import__``, ``inspect.getmodule``) given to ``setattr`` (or its
``__setattr__``), code run in the namespace (``exec("def _fill(...):
...")``, ``eval`` with ``:=``, reached through ``builtins`` too), or
the function object's own code and defaults (``_fill.__code__ =
g.__code__``). Code elsewhere that replaces a private function
(``mod._fill = g``) is outside what a one-module analysis can see and is
taken not to exist (``CALLERS``), and so is code that reaches the
namespace by a computed name (``getattr(f, "__glob" + "als__")``); a
public function may be replaced from anywhere (a platform's patch of a
library function), and a write through it is only assumed
(``Detail.PUBLIC``)."""

#: The identifiers ``REBINDERS`` names.
REBINDING_WORDS = frozenset(
    {
        "globals",
        "vars",
        "locals",
        "__globals__",
        "f_globals",
        "__dict__",
        "modules",
        "import_module",
        "__import__",
        "getmodule",
        "setattr",
        "__setattr__",
        "exec",
        "eval",
        "builtins",
        "__builtins__",
        "__code__",
        "__defaults__",
        "__kwdefaults__",
    }
)


#: Who may call a function the module defines, as ``call_sites`` sees it.
CALLERS = """A function's callers are all known only where its name is private
to the module: a module function or a method whose name starts with one
underscore (not a dunder, which Python itself calls), bound once (a plain
``def``, not decorated, never assigned as an attribute, its name in no
string of the module, which ``getattr`` may look up: ``call_sites`` does
not look, ``spelled_in_a_string`` says). Python's convention
(PEP 8) makes such a name internal: code elsewhere that calls it, a
subclass in another module calling ``self._m(...)`` included, is outside
what a one-module analysis can see, and is taken not to exist. A public
function or method may be called from anywhere, with anything: its
parameters are what the function alone shows."""


class CallSite:
    """One call of a function: the function whose own code holds it (None:
    module or class-body code, a lambda), the call, and the value each
    parameter receives (the argument, or the default where none is given;
    a parameter left out is not known: a ``*args`` or ``**kwargs``)."""

    __slots__ = ("caller", "call", "arguments")

    def __init__(
        self,
        caller: FunctionNode | None,
        call: ast.Call,
        arguments: dict[str, ast.expr],
    ) -> None:
        self.caller = caller
        self.call = call
        self.arguments = arguments


def _private(name: str) -> bool:
    """A name PEP 8 marks as internal: one leading underscore, not a dunder."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _caller(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> FunctionNode | None:
    """The function whose own code holds ``node`` (None: a lambda's, a
    class body's or the module's). A decorator, a default or an annotation
    runs in the scope around its function."""
    child, current = node, parents.get(node)
    while current is not None:
        kind = type(current)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if child in current.body:  # type: ignore[attr-defined]
                return current  # type: ignore[return-value]
        elif kind is ast.Lambda:
            if child is current.body:  # type: ignore[attr-defined]
                return None
        elif kind is ast.ClassDef:
            if child in current.body:  # type: ignore[attr-defined]
                return None
        child, current = current, parents.get(current)
    return None


def bind_arguments(
    function: FunctionNode, call: ast.Call, bound: bool
) -> dict[str, ast.expr]:
    """What each parameter of ``function`` receives from ``call`` (``bound``:
    a method called on an instance, whose first parameter is the receiver):
    the argument, or the parameter's default. A parameter a ``*args`` or
    ``**kwargs`` of the call may fill is left out, and so is every one where
    the call does not fit the signature (it raises before the body runs)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    if bound:
        positional = positional[1:]
    given: dict[str, ast.expr] = {}
    starred = False
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            starred = True
            break
        if index >= len(positional):
            if args.vararg is None:
                return {}
            break
        given[positional[index].arg] = argument
    keywords = {arg.arg for arg in (*args.args, *args.kwonlyargs)}
    if bound and args.args and not args.posonlyargs:
        keywords.discard(args.args[0].arg)
    double_starred = False
    for keyword in call.keywords:
        if keyword.arg is None:
            double_starred = True
        elif keyword.arg in keywords:
            if keyword.arg in given:
                return {}
            given[keyword.arg] = keyword.value
        elif args.kwarg is None:
            return {}
    if starred or double_starred:
        return given  # (what the rest receives is not known)
    # The defaults of the parameters not given.
    every = [*args.posonlyargs, *args.args]
    first = len(every) - len(args.defaults)  # (the defaults fill the last ones)
    for index, default in enumerate(args.defaults):
        given.setdefault(every[first + index].arg, default)
    for index, default in enumerate(args.kw_defaults):
        if default is not None:
            given.setdefault(args.kwonlyargs[index].arg, default)
    return given


def module_summaries(model: ModuleModel) -> ModuleSummaries:
    """The summaries of ``model``'s functions, made once and kept with the
    model (which frees them on ``release``)."""
    found = model.derived.get("summaries")
    if found is None:
        text = model.text
        found = model.derived["summaries"] = ModuleSummaries(
            model, Locator(text) if text is not None else None
        )
    return found  # type: ignore[no-any-return]


def call_effects(
    model: ModuleModel, info: FunctionInfo, declarations: Declarations = ()
) -> CallEffects:
    """What the calls in ``info``'s function do to the tensors passed to
    them: summaries of the module's functions, collectives, and the
    ``declarations`` of ``full-write-calls``."""
    summaries = module_summaries(model)
    summaries.declarations = declarations
    key = (info.node, declarations)
    found = summaries.call_effects.get(key)
    if found is None:
        found = summaries.call_effects[key] = CallEffects(
            summaries, info, model.scope(info.node), declarations
        )
    return found
