"""Settings, and loading them from configuration files: ``.attnlint.toml``
and ``attnlint.toml`` (options at the top level) or ``[tool.attnlint]`` in
``pyproject.toml``. Every option is declared once, in :data:`OPTIONS`.

Keys and their meaning follow ruff (kebab-case, same names where ruff has the
same option). Rule selectors are codes or code prefixes (``ATN``, ``ATN1``,
``ATN301``) or ``ALL``; they are resolved the way ruff resolves them: within
one layer of selection the more specific selector wins and ``ignore`` beats
``select`` at equal specificity; a later layer (the command line) that sets
``select`` starts afresh, one that only ignores or extends refines.

Paths in the configuration (excludes, per-file-ignores, cache-dir) are
relative to the directory of the configuration file that sets them.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path

from lint_rules.catalogue import CODES, OPT_IN_CODES
from lint_rules.paths import quote_path
from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

#: Method names (glob patterns) whose body sets up state that CUDA-graph
#: replays reuse; ATN102 looks for zero-filled buffers stored there.
DEFAULT_GRAPH_STATE_METHODS: tuple[str, ...] = (
    # SGLang: AttentionBackend.init_cuda_graph_state (base_attn_backend.py and
    # every attention backend), LoRA's init_cuda_graph_batch_info (lora_manager.py,
    # lora/backend/*) and init_cuda_graph_moe_buffers (lora/backend/base_backend.py).
    "init_cuda_graph_state",
    "init_cuda_graph_batch_info",
    "init_cuda_graph_moe_buffers",
    # vLLM (v0 attention backends): AttentionState.graph_capture allocates the
    # _graph_* buffers that captured graphs replay (attention/backends/abstract.py,
    # utils.py CommonAttentionState, flashinfer.py, mla/common.py).
    "graph_capture",
)

#: Methods that run once per step (glob patterns on ``method`` or
#: ``Class.method``), read from SGLang, vLLM and FlashInfer:
#: SGLang's ``AttentionBackend.forward``/``forward_decode``/``forward_extend``
#: and ``init_forward_metadata`` (and ``init_forward_metadata_replay_cuda_graph``),
#: vLLM's ``AttentionImpl.forward`` and ``*MetadataBuilder.build`` (v1), and
#: FlashInfer's wrappers (``Batch*Wrapper.plan``, once per step, and ``run``,
#: once per layer per step; ``begin_forward``/``forward`` are their older names).
DEFAULT_HOT_PATH_METHODS: tuple[str, ...] = (
    "forward",
    "forward_*",
    "init_forward_metadata*",
    "*replay*",
    "*MetadataBuilder.build",
    "*Wrapper.plan",
    "*Wrapper.run",
    "*Wrapper.run_return_lse",
    "*Wrapper.begin_forward",
)

#: Names of values that live on the host (glob patterns on the last part of
#: a name or attribute chain: ``seq_lens_cpu``, ``self.kv_indptr_host``; the
#: host halves ``buf.cpu`` and ``buf.np`` of a pinned host/device pair, vLLM's
#: ``CpuGpuBuffer``): ATN203 does not report a sync of them.
DEFAULT_HOST_TENSOR_NAMES: tuple[str, ...] = (
    "*_cpu",
    "*_cpu_*",
    "*_host",
    "*_np",
    "cpu",
    "np",
)

#: Decorators of functions a JIT compiler turns into kernels (qualified
#: names, glob patterns): ATN301 leaves their loop aliases to the compiler.
DEFAULT_JIT_DECORATORS: tuple[str, ...] = (
    "triton.jit",
    "triton.autotune",
    "triton.heuristics",
    "triton.language.jit",
    "tilelang.jit",
    "tilelang.language.*",
    "tilelang.prim_func",
    "tvm.script.*",
    "cutlass.cute.jit",
    "cutlass.cute.kernel",
    "cute.jit",
    "cute.kernel",
    "numba.jit",
    "numba.njit",
    "numba.cuda.jit",
    "numba.vectorize",
    "numba.guvectorize",
    "helion.kernel",
    "torch.compile",
    "torch.jit.script",
)

#: Files and folders never discovered inside a directory (ruff's defaults, plus
#: build output and caches). Replaced by ``exclude``, extended by ``extend-exclude``.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".attnlint_cache",
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

DEFAULT_CACHE_DIR = ".attnlint_cache"

OUTPUT_FORMATS: tuple[str, ...] = (
    "concise",
    "full",
    "json",
    "json-lines",
    "github",
    "sarif",
)

#: The selector that means every rule.
ALL_SELECTOR = "ALL"

_SELECTOR_SHAPE = re.compile(r"^[A-Z]+[0-9]*$")


class ConfigError(Exception):
    """A configuration problem, described in one line that names key and file."""


def toml_module() -> Any:
    """``tomllib`` (``tomli`` before 3.11), imported when a TOML text is read:
    most runs have nothing to read, and it is among the slowest imports."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib


