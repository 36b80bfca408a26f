"""A module that changes what torch's own names do has no safe fix.

Every rule reads torch's functions and methods by name (``copy_`` writes
all of its tensor, ``item()`` changes nothing); a module that replaces one
(``torch.Tensor.copy_ = f``, ``setattr(torch.Tensor, "item", g)``) or
defines a ``__torch_function__`` / ``__torch_dispatch__`` makes them its own
code (differential reproductions 59 and 60).
"""

from __future__ import annotations

from textwrap import dedent

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings

SETTINGS = Settings(
    select=("ATN101", "ATN104", "ATN201", "ATN202", "ATN301"), hot_paths_only=False
)

BODY = """
import torch
import torch.nn.functional as F

{override}


def zeros(y, n):
    x = torch.zeros(n)
    x.copy_(y)
    return x


def fill(y, n):
    x = torch.ones(n)
    x.zero_()
    x.copy_(y)
    return x.tolist()


def sync(t):
    a = t.sum().item()
    b = t.sum().item()
    return a, b


def again(m, n):
    m.k = n + 1
    m.k = n + 1
    return m


def alias(xs):
    for i in xs:
        j = i + 1
        print(j)
"""

RULES = ["ATN101", "ATN104", "ATN201", "ATN202", "ATN301"]


def _fixes(source: str) -> list[tuple[str, str]]:
    found = check_source(dedent(source), "t.py", SETTINGS)
    return sorted(
        (f.code, f.fix.applicability.value) for f in found if f.fix is not None
    )


def test_the_plain_module_has_safe_fixes_of_every_rule():
    assert _fixes(BODY.format(override="")) == [(code, "safe") for code in RULES]


@pytest.mark.parametrize(
    "override",
    [
        "torch.Tensor.copy_ = lambda self, src: self",
        "torch.Tensor.item = lambda self: 0",
        "F.relu = lambda x: x",
        "del torch.Tensor.item",
        'setattr(torch.Tensor, "copy_", lambda self, src: self)',
        'delattr(torch.Tensor, "item")',
        "T = torch.Tensor\nT.item = lambda self: 0",
        'getattr(torch, "Tensor").item = lambda self: 0',
        "from torch import Tensor\nTensor.item = lambda self: 0",
        "def patch():\n    torch.Tensor.item = lambda self: 0",
        "class Sub(torch.Tensor):\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        return func(*args, **(kwargs or {}))",
        "class Mode:\n    def __torch_dispatch__(self, func, types, args, kwargs):\n"
        "        return func(*args, **kwargs)",
        "class Off(torch.Tensor):\n    __torch_function__ = torch._C._disabled_torch_function_impl",
        "import builtins\nbuiltins.len = lambda x: 0",
        "vars(torch)['zeros'] = lambda *a: None",
        "class Sub(torch.Tensor):\n    pass\nSub.__torch_function__ = None",
        "class Half(torch.Tensor):\n    def copy_(self, src):\n        return self",
        "from torch import Tensor\nclass Keep(Tensor):\n    fill_ = None",
        "class P(torch.nn.Parameter):\n    def __setitem__(self, k, v):\n        pass",
        "class A(torch.Tensor):\n    pass\nclass B(A):\n    def add_(self, v):\n        return self",
        "import builtins as b\nsetattr(b, 'range', lambda *a: ())",
        "import builtins\nbuiltins.__dict__['print'] = lambda *a: None",
        "__builtins__['len'] = lambda x: 0",
        # ``__torch_function__`` bound otherwise than by a class body's own
        # ``def``: in a block of the body, by a store, by ``type``
        "class Mode:\n    if True:\n"
        "        def __torch_function__(self, func, types, args=(), kwargs=None):\n"
        "            return func(*args, **(kwargs or {}))",
        "class Mode:\n    pass\nMode.__torch_function__ = classmethod(print)",
        "Mode = type('Mode', (), {'__torch_dispatch__': print})",
    ],
)
def test_a_module_changing_torch_has_its_safe_fixes_made_unsafe(override):
    source = BODY.format(override=override)
    assert _fixes(source) == [(code, "unsafe") for code in RULES]
    found = check_source(dedent(source), "t.py", SETTINGS)
    assert all(
        "changes what torch's own functions or builtins do" in f.message for f in found
    )


@pytest.mark.parametrize(
    "store",
    [
        "BUF = torch.zeros(4)\nBUF[1:] = 1",
        "BUF = torch.zeros(4)\nBUF.k = 1",
        "class M:\n    def __init__(self):\n        self.w = torch.zeros(1)",
        'HOLD = {}\nsetattr(HOLD, "k", torch.zeros(1))',
        "import os\nos.environ_x = 1",
        "import builtins\nNAMES = dir(builtins)",
        "class M(torch.nn.Module):\n    def forward(self, x):\n        return x",
        "class Plain(torch.Tensor):\n    pass",
    ],
)
def test_stores_into_what_torch_made_change_nothing_of_torch(store):
    # A tensor torch returned, an object holding one: not torch's own code.
    assert _fixes(BODY.format(override=store)) == [(code, "safe") for code in RULES]


