"""Hot paths: which functions of a module run per step, and the cost each finding carries."""

from __future__ import annotations

import ast
import textwrap

import pytest

from lint_rules import prefilter
from lint_rules.analysis.hot_paths import HotPaths
from lint_rules.analysis.model import ModuleModel
from lint_rules.checker import check_source
from lint_rules.config import ConfigError, Settings, settings_from_table


def costs(source: str, **options) -> dict[str, str]:
    tree = ast.parse(textwrap.dedent(source))
    model = ModuleModel(tree)
    hot = HotPaths(model, **options)
    names = {}
    for info in model.functions:
        label = f"{info.cls.name}.{info.node.name}" if info.cls else info.node.name
        names[label] = str(hot.cost(info.node))
    return names


BACKEND = """
class Backend:
    def __init__(self):
        self._setup()

    def _setup(self):
        pass

    def init_cuda_graph_state(self, bs):
        self._alloc(bs)

    def _alloc(self, bs):
        pass

    def init_forward_metadata(self, batch):
        self._update_metadata(batch)

    def _update_metadata(self, batch):
        self._shared(batch)

    def init_forward_metadata_capture_cuda_graph(self, bs):
        self._bind_buffers(bs)
        self._shared(bs)

    def _bind_buffers(self, bs):
        pass

    def _shared(self, x):
        pass

    def forward_decode(self, q):
        def inner():
            return q
        return inner()

    def unrelated(self):
        pass
"""


def test_entry_points_and_what_they_call_run_per_step() -> None:
    found = costs(BACKEND)
    assert found["Backend.init_forward_metadata"] == "per step (init_forward_metadata)"
    assert (
        found["Backend._update_metadata"]
        == "per step (init_forward_metadata -> _update_metadata)"
    )
    assert found["Backend.forward_decode"] == "per step (forward_decode)"


def test_a_nested_function_has_its_parents_cost() -> None:
    assert costs(BACKEND)["inner"] == "per step (forward_decode)"


def test_start_up_methods_and_what_only_they_call_are_start_up() -> None:
    found = costs(BACKEND)
    assert found["Backend.__init__"] == "start-up (__init__)"
    assert found["Backend._setup"] == "start-up (__init__)"
    assert found["Backend.init_cuda_graph_state"] == "start-up (init_cuda_graph_state)"
    assert found["Backend._alloc"] == "start-up (init_cuda_graph_state)"


def test_capture_matches_a_hot_pattern_and_still_runs_at_start_up() -> None:
    found = costs(BACKEND)
    name = "init_forward_metadata_capture_cuda_graph"
    assert found[f"Backend.{name}"] == f"start-up ({name})"
    assert found["Backend._bind_buffers"] == f"start-up ({name})"


def test_per_step_wins_when_capture_and_replay_reach_a_function() -> None:
    assert (
        costs(BACKEND)["Backend._shared"]
        == "per step (init_forward_metadata -> _update_metadata -> _shared)"
    )


def test_a_function_nothing_reaches_is_unknown() -> None:
    assert costs(BACKEND)["Backend.unrelated"] == "unknown"


def test_patterns_on_class_and_method() -> None:
    source = """
    class FlashMetadataBuilder:
        def build(self, batch):
            return helper(batch)

    class Other:
        def build(self, batch):
            pass

    class BatchDecodeWrapper:
        def plan(self, indptr):
            pass

    def helper(batch):
        pass
    """
    found = costs(source)
    assert found["FlashMetadataBuilder.build"] == "per step (build)"
    assert found["helper"] == "per step (build -> helper)"
    assert found["Other.build"] == "unknown"
    assert found["BatchDecodeWrapper.plan"] == "per step (plan)"
    assert costs(source, hot_methods=("Other.*",))["Other.build"] == "per step (build)"


