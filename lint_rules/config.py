"""Settings, and loading them from ``[tool.attnlint]`` in ``pyproject.toml``.

Keys and their meaning follow ruff (kebab-case, same names where ruff has the
same option). Rule selectors are codes or code prefixes (``ATN``, ``ATN1``,
``ATN301``) or ``ALL``; they are resolved the way ruff resolves them: within
one layer of selection the more specific selector wins and ``ignore`` beats
``select`` at equal specificity; a later layer (the command line) that sets
``select`` starts afresh, one that only ignores or extends refines.

Paths in the configuration (excludes, per-file-ignores, cache-dir) are
relative to the directory of the ``pyproject.toml`` that sets them.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import sys
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path

from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from lint_rules.rules.base import Rule

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
#: a name or attribute chain: ``seq_lens_cpu``, ``self.kv_indptr_host``):
#: ATN203 does not report a sync of them.
DEFAULT_HOST_TENSOR_NAMES: tuple[str, ...] = ("*_cpu", "*_cpu_*", "*_host", "*_np")

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
            close = _close_match(selector.upper(), known)
            if close:
                hint = f" (did you mean {close!r}?)"
            raise ConfigError(f"{where}: unknown rule selector {selector!r}{hint}")
        result.append(selector)
    return tuple(result)


def default_registry() -> tuple[type[Rule], ...]:
    from lint_rules.rules import ALL_RULES

    return ALL_RULES


_ATTNLINT_REGISTRY = default_registry


def uses_attnlint_rules() -> bool:
    """Whether ``default_registry`` still gives attnlint's own rules (tests and
    embedders may replace it)."""
    return default_registry is _ATTNLINT_REGISTRY


def default_codes() -> tuple[str, ...]:
    """The codes of ``default_registry()``; for attnlint's own rules, read from
    the catalogue without importing them."""
    if uses_attnlint_rules():
        from lint_rules.rules import CODES

        return CODES
    return tuple(rule.code for rule in default_registry())


# ------------------------------------------------------------------------ settings


class Settings(Record):
    """Everything that decides what a run checks, fixes and prints.

    ``select``/``ignore``/``extend_select`` are the configuration file's layer
    of rule selection; ``extra_selections`` are later layers (the command
    line's). ``registry`` is the set of rules to choose from; None means
    :data:`lint_rules.rules.ALL_RULES` (tests and embedders may pass their own).
    ``project_root`` anchors relative patterns; empty means the current directory.
    """

    _fields = (
        "select",
        "ignore",
        "extend_select",
        "extra_selections",
        "per_file_ignores",
        "exclude",
        "extend_exclude",
        "force_exclude",
        "graph_state_methods",
        "hot_path_methods",
        "host_tensor_names",
        "hot_paths_only",
        "jit_decorators",
        "cache_dir",
        "fix",
        "unsafe_fixes",
        "show_fixes",
        "output_format",
        "project_root",
        "config_file",
        "registry",
    )
    _compared = _fields[:-1]

    def __init__(
        self,
        select: tuple[str, ...] = (ALL_SELECTOR,),
        ignore: tuple[str, ...] = (),
        extend_select: tuple[str, ...] = (),
        extra_selections: tuple[RuleSelection, ...] = (),
        per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = (),
        exclude: tuple[str, ...] = DEFAULT_EXCLUDES,
        extend_exclude: tuple[str, ...] = (),
        force_exclude: bool = False,
        graph_state_methods: tuple[str, ...] = DEFAULT_GRAPH_STATE_METHODS,
        hot_path_methods: tuple[str, ...] = DEFAULT_HOT_PATH_METHODS,
        host_tensor_names: tuple[str, ...] = DEFAULT_HOST_TENSOR_NAMES,
        hot_paths_only: bool = True,
        jit_decorators: tuple[str, ...] = DEFAULT_JIT_DECORATORS,
        cache_dir: str = DEFAULT_CACHE_DIR,
        fix: bool = False,
        # None: not set (the summary hints at hidden unsafe fixes); True/False: set.
        unsafe_fixes: bool | None = None,
        show_fixes: bool = False,
        output_format: str = "concise",
        project_root: str = "",
        config_file: str | None = None,
        registry: tuple[type[Rule], ...] | None = None,
    ) -> None:
        self.select = select
        self.ignore = ignore
        self.extend_select = extend_select
        self.extra_selections = extra_selections
        self.per_file_ignores = per_file_ignores
        self.exclude = exclude
        self.extend_exclude = extend_exclude
        self.force_exclude = force_exclude
        self.graph_state_methods = graph_state_methods
        self.hot_path_methods = hot_path_methods
        self.host_tensor_names = host_tensor_names
        self.hot_paths_only = hot_paths_only
        self.jit_decorators = jit_decorators
        self.cache_dir = cache_dir
        self.fix = fix
        self.unsafe_fixes = unsafe_fixes
        self.show_fixes = show_fixes
        self.output_format = output_format
        self.project_root = project_root
        self.config_file = config_file
        self.registry = registry

    def replace(self, **changes: Any) -> Settings:
        """These settings with the fields named in ``changes`` changed."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return Settings(**values)

    # ---------------------------------------------------------------- rules

    @cached_property
    def available_rules(self) -> tuple[type[Rule], ...]:
        return self.registry if self.registry is not None else default_registry()

    @cached_property
    def available_codes(self) -> tuple[str, ...]:
        """The codes of ``available_rules`` (attnlint's own: without importing them)."""
        if self.registry is not None:
            return tuple(rule.code for rule in self.registry)
        return default_codes()

    @cached_property
    def opt_in_codes(self) -> frozenset[str]:
        """The codes of rules users opt into (``Rule.opt_in``)."""
        if self.registry is not None:
            return frozenset(
                rule.code for rule in self.registry if getattr(rule, "opt_in", False)
            )
        if uses_attnlint_rules():
            from lint_rules.rules import OPT_IN_CODES

            return OPT_IN_CODES
        return frozenset(
            rule.code for rule in default_registry() if getattr(rule, "opt_in", False)
        )

    @cached_property
    def enabled_codes(self) -> frozenset[str]:
        layers = (RuleSelection(self.select, self.ignore, self.extend_select),)
        return resolve_selection(
            self.available_codes, layers + self.extra_selections, self.opt_in_codes
        )

    @cached_property
    def enabled_rules(self) -> tuple[type[Rule], ...]:
        """Selected rules, in registry order."""
        enabled = self.enabled_codes
        return tuple(rule for rule in self.available_rules if rule.code in enabled)

    def rule_for_code(self, code: str) -> type[Rule] | None:
        for rule in self.available_rules:
            if rule.code == code:
                return rule
        return None

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

    def is_graph_state_method(self, name: str) -> bool:
        """Whether a method named ``name`` sets up CUDA-graph state (``graph-state-methods``)."""
        return any(
            fnmatch.fnmatchcase(name, pattern) for pattern in self.graph_state_methods
        )

    def with_cli_selection(self, selection: RuleSelection) -> Settings:
        """These settings with one more layer of rule selection on top."""
        if selection.is_empty():
            return self
        return self.replace(extra_selections=self.extra_selections + (selection,))


# ------------------------------------------------------------------------- loading

_KEY_TYPES: dict[str, str] = {
    "select": "codes",
    "ignore": "codes",
    "extend-select": "codes",
    "per-file-ignores": "per-file",
    "extend-per-file-ignores": "per-file",
    "exclude": "globs",
    "extend-exclude": "globs",
    "force-exclude": "bool",
    "graph-state-methods": "globs",
    "hot-path-methods": "globs",
    "host-tensor-names": "globs",
    "hot-paths-only": "bool",
    "jit-decorators": "globs",
    "cache-dir": "str",
    "fix": "bool",
    "unsafe-fixes": "bool",
    "show-fixes": "bool",
    "output-format": "format",
}


def find_config(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.attnlint]`` table, searching upward.

    ``start`` is a file or folder (default: the current directory). A
    ``pyproject.toml`` without the table is passed over, as ruff passes over
    one without ``[tool.ruff]``; one that cannot be read, or whose ``tool``
    or ``tool.attnlint`` is not a table, is an error (ConfigError), never
    passed over: its excludes would be lost.
    """
    here = Path(start if start is not None else os.getcwd()).absolute()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        try:
            found = candidate.is_file()
        except OSError as error:
            raise ConfigError(
                f"{candidate}: cannot read: {error.strerror or error}"
            ) from None
        if found and _has_attnlint_table(candidate):
            return candidate
    return None


def _has_attnlint_table(path: Path) -> bool:
    raw = _read_bytes(path)
    if b"attnlint" not in raw:
        return False  # cheap skip; the parse below is then unnecessary
    return _attnlint_table(_parse_toml(raw, path), path) is not None


def _attnlint_table(document: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The ``[tool.attnlint]`` table of a parsed pyproject.toml (None: none).
    The same text gets the same answer whether the file is found or named."""
    tool = document.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table")
    table = tool.get("attnlint")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.attnlint] must be a table")
    return table


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    return _parse_toml(_read_bytes(path), path)