@pytest.mark.parametrize(
    "tracing",
    [
        "import sys\nsys.settrace(None)",
        "import sys\nsys.setprofile(None)",
        "from sys import settrace",
        "import threading\nthreading.settrace(print)",
        "import sys\nsys.monitoring.use_tool_id(0, 'x')",
        "import sys\nsys.addaudithook(print)",
        "import sys\ngetattr(sys, 'setprofile')(None)",
        "import operator, sys\noperator.methodcaller('settrace', None)(sys)",
    ],
)
def test_a_module_installing_a_trace_function_has_no_safe_fix(tracing):
    # It runs at every line and call: a statement deleted, a value reused or
    # another function called is seen by it (differential reproduction 61).
    source = BODY.format(override=tracing)
    assert _fixes(source) == [(code, "unsafe") for code in RULES]
    found = check_source(dedent(source), "t.py", SETTINGS)
    assert all("trace, profile or audit hook" in f.message for f in found)
    plain = BODY.format(override="import sys\nsys.exit_code = 0")
    assert _fixes(plain) == [(code, "safe") for code in RULES]


@pytest.mark.parametrize(
    "finalizing",
    [
        "class Box:\n    def __del__(self):\n        pass",
        "import weakref",
        "from weakref import finalize",
        "import gc",
        "import sys\nsys.set_asyncgen_hooks(finalizer=print)",
        "from sys import set_asyncgen_hooks",
        "import importlib\nW = importlib.import_module('weakref')",
        "G = __import__('gc')",
        # named otherwise than by a plain call or import
        "import sys\ngetattr(sys, 'set_asyncgen_hooks')(finalizer=print)",
        "import sys\nOLD = sys.set_asyncgen_hooks(finalizer=print) or None",
        "import importlib\nW = importlib.import_module(name='weakref')",
        "import importlib\nW = importlib.import_module(*['weakref'])",
        "import sys\nW = sys.modules['weakref']",
    ],
)
def test_atn301_keeps_an_alias_that_may_delay_a_finalizer(finalizing):
    # The alias holds its object until it is rebound; without it, a
    # finalizer runs elsewhere in the loop (differential reproduction 62).
    source = BODY.format(override=finalizing)
    found = check_source(dedent(source), "t.py", SETTINGS)
    atn301 = [f for f in found if f.code == "ATN301"]
    assert [f.fix.applicability.value for f in atn301] == ["unsafe"]
    assert "finalizers" in atn301[0].message
    plain = BODY.format(override="class Box:\n    def close(self):\n        pass")
    found = check_source(dedent(plain), "t.py", SETTINGS)
    atn301 = [f for f in found if f.code == "ATN301"]
    assert [f.fix.applicability.value for f in atn301] == ["safe"]
    # A number of names that always hold one refers to nothing and has no
    # finalizer: holding it delays none.
    numbers = source.replace("for i in xs:", "for i in range(len(xs)):")
    found = check_source(dedent(numbers), "t.py", SETTINGS)
    atn301 = [f for f in found if f.code == "ATN301"]
    assert [f.fix.applicability.value for f in atn301] == ["safe"]
    assert "finalizers" not in atn301[0].message


@pytest.mark.parametrize(
    "text",
    [
        "import sys\nsys.settrace(None)\n",
        "from threading import setprofile_all_threads as s\n",
        "import sys\nsys.monitoring.use_tool_id(0, 'x')\n",
        "import sys\nx = sys.ｓettrace\n",  # (read as ``settrace``)
        "import sys\nprint(sys.argv)\n",
        "def f(o):\n    return o.trace + o.profile\n",
        "import sys as settrace_module\n",
    ],
)
def test_the_tracing_prefilter_keeps_every_module_the_walk_finds(text):
    import ast

    from lint_rules import prefilter
    from lint_rules.analysis.model import ModuleModel
    from lint_rules.analysis.torch_overrides import (
        installs_tracing,
        may_install_tracing,
    )

    found = installs_tracing(ModuleModel(ast.parse(text)))
    if found is not None:
        assert may_install_tracing(text)
    was = prefilter.set_enabled(False)
    try:
        assert may_install_tracing(text)
    finally:
        prefilter.set_enabled(was)
    # and it does leave out a module that names none of them
    assert not may_install_tracing("import sys\nprint(sys.argv)\n")