def test_calls_through_attributes_holding_objects_and_methods() -> None:
    source = """
    class Updater:
        def __init__(self):
            self.update = self.update_single

        def update(self, x):
            raise NotImplementedError

        def update_single(self, x):
            pass

    class Other:
        def update(self, x):
            pass

    class Backend:
        def __init__(self):
            self.updater = Updater()

        def init_forward_metadata(self, batch):
            self.updater.update(batch)
    """
    found = costs(source)
    assert found["Updater.update_single"] == (
        "per step (init_forward_metadata -> update -> update_single)"
    ) or found["Updater.update_single"] == (
        "per step (init_forward_metadata -> update_single)"
    )
    assert found["Other.update"] == "unknown"


def test_a_base_class_call_reaches_the_subclass_override() -> None:
    source = """
    class Base:
        def forward(self, q):
            return self._run(q)

        def _run(self, q):
            raise NotImplementedError

    class Impl(Base):
        def _run(self, q):
            return q
    """
    assert costs(source)["Impl._run"] == "per step (forward -> _run)"


# ------------------------------------------------------------------ settings


def test_hot_path_settings_are_validated() -> None:
    with pytest.raises(ConfigError, match="hot-path-methods"):
        settings_from_table({"hot-path-methods": "forward"})
    with pytest.raises(ConfigError, match="host-tensor-names"):
        settings_from_table({"host-tensor-names": [1]})
    with pytest.raises(ConfigError, match="hot-paths-only"):
        settings_from_table({"hot-paths-only": "yes"})
    with pytest.raises(ConfigError, match="jit-decorators"):
        settings_from_table({"jit-decorators": [""]})
    settings = settings_from_table(
        {
            "hot-path-methods": ["step"],
            "host-tensor-names": ["*_h"],
            "hot-paths-only": False,
            "jit-decorators": ["mylib.kernel"],
        }
    )
    assert settings.hot_path_methods == ("step",)
    assert settings.host_tensor_names == ("*_h",)
    assert settings.hot_paths_only is False
    assert settings.jit_decorators == ("mylib.kernel",)


def test_the_cache_fingerprint_depends_on_the_new_settings() -> None:
    from lint_rules.cache import settings_fingerprint

    base = Settings()
    for change in (
        {"hot_path_methods": ("step",)},
        {"host_tensor_names": ("*_h",)},
        {"hot_paths_only": False},
        {"jit_decorators": ()},
    ):
        assert settings_fingerprint(base.replace(**change)) != settings_fingerprint(
            base
        )


# ---------------------------------------------------------- cost of findings

WASTE = """
class Backend:
    def init_forward_metadata(self, batch, lens):
        for i in lens:
            j = i
            batch.use(j)

    def init_forward_metadata_capture_cuda_graph(self, lens):
        for i in lens:
            j = i
            lens.use(j)
"""


def test_loop_aliases_are_reported_in_per_step_code_only_by_default() -> None:
    found = check_source(WASTE, "b.py", Settings(select=("ATN301",)))
    assert [(f.location.row, f.cost) for f in found] == [
        (5, "per step (init_forward_metadata)")
    ]


def test_hot_paths_only_false_reports_everywhere_with_the_cost() -> None:
    settings = Settings(select=("ATN301",), hot_paths_only=False)
    found = check_source(WASTE, "b.py", settings)
    assert [(f.location.row, f.cost) for f in found] == [
        (5, "per step (init_forward_metadata)"),
        (10, "start-up (init_forward_metadata_capture_cuda_graph)"),
    ]


def test_rules_reporting_everywhere_name_the_cost_in_their_message() -> None:
    source = textwrap.dedent(
        """
        class Backend:
            def forward(self, x):
                a = x.max().item()
                return a, x.max().item()

            def __init__(self, x):
                a = x.max().item()
                self.n = a, x.max().item()
        """
    )
    found = check_source(source, "b.py", Settings(select=("ATN201",)))
    assert [f.message.rsplit("(", 1)[-1] for f in found] == [
        "runs per step: forward)",
        "runs at start-up: __init__)",
    ]