def _parse_toml(raw: bytes, path: Path) -> dict[str, Any]:
    tomllib = toml_module()
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({error.reason})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:  # the parser recurses into nested arrays and tables
        raise ConfigError(f"{path}: invalid TOML: too deeply nested") from None


def load_settings(
    config: str | os.PathLike[str] | None = None,
    *,
    start: str | os.PathLike[str] | None = None,
    registry: tuple[type[Rule], ...] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Settings from ``config`` (a pyproject.toml) or the nearest one above ``start``.

    Without any configuration file: the defaults, rooted at the current
    directory. ``overrides`` are ``[tool.attnlint]`` keys that win over the
    file's (the command line's ``--config KEY=VALUE``). Raises ConfigError for
    anything wrong in the file or the overrides.
    """
    table: dict[str, Any] = {}
    config_file: str | None = None
    project_root = os.getcwd()
    if config is not None:
        path = Path(config).absolute()
        if not path.is_file():
            raise ConfigError(f"{config}: configuration file not found")
        table = _attnlint_table(_read_toml(path), path) or {}
        config_file, project_root = str(path), str(path.parent)
    else:
        found = find_config(start)
        if found is not None:
            table = _attnlint_table(_read_toml(found), found) or {}
            config_file, project_root = str(found), str(found.parent)
    if overrides:
        # Validate the overrides on their own first, so an error names them.
        settings_from_table(overrides, config_file="--config", registry=registry)
        table = {**table, **overrides}
    if not table and config_file is None:
        return Settings(registry=registry, project_root=project_root)
    return settings_from_table(
        table,
        config_file=config_file or "--config",
        project_root=project_root,
        registry=registry,
    )


def settings_from_table(
    table: Mapping[str, Any],
    *,
    config_file: str = "pyproject.toml",
    project_root: str = "",
    registry: tuple[type[Rule], ...] | None = None,
) -> Settings:
    """Validate a ``[tool.attnlint]`` table and turn it into Settings."""
    codes = (
        tuple(rule.code for rule in registry)
        if registry is not None
        else default_codes()
    )
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = f"{config_file}: [tool.attnlint] {key}"
        kind = _KEY_TYPES.get(key)
        if kind is None:
            close = _close_match(key, _KEY_TYPES)
            hint = f" (did you mean {close!r}?)" if close else ""
            raise ConfigError(
                f"{config_file}: [tool.attnlint] unknown key {key!r}{hint}"
            )
        values[key] = _validate(kind, value, where, codes)
    per_file = dict(values.get("per-file-ignores", {}))
    for pattern, selectors in values.get("extend-per-file-ignores", {}).items():
        per_file[pattern] = per_file.get(pattern, ()) + selectors
    settings = Settings(
        select=values.get("select", (ALL_SELECTOR,)),
        ignore=values.get("ignore", ()),
        extend_select=values.get("extend-select", ()),
        per_file_ignores=tuple(per_file.items()),
        exclude=values.get("exclude", DEFAULT_EXCLUDES),
        extend_exclude=values.get("extend-exclude", ()),
        force_exclude=values.get("force-exclude", False),
        graph_state_methods=values.get(
            "graph-state-methods", DEFAULT_GRAPH_STATE_METHODS
        ),
        hot_path_methods=values.get("hot-path-methods", DEFAULT_HOT_PATH_METHODS),
        host_tensor_names=values.get("host-tensor-names", DEFAULT_HOST_TENSOR_NAMES),
        hot_paths_only=values.get("hot-paths-only", True),
        jit_decorators=values.get("jit-decorators", DEFAULT_JIT_DECORATORS),
        cache_dir=values.get("cache-dir", DEFAULT_CACHE_DIR),
        fix=values.get("fix", False),
        unsafe_fixes=values.get("unsafe-fixes"),
        show_fixes=values.get("show-fixes", False),
        output_format=values.get("output-format", "concise"),
        project_root=project_root,
        config_file=config_file,
        registry=registry,
    )
    return settings


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


def _validate(kind: str, value: object, where: str, codes: tuple[str, ...]) -> object:
    if kind == "codes":
        return validate_selectors(_string_list(value, where), codes, where)
    if kind == "globs":
        patterns = _string_list(value, where)
        for pattern in patterns:
            _check_glob(pattern, where)
        return patterns
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(
                f"{where}: expected true or false, got {_type_name(value)}"
            )
        return value
    if kind == "str":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: expected a non-empty string, got {value!r}")
        return value
    if kind == "format":
        if value not in OUTPUT_FORMATS:
            raise ConfigError(
                f"{where}: expected one of {', '.join(OUTPUT_FORMATS)}, got {value!r}"
            )
        return value
    if kind == "per-file":
        if not isinstance(value, dict):
            raise ConfigError(
                f"{where}: expected a table of pattern = [codes], got {_type_name(value)}"
            )
        result: dict[str, tuple[str, ...]] = {}
        for pattern, selectors in value.items():
            entry = (
                f"{where}.{pattern!r}"
                if not pattern.isidentifier()
                else f"{where}.{pattern}"
            )
            _check_glob(pattern, entry)
            result[pattern] = validate_selectors(
                _string_list(selectors, entry), codes, entry
            )
        return result
    raise AssertionError(kind)  # pragma: no cover