@pytest.mark.parametrize(
    "callbacks",
    [
        "HOOKS = torch.autograd.graph.saved_tensors_hooks(print, print)",
        "from torch.autograd.graph import saved_tensors_hooks",
        "class Offload(torch.autograd.graph.saved_tensors_hooks):\n    pass",
        "import torch.nn.utils.parametrize as P\n"
        "P.register_parametrization(torch.nn.Linear(2, 2), 'weight', F.relu)",
        "torch.nn.modules.module.register_module_forward_hook(print)",
        "from torch.nn.modules.module import register_module_buffer_registration_hook",
        "import warnings\nwarnings.showwarning = print",
        "import warnings\nsetattr(warnings, 'formatwarning', repr)",
        "import sys\nsys.stderr = LOG",
        "from contextlib import redirect_stderr",
        "import contextlib\nQUIET = contextlib.redirect_stderr(None)",
        "HOOKS = getattr(torch.autograd.graph, 'saved_tensors_hooks')",
        # warnings handed to ``logging``'s handlers, or shown by the module
        "import logging\nlogging.captureWarnings(True)",
        "import warnings\nwarnings._showwarnmsg = print",
    ],
)
def test_a_module_giving_torch_its_own_code_has_no_safe_fix(callbacks):
    # Torch's operations run that code (a pack hook at every operation that
    # saves a tensor, a parametrization at every load of the attribute, a
    # warning display at every warning): differential reproductions 109 to 111.
    source = BODY.format(override=callbacks)
    assert _fixes(source) == [(code, "unsafe") for code in RULES]
    found = check_source(dedent(source), "t.py", SETTINGS)
    assert all("gives torch code of its own" in f.message for f in found)


@pytest.mark.parametrize(
    "plain",
    [
        "import warnings\nwarnings.simplefilter('ignore')",
        "import warnings\nSHOW = warnings.showwarning",
        "import sys\nERR = sys.stderr",
        "import logging\nlogging.info('monitoring')",
        "NAMES = {'gc': 1, 'weakref': 2}",
        "def register_parametrization_later():\n    pass",
    ],
)
def test_reading_a_hook_or_a_similar_name_installs_nothing(plain):
    # Reading ``warnings.showwarning`` installs nothing; a function of the
    # module whose name only starts like torch's installs nothing either.
    source = BODY.format(override=plain)
    assert _fixes(source) == [(code, "safe") for code in RULES]


@pytest.mark.parametrize(
    "text",
    [
        "import torch\nwith torch.autograd.graph.saved_tensors_hooks(f, g):\n    pass\n",
        "import warnings\nwarnings.showwarning = print\n",
        "from torch.nn.modules.module import register_module_forward_hook as h\n",
        "import torch\nprint(torch.ones(1))\n",
    ],
)
def test_the_torch_callbacks_prefilter_keeps_every_module_the_walk_finds(text):
    import ast

    from lint_rules import prefilter
    from lint_rules.analysis.model import ModuleModel
    from lint_rules.analysis.torch_overrides import (
        installs_torch_callbacks,
        may_install_torch_callbacks,
    )

    found = installs_torch_callbacks(ModuleModel(ast.parse(text)))
    if found is not None:
        assert may_install_torch_callbacks(text)
    was = prefilter.set_enabled(False)
    try:
        assert may_install_torch_callbacks(text)
    finally:
        prefilter.set_enabled(was)
    assert not may_install_torch_callbacks("import torch\nprint(torch.ones(1))\n")


@pytest.mark.parametrize(
    ("registration", "overrides"),
    [
        ('LIB = torch.library.Library("aten", "IMPL")', True),
        ("from torch.library import Library as L\nLIB = L(NS, 'IMPL')", True),
        ('@torch.library.impl("aten::neg", "CPU")\ndef neg(t):\n    return t', True),
        ("torch.library.register_autograd(torch.ops.aten.neg.default, print)", True),
        # the module's own operators: unknown code where they are called
        ('LIB = torch.library.Library("mylib", "FRAGMENT")', False),
        (
            '@torch.library.custom_op("mylib::k", mutates_args=())\n'
            "def k(t: torch.Tensor) -> torch.Tensor:\n    return t",
            False,
        ),
        ("import ctypes\nLIB = ctypes.cdll.LoadLibrary(NAME)", False),
        # a namespace the text does not spell, a library by another name
        ('torch.library.impl(NS + "::neg", "CPU")(print)', True),
        (
            "Lib = torch.library.Library\nLIB = Lib('aten', 'IMPL')\n"
            "LIB.impl('neg', print, 'CPU')",
            True,
        ),
        ("torch.library.impl(torch.ops.mylib.k.default, 'CPU')(print)", False),
    ],
)
def test_a_kernel_registered_for_a_torch_operator_makes_fixes_unsafe(
    registration, overrides
):
    # ``torch.neg`` then runs the module's kernel (differential
    # reproduction 120).
    source = BODY.format(override=registration)
    expected = "unsafe" if overrides else "safe"
    assert _fixes(source) == [(code, expected) for code in RULES]