def test_the_call_graphs_pre_filter_keeps_every_callee_in_order():
    """The call graph walks an expression only where its text holds one of
    the module's names: the callees, in breadth-first order, are those of a
    walk of every node (ASCII text, where spans are exact, and not)."""
    import ast
    from pathlib import Path

    from lint_rules.analysis.hot_paths import _CallGraph
    from lint_rules.analysis.model import ModuleModel
    from lint_rules.config import Settings
    from lint_rules.context import Context

    root = Path(__file__).resolve().parents[1]
    texts = [
        path.read_text("utf-8")
        for path in (
            root / "reference_backend" / "flashattention_backend.py",
            root / "tests" / "fixtures" / "flashattention_backend_unoptimized.py",
        )
    ]
    texts.append(
        "def helper(x):\n    return x\n"
        "class A:\n    def __init__(self):\n        self.b = B()\n"
        "        self.run = self.go\n"
        "    @decorate(helper(1))\n    def forward(self, x, k=helper(3), *, j=go()):\n"
        "        y = [helper(i) for i in x] if x else (\n            self\n"
        "            .go  # a comment\n            (x))\n"
        "        def inner(z=helper(4)):\n"
        "            return self.b.step(lambda: helper(2))\n"
        "        @decorate\n        class Local(helper(5)):\n            pass\n"
        "        return self.run(), super().__init__(), B.step(None), inner\n"
        "    def go(self, x=None):\n        return helper(x)\n"
        "class B:\n    def step(self, f):\n        return A()\n"
    )
    texts.append(texts[-1].replace("return helper(x)", "return 'é', helper(x)"))
    assert "é" in texts[-1]
    compared = 0
    for text in texts:
        tree = ast.parse(text)
        model = ModuleModel(tree, text)
        ctx = Context(text, tree, "x.py", Settings().options)
        fast = _CallGraph(model.functions, ctx.rows_naming)
        slow = _CallGraph(model.functions)
        for info in model.functions:
            if info.parent is None:
                expected = slow.callees(info)
                assert fast.callees(info) == expected
                compared += len(expected)
    assert compared > 10


def test_the_call_walk_meets_the_calls_in_the_order_of_walk():
    """``_breadth_first_calls`` without rows: every call, in the order of
    ``nodes.walk``; with the rows naming the callees, the same calls of
    those names (f-strings, decorators and calls split over rows too)."""
    import ast

    from lint_rules.analysis.hot_paths import _breadth_first_calls
    from lint_rules.analysis.nodes import walk
    from lint_rules.config import Settings
    from lint_rules.context import Context

    text = (
        "@deco(helper(0))\n"
        "def f(a=helper(1), *, b={k(): helper(2) for k in g()}):\n"
        "    x = f'{helper(3)!r:{helper(4)}}' if other() else (helper\n"
        "        (5))\n"
        "    return [y.helper(6) for y in x], lambda: helper(7)\n"
    )
    tree = ast.parse(text)
    function = tree.body[0]
    every = [node for node in walk(function) if type(node) is ast.Call]
    assert _breadth_first_calls(function, None) == every
    ctx = Context(text, tree, "x.py", Settings().options)
    rows = ctx.rows_naming(frozenset({"helper"}), 1, 5)
    named = [
        node
        for node in every
        if getattr(node.func, "id", getattr(node.func, "attr", None)) == "helper"
    ]
    assert len(named) == 8
    kept = [node for node in _breadth_first_calls(function, rows) if node in named]
    assert kept == named


ONCE = """
class Attention:
    def __init__(self, calc):
        self.calculate_kv_scales = calc

    def forward(self, key, ctx):
        if self.calculate_kv_scales:
            self._log(key)
            if ctx.enabled:
                self.calc_kv_scales(key)
        if self._pending:
            self._setup(key)
            self._pending = False
        return key

    def calc_kv_scales(self, key):
        self.scale = key
        self.calculate_kv_scales = False

    def _log(self, key):
        pass

    def _setup(self, key):
        pass
"""


def test_a_method_that_clears_the_flag_guarding_its_call_runs_once() -> None:
    # After its first run the flag is false: it is not called again; the
    # rest of the arm runs until then, per step.
    found = costs(ONCE)
    assert found["Attention.calc_kv_scales"] == "unknown"
    assert found["Attention._log"] == "per step (forward -> _log)"
    # An arm that clears its flag itself runs once: so do its calls.
    assert found["Attention._setup"] == "unknown"


