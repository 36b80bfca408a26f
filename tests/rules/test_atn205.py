"""ATN205 non-blocking-from-pageable: each copy form, each kind of host memory."""

from __future__ import annotations

import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings

SETTINGS = Settings(select=("ATN205",))


def findings(body: str, settings: Settings = SETTINGS):
    source = (
        "import torch\nimport numpy as np\n\n\ndef plan(lengths, out, device, flag):\n"
    )
    source += textwrap.indent(textwrap.dedent(body), "    ")
    return check_source(source, "p.py", settings)


PAGEABLE = {
    "tensor_of_list": "t = torch.tensor(lengths)\nt.to(device, non_blocking=True)\n",
    "zeros_on_cpu": "t = torch.zeros(4, device='cpu')\nout.copy_(t, non_blocking=True)\n",
    "from_numpy": "t = torch.from_numpy(np.arange(4))\nt.cuda(non_blocking=True)\n",
    "cpu_result": "t = out.cpu()\nt.to(device=device, non_blocking=True)\n",
    "to_cpu_result": "t = out.to('cpu')\nt.to(device, non_blocking=True)\n",
    "host_arithmetic": "t = torch.arange(4)\nu = t[1:] - t[:-1]\nu.to(device, non_blocking=True)\n",
    "tensor_of_a_nested_number": "torch.tensor([[], [1]]).to(device, non_blocking=True)\n",
    "cast_of_pageable": "t = torch.arange(4)\nt.to(torch.int32).to(device, non_blocking=True)\n",
    "new_from_host_name": "t = lengths_cpu.cumsum(0)\nt.to(device, non_blocking=True)\n",
    "flag_passed_on": "t = torch.tensor(lengths)\nt.to(device, non_blocking=flag)\n",
    "rebound_from_itself": "t = torch.arange(4)\nt = t.repeat_interleave(2)\n"
    "t.to(device, non_blocking=True)\n",
    # ``torch.as_tensor`` copies a Python list into new memory: a list by
    # its declared type, an element of a container of lists, a slice.
    "as_tensor_of_declared_list": "ids: list[int] = out.ids()\n"
    "torch.as_tensor(ids).to(device, non_blocking=True)\n",
    "as_tensor_of_dict_value": "ids: dict[str, list[int]] = {k: [] for k in out}\n"
    "torch.as_tensor(ids['a']).to(device, non_blocking=True)\n",
    "as_tensor_of_nested_list": "rows: List[List[int]] = out.rows()\n"
    "torch.as_tensor(rows[0]).to(device, non_blocking=True)\n",
    "as_tensor_of_list_slice": "ids: typing.Tuple[int, ...] = out.ids()\n"
    "torch.as_tensor(ids[1:]).to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize("body", PAGEABLE.values(), ids=PAGEABLE.keys())
def test_non_blocking_copy_from_pageable_memory_is_reported(body: str) -> None:
    (finding,) = findings(body)
    assert finding.code == "ATN205"
    assert "without `pin_memory=True`, so the copy is synchronous" in finding.message


NOT_REPORTED = {
    "pinned_factory": "t = torch.tensor(lengths, pin_memory=True)\n"
    "t.to(device, non_blocking=True)\n",
    "pinned_method": "t = torch.tensor(lengths).pin_memory()\n"
    "t.to(device, non_blocking=True)\n",
    "device_factory": "t = torch.zeros(4, device=device)\nt.to(device, non_blocking=True)\n",
    "parameter": "lengths.to(device, non_blocking=True)\n",
    "host_name_itself": "lengths_cpu.to(device, non_blocking=True)\n",
    "blocking": "torch.tensor(lengths).to(device)\n",
    "literally_false": "torch.tensor(lengths).to(device, non_blocking=False)\n",
    "to_the_host": "torch.tensor(lengths).to('cpu', non_blocking=True)\n",
    "dtype_cast": "torch.tensor(lengths).to(torch.int32, non_blocking=True)\n",
    "mixed_bindings": "t = torch.tensor(lengths) if flag else out\n"
    "t.to(device, non_blocking=True)\n",
    # An array or a tensor may view pinned memory: not known.
    "as_tensor_of_array": "a: np.ndarray = out.numpy()\n"
    "torch.as_tensor(a).to(device, non_blocking=True)\n",
    "as_tensor_of_optional_list": "ids: Optional[list[int]] = None\n"
    "torch.as_tensor(ids).to(device, non_blocking=True)\n",
    "as_tensor_of_dict_of_arrays": "ids: dict[str, np.ndarray] = {}\n"
    "torch.as_tensor(ids['a']).to(device, non_blocking=True)\n",
    "as_tensor_of_differently_declared": "ids: list[int] = []\nids: np.ndarray = out\n"
    "torch.as_tensor(ids).to(device, non_blocking=True)\n",
    # A declared list rebound to something else (a pinned tensor) may hold it.
    "as_tensor_of_rebound_declared_list": "ids: list[int] = out.ids()\n"
    "ids = torch.tensor(ids, pin_memory=True)\n"
    "torch.as_tensor(ids).to(device, non_blocking=True)\n",
    # A display of no number (nested empty lists): nothing to copy.
    "tensor_of_nested_empty_lists": "torch.tensor([[], []]).to(device, non_blocking=True)\n",
    "as_tensor_of_rebound_dict_value": "ids: dict[str, list[int]] = {}\n"
    "ids = {k: torch.tensor(v).pin_memory() for k, v in out.items()}\n"
    "torch.as_tensor(ids['a']).to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize("body", NOT_REPORTED.values(), ids=NOT_REPORTED.keys())
def test_pinned_device_or_unknown_memory_is_not_reported(body: str) -> None:
    assert findings(body) == []


def test_the_message_names_how_the_source_was_made() -> None:
    (finding,) = findings(
        "t = torch.tensor(lengths)\nt.to(device, non_blocking=True)\n"
    )
    assert "`t` was made by `torch.tensor(...)` at line 6" in finding.message


def test_reported_anywhere_as_a_warning_without_a_fix() -> None:
    from lint_rules.rules import RULES_BY_CODE

    rule = RULES_BY_CODE["ATN205"]
    assert rule.severity == "warning" and rule.fix_availability == "none"
    (finding,) = findings("torch.tensor(lengths).cuda(non_blocking=True)\n")
    assert finding.fix is None and finding.cost == "unknown"


def _module(source: str) -> list:
    return check_source(textwrap.dedent(source), "m.py", SETTINGS)


def test_a_source_returned_by_a_function_of_the_module_is_read_in_its_body() -> None:
    source = """
        import torch

        def _lens(values):
            out = torch.tensor(values, dtype=torch.int32)
            return out

        class B:
            def forward(self, values, dev):
                a = _lens(values).to(dev, non_blocking=True)
                b = self._host(values).to(dev, non_blocking=True)
                c = self._pinned(values).to(dev, non_blocking=True)
                d = self._either(values, dev).to(dev, non_blocking=True)
                return a, b, c, d

            def _host(self, values):
                if values is None:
                    return None  # (no copy reads a None)
                return _lens(values) + 1

            def _pinned(self, values):
                return torch.tensor(values).pin_memory()

            def _either(self, values, dev):
                if dev is None:
                    return torch.tensor(values)
                return torch.tensor(values, device=dev)
        """
    found = _module(source)
    assert [f.location.row for f in found] == [10, 11]
    assert "returned by `_lens()` at line 10, where `out` was made by" in (
        found[0].message
    )
    assert "returned by `_host()` at line 11, where its result was computed" in (
        found[1].message
    )


#: (not known, the same read where the condition is lifted: reported)
RETURNS_UNKNOWN = {
    # Another class of the module defines the method: an override may run.
    "overridden": (
        "class A:\n    def forward(self, v, d):\n"
        "        return self._mk(v).to(d, non_blocking=True)\n"
        "    def _mk(self, v):\n        return torch.tensor(v)\n"
        "class C(A):\n    def _mk(self, v):\n        return v\n",
        "class C(A):\n    def _mk(self, v):\n        return v\n",
        "",
    ),
    # Decorated: the call may not run the body as written.
    "decorated": (
        "import functools\n@functools.cache\ndef _mk(v):\n    return torch.tensor(v)\n"
        "def f(v, d):\n    return _mk(v).to(d, non_blocking=True)\n",
        "@functools.cache\n",
        "",
    ),
    # Recursion: not known.
    "recursive": (
        "def _mk(v):\n    return _mk(v)\n"
        "def f(v, d):\n    return _mk(v).to(d, non_blocking=True)\n",
        "return _mk(v)",
        "return torch.tensor(v)",
    ),
    # Not on the instance parameter.
    "other_receiver": (
        "class A:\n    def forward(self, o, v, d):\n"
        "        return o._mk(v).to(d, non_blocking=True)\n"
        "    def _mk(self, v):\n        return torch.tensor(v)\n",
        "o._mk",
        "self._mk",
    ),
}


@pytest.mark.parametrize("case", RETURNS_UNKNOWN.values(), ids=RETURNS_UNKNOWN.keys())
def test_a_call_whose_body_may_not_run_as_written_is_not_known(case) -> None:
    body, old, new = case
    assert _module("import torch\n" + body) == []
    assert old in body
    (finding,) = _module("import torch\n" + body.replace(old, new, 1))
    assert "was returned by `_mk()`" in finding.message


PAGEABLE_ON_EVERY_PATH = {
    "none_elsewhere": "t = None\nif flag:\n    t = torch.tensor(lengths)\n"
    "t.to(device, non_blocking=True)\n",
    "either_branch": "t = torch.tensor(lengths) if flag else torch.zeros(4)\n"
    "t.to(device, non_blocking=True)\n",
    "branch_or_none": "t = torch.tensor(lengths) if flag else None\n"
    "t.to(device, non_blocking=True)\n",
    "comparison": "t = torch.tensor(lengths)\nmask = (t > 0) & (t < 8)\n"
    "mask.to(device, non_blocking=True)\n",
    "scaled_by_itself": "t = torch.arange(4)\nt = t * flag\n"
    "t.to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize(
    "body", PAGEABLE_ON_EVERY_PATH.values(), ids=PAGEABLE_ON_EVERY_PATH.keys()
)
def test_pageable_wherever_a_tensor_is_bound_is_reported(body: str) -> None:
    (finding,) = findings(body)
    assert finding.code == "ATN205"


NOT_KNOWN_ON_SOME_PATH = {
    "none_or_unknown": "t = None\nif flag:\n    t = out\nt.to(device, non_blocking=True)\n",
    "branch_unknown": "t = out if flag else torch.zeros(4)\n"
    "t.to(device, non_blocking=True)\n",
    "scaled_unknown": "t = out\nt = t * 2\nt.to(device, non_blocking=True)\n",
    "identity_test": "t = torch.tensor(lengths)\nu = t is out\n"
    "u.to(device, non_blocking=True)\n",
    "only_none": "t = None\nt.to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize(
    "body", NOT_KNOWN_ON_SOME_PATH.values(), ids=NOT_KNOWN_ON_SOME_PATH.keys()
)
def test_a_path_with_unknown_memory_is_not_reported(body: str) -> None:
    assert findings(body) == []


def test_a_name_read_while_another_is_read_is_not_taken_for_what_it_seemed() -> None:
    # `b` is read while `a` is: `b = a * 2` seems to be whatever `b`'s other
    # binding is, but `a` turns out not known (it may be `lengths`), so `b`
    # is not known either: the second copy is not reported.
    body = (
        "a = lengths\nb = torch.arange(2)\nfor _ in range(2):\n"
        "    b = a * 2\n    a = b\n"
        "a.to(device, non_blocking=True)\nb.to(device, non_blocking=True)\n"
    )
    assert findings(body) == []


def module_findings(source: str):
    return check_source(textwrap.dedent(source), "p.py", SETTINGS)


PASSED_BY_EVERY_CALL = {
    "nested_helper": """
        import torch
        def plan(lengths, device, flag):
            def to_device(t):
                return None if t is None else t.to(device, non_blocking=True)
            extra = torch.zeros(2) if flag else None
            return to_device(torch.tensor(lengths)), to_device(extra)
        """,
    "private_function": """
        import torch
        def _upload(t, device):
            return t.to(device, non_blocking=True)
        def plan(lengths, device):
            host = torch.tensor(lengths)
            return _upload(host, device), _upload(host.cumsum(0), device)
        """,
    "private_method": """
        import torch
        class Builder:
            def _upload(self, t):
                self.buf.copy_(t, non_blocking=True)
            def build(self, lengths):
                self._upload(torch.tensor(lengths))
        """,
    "replaced_parameter": """
        def plan(lens, device):
            lens = lens.cpu()
            if lens.numel():
                return lens.to(device, non_blocking=True)
        """,
}


@pytest.mark.parametrize(
    "source", PASSED_BY_EVERY_CALL.values(), ids=PASSED_BY_EVERY_CALL.keys()
)
def test_a_parameter_every_call_gives_pageable_memory_is_reported(source: str) -> None:
    (finding,) = module_findings(source)
    assert finding.code == "ATN205"


def test_the_message_names_the_call_that_passes_it() -> None:
    (finding,) = module_findings(PASSED_BY_EVERY_CALL["private_function"])
    assert (
        "the source `t` is what every call of `_upload()` passes (line 7: "
        "`host` was made by `torch.tensor(...)` at line 6)" in finding.message
    )


NOT_ALL_CALLS_KNOWN = {
    "public_function": """
        import torch
        def upload(t, device):
            return t.to(device, non_blocking=True)
        def plan(lengths, device):
            return upload(torch.tensor(lengths), device)
        """,
    "one_call_passes_unknown": """
        import torch
        def _upload(t, device):
            return t.to(device, non_blocking=True)
        def plan(lengths, device, out):
            return _upload(torch.tensor(lengths), device), _upload(out, device)
        """,
    "nested_helper_passed_on": """
        import torch
        def plan(lengths, device, tensors):
            def to_device(t):
                return t.to(device, non_blocking=True)
            first = to_device(torch.tensor(lengths))
            return first, list(map(to_device, tensors))
        """,
    "star_args": """
        import torch
        def _upload(t, device):
            return t.to(device, non_blocking=True)
        def plan(args):
            return _upload(*args)
        """,
    "read_before_replaced": """
        def plan(lens, device):
            before = lens
            lens = lens.cpu()
            return before.to(device, non_blocking=True)
        """,
    "replaced_in_a_branch": """
        def plan(lens, device, flag):
            if flag:
                lens = lens.cpu()
            return lens.to(device, non_blocking=True)
        """,
    "replaced_by_a_view_of_itself": """
        def plan(lens, device):
            lens = lens[1:]
            return lens.to(device, non_blocking=True)
        """,
}


@pytest.mark.parametrize(
    "source", NOT_ALL_CALLS_KNOWN.values(), ids=NOT_ALL_CALLS_KNOWN.keys()
)
def test_a_parameter_some_caller_may_pass_pinned_memory_is_not_reported(
    source: str,
) -> None:
    assert module_findings(source) == []


HOST_ELEMENTS = {
    "appended_list": "parts = []\nfor n in lengths:\n    parts.append(torch.arange(n))\n"
    "t = torch.cat(parts) if parts else torch.empty(0)\n"
    "t.to(device, non_blocking=True)\n",
    "comprehension_argument": "t = torch.cat([torch.arange(n) for n in lengths])\n"
    "t.to(device, non_blocking=True)\n",
    "comprehension_bound": "parts = [torch.tensor(x) for x in lengths]\n"
    "if len(parts):\n    torch.stack(parts).to(device, non_blocking=True)\n",
    "inserted_and_extended": "parts = [torch.zeros(1)]\n"
    "parts.insert(0, torch.arange(2))\nparts.extend([torch.ones(1), out.cpu()])\n"
    "torch.cat(parts).to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize("body", HOST_ELEMENTS.values(), ids=HOST_ELEMENTS.keys())
def test_joining_a_list_of_host_tensors_is_reported(body: str) -> None:
    (finding,) = findings(body)
    assert "was computed by `torch." in finding.message


NOT_ALL_ELEMENTS_KNOWN = {
    "one_element_unknown": "parts = [torch.arange(2)]\nparts.append(out)\n"
    "torch.cat(parts).to(device, non_blocking=True)\n",
    "passed_elsewhere": "parts = [torch.arange(2)]\nfill(parts)\n"
    "torch.cat(parts).to(device, non_blocking=True)\n",
    "extended_by_unknown": "parts = [torch.arange(2)]\nparts.extend(out)\n"
    "torch.cat(parts).to(device, non_blocking=True)\n",
    "read_in_a_nested_function": "parts = [torch.arange(2)]\n"
    "def more():\n    fill(parts)\nmore()\n"
    "torch.cat(parts).to(device, non_blocking=True)\n",
    "rebound_to_unknown": "parts = [torch.arange(2)]\nif flag:\n    parts = out\n"
    "torch.cat(parts).to(device, non_blocking=True)\n",
    "element_set_by_index": "parts = [torch.arange(2)]\nparts[0] = out\n"
    "torch.cat(parts).to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize(
    "body", NOT_ALL_ELEMENTS_KNOWN.values(), ids=NOT_ALL_ELEMENTS_KNOWN.keys()
)
def test_joining_a_list_some_element_of_which_is_not_known_is_not_reported(
    body: str,
) -> None:
    assert findings(body) == []


ARRAYS = {
    "new_array": "torch.from_numpy(np.cumsum(lengths)).to(device, non_blocking=True)\n",
    "list_as_tensor": "torch.as_tensor([1, 2]).to(device, non_blocking=True)\n",
    "array_of_a_pageable_tensor": "a = torch.arange(3).numpy()\n"
    "torch.from_numpy(a).to(device, non_blocking=True)\n",
    "pin_memory_false": "t = torch.zeros(4, pin_memory=False)\n"
    "t.to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize("body", ARRAYS.values(), ids=ARRAYS.keys())
def test_a_tensor_over_new_host_memory_is_reported(body: str) -> None:
    (finding,) = findings(body)
    assert finding.code == "ATN205"


ARRAYS_THAT_MAY_BE_PINNED = {
    "array_of_unknown_origin": "torch.from_numpy(lengths).to(device, non_blocking=True)\n",
    "view_of_unknown_array": "a = np.asarray(lengths)\n"
    "torch.from_numpy(a).to(device, non_blocking=True)\n",
    "array_of_a_pinned_tensor": "buf = torch.zeros(4, pin_memory=True)\n"
    "a = buf.numpy()\ntorch.from_numpy(a).to(device, non_blocking=True)\n",
    "as_tensor_of_unknown": "torch.as_tensor(lengths).to(device, non_blocking=True)\n",
    "as_tensor_of_pinned": "t = torch.as_tensor(torch.zeros(4, pin_memory=True))\n"
    "t.to(device, non_blocking=True)\n",
    "factory_pinned_then_device": "t = torch.zeros(4, pin_memory=False, device=device)\n"
    "t.to(device, non_blocking=True)\n",
}


@pytest.mark.parametrize(
    "body", ARRAYS_THAT_MAY_BE_PINNED.values(), ids=ARRAYS_THAT_MAY_BE_PINNED.keys()
)
def test_a_tensor_viewing_memory_that_may_be_pinned_is_not_reported(body: str) -> None:
    assert findings(body) == []


def test_a_private_function_a_string_names_may_have_other_callers() -> None:
    source = """
        import torch
        class Builder:
            def _upload(self, t):
                self.buf.copy_(t, non_blocking=True)
            def build(self, lengths, pinned):
                self._upload(torch.tensor(lengths))
                getattr(self, "_upload")(pinned)
        """
    assert module_findings(source) == []


STORED = """
    import torch
    class Builder:
        def __init__(self, n):
            self._lens = torch.zeros(n, dtype=torch.int32)
            self._done = None
        def reset(self):
            self._lens = None
        def step(self, out):
            out.copy_(self._lens, non_blocking=True)
    """


def test_a_private_attribute_only_set_to_pageable_memory_is_reported() -> None:
    (finding,) = module_findings(STORED)
    assert (
        "the source `._lens` is set only to pageable memory (line 5: the value "
        "was made by `torch.zeros(...)` at line 5)" in finding.message
    )


ATTRIBUTES_NOT_KNOWN = {
    "public": STORED.replace("_lens", "lens"),
    "also_pinned": STORED.replace(
        "self._lens = None", "self._lens = torch.zeros(2, pin_memory=True)"
    ),
    "unpacked": STORED.replace(
        "self._lens = None", "self._lens, self._done = self.make()"
    ),
    "set_by_a_string": STORED.replace(
        "self._lens = None", "setattr(self, '_lens', self.make())"
    ),
    "set_outside_a_function": textwrap.dedent(STORED)
    + "Builder._lens = torch.zeros(1).pin_memory()\n",
    "set_to_what_is_not_known": STORED.replace(
        "self._lens = None", "self._lens = self.make()"
    ),
}


@pytest.mark.parametrize(
    "source", ATTRIBUTES_NOT_KNOWN.values(), ids=ATTRIBUTES_NOT_KNOWN.keys()
)
def test_an_attribute_that_may_hold_pinned_memory_is_not_reported(source: str) -> None:
    assert module_findings(source) == []