def _close_match(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word`` (for "did you mean" hints), if any."""
    import difflib

    close = difflib.get_close_matches(word, list(candidates), n=1)
    return close[0] if close else None


# --------------------------------------------------------------------------- globs


class GlobError(ValueError):
    """A glob pattern that cannot be compiled (unclosed ``[`` or ``{``)."""


@functools.lru_cache(maxsize=1024)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob the way ruff's ``globset`` reads it.

    ``*`` matches any run of characters, ``/`` included; ``**/`` matches any
    number of leading folders (none included); ``?`` one character; ``[...]``
    and ``[!...]`` a class; ``{a,b}`` alternatives; ``\\`` escapes. The whole
    string must match.
    """
    out: list[str] = []
    index, size = 0, len(pattern)
    in_braces = False
    while index < size:
        char = pattern[index]
        if char == "\\":
            if index + 1 >= size:
                raise GlobError(f"dangling escape at the end of {pattern!r}")
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        if char == "*":
            if pattern.startswith("**/", index) and (
                index == 0 or pattern[index - 1] == "/"
            ):
                out.append("(?:.*/)?")
                index += 3
                continue
            while index < size and pattern[index] == "*":
                index += 1
            out.append(".*")
            continue
        if char == "?":
            out.append(".")
        elif char == "[":
            end = index + 1
            if end < size and pattern[end] in "!^":
                end += 1
            if end < size and pattern[end] == "]":
                end += 1
            while end < size and pattern[end] != "]":
                end += 1
            if end >= size:
                raise GlobError(f"unclosed '[' in {pattern!r}")
            body = pattern[index + 1 : end]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            body = body.replace("\\", "\\\\").replace("^", "\\^")
            out.append(f"[{'^' if negate else ''}{body}]")
            index = end
        elif char == "{":
            if in_braces:
                raise GlobError(f"nested '{{' in {pattern!r}")
            in_braces = True
            out.append("(?:")
        elif char == "}" and in_braces:
            in_braces = False
            out.append(")")
        elif char == "," and in_braces:
            out.append("|")
        else:
            out.append(re.escape(char))
        index += 1
    if in_braces:
        raise GlobError(f"unclosed '{{' in {pattern!r}")
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _normalize_to(pattern: str, root: str) -> str:
    """``pattern`` made absolute against ``root``, lexically normalized, in ``/`` form."""
    if os.path.isabs(pattern):
        joined = pattern
    else:
        joined = os.path.join(root, pattern)
    normalized = os.path.normpath(joined).replace(os.sep, "/")
    if pattern.endswith("/") and not normalized.endswith("/"):
        normalized += "/"
    return normalized


_GLOB_CHARS = re.compile(r"[*?\[{\\]")


class PathMatcher(Record):
    """Patterns matched against a file's absolute path and its base name (ruff's rule).

    Each pattern matches a path when, made absolute against the project root,
    it matches the whole absolute path; a pattern without ``/`` also matches
    when it matches the base name. Patterns without glob characters (most
    excludes: ``.git``, ``build``) are compared as strings, not compiled.
    """

    __slots__ = ("absolute", "basename", "literal_paths", "literal_names")
    _fields = __slots__

    def __init__(
        self,
        absolute: tuple[re.Pattern[str], ...],
        basename: tuple[re.Pattern[str], ...],
        literal_paths: frozenset[str] = frozenset(),
        literal_names: frozenset[str] = frozenset(),
    ) -> None:
        self.absolute = absolute
        self.basename = basename
        self.literal_paths = literal_paths
        self.literal_names = literal_names

    @classmethod
    def build(cls, patterns: Iterable[str], root: str) -> PathMatcher:
        absolute: list[re.Pattern[str]] = []
        basename: list[re.Pattern[str]] = []
        literal_paths: set[str] = set()
        literal_names: set[str] = set()
        for pattern in patterns:
            normalized = _normalize_to(pattern, root).rstrip("/") or "/"
            if _GLOB_CHARS.search(normalized):
                absolute.append(glob_to_regex(normalized))
            else:
                literal_paths.add(normalized)
            if "/" not in pattern and os.sep not in pattern:
                if _GLOB_CHARS.search(pattern):
                    basename.append(glob_to_regex(pattern))
                else:
                    literal_names.add(pattern)
        return cls(
            tuple(absolute),
            tuple(basename),
            frozenset(literal_paths),
            frozenset(literal_names),
        )

    def matches(self, absolute_path: str) -> bool:
        path = absolute_path.replace(os.sep, "/")
        name = path.rsplit("/", 1)[-1]
        if path in self.literal_paths or name in self.literal_names:
            return True
        return any(regex.match(path) for regex in self.absolute) or any(
            regex.match(name) for regex in self.basename
        )


# ---------------------------------------------------------------- rule selection


class RuleSelection(Record):
    """One layer of rule selection (the command line's, for instance).

    ``select`` None means "keep what earlier layers chose, then refine".
    """

    __slots__ = ("select", "ignore", "extend_select")
    _fields = __slots__

    def __init__(
        self,
        select: tuple[str, ...] | None = None,
        ignore: tuple[str, ...] = (),
        extend_select: tuple[str, ...] = (),
    ) -> None:
        self.select = select
        self.ignore = ignore
        self.extend_select = extend_select

    def is_empty(self) -> bool:
        return self.select is None and not self.ignore and not self.extend_select


def _specificity(selector: str) -> int:
    return 0 if selector == ALL_SELECTOR else len(selector)


def selector_matches(selector: str, code: str) -> bool:
    """Whether a selector (``ALL``, a prefix, or a code) covers ``code``."""
    return selector == ALL_SELECTOR or code.startswith(selector)


def selects_opt_in(selector: str) -> bool:
    """Whether ``selector`` can select a rule users opt into: it names the
    rule past the letters of its code (``ATN0``, ``ATN001``), unlike ``ALL``
    and ``ATN``, which are every rule of the default selection."""
    return selector != ALL_SELECTOR and any(char.isdigit() for char in selector)


def resolve_selection(
    codes: Iterable[str],
    layers: Iterable[RuleSelection],
    opt_in: frozenset[str] = frozenset(),
) -> frozenset[str]:
    """The codes enabled after applying ``layers`` in order (ruff's algorithm);
    a code in ``opt_in`` is selected only by a selector for which
    :func:`selects_opt_in` holds."""
    universe = tuple(codes)
    enabled: set[str] = set()
    carried_ignores: tuple[str, ...] = ()
    for layer in layers:
        updates: dict[str, bool] = {}
        ignores = layer.ignore + carried_ignores
        carried_ignores = ()
        selects = (layer.select or ()) + layer.extend_select
        levels = sorted({_specificity(s) for s in selects + ignores})
        for level in levels:
            for selector in selects:
                if _specificity(selector) == level:
                    opt_in_too = selects_opt_in(selector)
                    for code in universe:
                        if selector_matches(selector, code) and (
                            opt_in_too or code not in opt_in
                        ):
                            updates[code] = True
            for selector in ignores:
                if _specificity(selector) == level:
                    for code in universe:
                        if selector_matches(selector, code):
                            updates[code] = False
        if layer.select is not None:
            enabled = {code for code, on in updates.items() if on}
            if not layer.select and not layer.extend_select and layer.ignore:
                carried_ignores = layer.ignore
        else:
            for code, on in updates.items():
                if on:
                    enabled.add(code)
                else:
                    enabled.discard(code)
    return frozenset(enabled)


def validate_selectors(
    selectors: Iterable[str], codes: Iterable[str], where: str
) -> tuple[str, ...]:
    """Return ``selectors`` as a tuple; raise ConfigError for one that selects nothing."""
    known = tuple(codes)
    result = []
    for selector in selectors:
        if not isinstance(selector, str):
            raise ConfigError(
                f"{where}: expected rule codes as strings, got {selector!r}"
            )
        selector = selector.strip()
        if selector == ALL_SELECTOR:
            result.append(selector)
            continue
        if not _SELECTOR_SHAPE.match(selector) or not any(
            code.startswith(selector) for code in known
        ):
            hint = ""
            upper = selector.upper()
            if upper != selector and (
                upper == ALL_SELECTOR
                or (
                    _SELECTOR_SHAPE.match(upper)
                    and any(code.startswith(upper) for code in known)
                )
            ):
                close = upper  # `atn1`: the codes are upper case
            else:
                close = _close_match(upper, known)
            if close:
                hint = f" (did you mean {close!r}?)"
            raise ConfigError(f"{where}: unknown rule selector {selector!r}{hint}")
        result.append(selector)
    return tuple(result)


# ------------------------------------------------------------------------ options


class Option(Record):
    """One configuration option, declared once in :data:`OPTIONS`.

    ``key`` is the TOML key (kebab-case, as ruff spells it); the Settings
    attribute is the key in snake_case. ``kind`` names the TOML type (for
    messages and ``--show-settings``); ``validate(value, where, codes)`` checks
    a TOML value and returns it as Settings holds it (raising ConfigError);
    ``default`` is the value when no file sets the key. ``affects_findings``:
    the value can change which findings a file gets, so it is part of the
    cache key. ``for_rules``: rules read it, from ``Context.options``.
    ``extends``: the key of an option this one adds to (its values merged
    into that option's, as ``extend-per-file-ignores`` into
    ``per-file-ignores``); such an option has no attribute of its own.
    """

    __slots__ = (
        "key",
        "kind",
        "validate",
        "default",
        "affects_findings",
        "for_rules",
        "extends",
        "help",
    )
    _fields = __slots__

    def __init__(
        self,
        key: str,
        kind: str,
        validate: Any,
        default: object,
        *,
        affects_findings: bool,
        for_rules: bool = False,
        extends: str | None = None,
        help: str = "",
    ) -> None:
        self.key = key
        self.kind = kind
        self.validate = validate
        self.default = default
        self.affects_findings = affects_findings or for_rules
        self.for_rules = for_rules
        self.extends = extends
        self.help = help

    @property
    def attribute(self) -> str:
        """The Settings attribute that holds the value."""
        return self.key.replace("-", "_")


def _validate_codes(value: object, where: str, codes: tuple[str, ...]) -> object:
    return validate_selectors(_string_list(value, where), codes, where)


def _validate_globs(value: object, where: str, codes: tuple[str, ...]) -> object:
    patterns = _string_list(value, where)
    for pattern in patterns:
        _check_glob(pattern, where)
    return patterns


def _validate_bool(value: object, where: str, codes: tuple[str, ...]) -> object:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {_type_name(value)}")
    return value


def _validate_str(value: object, where: str, codes: tuple[str, ...]) -> object:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _validate_format(value: object, where: str, codes: tuple[str, ...]) -> object:
    if value not in OUTPUT_FORMATS:
        raise ConfigError(
            f"{where}: expected one of {', '.join(OUTPUT_FORMATS)}, got {value!r}"
        )
    return value


def _validate_per_file(value: object, where: str, codes: tuple[str, ...]) -> object:
    """A table of pattern = [selectors], as a tuple of (pattern, selectors) pairs."""
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: expected a table of pattern = [codes], got {_type_name(value)}"
        )
    result: list[tuple[str, tuple[str, ...]]] = []
    for pattern, selectors in value.items():
        entry = (
            f"{where}.{pattern}" if pattern.isidentifier() else f"{where}.{pattern!r}"
        )
        _check_glob(pattern, entry)
        result.append(
            (pattern, validate_selectors(_string_list(selectors, entry), codes, entry))
        )
    return tuple(result)


def _validate_full_write_calls(
    value: object, where: str, codes: tuple[str, ...]
) -> object:
    """``{ "decode_attention_fwd" = [3], "k" = ["out"] }``: each call name
    (dotted, as written or as imported) to the arguments it writes in full,
    by position from 0 or by keyword name; sorted by name."""
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: expected a table of call name = [positions or keywords], "
            f"got {_type_name(value)}"
        )
    found: list[tuple[str, tuple[int | str, ...]]] = []
    for name, written in value.items():
        entry = f"{where}.{name!r}"
        if not all(part.isidentifier() for part in name.split(".")):
            raise ConfigError(
                f"{entry}: expected a call name such as `decode_attention_fwd` "
                "or `module.kernel`"
            )
        if not isinstance(written, list) or not written:
            raise ConfigError(
                f"{entry}: expected a non-empty array of argument positions "
                f"(integers from 0) or keyword names, got {written!r}"
            )
        for item in written:
            positional = type(item) is int and item >= 0
            keyword = isinstance(item, str) and item.isidentifier()
            if not (positional or keyword):
                raise ConfigError(
                    f"{entry}: {item!r} is neither an argument position "
                    "(an integer from 0) nor a keyword name"
                )
        found.append((name, tuple(written)))
    return tuple(sorted(found, key=lambda item: item[0]))


_CODES = "array of rule selectors"
_GLOBS = "array of globs"
_PER_FILE = "table of glob = [rule selectors]"

#: Every configuration option, each declared once. Settings' attributes and
#: defaults, the keys ``[tool.attnlint]`` accepts and how each is checked,
#: the cache key and ``Context.options`` are all derived from this table:
#: adding an option is adding one entry (see the README's Development section).
OPTIONS: tuple[Option, ...] = (
    Option(
        "select",
        _CODES,
        _validate_codes,
        (ALL_SELECTOR,),
        affects_findings=True,
        help="rules to check (codes, prefixes or ALL)",
    ),
    Option(
        "ignore",
        _CODES,
        _validate_codes,
        (),
        affects_findings=True,
        help="rules not to check",
    ),
    Option(
        "extend-select",
        _CODES,
        _validate_codes,
        (),
        affects_findings=True,
        help="rules to check on top of select",
    ),
    Option(
        "per-file-ignores",
        _PER_FILE,
        _validate_per_file,
        (),
        affects_findings=True,
        help="rules not to check in the files a glob matches",
    ),
    Option(
        "extend-per-file-ignores",
        _PER_FILE,
        _validate_per_file,
        (),
        affects_findings=True,
        extends="per-file-ignores",
        help="per-file-ignores added to those of per-file-ignores",
    ),
    Option(
        "exclude",
        _GLOBS,
        _validate_globs,
        DEFAULT_EXCLUDES,
        affects_findings=False,
        help="files and folders never discovered",
    ),
    Option(
        "extend-exclude",
        _GLOBS,
        _validate_globs,
        (),
        affects_findings=False,
        help="excludes added to exclude",
    ),
    Option(
        "force-exclude",
        "boolean",
        _validate_bool,
        False,
        affects_findings=False,
        help="apply excludes to paths named on the command line too",
    ),
    Option(
        "respect-gitignore",
        "boolean",
        _validate_bool,
        True,
        affects_findings=False,
        help="skip the files and folders that git ignores",
    ),
    Option(
        "graph-state-methods",
        _GLOBS,
        _validate_globs,
        DEFAULT_GRAPH_STATE_METHODS,
        affects_findings=True,
        for_rules=True,
        help="method-name globs that set up CUDA-graph state (ATN102)",
    ),
    # (call name, positions from 0 and keyword names it writes in full)
    Option(
        "full-write-calls",
        "table of call name = [positions or keywords]",
        _validate_full_write_calls,
        (),
        affects_findings=True,
        for_rules=True,
        help="calls that write the arguments listed in full (ATN101, ATN104)",
    ),
    Option(
        "hot-path-methods",
        _GLOBS,
        _validate_globs,
        DEFAULT_HOT_PATH_METHODS,
        affects_findings=True,
        for_rules=True,
        help="method-name globs (method or Class.method) that run per step",
    ),
    Option(
        "host-tensor-names",
        _GLOBS,
        _validate_globs,
        DEFAULT_HOST_TENSOR_NAMES,
        affects_findings=True,
        for_rules=True,
        help="name globs of tensors kept in host memory (ATN203)",
    ),
    Option(
        "hot-paths-only",
        "boolean",
        _validate_bool,
        True,
        affects_findings=True,
        for_rules=True,
        help="ATN202 and ATN301 report in per-step code only",
    ),
    Option(
        "jit-decorators",
        _GLOBS,
        _validate_globs,
        DEFAULT_JIT_DECORATORS,
        affects_findings=True,
        for_rules=True,
        help="decorators of JIT-compiled kernels, which ATN203 and ATN301 leave alone",
    ),
    Option(
        "cache-dir",
        "string",
        _validate_str,
        DEFAULT_CACHE_DIR,
        affects_findings=False,
        help="where the cache is kept",
    ),
    Option(
        "fix",
        "boolean",
        _validate_bool,
        False,
        affects_findings=False,
        help="apply fixes",
    ),
    # None: not set (the summary hints at hidden unsafe fixes); True/False: set.
    Option(
        "unsafe-fixes",
        "boolean",
        _validate_bool,
        None,
        affects_findings=False,
        help="include unsafe fixes",
    ),
    Option(
        "show-fixes",
        "boolean",
        _validate_bool,
        False,
        affects_findings=False,
        help="list what was fixed",
    ),
    Option(
        "output-format",
        "string",
        _validate_format,
        "concise",
        affects_findings=False,
        help="how findings are printed",
    ),
)

#: The options by key.
OPTIONS_BY_KEY: dict[str, Option] = {option.key: option for option in OPTIONS}

#: The options Settings holds an attribute for (not those that extend another).
_OWN_OPTIONS: tuple[Option, ...] = tuple(o for o in OPTIONS if o.extends is None)


class RuleOptions(Record):
    """The options a rule may read (``for_rules`` in :data:`OPTIONS`), as
    attributes named like Settings': ``ctx.options.graph_state_methods``."""

    def __init__(self, values: Mapping[str, object] | None = None) -> None:
        given = dict(values or {})
        for option in OPTIONS:
            if option.for_rules:
                name = option.attribute
                setattr(self, name, given.pop(name, option.default))
        if given:
            raise TypeError(f"not options rules read: {', '.join(sorted(given))}")
        self._fields = tuple(o.attribute for o in OPTIONS if o.for_rules)


# ------------------------------------------------------------------------ settings


class Settings(Record):
    """Everything that decides what a run checks, fixes and prints.

    One attribute per option of :data:`OPTIONS` (in snake_case), plus:
    ``extra_selections``, later layers of rule selection than the
    configuration file's (the command line's); ``project_root``, which
    anchors relative patterns (empty: the current directory); ``config_file``,
    the file the options came from (None: none); ``available_codes`` and
    ``opt_in_codes``, the codes of the rules to choose from (attnlint's by
    default; ``Registry.settings`` gives those of another registry). Settings
    hold codes, never rule classes: :mod:`lint_rules.rules` maps codes to
    classes.
    """

    _fields = (
        *(option.attribute for option in _OWN_OPTIONS),
        "extra_selections",
        "project_root",
        "config_file",
        "available_codes",
        "opt_in_codes",
    )
    _others = {
        "extra_selections": (),
        "project_root": "",
        "config_file": None,
        "available_codes": CODES,
        "opt_in_codes": OPT_IN_CODES,
    }

    def __init__(self, **values: Any) -> None:
        for option in _OWN_OPTIONS:
            name = option.attribute
            setattr(self, name, values.pop(name, option.default))
        for name, default in self._others.items():
            setattr(self, name, values.pop(name, default))
        if values:
            raise TypeError(f"Settings has no field {', '.join(sorted(values))}")

    def replace(self, **changes: Any) -> Settings:
        """These settings with the fields named in ``changes`` changed."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return Settings(**values)

    # ---------------------------------------------------------------- rules

    @cached_property
    def enabled_codes(self) -> frozenset[str]:
        layers = (RuleSelection(self.select, self.ignore, self.extend_select),)
        return resolve_selection(
            self.available_codes, layers + self.extra_selections, self.opt_in_codes
        )

    @cached_property
    def options(self) -> RuleOptions:
        """The options rules read (``Context.options``)."""
        return RuleOptions(
            {o.attribute: getattr(self, o.attribute) for o in OPTIONS if o.for_rules}
        )

    def findings_key(self) -> tuple[object, ...]:
        """Everything in these settings that decides a file's findings: the
        enabled codes, the root that anchors patterns, and the value of every
        option marked ``affects_findings`` (the cache's key)."""
        return (
            tuple(sorted(self.enabled_codes)),
            os.path.abspath(self.root),
            tuple(
                (option.key, getattr(self, option.attribute))
                for option in _OWN_OPTIONS
                if option.affects_findings
            ),
        )

    # ------------------------------------------------------------------ paths

    @property
    def root(self) -> str:
        return self.project_root or os.getcwd()

    @cached_property
    def _per_file_matchers(
        self,
    ) -> tuple[tuple[PathMatcher, bool, tuple[str, ...]], ...]:
        root = self.root
        compiled = []
        for pattern, codes in self.per_file_ignores:
            negated = pattern.startswith("!")
            bare = pattern[1:] if negated else pattern
            absolute = glob_to_regex(_normalize_to(bare, root))
            basename = glob_to_regex(bare)
            compiled.append((PathMatcher((absolute,), (basename,)), negated, codes))
        return tuple(compiled)

    def ignored_codes_for(self, filename: str) -> tuple[str, ...]:
        """Selectors that ``per-file-ignores`` switches off for ``filename``."""
        if not self.per_file_ignores:
            return ()
        path = os.path.abspath(filename)
        ignored: list[str] = []
        for matcher, negated, codes in self._per_file_matchers:
            if matcher.matches(path) != negated:
                ignored.extend(codes)
        return tuple(ignored)

    @cached_property
    def exclude_matcher(self) -> PathMatcher:
        return PathMatcher.build(self.exclude + self.extend_exclude, self.root)

    def is_excluded(self, absolute_path: str) -> bool:
        return self.exclude_matcher.matches(absolute_path)

    @property
    def cache_path(self) -> Path:
        return Path(self.root, self.cache_dir)

    # ---------------------------------------------------------------- helpers

    def with_cli_selection(self, selection: RuleSelection) -> Settings:
        """These settings with one more layer of rule selection on top."""
        if selection.is_empty():
            return self
        return self.replace(extra_selections=self.extra_selections + (selection,))


# ------------------------------------------------------------------------- loading


#: The configuration files of one folder, in the order the first found wins
#: (ruff's: ``.ruff.toml``, ``ruff.toml``, ``pyproject.toml``). The first two
#: hold the options at the top level, ``pyproject.toml`` in ``[tool.attnlint]``
#: (one without that table is passed over).
CONFIG_FILE_NAMES: tuple[str, ...] = (
    ".attnlint.toml",
    "attnlint.toml",
    "pyproject.toml",
)


def config_in_folder(
    folder: str | os.PathLike[str], names: Iterable[str] | None = None
) -> Path | None:
    """The configuration file of ``folder`` itself, if it has one.

    ``names`` are the folder's entries when the caller has listed them (a
    walk), so that no file is looked for that is not there. Raises
    ConfigError for a file that cannot be read or is malformed: a broken
    configuration is never passed over (its excludes would be lost).
    """
    present = None if names is None else set(names)
    for name in CONFIG_FILE_NAMES:
        if present is not None and name not in present:
            continue
        candidate = Path(folder, name)
        try:
            kind = os.stat(candidate).st_mode
        except FileNotFoundError:
            # Absent, or a symbolic link to nothing (a shared configuration
            # moved away): the latter is not passed over, its excludes lost.
            try:
                link = os.readlink(candidate)
            except OSError:
                continue
            raise ConfigError(
                f"{quote_path(str(candidate))}: cannot read: a symbolic link to "
                f"{quote_path(link)}, "
                "which does not exist"
            ) from None
        except OSError as error:
            raise ConfigError(
                f"{quote_path(str(candidate))}: cannot read: {error.strerror or error}"
            ) from None
        if not stat.S_ISREG(kind):
            # A folder, FIFO or device by that name: never read (a FIFO
            # would block), never passed over.
            raise ConfigError(
                f"{quote_path(str(candidate))}: cannot read: not a regular file"
            )
        if name != "pyproject.toml" or _has_attnlint_table(candidate):
            return candidate
    return None


def find_config(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest configuration file (:data:`CONFIG_FILE_NAMES`), searching
    upward from ``start``, a file or folder (default: the current directory).

    A ``pyproject.toml`` without a ``[tool.attnlint]`` table is passed over,
    as ruff passes over one without ``[tool.ruff]``; one that cannot be read,
    or whose ``tool`` or ``tool.attnlint`` is not a table, is an error
    (ConfigError), never passed over: its excludes would be lost.
    """
    here = Path(start if start is not None else os.getcwd()).absolute()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        found = config_in_folder(folder)
        if found is not None:
            return found
    return None


def _has_attnlint_table(path: Path) -> bool:
    raw = _read_bytes(path)
    if b"attnlint" not in raw:
        return False  # cheap skip; the parse below is then unnecessary
    return _attnlint_table(_parse_toml(raw, path), path) is not None


def read_config_table(path: Path) -> tuple[dict[str, Any], str]:
    """The options of a configuration file, and how messages name their
    place: ``[tool.attnlint]`` of a ``pyproject.toml`` (empty without one),
    or of another file that has that table (``--config other.toml``); the
    top level of any other file (``attnlint.toml``)."""
    document = _read_toml(path)
    table = _attnlint_table(document, path)
    if table is not None or path.name == "pyproject.toml":
        return table or {}, TOOL_SECTION
    return document, ""


#: How messages name the place of a key in ``pyproject.toml``.
TOOL_SECTION = "[tool.attnlint] "


def _attnlint_table(document: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The ``[tool.attnlint]`` table of a parsed pyproject.toml (None: none).
    The same text gets the same answer whether the file is found or named."""
    tool = document.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(
            f"{quote_path(str(path))}: [tool] must be a table, got {_type_name(tool)}"
        )
    table = tool.get("attnlint")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(
            f"{quote_path(str(path))}: [tool.attnlint] must be a table, got "
            f"{_type_name(table)}"
        )
    return table


def _read_bytes(path: Path) -> bytes:
    from lint_rules.source import read_regular_file

    try:
        # Never waits on a FIFO (one named on the command line, or made
        # after the folder was looked at).
        return read_regular_file(path)[0]
    except OSError as error:
        raise ConfigError(
            f"{quote_path(str(path))}: cannot read: {error.strerror or error}"
        ) from None


def _read_toml(path: Path) -> dict[str, Any]:
    return _parse_toml(_read_bytes(path), path)


def _parse_toml(raw: bytes, path: Path) -> dict[str, Any]:
    tomllib = toml_module()
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{quote_path(str(path))}: invalid TOML: not UTF-8 ({error.reason})"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{quote_path(str(path))}: invalid TOML: {error}") from None
    except RecursionError:  # the parser recurses into nested arrays and tables
        raise ConfigError(
            f"{quote_path(str(path))}: invalid TOML: too deeply nested"
        ) from None


def load_settings(
    config: str | os.PathLike[str] | None = None,
    *,
    start: str | os.PathLike[str] | None = None,
    codes: tuple[str, ...] = CODES,
    opt_in_codes: frozenset[str] = OPT_IN_CODES,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Settings from ``config`` (a configuration file) or the nearest one above ``start``.

    Without any configuration file: the defaults, rooted at the current
    directory. ``overrides`` are ``[tool.attnlint]`` keys that win over the
    file's (the command line's ``--config KEY=VALUE``). Raises ConfigError for
    anything wrong in the file or the overrides.
    """
    table: dict[str, Any] = {}
    config_file: str | None = None
    project_root = os.getcwd()
    path: Path | None = None
    if config is not None:
        path = Path(config).absolute()
        if not path.is_file():
            raise ConfigError(
                f"{quote_path(os.fspath(config))}: configuration file not found"
            )
    else:
        path = find_config(start)
    section = TOOL_SECTION
    if path is not None:
        table, section = read_config_table(path)
        config_file, project_root = str(path), str(path.parent)
    if overrides:
        # Validate the overrides on their own first, so an error names them.
        settings_from_table(overrides, config_file="--config", codes=codes)
        table = {**table, **overrides}
    if not table and config_file is None:
        return Settings(
            project_root=project_root,
            available_codes=codes,
            opt_in_codes=opt_in_codes,
        )
    return settings_from_table(
        table,
        config_file=config_file or "--config",
        project_root=project_root,
        codes=codes,
        opt_in_codes=opt_in_codes,
        section=section,
    )


def settings_from_table(
    table: Mapping[str, Any],
    *,
    config_file: str = "pyproject.toml",
    project_root: str = "",
    codes: tuple[str, ...] = CODES,
    opt_in_codes: frozenset[str] = OPT_IN_CODES,
    section: str = TOOL_SECTION,
) -> Settings:
    """Validate the options of a configuration file and turn them into
    Settings; ``section`` is how messages name their place in the file."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        option = OPTIONS_BY_KEY.get(key)
        if option is None:
            close = _close_match(key, OPTIONS_BY_KEY)
            hint = f" (did you mean {close!r}?)" if close else ""
            if key == "lint" and isinstance(value, dict):
                # ruff's [tool.ruff.lint]: attnlint has one level only.
                keys = ", ".join(sorted(value)) or "select"
                where = (
                    f"in {section.strip()} itself"
                    if section.strip()
                    else "at the top level of the file"
                )
                hint = (
                    f" (unlike ruff, attnlint has no lint table: write {keys} {where})"
                )
            raise ConfigError(
                f"{quote_path(config_file)}: {section}unknown key {key!r}{hint}"
            )
        where = f"{quote_path(config_file)}: {section}{key}"
        values[key] = option.validate(value, where, codes)
    for option in OPTIONS:
        if option.extends is not None and option.key in values:
            merged = dict(values.get(option.extends, ()))
            for pattern, selectors in values.pop(option.key):
                merged[pattern] = merged.get(pattern, ()) + selectors
            values[option.extends] = tuple(merged.items())
    return Settings(
        **{OPTIONS_BY_KEY[key].attribute: value for key, value in values.items()},
        project_root=project_root,
        config_file=config_file,
        available_codes=codes,
        opt_in_codes=opt_in_codes,
    )


def _type_name(value: object) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _string_list(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(
            f"{where}: expected an array of strings, got {_type_name(value)}"
        )
    for item in value:
        if not isinstance(item, str):
            raise ConfigError(
                f"{where}: expected an array of strings, found {_type_name(item)} {item!r}"
            )
    return tuple(value)


def _check_glob(pattern: str, where: str) -> None:
    if not pattern.strip():
        raise ConfigError(f"{where}: empty pattern")
    try:
        glob_to_regex(pattern[1:] if pattern.startswith("!") else pattern)
    except GlobError as error:
        raise ConfigError(f"{where}: invalid glob: {error}") from None