@pytest.mark.parametrize(
    "change",
    [
        # A flag set again by other code of the module (a dirty flag).
        "    def mark(self):\n        self.calculate_kv_scales = True\n",
        # ... or through another object, or by name.
        "def enable(layer):\n    layer.calculate_kv_scales = 1\n",
        "def enable(layer):\n    setattr(layer, 'calculate_kv_scales', True)\n",
        # ... by a name joined or escaped where no row spells it whole.
        "def enable(layer):\n    vars(layer)['calculate_kv_' 'scales'] = True\n",
        "def enable(layer):\n    vars(layer)['calculate\\x5fkv_scales'] = True\n",
        # ... or by the constructor of another object (made every step,
        # say): only a constructor's stores into its own object are the
        # flag's first value.
        "class Step:\n    def __init__(self, layer):\n"
        "        layer.calculate_kv_scales = True\n",
        # ... or by a name only known when it runs.
        "def enable(layer, name):\n    setattr(layer, name, True)\n",
        # A property by that name: its setter need not make it false.
        "    @property\n    def calculate_kv_scales(self):\n        return True\n",
        "    calculate_kv_scales = property(lambda self: True, lambda self, v: None)\n",
    ],
)
@pytest.mark.parametrize("filtering", [True, False])
def test_a_flag_set_again_elsewhere_guards_nothing(
    change: str, filtering: bool
) -> None:
    before = prefilter.set_enabled(filtering)
    try:
        found = costs(ONCE + change)
    finally:
        prefilter.set_enabled(before)
    assert found["Attention.calc_kv_scales"].startswith("per step (forward")


def test_a_callee_that_may_leave_before_it_clears_the_flag_runs_per_step() -> None:
    source = ONCE.replace(
        "        self.scale = key\n",
        "        if key is None:\n            return\n        self.scale = key\n",
    )
    assert costs(source)["Attention.calc_kv_scales"].startswith("per step (forward")


def test_whether_a_method_may_test_a_flag_is_kept_as_first_answered() -> None:
    """``may_test_a_flag`` keeps each function's answer (asked by
    ``once_arms`` and again by ``once_calls``): the kept answer is a fresh
    graph's, with the pre-filter and without."""
    import ast

    from lint_rules.analysis.hot_paths import _CallGraph
    from lint_rules.analysis.model import ModuleModel
    from lint_rules.config import Settings
    from lint_rules.context import Context

    answers = []
    for text in (ONCE, ONCE.replace("self._pending", "self.calculate_kv_scales")):
        tree = ast.parse(text)
        model = ModuleModel(tree, text)
        ctx = Context(text, tree, "x.py", Settings().options)
        for rows in (ctx.rows_naming, None):
            kept = _CallGraph(model.functions, rows)
            for info in model.functions:
                first = kept.may_test_a_flag(info.node)
                assert kept.may_test_a_flag(info.node) == first
                fresh = _CallGraph(model.functions, rows)
                assert first == fresh._may_test_a_flag(info.node)
                answers.append(first)
    assert True in answers and False in answers


def test_glob_matcher_answers_as_its_pattern_asked_again_and_past_its_limit():
    """``GlobMatcher`` keeps each name's answer: the kept answer is the
    pattern's (asked again, and after it forgot them all at its limit)."""
    import re

    from lint_rules.analysis.hot_paths import GlobMatcher

    globs = ("forward", "forward_*", "*replay*", "*Wrapper.run", "*_cpu", "x?y")
    matcher = GlobMatcher(globs)
    matcher.limit = 7  # (forgets them all every 7 names)
    plain = re.compile(matcher.pattern.pattern)
    names = [
        "forward",
        "forward_decode",
        "forwards",
        "capture_replay_x",
        "A.Wrapper.run",
        "Wrapper.runs",
        "seq_lens_cpu",
        "lens_cpu_x",
        "xay",
        "xy",
        "",
        "forward\n",
        "é_cpu",
    ]
    matched = 0
    for _ in range(3):
        for name in names:
            expected = plain.match(name) is not None
            answer = matcher.match(name)
            assert answer is (True if expected else None), name
            matched += expected
    assert matched == 3 * 7
    assert len(matcher._answers) <= 7


MEMO = """
import functools
from functools import lru_cache
import torch


@functools.lru_cache(maxsize=10)
def geometry(shape: tuple[int, ...], device: torch.device, tile: int = 64):
    return check(shape, device)


def check(shape, device):
    return shape


class Builder:
    def build(self, shape: tuple[int, int, int], device):
        return geometry(shape, device), self.layout(shape)

    @functools.cache
    def layout(self, shape: "tuple[int, int, int] | None", mode: "Literal['a']" = "a"):
        return self._tiles(shape)

    def _tiles(self, shape):
        return shape
"""


@pytest.mark.parametrize("filtering", [True, False])
def test_a_memoized_function_of_values_spreads_nothing(filtering: bool) -> None:
    # Its body runs once per distinct arguments (a shape, a geometry), not
    # once per call: neither it nor what only it calls runs per step.
    before = prefilter.set_enabled(filtering)
    try:
        found = costs(MEMO, hot_methods=("*Builder.build",))
    finally:
        prefilter.set_enabled(before)
    assert found["Builder.build"] == "per step (build)"
    assert found["geometry"] == "unknown"
    assert found["check"] == "unknown"
    assert found["Builder.layout"] == "unknown"
    assert found["Builder._tiles"] == "unknown"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A tensor hashes by identity: a new one each step runs the body.
        ("shape: tuple[int, ...], device", "shape: torch.Tensor, device"),
        # So may an object, a bare tuple (of anything) or an undeclared one.
        ("shape: tuple[int, ...], device", "shape: tuple, device"),
        ("shape: tuple[int, ...], device", "shape: tuple[torch.Tensor], device"),
        ("shape: tuple[int, ...], device", "shape: Geometry, device"),
        ("shape: tuple[int, ...], device", "shape, device"),
        ("def geometry(shape", "def geometry(*shapes, shape"),
        # A cache that keeps nothing, or whose size the code does not say.
        ("lru_cache(maxsize=10)", "lru_cache(maxsize=0)"),
        ("lru_cache(maxsize=10)", "lru_cache(0)"),
        ("lru_cache(maxsize=10)", "lru_cache(maxsize=SIZE)"),
        ("lru_cache(maxsize=10)", "lru_cache(**OPTIONS)"),
        # Not functools' cache.
        ("@functools.lru_cache(maxsize=10)", "@other.lru_cache(maxsize=10)"),
    ],
)
def test_a_cache_that_may_miss_every_call_still_runs_per_step(
    old: str, new: str
) -> None:
    found = costs(MEMO.replace(old, new, 1), hot_methods=("*Builder.build",))
    assert found["geometry"] == "per step (build -> geometry)"
    assert found["check"] == "per step (build -> geometry -> check)"


@pytest.mark.parametrize(
    ("receiver", "per_step"),
    [
        # the instance itself, an object kept on it, the class: the same
        # object at each step, and the cache keyed on it hits again
        ("self", False),
        ("self.layouts", False),
        ("Builder", False),
        # an object the step makes may be new each time: the cache, keyed
        # on it too, misses
        ("Builder()", True),
        ("made", True),
    ],
)
def test_a_memoized_method_runs_per_step_on_an_object_that_may_be_new(
    receiver: str, per_step: bool
) -> None:
    source = MEMO.replace("self.layout(shape)", f"{receiver}.layout(shape)").replace(
        "    def build(self,", "    layouts = None\n\n    def build(self,"
    )
    source = source.replace(
        "return geometry(shape, device),",
        "made = Builder()\n        return geometry(shape, device),",
    )
    found = costs(source, hot_methods=("*Builder.build",))
    expected = "per step (build -> layout)" if per_step else "unknown"
    assert found["Builder.layout"] == expected


CHAINED_MEMO = """
import functools
import torch


@functools.lru_cache(maxsize=8)
def block_sizes(shape: tuple[int, ...], device: torch.device):
    return torch.tensor(shape, device=device)


@functools.lru_cache(maxsize=8)
def non_pad_index(sizes: torch.Tensor, block: int, mode=None):
    return check(sizes)


def check(sizes):
    return sizes


class Builder:
    def build(self, shape: tuple[int, int, int], device):
        sizes = block_sizes(shape, device)
        return non_pad_index(sizes, 64), non_pad_index(block_sizes(shape, device), 8)
"""


@pytest.mark.parametrize("filtering", [True, False])
def test_a_memoized_function_given_a_memoized_result_spreads_nothing(
    filtering: bool,
) -> None:
    # ``non_pad_index(sizes, ...)`` is keyed on a tensor's identity, but
    # ``sizes`` is what a memoized function of values returned: on a hit the
    # same object, so the outer cache hits again (vllm-omni's and
    # fastvideo's VSA tile metadata).
    before = prefilter.set_enabled(filtering)
    try:
        found = costs(CHAINED_MEMO, hot_methods=("*Builder.build",))
    finally:
        prefilter.set_enabled(before)
    assert found["Builder.build"] == "per step (build)"
    assert found["block_sizes"] == "unknown"
    assert found["non_pad_index"] == "unknown"
    assert found["check"] == "unknown"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A new tensor each call, or a name also bound to one.
        ("sizes = block_sizes(shape, device)", "sizes = torch.tensor(shape)"),
        (
            "sizes = block_sizes(shape, device)",
            "sizes = block_sizes(shape, device)\n        sizes = sizes + 1",
        ),
        (
            "sizes = block_sizes(shape, device)",
            "sizes = block_sizes(shape, device)\n        sizes += 1",
        ),
        (
            "sizes = block_sizes(shape, device)",
            "sizes = block_sizes(shape, device)\n"
            "        for sizes in shape:\n            pass",
        ),
        (
            "sizes = block_sizes(shape, device)",
            "sizes, n = block_sizes(shape, device), 1",
        ),
        ("def build(self, shape", "def build(self, sizes, shape"),
        # bound otherwise than by a name: a capture, a handler, an import
        (
            "sizes = block_sizes(shape, device)",
            "sizes = block_sizes(shape, device)\n"
            "        match shape:\n            case sizes:\n                pass",
        ),
        (
            "sizes = block_sizes(shape, device)",
            "sizes = block_sizes(shape, device)\n"
            "        try:\n            pass\n        except Exception as sizes:\n"
            "            pass",
        ),
        (
            "sizes = block_sizes(shape, device)",
            "sizes = block_sizes(shape, device)\n        import sizes",
        ),
        # An identity-keyed argument that is no such result.
        ("non_pad_index(sizes, 64)", "non_pad_index(sizes, 64, mode=[])"),
        ("non_pad_index(sizes, 64)", "non_pad_index(*[sizes, 64])"),
        # The inner function is keyed by identity itself: a miss each call.
        ("shape: tuple[int, ...], device: torch.device", "shape, device"),
        ("block_sizes(shape, device), 8)", "block_sizes(*shape), 8)"),
    ],
)
def test_a_memoized_function_given_a_new_object_still_runs_per_step(
    old: str, new: str
) -> None:
    source = CHAINED_MEMO.replace(old, new, 1)
    assert source != CHAINED_MEMO
    found = costs(source, hot_methods=("*Builder.build",))
    assert found["non_pad_index"] == "per step (build -> non_pad_index)"
    assert found["check"] == "per step (build -> non_pad_index -> check)"


def test_a_memoized_function_named_by_lru_cache_of_its_import_or_unbounded() -> None:
    for decorator in ("@lru_cache", "@lru_cache(None)", "@lru_cache(maxsize=None)"):
        source = MEMO.replace("@functools.lru_cache(maxsize=10)", decorator)
        found = costs(source, hot_methods=("*Builder.build",))
        assert found["geometry"] == "unknown", decorator


def test_a_memoized_method_declared_an_object_runs_per_step() -> None:
    source = MEMO.replace('shape: "tuple[int, int, int] | None"', "shape: object")
    found = costs(source, hot_methods=("*Builder.build",))
    assert found["Builder.layout"] == "per step (build -> layout)"
