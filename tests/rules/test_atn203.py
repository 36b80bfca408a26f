"""ATN203 host-sync-in-hot-path: each sync form, each host value, the message."""

from __future__ import annotations

import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings

SETTINGS = Settings(select=("ATN203",))


def findings(body: str, settings: Settings = SETTINGS, method: str = "forward"):
    source = "import torch\nimport numpy as np\n\nclass Backend:\n"
    source += f"    def {method}(self, q, lens, batch, n: int):\n"
    source += textwrap.indent(textwrap.dedent(body), " " * 8)
    return check_source(source, "b.py", settings)


SYNCS = {
    "item": "x = lens.max().item()\n",
    "tolist": "x = lens.tolist()\n",
    "cpu": "x = lens.cpu()\n",
    "numpy_force": "x = batch.lens.numpy(force=True)\n",
    "to_cpu": 'x = lens.to("cpu")\n',
    "to_cpu_device": "x = lens.to(torch.device('cpu'))\n",
    "int_of_reduction": "x = int(lens.sum())\n",
    "float_of_device": "y = lens.cuda()\nx = float(y[0])\n",
    "if_any": "if (lens > 0).any():\n    pass\n",
    "while_compare": "while lens.max() > 3:\n    pass\n",
    "assert_all": "assert torch.all(lens > 0)\n",
    "or_truth": "x = lens.any() or n\n",
    "not_truth": "x = not lens.all()\n",
    "nonzero_function": "x = torch.nonzero(lens)\n",
    "nonzero_method": "x = lens.nonzero()\n",
    # ``torch.where`` of one argument is ``nonzero``.
    "where_of_one_argument": "x = torch.where(lens.cuda() > 0)\n",
    "unique": "x = torch.unique(lens)\n",
    "masked_select": "x = torch.masked_select(q, lens > 0)\n",
    "mask_compare": "x = q[lens > 0]\n",
    "mask_name": "mask = lens > 0\nx = q[mask]\n",
    "mask_invert": "x = q[~(lens > 0)]\n",
    "mask_write": "q[lens > 0] = 0\n",
    # A mask as one element of a tuple index is a mask too.
    "mask_in_tuple_index": "x = q[lens > 0, :]\n",
    "mask_name_in_tuple_write": "mask = lens > 0\nq[mask, :] = q\n",
    "mask_invert_second_in_tuple": "x = q[:, ~(lens > 0)]\n",
    # A tensor of booleans made by torch (told ``dtype=torch.bool``, or
    # ``.bool()``) is a mask.
    "mask_bool_factory": "m = torch.tensor(n, dtype=torch.bool, device=q.device)\nx = q[m]\n",
    "mask_bool_like": "m = torch.ones_like(lens, dtype=torch.bool)\nq[m, :] = q\n",
    "mask_bool_method": "m = lens.cuda().bool()\nx = q[m]\n",
    "mask_new_ones_bool": "m = lens.new_ones(n, dtype=bool)\nx = q[:, m]\n",
    "cuda_synchronize": "torch.cuda.synchronize()\n",
    "stream_synchronize": "self.stream.synchronize()\n",
    # A device module's synchronize waits for the device it is told as it
    # does without one (ktransformers' per-step decode, each device in turn).
    "cuda_synchronize_device": "torch.cuda.synchronize(q.device)\n",
    "cuda_module_synchronize_device": "from torch import cuda\ncuda.synchronize(0)\n",
    "accelerator_synchronize_device": "torch.accelerator.synchronize(q.device)\n",
    # A tensor that Python reads as an int: slice bounds and sizes.
    "slice_bound": "last = torch.cumsum(lens, 0)[-1]\nx = q[:last]\n",
    "slice_bound_in_tuple": "x = q[:, 1 : torch.sum(lens) + 1]\n",
    "slice_bound_write": "q[: lens.cuda()[-1]] = 0\n",
    # A parameter not declared a tensor, rebound to a device tensor first.
    "slice_bound_rebound_parameter": "lens = lens.cuda()\nx = q[: lens[-1]]\n",
    "empty_size": "x = torch.empty(torch.sum(lens), device=q.device)\n",
    "zeros_size_tuple": "x = torch.zeros((2, lens.cuda()[0]), device=q.device)\n",
    "arange_end": "x = torch.arange(0, end=torch.max(lens), device=q.device)\n",
    "new_zeros_size": "x = q.new_zeros(lens.cuda()[0])\n",
    # The builtin ``range`` reads each argument with ``__index__`` too.
    "range_stop": "for k in range(lens.cuda().max()):\n    pass\n",
    "range_start_step": "m = torch.max(lens)\nx = list(range(0, n, m))\n",
    # The builtins that compare elements, or read each one's truth, read a
    # tensor's elements on the host (``max(t)`` runs ``bool(b > a)``).
    "builtin_max_of_tensor": "x = max(lens.cuda())\n",
    "builtin_min_of_tensor_and_number": "m = torch.max(lens)\nx = min(m, n)\n",
    "builtin_sorted_of_tensor": "x = sorted(torch.cumsum(lens, 0))\n",
    "builtin_any_of_tensor": "x = any(lens.cuda() > 0)\n",
    # ``reverse=`` changes no comparison, and ``max(*t)`` compares the
    # elements of ``t`` as ``max(t)`` does.
    "builtin_sorted_reversed": "x = sorted(lens.cuda(), reverse=True)\n",
    "builtin_max_of_unpacked_tensor": "x = max(*lens.cuda())\n",
    "compare_torch_result": "m = torch.max(lens)\nif m != n:\n    pass\n",
    # ``repeat_interleave`` with tensor repeats and no ``output_size``.
    "repeat_interleave": "x = torch.repeat_interleave(q, lens.cuda())\n",
    "repeat_interleave_method": "x = q.repeat_interleave(torch.cumsum(lens, 0))\n",
    "repeat_interleave_one_argument": "x = torch.repeat_interleave(lens.cuda())\n",
    "repeat_interleave_keyword": "x = q.repeat_interleave(repeats=lens.cuda())\n",
    "repeat_interleave_output_size_none": (
        "x = q.repeat_interleave(lens.cuda(), dim=0, output_size=None)\n"
    ),
    # A list of tensors given to a torch function is where its elements are.
    # ... and a device value reshaped in a loop stays on the device, or
    # unknown where one binding is not known.
    "reshaped_device_in_a_loop": (
        "for k in range(n):\n    t = lens.cuda()\n    t = t.view(2, -1)\n"
        "    x = t.tolist()\n"
    ),
    "reshaped_in_one_arm": (
        "t = lens.cuda()\nif n:\n    t = torch.zeros(3)\nelse:\n    t = t.view(-1)\n"
        "x = t.tolist()\n"
    ),
    "reshaped_unknown_in_a_loop": (
        "t = torch.arange(n)\nfor k in range(n):\n    t = t.flatten()\n"
        "    t = batch.lens if k else t\n    x = t.tolist()\n"
    ),
    "joined_list_of_tensors": "t = torch.cat([q, lens])\nx = t.max().item()\n",
    # A loop that starts after the last binding on the use's path brings
    # back what its pass binds, and so does a `while` whose test reads it;
    # a binding in an arm ends nothing.
    # A 0-d CPU tensor of one number moves to the device it is combined with.
    "scalar_tensor_clamp": (
        "t = torch.minimum(lens, torch.tensor(n + 1))\nx = t.sum().item()\n"
    ),
    "scalar_tensor_operand": "t = lens * torch.tensor(2.0)\nx = t.tolist()\n",
    "rebound_before_the_loop": (
        "t = [1]\nfor k in range(n):\n    if t[0] != 1:\n        pass\n"
        "    t = lens.cuda()\n"
    ),
    "rebound_before_the_while": (
        "for k in range(n):\n    t = [k]\n    while t[0] != 1:\n"
        "        t = lens.cuda()\n"
    ),
    "rebound_in_an_arm_of_the_pass": (
        "t = lens.cuda()\nfor k in range(n):\n    if k:\n        t = [k]\n"
        "    if t[0] != 1:\n        pass\n"
    ),
    # Not told the CPU, or the test only one operand of an `or`: reported.
    "function_given_device": "t = get_for_device(batch, 'ids', q.device)\nx = t.tolist()\n",
    # Given the CPU and another device (a copy from one to the other): not
    # known to give a host value.
    "function_given_two_devices": "t = copy_blocks(lens, 'cpu', 'cuda:0')\nx = t.tolist()\n",
    "function_given_device_keywords": (
        "t = copy_blocks(lens, device='cpu', to=torch.device('cuda'))\nx = t.tolist()\n"
    ),
    # ... or a tensor's device, or told a device by a keyword that names one.
    "function_given_cpu_and_a_tensors_device": (
        "t = copy_blocks(lens, 'cpu', q.device)\nx = t.tolist()\n"
    ),
    "function_given_cpu_and_device_keyword": (
        "t = move(lens, 'cpu', device=self.dev)\nx = t.tolist()\n"
    ),
    "function_given_cpu_and_device_index": (
        "t = move(lens, 'cpu', device=0)\nx = t.tolist()\n"
    ),
    "function_given_cpu_and_target_device": (
        "t = fetch(lens, device='cpu', target_device=self.dev)\nx = t.tolist()\n"
    ),
    "tracing_or": "if torch.jit.is_tracing() or n:\n    x = lens.item()\n",
    "not_tracing_body": "if not torch.jit.is_tracing():\n    x = lens.item()\n",
    # What an attribute or a dict holds may be a tensor.
    "getattr_attribute": "t = getattr(batch, 'lens', None)\nx = t[:n].sum().item()\n",
    "dict_get": "d = {'a': 1}\nself.fill(d)\nx = d.get('lens').tolist()\n",
    # A device guard in an `and` tells its body, not its `else`.
    "and_guard_else": "if lens.is_cpu and n:\n    pass\nelse:\n    x = lens.tolist()\n",
    "or_guards_of_two_names_body": "if q.is_cpu or lens.is_cpu:\n    x = lens.tolist()\n",
    "joined_comprehension": "t = torch.stack([s.lens for s in batch.seqs])\nx = t.tolist()\n",
    # The last operand of an `and`/`or` that is a test is read as one too.
    "last_operand_of_if_and": "if n and lens.cuda().any():\n    pass\n",
    "last_operand_of_while_or": "while n or (lens.cuda() > 0).all():\n    pass\n",
    "last_operand_under_not": "x = not (n and lens.cuda().any())\n",
    "nested_and_in_or": "x = (n and lens.cuda().any()) or n\n",
    # A local bound to a comparison of a tensor is a tensor.
    "compared_local_as_test": "t = lens.cuda().sum() > 0\nif t:\n    pass\n",
    "compared_local_in_and": "t = torch.max(lens) == n\nif n and t:\n    pass\n",
    # A reduction of a tensor as a test.
    "reduction_as_test": "if lens.cuda().sum():\n    pass\n",
    "torch_reduction_as_while": "while torch.max(lens):\n    pass\n",
    # A Python bool read off the device, in a test or not.
    "equal_function": "x = torch.equal(lens.cuda(), q)\n",
    "allclose_in_assert_and": "assert n and torch.allclose(lens.cuda(), q)\n",
    "equal_method": "x = lens.cuda().equal(q)\n",
    "is_nonzero": "x = torch.is_nonzero(lens.cuda()[0])\n",
    # A comprehension's variable is its own: the function's name after it
    # still holds the tensor.
    "comprehension_variable_not_the_locals": (
        "m = torch.cumsum(lens.cuda(), 0)[-1]\n_ = [0 for m in [1]]\nx = q[:m]\n"
    ),
    # ... but its first iterable is read in the function's scope.
    "comprehension_first_iterable": "m = lens.cuda()\nx = [m for m in m.tolist()]\n",
    # A comprehension's `if` is a truth test: of a tensor, of an element of
    # one (a 0-d tensor), the last operand of its `and`.
    "comprehension_if_truth": "x = [k for k in batch.seqs if lens.cuda().any()]\n",
    "comprehension_if_mask_element": (
        "mask = lens.cuda() > 0\nx = [s for i, s in enumerate(batch.seqs) if mask[i]]\n"
    ),
    "comprehension_if_last_operand": (
        "x = {k: 1 for k in batch.seqs if k and lens.cuda().any()}\n"
    ),
    # An element of a tensor as a test: a 0-d tensor's truth.
    "if_tensor_element": "mask = lens.cuda() > 0\nif mask[0]:\n    pass\n",
    "while_not_tensor_element": "t = lens.cuda()\nwhile n and not t[n]:\n    n -= 1\n",
    # A 0-d host tensor of a number the function declares, or of len():
    # PyTorch moves it to the other operand's device.
    "scalar_tensor_of_declared_int": "t = torch.tensor(n) * lens\nx = t.tolist()\n",
    "scalar_tensor_of_len": (
        "t = torch.minimum(lens, torch.tensor(len(batch.seqs)))\nx = t.tolist()\n"
    ),
    # A `while` test reads, from the second pass on, what its body binds.
    "while_test_bound_in_body": "t = 0\nwhile t < 3:\n    t = lens.cuda().sum()\n",
    # An item of a container of device tensors: a comprehension of them, a
    # list the function fills, a pair of zip(), a dict's value, a row.
    "item_of_a_comprehension": (
        "g = [torch.empty_like(lens.cuda()) for _ in range(n)]\n"
        "x = max(t.cpu().item() for t in g)\n"
    ),
    "item_of_a_filled_list": (
        "todo = []\ntodo.append(torch.as_tensor(lens).cuda())\n"
        "for t in todo:\n    x = t.tolist()\n"
    ),
    "item_of_zip": (
        "g = [torch.cumsum(lens.cuda(), 0)]\nx = [torch.equal(a, b) for a, b in zip(g, g)]\n"
    ),
    "value_of_a_dict": (
        "d = {}\nd['a'] = torch.cumsum(lens.cuda(), 0)\nx = [p.tolist() for k, p in d.items()]\n"
    ),
    "row_of_a_device_tensor": "for row in lens.cuda():\n    x = row.tolist()\n",
    # An element of a pair of zip() or enumerate() whose iterable is a
    # tensor is a row of it, as a loop over the tensor alone binds.
    "row_of_a_tensor_in_zip": (
        "masks = lens.unsqueeze(-1) == torch.arange(8, device=q.device)\n"
        "for mask, expert in zip(masks, self.experts):\n    i, j = torch.where(mask)\n"
    ),
    "row_of_a_tensor_in_enumerate": (
        "for i, row in enumerate(lens.cuda() > 0, start=1):\n    x = torch.where(row)\n"
    ),
    # Imported under another name: its truth in a test is still read.
    "aliased_equal_as_test": (
        "from torch import equal as same\nif same(lens.cuda(), q):\n    pass\n"
    ),
}


@pytest.mark.parametrize("body", SYNCS.values(), ids=SYNCS.keys())
def test_each_sync_form_in_per_step_code_is_reported(body: str) -> None:
    (finding,) = findings(body)
    assert finding.code == "ATN203"
    assert "per-step code (forward)" in finding.message
    assert finding.cost == "per step (forward)"


HOST_VALUES = {
    "python_number": "x = int(n)\ny = float(n + 1)\n",
    "python_list": "x = [1, 2]\nif x:\n    pass\n",
    "factory_without_device": "t = torch.arange(n)\nx = t.tolist()\n",
    "named_tuple_field": (
        "t = batch.lens_cpu.max(dim=0).values\nx = t.tolist()\n"
        "y = torch.sort(batch.lens_cpu).indices.tolist()\n"
    ),
    "factory_on_cpu": "t = torch.zeros(n, device='cpu')\nx = t.max().item()\n",
    "from_numpy": "t = torch.from_numpy(np.ones(3))\nx = t.sum().item()\n",
    "numpy_result": "t = np.arange(n)\nx = t.tolist()\n",
    "host_name": "x = batch.seq_lens_cpu.max().item()\n",
    "host_local_name": "x = lens_host.tolist()\n",
    # An index tensor (no mask) in a tuple index is gathered on the device;
    # a mask of a host tensor is found on the host.
    "tuple_index_of_an_index_tensor": "x = q[lens.cuda(), :]\n",
    # A mask made on the host is found on the host; a function the rule
    # does not know, told ``dtype=torch.bool``, may return anything.
    # ``torch.where`` of three arguments selects on the device; of a host
    # condition, it finds the elements on the host.
    "where_of_three_arguments": "x = torch.where(lens > 0, lens, 0)\n",
    "where_of_a_host_condition": "x = torch.where(torch.arange(n) > 0)\n",
    "mask_bool_factory_on_host": "m = torch.ones(n, dtype=torch.bool)\nx = q[m]\n",
    "mask_dtype_of_unknown_function": "m = make(n, dtype=torch.bool)\nx = q[m]\n",
    "tuple_index_host_mask": "t = torch.arange(n)\nx = t[t > 0, None]\n",
    # ``Tensor.numpy()`` raises on a tensor not on the CPU: it never waits.
    "numpy_without_force": "x = lens.numpy()\ny = batch.lens.numpy(force=False)\n",
    "host_arithmetic": "t = batch.seq_lens_cpu + self.page_size\nx = int(t.sum())\n",
    "derived_from_host": "t = batch.lens_cpu\nu = t[1:]\nx = u.tolist()\n",
    "metadata_method": "if q.dim() == 3:\n    pass\n",
    "python_truth": "if n and self.flag:\n    pass\n",
    "python_last_operand": "if lens.is_cuda and n > 0:\n    pass\n",
    "host_last_operand": "if n and batch.lens_cpu.any():\n    pass\n",
    "compared_metadata_local": (
        "t = q.shape[0] > 1\nu = q.numel() == n\nv = q.dtype == torch.float16\n"
        "w = q.size(0) != n\nif n and (t or u or v or w):\n    pass\n"
    ),
    # A tensor's storage, its dimension order and count are no tensor.
    "compared_storage_and_dim_order": (
        "t = lens.cuda()\nif t.untyped_storage().nbytes() == 0 or t.ndimension() == 1:\n"
        "    pass\nu = t.dim_order() == (0,)\nif u:\n    pass\n"
    ),
    "compared_host_local": "t = batch.lens_cpu.max() > 0\nif n and t:\n    pass\n",
    "identity_compare_local": "t = lens is None\nu = q in self.seen\nif t or u:\n    pass\n",
    "chained_compare_local": "t = 0 < n < 3\nif t:\n    pass\n",
    # ``sum``/``max`` are common method names: only a known tensor's count.
    "reduction_of_unknown_as_test": (
        "if lens.sum() or self.max() or np.ones(3).sum():\n    pass\n"
        "if batch.lens_cpu.max() or torch.arange(n).sum():\n    pass\n"
    ),
    # ``equal`` is a common method name: only a known tensor's is one.
    "equal_method_of_an_object": (
        "x = self.equal(q)\ny = self.cfg.allclose(n)\nz = batch.is_nonzero()\n"
    ),
    "equal_of_host_tensors": "x = torch.equal(batch.lens_cpu, torch.tensor([1]))\n",
    "is_none": "if lens is not None:\n    pass\n",
    "dtype_cast_of_host": "x = batch.lens_cpu.to(torch.int32).tolist()\n",
    "non_blocking_copy": "x = lens.to('cpu', non_blocking=True)\n",
    "capture_branch": "if in_capture:\n    x = lens.cpu()\n",
    "capture_and": "if in_capture and n > 0:\n    x = lens.cpu()\n",
    "tracing_branch": "if torch.jit.is_tracing() and n:\n    x = lens.item()\n",
    "not_tracing_else": "if not torch.jit.is_tracing():\n    pass\nelse:\n    x = lens.item()\n",
    "getattr_host_name": "t = getattr(batch, 'lens_cpu', None)\nx = t.tolist()\n",
    "getattr_host_default": "t = getattr(batch, 'lens_cpu', [])\nx = t[0].item()\n",
    "and_guard": (
        "if isinstance(lens, torch.Tensor) and lens.device.type == 'cpu':\n"
        "    x = lens.tolist()\n"
    ),
    "or_guard_else": "if lens.is_cuda or n:\n    pass\nelse:\n    x = lens.tolist()\n",
    # Each operand of an `and` tells the body of its own name.
    "and_guards_of_two_names": (
        "if q.is_cpu and lens.is_cpu:\n    x = lens.tolist() + q.tolist()\n"
    ),
    "not_or_guards_of_two_names": (
        "if not (q.is_cuda or lens.is_cuda):\n    x = lens.tolist() + q.tolist()\n"
    ),
    # A comprehension's variable shadows the function's name in it.
    "comprehension_shadows_device_local": (
        "m = lens.cuda()\nx = [m.tolist() for m in [[1], [2]]]\n"
    ),
    # A comprehension's `if` of a Python value, a host tensor, or of its own
    # variable that shadows a device mask.
    "comprehension_if_host": (
        "mask = [True]\nx = [s for i, s in enumerate(batch.seqs) if mask[i]]\n"
        "y = [s for s in batch.seqs if s]\n"
        "h = batch.lens_cpu > 0\nz = [s for i, s in enumerate(batch.seqs) if h[i]]\n"
        "m = lens.cuda() > 0\nw = [s for m in [[1]] for s in batch.seqs if m[0]]\n"
    ),
    # An element of a list, of a value not known to be a tensor, of a shape.
    "element_tests_not_of_a_tensor": (
        "if batch.flags[0] or q[0]:\n    pass\nd = {'a': 1}\nif d['a']:\n    pass\n"
        "if q.shape[0] and lens.cuda().shape[-1] and lens.cuda().size()[0]:\n"
        "    pass\n"
    ),
    # A function (not read) told to give its result on the CPU.
    "function_given_cpu": (
        "t = get_for_device(batch, 'ids', 'cpu')\nx = t.tolist()\n"
        "y = load(q, map_location=torch.device('cpu')).tolist()\n"
        "z = self.cache.fetch(lens, device='cpu:0').item()\n"
        "w = torch.load(q, map_location='cpu').tolist()\n"
        "v = move(lens, 'cpu', device=None, device_ids=[0, 1]).tolist()\n"
        "u = load(q, map_location='cpu', device_map='auto', num_devices=2).tolist()\n"
    ),
    "not_capture_else": "if not self.is_capturing:\n    pass\nelse:\n    x = lens.cpu()\n",
    # Slice bounds and sizes that are Python values, host tensors, or of a
    # kind not known (a parameter not declared a tensor may be a list).
    "slice_bound_int": "m = q.shape[0]\nx = q[: m - 1]\n",
    "slice_bound_item": "m = batch.seq_lens_cpu.max().item()\nx = q[:m]\n",
    "slice_bound_list_element": "l = [1, 2]\nx = q[: l[-1]]\n",
    "slice_bound_host_tensor": "t = torch.cumsum(batch.lens_cpu, 0)\nx = q[: t[-1]]\n",
    "slice_bound_parameter_element": "x = q[: lens[-1]]\n",
    "slice_bound_attribute_element": "x = q[: self.indptr[-1]]\n",
    "tensor_as_index": "x = q[lens.cuda()[0]]\n",
    "size_of_int": "x = torch.empty(n, 2, device=q.device)\n",
    "range_of_int": "for k in range(n, 2 * n):\n    pass\n",
    "range_of_host_tensor": "for k in range(batch.lens_cpu.max()):\n    pass\n",
    # (a parameter not declared a tensor may hold an int)
    "range_of_unknown": "for k in range(lens):\n    pass\n",
    "range_shadowed": "range = lambda *a: a\nx = range(lens.cuda().max())\n",
    "builtin_max_of_python_values": (
        "x = max(n, 2)\ny = min([1, 2])\nz = sorted(batch.lens_cpu)\n"
        "w = all(t > 0 for t in lens.cuda())\n"
    ),
    # (a parameter not declared a tensor may hold a list)
    "builtin_max_of_unknown": "x = max(lens)\ny = min(lens, key=len)\n",
    # (a key's result is what is compared; ``**`` may hold a key)
    "builtin_max_with_key": (
        "x = sorted(lens.cuda(), key=f, reverse=True)\ny = max(lens.cuda(), **kw)\n"
    ),
    "builtin_max_shadowed": "max = lambda *a: a\nx = max(lens.cuda())\n",
    "size_of_host_tensor": "x = torch.empty(torch.tensor([1, 2])[-1])\n",
    "repeat_interleave_int": "x = q.repeat_interleave(2)\n",
    "repeat_interleave_output_size": (
        "x = torch.repeat_interleave(q, lens.cuda(), output_size=n)\n"
    ),
    "repeat_interleave_host": "x = torch.repeat_interleave(torch.tensor([1, 2]))\n",
    "repeat_interleave_parameter": "x = q.repeat_interleave(lens)\n",
    # A name read in the value that rebinds it has its earlier value.
    "rebound_from_list": "t = []\nt = torch.cat(t) if t else q\n",
    "joined_host_tensors": (
        "t = torch.cat([batch.lens_cpu, torch.tensor([1])])\nx = t.tolist()\n"
    ),
    # In a loop every binding counts: one that reshapes the name's own value
    # keeps the place the others give it.
    "reshaped_in_a_loop": (
        "for k in range(n):\n"
        "    t = torch.arange(k * 4)\n"
        "    t = t.view(2, -1).T\n"
        "    t = t[t >= 0]\n"
        "    t = t.to(torch.int32).flatten()\n"
        "    x = t.tolist()\n"
    ),
    "joined_host_comprehension": (
        "t = torch.stack([batch.lens_cpu[i] for i in range(n)])\nx = t.tolist()\n"
    ),
    # In a loop, a binding on the use's own path before it ends the
    # bindings made after the use in that loop (the next pass rebinds it
    # first), also for a `while` test inside the loop.
    # ... and with host tensors only, the result stays on the host.
    "scalar_tensor_with_host": (
        "t = torch.minimum(torch.tensor([1, 2]), torch.tensor(n + 1))\nx = t.tolist()\n"
    ),
    "scalar_tensors_of_numbers_alone": (
        "t = torch.tensor(n) + torch.tensor(len(q))\nx = t.item()\n"
    ),
    "while_test_bound_on_host_in_body": (
        "t = 0\nwhile t < 3:\n    t = batch.lens_cpu.sum()\n"
    ),
    # Items of Python values and host tensors; enumerate's index.
    "items_of_host_values": (
        "for i, t in enumerate(batch.lens_cpu.tolist()):\n    if t or i:\n        pass\n"
        "for s in q.shape:\n    if s:\n        pass\n"
        "for y in sorted(batch.lens_cpu.tolist()):\n    if y:\n        pass\n"
        "hs = [batch.lens_cpu, batch.lens_cpu + 1]\nfor h in hs:\n    x = h.tolist()\n"
    ),
    # Nothing says a job of a list not known holds a device tensor: its
    # method's result is judged as before (exllamav2's sampled token).
    "method_of_an_item_of_zip": (
        "for job, a in zip(self.jobs, batch.ids):\n    t = job.sample(a)\n"
        "    x = t.item()\n"
        "for s in sorted(batch.seqs):\n    y = s.lens().tolist()\n"
    ),
    # The host halves of a pinned host/device pair (vLLM's CpuGpuBuffer):
    # `buf.cpu` and its NumPy view `buf.np` (names in `host-tensor-names`).
    "host_halves_of_a_buffer_pair": (
        "x = self.seq_lens.np[:n].max().item()\ny = self.seq_lens.cpu[:n].tolist()\n"
    ),
    # A pair of zip() or enumerate() of a tensor's rows, the tensor on the
    # host; enumerate's count; a zip that is not Python's.
    "row_of_a_host_tensor_in_zip": (
        "for row, e in zip(batch.lens_cpu, self.experts):\n    x = row.tolist()\n"
        "for i, row in enumerate(batch.lens_cpu):\n    y = row.item()\n    z = q[:i]\n"
    ),
    # What a method of a device value gives may be no tensor (a module's
    # names; a storage's handles).
    "items_of_a_modules_method": (
        "m = self.vae.to(q.device)\nfor name, mod in m.named_modules():\n"
        "    if name:\n        pass\n"
        "a, b = lens.cuda().untyped_storage()._share_cuda_()\nx = int(a) + bool(b)\n"
    ),
    "index_of_enumerate_over_device_tensors": (
        "g = [lens.cuda()]\nfor i, t in enumerate(g):\n    if i:\n        pass\n"
    ),
    "rebound_each_pass": (
        "for k in range(n):\n    t = [k]\n    if t[0] != 1:\n"
        "        pass\n    t = lens.cuda()\n"
    ),
    "rebound_each_pass_while_test": (
        "while n:\n    t = [n]\n    while n != t[0]:\n        t.append(n)\n"
        "    t = torch.tensor(t).cuda()\n"
    ),
}


@pytest.mark.parametrize("body", HOST_VALUES.values(), ids=HOST_VALUES.keys())
def test_host_values_are_not_reported(body: str) -> None:
    assert findings(body) == []


@pytest.mark.parametrize(
    "body",
    [
        # The CPU's synchronize waits for nothing.
        "torch.cpu.synchronize(q.device)\n",
        # Another object's synchronize given an argument: not known a wait.
        "self.pool.synchronize(q)\n",
        "synchronize(q.device)\n",
    ],
)
def test_a_synchronize_given_an_argument_not_of_a_device_module(body: str) -> None:
    assert findings(body) == []


def test_values_copied_to_the_host_are_on_the_host() -> None:
    (finding,) = findings("h = lens.cpu()\nx = h.tolist()\ny = int(h[0])\n")
    assert "`.cpu()`" in finding.message


def test_start_up_and_capture_code_is_not_reported() -> None:
    for method in ("__init__", "init_cuda_graph_state", "capture", "warmup"):
        assert findings("x = lens.tolist()\n", method=method) == []


def test_code_not_known_to_run_per_step_is_not_reported() -> None:
    assert findings("x = lens.tolist()\n", method="summarize") == []


def test_the_message_names_the_chain_from_the_entry_point() -> None:
    source = textwrap.dedent(
        """
        class Backend:
            def forward_decode(self, q, lens):
                self._update_metadata(lens)

            def _update_metadata(self, lens):
                self.lens = lens.tolist()
        """
    )
    (finding,) = check_source(source, "b.py", SETTINGS)
    assert finding.message.startswith(
        "Host sync `.tolist()` in per-step code (forward_decode -> _update_metadata)"
    )
    assert finding.cost == "per step (forward_decode -> _update_metadata)"


def test_several_reductions_of_one_tensor_say_one_transfer_would_do() -> None:
    found = findings("a = lens.max().item()\nb = lens.min().item()\n")
    assert len(found) == 2
    assert all("`lens` is reduced 2 times here (max, min)" in f.message for f in found)
    assert all("torch.stack([...]).tolist()" in f.message for f in found)


def test_a_host_copy_at_hand_is_named() -> None:
    (finding,) = findings("a = batch.seq_lens.max().item()\nb = batch.seq_lens_cpu\n")
    assert "the function already has `seq_lens_cpu` on the host" in finding.message


def test_the_host_copy_a_sync_makes_is_not_named_as_one_at_hand() -> None:
    # The local the sync itself binds is no copy the function had before;
    # a parameter of that name, or a copy made by another sync, is.
    (made,) = findings("lens_host = lens.to('cpu')\nreturn lens_host\n")
    assert "already has" not in made.message
    (either,) = findings("lens_host = lens.cpu() if n else None\nreturn lens_host\n")
    assert "already has" not in either.message
    first, second = findings(
        "lens_host = lens.cpu()\nx = lens.max().item()\nreturn lens_host, x\n"
    )
    assert "already has" not in first.message
    assert "the function already has `lens_host` on the host" in second.message
    source = textwrap.dedent(
        """\
        class Backend:
            def forward(self, lens, lens_host=None):
                if lens_host is None:
                    lens_host = lens.cpu()
                return lens_host
        """
    )
    (given,) = check_source(source, "b.py", SETTINGS)
    assert "the function already has `lens_host` on the host" in given.message


def test_a_placeholder_or_a_slice_of_the_copy_is_no_copy_at_hand() -> None:
    # ``x_cpu = None`` before the sync's ``x_cpu = x.to("cpu")``, and
    # ``x_cpu = x_cpu[:n]`` after it (vllm-omni's pooler payload, LMCache's
    # failed-block lookup): the name holds this sync's copy or nothing.
    (placeholder,) = findings(
        "lens_host = None\nif n:\n    lens_host = lens.to('cpu')\nreturn lens_host\n"
    )
    assert "already has" not in placeholder.message
    (sliced,) = findings(
        "lens_host = lens.to(device='cpu', dtype=t)\n"
        "lens_host = lens_host[:n].long()\nreturn lens_host\n"
    )
    assert "already has" not in sliced.message
    # A placeholder beside a copy of something else, or a slice of another
    # name, is a copy the function has: it is still named.
    (other,) = findings(
        "lens_host = None\nif m:\n    lens_host = other[:n]\n"
        "y = lens.to('cpu')\nreturn lens_host, y\n"
    )
    assert "the function already has `lens_host` on the host" in other.message


def test_the_attribute_a_sync_stores_into_is_not_named_as_a_copy_at_hand() -> None:
    # ``out.lens_cpu = out.lens.cpu()`` (vllm's multi-step runner): the
    # attribute is this sync's copy; one the function reads, or stores from
    # something else, may come with the object.
    (made,) = findings("batch.lens_cpu = batch.lens.cpu()\n")
    assert "already has" not in made.message
    (both,) = findings("batch.lens_cpu = batch.lens.cpu()\nx = q.lens_cpu\n")
    assert "the function already has `lens_cpu` on the host" in both.message
    (other,) = findings("batch.lens_cpu = n\ny = batch.lens.cpu()\n")
    assert "the function already has `lens_cpu` on the host" in other.message


def test_host_tensor_names_is_a_setting() -> None:
    settings = Settings(select=("ATN203",), host_tensor_names=("*_on_host",))
    assert findings("x = lens_on_host.tolist()\n", settings) == []
    assert len(findings("x = lens_cpu.tolist()\n", settings)) == 1


def test_hot_path_methods_is_a_setting() -> None:
    settings = Settings(select=("ATN203",), hot_path_methods=("step",))
    assert findings("x = lens.tolist()\n", settings) == []
    assert len(findings("x = lens.tolist()\n", settings, method="step")) == 1


def test_the_rule_is_a_warning_without_a_fix() -> None:
    from lint_rules.rules import RULES_BY_CODE

    rule = RULES_BY_CODE["ATN203"]
    assert rule.severity == "warning" and rule.fix_availability == "none"
    (finding,) = findings("x = lens.tolist()\n")
    assert finding.fix is None


def test_where_a_local_lives_follows_the_branches_that_reach_the_use() -> None:
    # The host binding is the last one before the use on its path.
    assert (
        findings("t = lens\nif n:\n    t = batch.lens_cpu\n    x = t.tolist()\n") == []
    )
    # A sibling branch's binding does not reach the use.
    body = "if n:\n    t = batch.lens_cpu\nelse:\n    t = lens\n    x = t.tolist()\n"
    assert len(findings(body)) == 1
    # After the branches, either binding may have run.
    assert (
        len(findings("t = batch.lens_cpu\nif n:\n    t = lens\nx = t.tolist()\n")) == 1
    )
    # A binding in an earlier `if` (or a `try` body before its handler or
    # `else`) may have run before a use in a later branch.
    body = "t = batch.lens_cpu\nif n:\n    t = lens\nif q:\n    x = t.tolist()\n"
    assert len(findings(body)) == 1
    body = "t = batch.lens_cpu\nif n:\n    t = lens\nelif q:\n    pass\nelse:\n    x = t.tolist()\n"
    assert findings(body) == []  # (``t = lens`` is in a sibling arm)
    body = "t = batch.lens_cpu\ntry:\n    t = lens\nexcept E:\n    x = t.tolist()\n"
    assert len(findings(body)) == 1
    body = "try:\n    t = batch.lens_cpu\nexcept E:\n    t = lens\nelse:\n    x = t.tolist()\n"
    assert findings(body) == []  # (the handler and the ``else`` exclude each other)
    # In a loop, a later binding reaches the next iteration's use.
    body = "t = batch.lens_cpu\nfor i in range(n):\n    x = t.tolist()\n    t = lens\n"
    assert len(findings(body)) == 1


def test_a_parameter_rebound_before_the_read_no_longer_holds_the_callers_value() -> (
    None
):
    # Rebound on the read's own path: the reads are of the host copy.
    (finding,) = findings("lens = lens.cpu()\nx = lens.item()\ny = lens.tolist()\n")
    assert "`.cpu()`" in finding.message
    # Rebound in each arm of an `if`/`else` before the read: likewise.
    body = "if n:\n    lens = lens.cpu()\nelse:\n    lens = batch.lens_cpu\nx = lens.tolist()\n"
    assert len(findings(body)) == 1
    # Rebound in one arm only, or after the read in a loop: the caller's
    # value may reach the read.
    body = "if n:\n    lens = lens.cpu()\nx = lens.tolist()\n"
    assert len(findings(body)) == 2
    body = "for i in range(n):\n    x = lens.tolist()\n    lens = lens.cpu()\n"
    assert len(findings(body)) == 2
    # Rebound in a `try` body, read after it: the binding may not have run.
    body = "try:\n    lens = lens.cpu()\nexcept E:\n    pass\nx = lens.tolist()\n"
    assert len(findings(body)) == 2


OVERWRITTEN_IN_ITS_BLOCK = {
    # Bound again later in the same arm: only the later binding leaves it.
    "if_arm": "t = batch.lens_cpu\nif n:\n    t = lens\n    t = batch.lens_cpu\nx = t.tolist()\n",
    # A statement between them that does not leave the block.
    "call_between": (
        "t = batch.lens_cpu\nif n:\n    t = lens\n    q.add_(1)\n"
        "    t = batch.lens_cpu\nx = t.tolist()\n"
    ),
    # A `with` that holds both and the use: what it swallows skips the use.
    "with_holds_the_use": (
        "t = batch.lens_cpu\nwith self.ctx:\n    if n:\n        t = lens\n"
        "        t = batch.lens_cpu\n    x = t.tolist()\n"
    ),
    # A `try` whose body holds the block and the use alike.
    "try_holds_the_use": (
        "t = batch.lens_cpu\ntry:\n    if n:\n        t = lens\n"
        "        t = batch.lens_cpu\n    x = t.tolist()\nexcept E:\n    pass\n"
    ),
    # In a loop: the use of the next pass sees the later binding only.
    "loop_back_edge": (
        "t = batch.lens_cpu\nfor i in range(n):\n    x = t.tolist()\n    if q:\n"
        "        t = lens\n        t = batch.lens_cpu\n"
    ),
    # An unpacking and an annotated assignment bind whenever they complete.
    "unpacking": (
        "t = batch.lens_cpu\nif n:\n    t, u = lens, lens\n"
        "    t, u = batch.lens_cpu, batch.lens_cpu\nx = t.tolist()\n"
    ),
    "annotated": (
        "t = batch.lens_cpu\nif n:\n    t = lens\n    t: object = batch.lens_cpu\n"
        "x = t.tolist()\n"
    ),
}


@pytest.mark.parametrize(
    "body", OVERWRITTEN_IN_ITS_BLOCK.values(), ids=OVERWRITTEN_IN_ITS_BLOCK.keys()
)
def test_a_binding_its_own_block_binds_again_does_not_leave_it(body: str) -> None:
    assert findings(body) == []


LEAVES_ITS_BLOCK = {
    # `break` or `continue` between them leaves the block with the first.
    "break": (
        "t = batch.lens_cpu\nfor i in range(n):\n    t = lens\n    if q:\n"
        "        break\n    t = batch.lens_cpu\nx = t.tolist()\n"
    ),
    "continue": (
        "t = batch.lens_cpu\nfor i in range(n):\n    x = t.tolist()\n    t = lens\n"
        "    if q:\n        continue\n    t = batch.lens_cpu\n"
    ),
    # A `try` body whose handler goes on to the use: the exception raised
    # between the two bindings leaves the first.
    "try_body": (
        "t = batch.lens_cpu\ntry:\n    t = lens\n    q.add_(1)\n"
        "    t = batch.lens_cpu\nexcept E:\n    pass\nx = t.tolist()\n"
    ),
    "try_handler": (
        "t = batch.lens_cpu\ntry:\n    pass\nexcept E:\n    t = lens\n    q.add_(1)\n"
        "    t = batch.lens_cpu\nfinally:\n    x = t.tolist()\n"
    ),
    # A `with` whose body holds the later binding and not the use: its
    # manager may swallow what was raised before it.
    "with_body": (
        "t = batch.lens_cpu\nif n:\n    t = lens\n    with self.ctx:\n"
        "        t = batch.lens_cpu\nx = t.tolist()\n"
    ),
    # Not a binding made whenever it completes: `+=`, a loop's target,
    # a binding nested in a further branch.
    "augmented": "t = batch.lens_cpu\nif n:\n    t = lens\n    t += n\nx = t.tolist()\n",
    "loop_target": (
        "t = batch.lens_cpu\nif n:\n    t = lens\n    for t in batch.cpu_lists:\n"
        "        pass\nx = t.tolist()\n"
    ),
    "nested_branch": (
        "t = batch.lens_cpu\nif n:\n    t = lens\n    if q:\n        t = batch.lens_cpu\n"
        "x = t.tolist()\n"
    ),
    # A name a nested function rebinds through `nonlocal`.
    "nonlocal": (
        "t = batch.lens_cpu\ndef g():\n    nonlocal t\n    t = lens\nif n:\n"
        "    t = lens\n    g()\n    t = batch.lens_cpu\nx = t.tolist()\n"
    ),
}


@pytest.mark.parametrize("body", LEAVES_ITS_BLOCK.values(), ids=LEAVES_ITS_BLOCK.keys())
def test_a_binding_that_may_leave_its_block_before_the_next_one_still_reaches(
    body: str,
) -> None:
    (finding,) = findings(body)
    assert "`.tolist()`" in finding.message


def test_a_parameter_rebound_before_a_loop_no_longer_holds_the_callers_value() -> None:
    # Rebound on the read's own path before the loop that holds the read.
    (finding,) = findings(
        "lens = lens.cpu()\nfor i in range(n):\n    x = lens[i].tolist()\n"
    )
    assert "`.cpu()`" in finding.message
    # Rebound in the loop before the read: likewise.
    body = "for i in range(n):\n    lens = lens.cpu()\n    x = lens[i].tolist()\n"
    (finding,) = findings(body)
    assert "`.cpu()`" in finding.message
    # Rebound in one arm only: the caller's value may reach the read.
    body = (
        "if n:\n    lens = lens.cpu()\nfor i in range(n):\n    x = lens[i].tolist()\n"
    )
    assert len(findings(body)) == 2


def test_the_device_half_of_a_buffer_pair_is_still_read() -> None:
    body = "x = self.seq_lens.gpu[:n].max().item()\ny = self.seq_lens.np[:n].max().item()\n"
    (finding,) = findings(body)
    assert finding.location.row == 6


def test_a_name_declared_a_typed_tensor_is_a_tensor() -> None:
    source = """
        from typing import Optional

        import torch

        class B:
            def forward(self, a: torch.LongTensor, b: Optional[torch.BoolTensor],
                        c: torch.LongTensorish, d: Optional[torch.Tensor]):
                if a[0] == 0:
                    pass
                for i, row in enumerate(b):
                    x = torch.where(row)
                if c[0] == 0:
                    pass
                for i, row in enumerate(d):
                    y = torch.where(row)
        """
    # `c` names no tensor class: its element's comparison is not known to
    # be a tensor.
    found = _module(source)
    assert [finding.location.row for finding in found] == [9, 12, 16]


def test_only_pythons_zip_pairs_the_rows_of_a_tensor() -> None:
    source = """
        import torch
        from mylib import zip

        class B:
            def forward(self, batch, q):
                masks = batch.lens_cpu > 0
                for mask, e in zip(masks, q):
                    x = mask.tolist()
        """
    # Another function's pairs are not known: their element neither.
    (finding,) = _module(source)
    assert "`.tolist()`" in finding.message
    # Python's pairs a row of the host tensor with an item of `q`.
    assert _module(source.replace("from mylib import zip", "")) == []


def test_a_parameter_declared_a_numpy_array_is_on_the_host() -> None:
    source = """
        from typing import Optional

        import numpy as np
        import numpy.typing as npt
        import torch

        class B:
            def forward(self, a: np.ndarray, b: "np.ndarray", c: Optional[np.ndarray],
                        d: npt.NDArray[np.int32], e: np.ndarray | None, f: torch.Tensor,
                        g: ndarray, h: Optional[object]):
                x = a[0].item()
                x = b.max().item()
                x = c.tolist()
                x = d[1].item()
                x = e.sum().item()
                x = f.sum().item()
                x = g.sum().item()
                x = h.item()
        """
    # `f` is a tensor; `g` names no NumPy import; `h` is not an array.
    found = _module(source)
    assert [finding.location.row for finding in found] == [17, 18, 19]


def test_a_parameter_rebound_only_within_an_expression_may_keep_its_value() -> None:
    # A `:=` in an arm of a conditional expression or an operand of `and`
    # after the first may not run: the caller's value may reach the read
    # (and the `.cpu()` in the `:=` reads the caller's value, not its own).
    for body in (
        "(lens := lens.cpu()) if n else None\nx = lens.item()\n",
        "n and (lens := lens.cpu())\nx = lens.item()\n",
        "y = [(lens := t.cpu()) for t in batch.seqs]\nx = lens.item()\n",
    ):
        found = findings(body)
        assert any("`.item()`" in finding.message for finding in found), body
    # In the test of an `if` it runs: only its `.cpu()` is a sync.
    (finding,) = findings("if (lens := lens.cpu()) is not None:\n    x = lens.item()\n")
    assert "`.cpu()`" in finding.message
    # A comprehension's variable is its own: it never rebinds the parameter.
    body = "y = [lens for lens in [1, 2]]\nx = lens.tolist()\n"
    assert len(findings(body)) == 1


def test_the_shape_shortcut_keeps_every_sync_the_rule_reports() -> None:
    """``_may_sync`` (which nodes are worth asking where values live) against
    ``_Provenance.sync`` (the rule's answer), on every node of the examples
    and of the reference backend's per-step code."""
    import ast
    from functools import partial
    from pathlib import Path

    from lint_rules.analysis.model import ModuleModel
    from lint_rules.rules.atn203_host_sync_in_hot_path import (
        _assigned_names,
        _host_name_matcher,
        _mask_names,
        _may_sync,
        _Provenance,
    )
    from tests.rules.atn203_reference import _own_nodes

    root = Path(__file__).resolve().parents[2]
    sources = [
        root / "reference_backend" / "flashattention_backend.py",
        root / "tests" / "fixtures" / "flashattention_backend_unoptimized.py",
    ]
    texts = [path.read_text(encoding="utf-8") for path in sources]
    texts += [
        "import torch\ndef forward(q, lens, batch, n):\n"
        + textwrap.indent(body, "    ")
        for body in (*SYNCS.values(), *HOST_VALUES.values())
    ]
    texts += [*TRUTH_TEXTS, *SHAPE_TEXTS]
    reported = 0
    for text in texts:
        model = ModuleModel(ast.parse(text))
        host_names = _host_name_matcher(("*_cpu", "*_host", "*_np"))
        for info in model.functions:
            assigned = _assigned_names(info.bindings)
            masks = _mask_names(info.bindings)
            # (with the module's imported names, as the rule asks with the
            # pre-filters on, and without: any name may be imported)
            for imported in (None, model.imported_names):
                where = _Provenance(
                    info.node,
                    partial(model.scope, info.node),
                    host_names,
                    None,
                    imported,
                )
                for node in _own_nodes(info.node):
                    if where.sync(node) is not None:
                        reported += 1
                        assert _may_sync(node, assigned, masks, imported), ast.dump(
                            node
                        )
    assert reported >= 2 * len(SYNCS)


#: Truth tests of every form ``_may_be_tensor_test`` judges, of tensors and
#: of Python values (``test_the_shape_shortcut_keeps_every_sync_the_rule_reports``).
SHAPE_TEXTS = (
    "import torch\nfrom torch import any as tany, sum as total\n"
    "from helpers import ready\n"
    "def forward(self, a, b, d):\n"
    "    m = torch.zeros(4, device='cuda')\n"
    "    n = m.sum()\n"
    "    if m > 0:\n        pass\n"
    "    if m is None or m in d or m is not b:\n        pass\n"
    "    if m.any() and m.sum() and m.max() > 0:\n        pass\n"
    "    assert tany(m) and total(m), ready(m)\n"
    "    while not n.all():\n        pass\n"
    "    x = 1 if m[0] else 2\n"
    "    y = [v for v in d if m.sum(v)]\n"
    "    if ready(m) or self.ready(m) or d[0](m) or n:\n        pass\n"
    "    if torch.equal(m, m) and not (m == 1):\n        pass\n"
    "    return x, y\n",
)


GATE_TEXTS = (
    # Words split over rows, comments between a name and its call, masks
    # bound to comparisons, walrus and comprehension bindings.
    "def forward(self, q, lens):\n"
    "    n = (lens\n         .max  # widest\n         ().item())\n"
    "    m = lens > 0\n    k = q[m]\n    j = q[~m]\n"
    "    if (r := lens.sum()) > 0:\n        pass\n"
    "    w = [x.item() for x in lens]\n"
    "    y = q if self.capturing else lens.tolist()\n"
    "    z = lens.to('cpu') if not lens.is_cuda else lens\n"
    "    return n and k, j, r, w, y, z, lens_cpu\n",
    "def forward(self, a, b):\n    x = a[b]\n    c = a == b\n    return a[c], b[a < 1]\n",
    "def forward(self, a):\n    t = a, a > 0\n    u, v = t\n    return a[v]\n",
    # Not ASCII: columns count UTF-8 bytes, so whole rows are looked at.
    "def forward(self, a):\n    s = 'café'; n = a.item()\n    return s, a['é'] if a else n\n",
    # Columns after characters of several bytes, on many rows and in one.
    "def forward(self, q, lens):\n    # größer als ø\n"
    "    m = lens > 0  # größer\n    k = q['ü'][m]; j = q['ü'][lens.max().item()]\n"
    "    n = (lens  # ø\n         .max().item())\n"
    "    return k[:n], j, q[~m] if 'é' else lens.tolist(), 'ü' and q['é' < 'ü']\n",
    # Every kind of block, and reads where no statement's expression is.
    "def forward(self, a, b):\n"
    "    try:\n        x = a\n    except (ValueError, b.Error) as e:\n        y = e, b\n"
    "    else:\n        z = a\n    finally:\n        w = b\n"
    "    match a.kind:\n"
    "        case b.K(x=[1, b.V]) | {b.key: 2} if a > b:\n            v = a\n"
    "        case _:\n            v = b\n"
    "    with a as u, b.ctx(a) as (p, q):\n        r = u; t = p\n"
    "    while a < b:\n        a += 1\n    else:\n        c: b.T = a\n"
    "    for i in b:\n        d = i\n    else:\n        d = a\n"
    "    f = lambda k: k + a\n"
    "    @b.deco(a)\n    def inner(m=a):\n        return m + b\n"
    "    g: a.T\n    h = [j for j in a if j] if (k := b) else a\n"
    "    return x, y, z, w, v, r, t, c, d, f, inner, h, k\n",
)


def _gate_cases():
    import ast
    from pathlib import Path

    from lint_rules.config import Settings
    from lint_rules.context import Context

    root = Path(__file__).resolve().parents[2]
    texts = [
        (root / "reference_backend" / "flashattention_backend.py").read_text("utf-8"),
        (
            root / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
        ).read_text("utf-8"),
        *GATE_TEXTS,
        *(
            "import torch\ndef forward(q, lens, batch, n):\n"
            + textwrap.indent(body, "    ")
            for body in (*SYNCS.values(), *HOST_VALUES.values())
        ),
    ]
    for text in texts:
        ctx = Context(text, ast.parse(text), "x.py", Settings().options)
        for info in ctx.model.functions:
            yield ctx, info


def test_the_text_gate_finds_every_candidate_the_full_walk_finds() -> None:
    """``_candidates`` walks an expression only where its rows hold a word a
    candidate needs: the same nodes as the full walk, with and without the
    pre-filters."""
    from lint_rules import prefilter
    from lint_rules.rules.atn203_host_sync_in_hot_path import (
        _assigned_names,
        _candidates,
        _mask_names,
        _may_sync,
        _TextGate,
    )
    from tests.rules.atn203_reference import _own_nodes

    compared = 0
    for ctx, info in _gate_cases():
        assigned = _assigned_names(info.bindings)
        masks = _mask_names(info.bindings)
        for imported in (None, ctx.model.imported_names):
            full = {
                id(node)
                for node in _own_nodes(info.node, True)
                if _may_sync(node, assigned, masks, imported)
            }
            for enabled in (True, False):
                previous = prefilter.set_enabled(enabled)
                try:
                    gate = _TextGate(ctx, info.node)
                    found = _candidates(info.node, assigned, masks, gate, imported)
                finally:
                    prefilter.set_enabled(previous)
                assert {id(node) for node in found} == full
                assert len(found) == len(full)
            compared += len(full)
    assert compared > 100


def test_marks_read_off_an_enclosing_function_are_those_of_a_scan() -> None:
    """A nested function's marks, read off those of the function around it
    (``_TextGate.marks`` with the module's scans shared), are those a scan
    of its own rows finds: in ASCII text and in UTF-8 bytes, for nested
    functions at the start, in the middle and at the end of the text."""
    import ast

    from lint_rules.context import Context
    from lint_rules.rules.atn203_host_sync_in_hot_path import _TextGate

    nested = (
        "def outer(q, lens):\n"
        "    def first(x):  # [x]\n"
        "        return x.item() if x else x[0]\n"
        "    n = lens.max().item()\n"
        "    def middle(y):\n"
        "        if y and not y[1:]:\n"
        "            return y.tolist()\n"
        "        def deeper(z): return z.cpu()[z > 0]\n"
        "        return deeper\n"
        "    class C:\n"
        "        def method(self, t): return t.nonzero() or [t]\n"
        "    def last(w): return w[w < 1].sum().item()"
    )
    texts = [nested, nested.replace("x.item()", "é.item()"), *GATE_TEXTS]
    cases = [(ctx, info) for ctx, info in _gate_cases()]
    for text in texts:
        ctx = Context(text, ast.parse(text), "x.py", Settings().options)
        cases.extend((ctx, info) for info in ctx.model.functions)
    compared = read_off = 0
    shared: dict[int, list] = {}
    for ctx, info in cases:
        scanned = shared.setdefault(id(ctx), [])
        before = len(scanned)
        fast = _TextGate(ctx, info.node, scanned)
        alone = _TextGate(ctx, info.node)
        if not alone.marking:
            continue
        first, last = info.node.lineno, info.node.end_lineno
        got, want = fast.marks(first, last), alone.marks(first, last)
        assert got.text is want.text
        for field in ("all", "words", "brackets", "rows"):
            assert getattr(got, field) == getattr(want, field), (field, info.node.name)
        compared += 1
        read_off += len(scanned) == before
    assert compared > 50
    assert read_off >= 8


def test_the_sync_word_scans_match_the_plain_alternation() -> None:
    """``_SYNC_WORDS`` and ``_SYNC_ROWS`` look ahead at a first letter
    before the alternation (for speed), ``_word_starts`` finds the words
    between the spaces of a text whose other units are spaces, and
    ``_word_starts_by_find`` each word with ``find``: the same matches as the plain ``\\b(?:...)\\b``, in
    an ASCII text and in UTF-8 bytes, from any row's start to any later
    one's (or the text's end)."""
    import random
    import re
    from pathlib import Path

    from lint_rules.rules.atn203_host_sync_in_hot_path import (
        _SYNC_CALL_NAMES,
        _SYNC_ROWS,
        _SYNC_WORD_BYTES_LIST,
        _SYNC_WORD_LIST,
        _SYNC_WORDS,
        _word_starts,
        _word_starts_by_find,
    )

    plain = r"\b(?:" + "|".join(sorted(_SYNC_CALL_NAMES)) + r"|if|and|or|not)\b"
    text = (
        "x = t.item() if a and not b else tolist(to) or toto\n"
        "y = é.cpu()[m] + numpy_int + _float(ints)[::2] or[notor]\n"
        "if\tand\nrepeat_interleave unique_consecutive nonzero.to(x)"
    )

    def spans(pattern: re.Pattern, data: str | bytes) -> list[tuple[int, int]]:
        return [match.span() for match in pattern.finditer(data)]  # type: ignore[arg-type]

    assert len(spans(re.compile(plain), text)) >= 15
    assert spans(_SYNC_WORDS, text) == spans(re.compile(plain), text)
    assert spans(_SYNC_ROWS, text) == spans(re.compile(plain + r"|\["), text)

    pieces = [
        *_SYNC_WORD_LIST,
        *(word[:-1] for word in _SYNC_WORD_LIST),
        *(word[1:] for word in _SYNC_WORD_LIST),
        "_", "x", "9", "é", "ö_", " ", ".", "(", "[", "\n", "\n", "\t", "#",
    ]  # fmt: skip
    generator = random.Random(31)
    texts = [
        text,
        "to",
        "or\n",
        *(
            "".join(generator.choice(pieces) for _ in range(generator.randint(1, 60)))
            for _ in range(600)
        ),
    ]
    root = Path(__file__).resolve().parents[2]
    texts.append(
        (root / "reference_backend" / "flashattention_backend.py").read_text("utf-8")
    )
    str_plain, bytes_plain = re.compile(plain), re.compile(plain.encode())
    compared = found = 0
    for sample in texts:
        for data, words, pattern in (
            (sample, _SYNC_WORD_LIST, str_plain),
            (sample.encode("utf-8"), _SYNC_WORD_BYTES_LIST, bytes_plain),
        ):
            if type(data) is str and not sample.isascii():
                continue  # (the gate scans the bytes of such a text)
            newline = "\n" if type(data) is str else b"\n"
            starts = [0] + [
                index + 1
                for index, unit in enumerate(data)
                if data[index : index + 1] == newline
            ]
            bounds = [*starts, len(data)]
            pairs = (
                [(bounds[0], bounds[-1])]
                + [tuple(sorted(generator.sample(bounds, 2))) for _ in range(3)]
                if len(bounds) > 1
                else [(0, len(data))]
            )
            for begin, end in pairs:
                want = [m.start() for m in pattern.finditer(data, begin, end)]  # type: ignore[arg-type]
                assert _word_starts(data, begin, end, words) == want, (
                    sample,
                    begin,
                    end,
                )
                assert _word_starts_by_find(data, begin, end, words) == want, (
                    sample,
                    begin,
                    end,
                )
                compared += 1
                found += len(want)
    assert compared > 1000
    assert found > 500


def test_bindings_and_uses_agree_with_the_full_walk() -> None:
    """The bindings read statement by statement (expressions walked only
    where ``:=`` or ``for`` may bind) and each read's branch path found by
    position are those of a walk of every node."""
    import ast
    from functools import partial

    from lint_rules.rules.atn203_host_sync_in_hot_path import (
        _Provenance,
        _TextGate,
    )
    from tests.rules.atn203_reference import _nodes_with_branches

    checked = 0
    for ctx, info in _gate_cases():
        gate = _TextGate(ctx, info.node)
        fast = _Provenance(info.node, partial(ctx.model.scope, info.node), None, gate)
        slow = _Provenance(info.node, partial(ctx.model.scope, info.node), None)
        expected: dict[str, list] = {}
        for node, path in _nodes_with_branches(info.node):
            position = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
            if isinstance(node, ast.NamedExpr):
                expected.setdefault("walrus", []).append(node.target.id)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                assert fast._use(node) == (path, position)
                checked += 1
        assert _comparable(fast.bindings) == _comparable(slow.bindings)
        assert fast.names_used == {
            node.id if isinstance(node, ast.Name) else node.attr
            for node, _ in _nodes_with_branches(info.node)
            if isinstance(node, (ast.Name, ast.Attribute))
        }
        for name in expected.get("walrus", ()):
            assert name in fast.bindings
    assert checked > 100


def test_loops_read_with_the_bindings_agree_with_their_own_walk() -> None:
    """The loops' and the ``while`` tests' extents that the bindings' walk
    fills (and hands to the other provenances of the function) are those
    a walk of their own finds."""
    from functools import partial

    from lint_rules.rules.atn203_host_sync_in_hot_path import _Provenance

    loops = whiles = 0
    for ctx, info in _gate_cases():
        shared: dict = {}
        first, second = (
            _Provenance(
                info.node, partial(ctx.model.scope, info.node), None, shared=shared
            )
            for _ in range(2)
        )
        first.bindings  # noqa: B018 (fills the shared walk)
        second.bindings  # noqa: B018 (reads it)
        for name in ("_while_tests", "_loop_extents"):
            own_walk = getattr(_Provenance, name).func(first)
            assert first.__dict__[name] == own_walk
            assert second.__dict__[name] == own_walk
        loops += len(first._loop_extents)
        whiles += len(first._while_tests)
    assert loops > 20
    assert whiles > 0


def test_closure_names_found_in_the_function_text_agree_with_the_walk() -> None:
    """A nested function's ``nonlocal`` names are looked for only where the
    function's own text spells the keyword: the names a walk finds, in
    every function (the keyword elsewhere in the module, in a string, in a
    text that is not ASCII)."""
    import ast
    from functools import partial

    from lint_rules.config import Settings
    from lint_rules.context import Context
    from lint_rules.rules.atn203_host_sync_in_hot_path import _Provenance, _TextGate

    texts = (
        "def outer(lens):\n    x = lens\n    def reset():\n        nonlocal x\n"
        "        x = lens.cuda()\n    reset()\n    return x.item()\n"
        "def other(lens):\n    y = 'nonlocal y'\n    return lens\n",
        "# nonlocal\ndef f(a):\n    def g():\n        pass\n    return a\n",
        "def é(a):\n    b = 'é'\n    def g():\n        nonlocal b\n"
        "        b = a\n    g()\n    return b\n",
    )
    cases = [*_gate_cases()]
    for text in texts:
        ctx = Context(text, ast.parse(text), "x.py", Settings().options)
        cases += [(ctx, info) for info in ctx.model.functions]
    declared = 0
    for ctx, info in cases:
        scope = partial(ctx.model.scope, info.node)
        fast = _Provenance(info.node, scope, None, _TextGate(ctx, info.node))
        slow = _Provenance(info.node, scope, None)
        assert fast._closure_names == slow._closure_names
        declared += len(slow._closure_names)
    assert declared >= 2


def _comparable(bindings: dict) -> dict:
    """Bindings with each ``_Part`` (compared by identity) as the whole it is of."""
    from lint_rules.rules.atn203_host_sync_in_hot_path import _Part

    def plain(value: object) -> object:
        depth = 0
        while isinstance(value, _Part):
            value, depth = value.whole, depth + 1
        return (depth, value)

    return {
        name: [(plain(value), *rest) for value, *rest in found]
        for name, found in bindings.items()
    }


TRUTH_TEXTS = (
    "import torch\nfrom torch import equal as eq, any as any_of\n"
    "def forward(self, a, b):\n"
    "    if eq(a, b):\n        pass\n"
    "    if any_of(a > 0) and self.ready():\n        pass\n"
    "    assert torch.allclose(a, b), a.is_cuda()\n"
    "    while a.any() or isinstance(a, int) or len(b):\n        pass\n"
    "    x = 1 if b.is_nonzero() else 2\n"
    "    def equal(u, v):\n        return u\n"
    "    return not equal(a, b) and x\n",
    "def forward(self, a):\n    from torch import all as every\n"
    "    if every(a):\n        pass\n    return a\n",
)


def test_truth_tests_are_judged_alike_without_building_scopes() -> None:
    """A call that no scope can make a truth function or method is judged
    without the scope: the same answer as with it, for every test."""
    import ast
    from functools import partial

    from lint_rules.config import Settings
    from lint_rules.context import Context
    from lint_rules.rules.atn203_host_sync_in_hot_path import _Provenance

    cases = [*_gate_cases()]
    for text in TRUTH_TEXTS:
        ctx = Context(text, ast.parse(text), "x.py", Settings().options)
        cases += [(ctx, info) for info in ctx.model.functions]
    truths = 0
    for ctx, info in cases:
        scope = partial(ctx.model.scope, info.node)
        fast = _Provenance(info.node, scope, None, None, ctx.model.imported_names)
        slow = _Provenance(info.node, scope, None)
        for node in ast.walk(info.node):
            if isinstance(node, ast.expr):
                answer = fast._tensor_truth(node)
                assert answer == slow._tensor_truth(node), ast.dump(node)
                truths += answer
    assert truths >= 6
    # Attribute calls whose name is no truth method never build the scope.
    text = (
        "def forward(self, a):\n    if self.ready(a) and a.is_decode():\n        pass\n"
    )
    ctx = Context(text, ast.parse(text), "x.py", Settings().options)
    (info,) = ctx.model.functions
    fast = _Provenance(
        info.node, partial(ctx.model.scope, info.node), None, None, frozenset()
    )
    for node in ast.walk(info.node):
        if isinstance(node, ast.Call):
            assert not fast._tensor_truth(node)
    assert "scope" not in fast.__dict__


def test_the_truth_test_shape_keeps_every_truth_the_rule_reads() -> None:
    """``_may_be_tensor_test`` answers yes to every test but a name that
    ``_tensor_truth`` finds a tensor, with the module's imported names and without; and no
    to the forms it leaves out (``is``, ``in``, calls no scope can make a
    truth function or a reduction)."""
    import ast
    from functools import partial

    from lint_rules.config import Settings
    from lint_rules.context import Context
    from lint_rules.rules.atn203_host_sync_in_hot_path import (
        _assigned_names,
        _may_be_tensor_test,
        _Provenance,
    )

    cases = [*_gate_cases()]
    for text in (*TRUTH_TEXTS, *SHAPE_TEXTS):
        ctx = Context(text, ast.parse(text), "x.py", Settings().options)
        cases += [(ctx, info) for info in ctx.model.functions]
    truths = 0
    for ctx, info in cases:
        assigned = _assigned_names(info.bindings)
        for imported in (None, ctx.model.imported_names):
            where = _Provenance(
                info.node, partial(ctx.model.scope, info.node), None, None, imported
            )
            for node in ast.walk(info.node):
                # (of a name, only the function's own locals are asked of:
                # a choice of the rule's, not a shortcut)
                if (
                    isinstance(node, ast.expr)
                    and type(node) is not ast.Name
                    and where._tensor_truth(node)
                ):
                    truths += 1
                    assert _may_be_tensor_test(node, assigned, imported), ast.dump(node)
    assert truths >= 12

    def shape(test: str, imported: frozenset[str] | None) -> bool:
        node = ast.parse(test, mode="eval").body
        return _may_be_tensor_test(node, frozenset({"m"}), imported)

    for test in ("m is None", "m in d", "m is not b < 2", "self.ready(m)", "d[0](m)"):
        assert not shape(test, None), test
    assert not shape("ready(m)", frozenset({"tany"}))
    for test in ("m > 0", "m.any()", "m.sum()", "m[0]", "m", "tany(m)", "ready(m)"):
        assert shape(test, None), test
    assert shape("tany(m)", frozenset({"tany"}))
    assert not shape("n", None)


def test_aliased_truth_functions_are_reported() -> None:
    text = TRUTH_TEXTS[1]
    found = [f for f in check_source(text, "x.py", SETTINGS) if f.code == "ATN203"]
    assert len(found) == 1 and "truth value" in found[0].message


def test_an_operand_of_and_is_reported_where_it_stands() -> None:
    """Each tensor operand of a test's ``and`` is one finding, at the
    operand (not at the start of the whole ``and``); a bool read off the
    device is named by its call."""
    body = (
        "assert (\n"
        "    n is not None\n"
        "    and torch.equal(lens.cuda(), q)\n"
        "    and lens.cuda().any()\n"
        ")\n"
    )
    found = findings(body)
    rows = sorted((f.location.row, f.message.split(" in per-step")[0]) for f in found)
    assert rows == [
        (8, "Host sync `torch.equal()`"),
        (9, "Host sync (a tensor's truth value)"),
    ]


def _module(source: str) -> list:
    return [
        f
        for f in check_source(textwrap.dedent(source), "m.py", SETTINGS)
        if f.code == "ATN203"
    ]


def test_a_private_helper_is_judged_by_what_every_call_of_the_module_passes() -> None:
    source = """
        import torch

        class B:
            def forward(self, batch):
                self._update(batch.seq_lens_cpu, batch.seq_lens)
                self._update(torch.zeros(3), batch.seq_lens)
                _sizes(torch.tensor([1, 2]))
                _sizes(lens=batch.kv_lens_cpu, extra=3)

            def _update(self, lens, dev):
                if lens[0] > 2:
                    pass
                return lens.max().item(), dev.max().item()

        def _sizes(lens, extra=None):
            return lens.tolist(), int(lens[0]), extra
        """
    # Only `dev`, which no call passes a host value, is reported.
    (finding,) = _module(source)
    assert finding.location.row == 14 and finding.location.column == 35


def test_a_public_helper_per_step_only_through_the_module_is_judged_by_its_calls():
    # On the chain from ``forward``, ``update`` receives what the module's
    # calls pass; a caller elsewhere is on no chain the module shows.
    source = """
        class Updater:
            def __init__(self):
                self.update = self.update_single

            def update_single(self, lens, dev):
                return lens.tolist(), dev.tolist()

        class B:
            def __init__(self):
                self.updater = Updater()

            def forward(self, b):
                self.helper(b.lens_cpu)
                self.updater.update(b.kv_lens_cpu, b.lens)

            def helper(self, lens):
                return lens.tolist()
        """
    (finding,) = _module(source)
    assert (finding.location.row, finding.location.column) == (7, 31)  # dev
    assert "forward -> update_single" in finding.message


CALLERS_UNKNOWN = {
    # A public method the engine calls itself (an entry point) may be
    # called from another module, with anything.
    "public_entry": (
        "class B:\n    def forward(self, b):\n        self.forward_decode(b.lens_cpu)\n"
        "    def forward_decode(self, lens):\n        return lens.tolist()\n"
    ),
    # A public helper whose name is also used otherwise than called.
    "public_stored": (
        "class B:\n    def forward(self, b):\n        self.update(b.lens_cpu)\n"
        "        return self.update\n"
        "    def update(self, lens):\n        return lens.tolist()\n"
    ),
    # One call passes a value not known to be on the host.
    "one_call_unknown": (
        "class B:\n    def forward(self, b):\n        self._u(b.lens_cpu)\n"
        "        self._u(b.lens)\n"
        "    def _u(self, lens):\n        return lens.tolist()\n"
    ),
    # Stored as a callback: its calls are not all seen.
    "stored": (
        "class B:\n    def forward(self, b):\n        self.cb = self._u\n"
        "        self._u(b.lens_cpu)\n"
        "    def _u(self, lens):\n        return lens.tolist()\n"
    ),
    # Passed on: called by a function the module does not show.
    "passed_on": (
        "def _u(lens):\n    return lens.tolist()\n"
        "class B:\n    def forward(self, b):\n        run(_u, b.lens)\n"
        "        _u(b.lens_cpu)\n"
    ),
    # Unpacked arguments: what the parameter receives is not known.
    "starred": (
        "def _u(lens):\n    return lens.tolist()\n"
        "class B:\n    def forward(self, b, args):\n        _u(*args)\n"
        "        _u(b.lens_cpu)\n"
    ),
    # A lambda's call: the lambda's parameters are not known.
    "lambda": (
        "def _u(lens):\n    return lens.tolist()\n"
        "class B:\n    def forward(self, b):\n        f = lambda x: _u(x)\n"
        "        _u(b.lens_cpu)\n        return f\n"
    ),
    # A dunder is called by Python itself.
    "dunder": (
        "class B:\n    def forward(self, b):\n        self.__call__(b.lens_cpu)\n"
        "    def __call__(self, lens):\n        return lens.tolist()\n"
    ),
    # Looked up by a string: a call no mention of the name shows.
    "getattr": (
        "class B:\n    def forward(self, b):\n        self._u(b.lens_cpu)\n"
        '        getattr(self, "_u")(b.lens)\n'
        "    def _u(self, lens):\n        return lens.tolist()\n"
    ),
    "globals": (
        "def _u(lens):\n    return lens.tolist()\n"
        "class B:\n    def forward(self, b):\n        _u(b.lens_cpu)\n"
        "        globals()['_u'](b.lens)\n"
    ),
}


@pytest.mark.parametrize("source", CALLERS_UNKNOWN.values(), ids=CALLERS_UNKNOWN.keys())
def test_a_parameter_whose_calls_are_not_all_known_stays_unknown(source: str) -> None:
    (finding,) = _module(source)
    assert "tolist" in finding.message


def test_callers_chain_through_private_helpers_and_stop_at_cycles() -> None:
    chain = """
        class B:
            def forward(self, b):
                self._a(b.lens_cpu)

            def _a(self, lens):
                self._b(lens)

            def _b(self, lens):
                return lens.tolist()
        """
    assert _module(chain) == []
    cycle = """
        class B:
            def forward(self, b):
                self._a(b.lens_cpu)

            def _a(self, lens):
                self._b(lens)
                return lens.tolist()

            def _b(self, lens):
                self._a(lens)
        """
    # ``_a`` receives what ``_b`` passes, which is what ``_a`` receives: a
    # cycle, not known.
    assert len(_module(cycle)) == 1


def test_callers_answers_do_not_depend_on_the_prefilters() -> None:
    from lint_rules import prefilter

    source = textwrap.dedent(
        """
        import torch

        class B:
            def forward(self, b):
                self._a(b.lens_cpu, b.lens)
                _f(torch.zeros(2))

            def _a(self, lens, dev):
                return lens.tolist(), dev.tolist()

        def _f(x):
            return x.tolist()
        """
    )
    on = check_source(source, "m.py", SETTINGS)
    previous = prefilter.set_enabled(False)
    try:
        off = check_source(source, "m.py", SETTINGS)
    finally:
        prefilter.set_enabled(previous)
    assert on == off and len(on) == 1
    assert (on[0].location.row, on[0].location.column) == (10, 31)  # dev.tolist()


def test_a_tensor_declared_by_its_annotation_is_known_to_be_one() -> None:
    source = textwrap.dedent(
        """
        from typing import Optional
        import torch

        class Backend:
            def forward(self, x, indptr: torch.Tensor, opt: Optional[torch.Tensor]):
                last = indptr[-1]
                a = x[:last]
                b = x[: opt[-1]]
                c = x[:opt]
                d: torch.Tensor = self.lens
                return a, b, c, torch.empty(d, device=x.device)
        """
    )
    found = check_source(source, "b.py", SETTINGS)
    assert [f.location.row for f in found] == [8, 9, 12]
    # ``opt`` itself may be None, a bound that is no sync: not reported.
    assert "the tensor `last` as a slice bound" in found[0].message
    assert "the tensor `d` as a size of `empty()`" in found[2].message


@pytest.mark.parametrize(
    ("annotation", "reported"),
    [
        ("list[int]", False),
        ("'list[int]'", False),
        ("tuple[int, ...]", False),
        ("dict[str, int]", False),
        ("list[torch.Tensor]", True),
        ("tuple[torch.Tensor, torch.Tensor]", True),
        ("list[torch.Tensor | None]", True),
        ("'list[torch.Tensor]'", True),
        ("list['Tensor']", True),
    ],
)
def test_a_container_declared_to_hold_tensors_is_no_python_value(
    annotation: str, reported: bool
) -> None:
    source = textwrap.dedent(
        f"""
        import torch

        class Backend:
            def forward(self, lens: {annotation}):
                for t in lens:
                    t.item()
                return lens[0].tolist()
        """
    )
    found = check_source(source, "b.py", SETTINGS)
    assert len(found) == (2 if reported else 0)


def test_a_loop_carried_bound_is_a_tensor_when_every_binding_adds_one() -> None:
    body = (
        "start = 0\n"
        "for i in range(n):\n"
        "    end = start + lens.cuda()[i]\n"
        "    x = q[start:end]\n"
        "    start = end\n"
    )
    (finding,) = findings(body)
    assert "the tensor `end` as a slice bound" in finding.message


def test_repeat_interleave_message_names_the_repeats_and_the_cure() -> None:
    (finding,) = findings("r = lens.cuda()\nx = torch.repeat_interleave(q, r)\n")
    assert "`repeat_interleave()` with the tensor `r` as repeats" in finding.message
    assert "no `output_size=`" in finding.message


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("torch.topk(q, k=top)", "the tensor `top` as `k` of `topk()`"),
        ("torch.topk(q, top, 0)", "the tensor `top` as `k` of `topk()`"),
        ("logits.topk(top, dim=1)", "the tensor `top` as `k` of `topk()`"),
        ("torch.kthvalue(q, lens.cuda().max())", "as `k` of `kthvalue()`"),
        ("logits.narrow(0, 0, top)", "the tensor `top` as `length` of `narrow()`"),
        ("torch.narrow(q, 0, start=top, length=n)", "as `start` of `narrow()`"),
    ],
)
def test_a_tensor_given_where_an_operation_takes_an_integer(
    call: str, message: str
) -> None:
    # Python reads the integer (``__index__``, or ``narrow`` its tensor
    # ``start`` with ``.item()``): vLLM's ``apply_top_k_only`` says so.
    body = (
        f"top = (lens.cuda() > 0).sum()\nlogits: torch.Tensor = q.float()\nx = {call}\n"
    )
    (finding,) = findings(body)
    assert message in finding.message


@pytest.mark.parametrize(
    "call",
    [
        # Integers, a host tensor, and a ``topk`` of an object not known to
        # be a tensor (SGLang's MoE layers call their own ``self.topk``).
        "torch.topk(q, k=n)",
        "torch.topk(q, torch.tensor([n, 2]).max())",
        "self.topk(q, top)",
        "router.topk(top)",
        "torch.narrow(q, 0, 0, n)",
        # What follows ``*args`` is at a position not known.
        "torch.topk(*args, top)",
    ],
)
def test_an_integer_argument_that_is_no_device_tensor_is_not_reported(
    call: str,
) -> None:
    body = f"top = (lens.cuda() > 0).sum()\nargs = ()\nrouter = make()\nx = {call}\n"
    assert findings(body) == []


def _rows(body: str) -> list[int]:
    """The rows of the findings, counted from the body's first row."""
    return [finding.location.row - 5 for finding in findings(body)]


@pytest.mark.parametrize(
    "test",
    [
        "lens.is_cpu",
        "not lens.is_cuda",
        'lens.device.type == "cpu"',
        '"cpu" == lens.device.type',
        'lens.device.type != "cuda"',
    ],
)
def test_a_device_guard_puts_the_name_on_the_host_in_its_arm(test: str) -> None:
    body = f"if {test}:\n    x = lens.item()\nelse:\n    y = lens.item()\n"
    # The body is on the host; the else arm on the device.
    assert _rows(body) == [4]


def test_the_else_of_is_cuda_is_on_the_host_and_its_body_on_the_device() -> None:
    body = (
        "if lens.is_cuda:\n"
        "    x = int(lens.cpu().item())\n"
        "else:\n"
        "    x = int(lens.item())\n"
    )
    (finding,) = findings(body)
    assert finding.location.row - 5 == 2
    assert "`.cpu()`" in finding.message


@pytest.mark.parametrize("leave", ["raise ValueError(n)", "return None"])
def test_after_a_guard_that_leaves_the_name_is_on_the_host(leave: str) -> None:
    body = f"if lens.is_cuda:\n    {leave}\nx = lens.item()\ny = lens.tolist()\n"
    assert _rows(body) == []


def test_after_a_negated_guard_that_leaves_the_name_is_on_the_device() -> None:
    body = (
        'if lens.device.type != "cpu":\n    pass\nelse:\n    return\nx = lens.item()\n'
    )
    assert _rows(body) == [5]


def test_a_guard_that_continues_holds_for_the_rest_of_the_loop_body() -> None:
    body = (
        "for t in batch.lens:\n"
        "    if t.is_cuda:\n"
        "        continue\n"
        "    x = t.item()\n"
        "y = lens.item()\n"
    )
    assert _rows(body) == [5]


def test_a_rebinding_after_the_guard_is_reported_again() -> None:
    body = (
        "if lens.is_cuda:\n"
        "    raise ValueError\n"
        "a = lens.item()\n"
        "lens = batch.seq_lens\n"
        "b = lens.item()\n"
    )
    assert _rows(body) == [5]


def test_a_rebinding_in_a_loop_after_the_guard_may_reach_the_use() -> None:
    body = (
        "if lens.is_cuda:\n"
        "    raise ValueError\n"
        "for i in range(n):\n"
        "    a = lens.item()\n"
        "    lens = batch.seq_lens\n"
    )
    assert _rows(body) == [4]


def test_an_arm_that_does_not_always_leave_says_nothing_after_the_if() -> None:
    body = "if lens.is_cuda:\n    if n:\n        raise ValueError\nx = lens.item()\n"
    assert _rows(body) == [4]


def test_a_with_that_may_swallow_the_raise_ends_the_guard() -> None:
    body = (
        "with self.suppress():\n"
        "    if lens.is_cuda:\n"
        "        raise ValueError\n"
        "    a = lens.item()\n"
        "b = lens.item()\n"
    )
    assert _rows(body) == [5]


def test_a_guard_on_an_attribute_or_a_global_says_nothing() -> None:
    body = "if batch.lens.is_cuda:\n    raise ValueError\na = batch.lens.item()\n"
    assert _rows(body) == [3]
    body = (
        "global buf\n"
        "buf = batch.buf\n"
        "if buf.is_cuda:\n"
        "    raise ValueError\n"
        "self.reset()\n"
        "a = buf.item()\n"
    )
    assert _rows(body) == [6]


def test_a_nested_function_that_rebinds_the_name_ends_the_guard() -> None:
    body = (
        "def reset():\n"
        "    nonlocal lens\n"
        "    lens = batch.lens\n"
        "if lens.is_cuda:\n"
        "    raise ValueError\n"
        "reset()\n"
        "a = lens.item()\n"
    )
    assert _rows(body) == [7]


# ---------------------------------------------------------------- attributes

ATTRIBUTE_USES = (
    "    def forward(self, x):\n"
    "        a = x[: self.indptr[-1]]\n"
    "        b = torch.empty(self.indptr[-1], device=x.device)\n"
    "        c = torch.repeat_interleave(x, self.indptr)\n"
    "        if self.indptr[0] > 0:\n"
    "            pass\n"
    "        return a, b, c\n"
)


def _attribute_rows(init: str, header: str = "class Backend:\n") -> list[int]:
    """Rows (from ``forward``'s ``def``) of the findings on ``self.indptr``
    where ``init`` is the rest of the class."""
    source = "from typing import Optional\nimport torch\n\n" + header + init
    start = source.count("\n") + 1
    found = check_source(source + ATTRIBUTE_USES, "b.py", SETTINGS)
    return [finding.location.row - start for finding in found]


DEVICE_INIT = (
    "    def __init__(self, n, device):\n"
    "        self.indptr = torch.zeros(n + 1, device=device)\n"
)


def test_an_attribute_every_assignment_of_which_is_a_device_tensor() -> None:
    # A slice bound, a size, tensor repeats, a comparison as a test.
    assert _attribute_rows(DEVICE_INIT) == [1, 2, 3, 4]
    moved = (
        "    def __init__(self, n, device):\n"
        "        self.indptr = torch.zeros(n + 1).to(device)\n"
        "    def init_cuda_graph_state(self, n):\n"
        "        self.indptr = torch.cumsum(self.indptr, 0).cuda()\n"
    )
    assert _attribute_rows(moved) == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "rest",
    [
        # Freed at the end of a request, made again by the next one.
        "    def finish(self):\n        del self.indptr\n",
        "    def finish(self):\n        del self.n, self.indptr\n"
        "    def setup(self, n, device):\n"
        "        self.indptr = torch.arange(n + 1, device=device)\n",
    ],
)
def test_a_deleted_attribute_keeps_what_its_stores_make_it(rest: str) -> None:
    # ``del`` binds no value: a read after it raises, or reads what a later
    # store binds, and every store is a device tensor.
    assert _attribute_rows(DEVICE_INIT + rest) == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "rest",
    [
        # A store of a host value, or a class-body default, still decides.
        "    def finish(self):\n        del self.indptr\n"
        "    def setup(self, n):\n        self.indptr = [0] * (n + 1)\n",
        "    def finish(self):\n        del self.indptr\n    indptr = []\n",
    ],
)
def test_a_deleted_attribute_with_another_value_is_not_known(rest: str) -> None:
    assert _attribute_rows(DEVICE_INIT + rest) == []


def test_a_tensor_attribute_read_through_a_local_is_known() -> None:
    source = (
        "import torch\nclass Backend:\n"
        + DEVICE_INIT
        + "    def forward(self, x, bs):\n"
        "        indptr = self.indptr\n"
        "        indptr = indptr[: bs + 1]\n"
        "        return torch.empty(indptr[-1], device=x.device)\n"
    )
    (finding,) = check_source(source, "b.py", SETTINGS)
    assert "the tensor `indptr[-1]` as a size of `empty()`" in finding.message


@pytest.mark.parametrize(
    "init",
    [
        # A list: its elements are Python values.
        "    def __init__(self, n):\n        self.indptr = [0] * (n + 1)\n",
        # A host tensor in one method.
        DEVICE_INIT
        + "    def reset(self, n):\n        self.indptr = torch.zeros(n + 1)\n",
        # An unknown call.
        DEVICE_INIT + "    def reset(self, n):\n        self.indptr = make(n)\n",
        # A parameter that may be a list.
        DEVICE_INIT + "    def reset(self, buf):\n        self.indptr = buf\n",
        # Written otherwise: ``setattr``, a tuple target, a closure, ``with``.
        DEVICE_INIT + "    def reset(self, v):\n        setattr(self, 'indptr', v)\n",
        DEVICE_INIT
        + "    def reset(self, a, b):\n        self.indptr, self.n = a, b\n",
        DEVICE_INIT + "    def reset(self, v):\n"
        "        def f():\n            self.indptr = v\n        f()\n",
        DEVICE_INIT + "    def reset(self, cm):\n        with cm as self.indptr:\n"
        "            pass\n",
        DEVICE_INIT + "    def reset(self, v):\n        [0 for self.indptr in v]\n",
        # A class-body default that is not None, a property of that name.
        "    indptr = []\n" + DEVICE_INIT,
        DEVICE_INIT + "    @property\n    def indptr(self):\n        return [0]\n",
        # Never assigned by the class: a base of another module may.
        "    def __init__(self, n):\n        super().__init__(n)\n",
    ],
)
def test_an_attribute_not_known_to_be_a_device_tensor(init: str) -> None:
    header = "class Backend(Base):\n" if "super()" in init else "class Backend:\n"
    assert _attribute_rows(init, header) == []


MODULE = "from torch import nn\n\nclass Backend(nn.Module):\n"


@pytest.mark.parametrize(
    "init",
    [
        # A buffer made on the host: ``model.to(device)`` moves it (or a
        # ``with torch.device(d):`` made it there).
        "    def __init__(self, n):\n        super().__init__()\n"
        "        self.register_buffer('indptr', torch.zeros(n + 1), persistent=False)\n",
        # In-place updates and ``-=`` keep it the same tensor.
        "    def __init__(self, n):\n"
        "        self.register_buffer(name='indptr', tensor=torch.arange(n + 1))\n"
        "    def reset(self):\n"
        "        self.indptr -= self.indptr[0].item()\n        self.indptr.zero_()\n",
        # A constructor's later store to a buffer keeps it a buffer.
        "    def __init__(self, n):\n"
        "        self.register_buffer('indptr', torch.zeros(1))\n"
        "        self.indptr = torch.zeros(n + 1)\n",
        # Parameters: assigned or registered.
        "    def __init__(self, n):\n"
        "        self.indptr = nn.Parameter(torch.zeros(n + 1), requires_grad=False)\n",
        "    def __init__(self, n):\n"
        "        self.indptr = torch.nn.parameter.Parameter(torch.zeros(n + 1))\n",
        "    def __init__(self, n):\n"
        "        self.register_parameter('indptr', nn.Parameter(torch.zeros(n + 1)))\n",
    ],
)
def test_a_module_buffer_or_parameter_is_a_device_tensor(init: str) -> None:
    assert _attribute_rows(init, MODULE) == [1, 2, 3, 4]


def test_a_buffer_registered_as_none_then_filled_is_a_tensor_where_indexed() -> None:
    init = (
        "    def __init__(self, n):\n"
        "        self.register_buffer('indptr', None)\n"
        "        self.indptr = torch.zeros(n + 1)\n"
    )
    # As an attribute assigned None and a device tensor: ``repeat_interleave
    # (x, None)`` is no sync.
    assert _attribute_rows(init, MODULE) == [1, 2, 4]
    # Filled after construction with a host tensor: not known.
    later = (
        "    def __init__(self):\n"
        "        self.register_buffer('indptr', None)\n"
        "    def setup(self, n):\n"
        "        self.indptr = torch.zeros(n + 1)\n"
    )
    assert _attribute_rows(later, MODULE) == []


BUFFER_INIT = (
    "    def __init__(self, n):\n"
    "        self.register_buffer('indptr', torch.zeros(n + 1))\n"
)


@pytest.mark.parametrize(
    "init",
    [
        # A host value stored after construction (not moved by ``to()``).
        BUFFER_INIT + "    def reset(self, n):\n        self.indptr = torch.zeros(n)\n",
        BUFFER_INIT + "    def reset(self, buf):\n        self.indptr = buf\n",
        # Registered after construction, with a host tensor.
        "    def setup(self, n):\n"
        "        self.register_buffer('indptr', torch.zeros(n + 1))\n",
        "    def load(self, n):\n"
        "        self.indptr = nn.Parameter(torch.zeros(n + 1))\n",
        # A name computed when it runs, another object's, a nested
        # function's, the method itself.
        "    def __init__(self, n, name):\n"
        "        self.register_buffer(name, torch.zeros(n + 1))\n"
        "        self.indptr = torch.zeros(n + 1)\n",
        BUFFER_INIT + "        other.register_buffer('indptr', torch.zeros(n))\n",
        BUFFER_INIT + "    def reset(self, n):\n"
        "        def f():\n            self.register_buffer('indptr', None)\n"
        "        f()\n",
        BUFFER_INIT + "        add = self.register_buffer\n",
        # A property of that name.
        BUFFER_INIT + "    @property\n    def indptr(self):\n        return [0]\n",
    ],
)
def test_a_buffer_not_known_to_be_a_device_tensor(init: str) -> None:
    assert _attribute_rows(init, MODULE) == []


def test_a_maybe_none_attribute_is_a_tensor_where_it_is_indexed() -> None:
    init = (
        "    def __init__(self):\n        self.indptr = None\n"
        "    def init_cuda_graph_state(self, n):\n"
        "        self.indptr = torch.zeros(n + 1, device='cuda')\n"
    )
    # ``repeat_interleave(x, None)`` is no sync: the whole attribute is not
    # known to be a tensor; its elements are.
    assert _attribute_rows(init) == [1, 2, 4]
    declared = "    indptr: Optional[torch.Tensor] = None\n"
    assert _attribute_rows(declared) == [1, 2, 4]
    assert _attribute_rows("    indptr: torch.Tensor\n") == [1, 2, 3, 4]
    optional = (
        "    def __init__(self, n, buf: Optional[torch.Tensor] = None):\n"
        "        if buf is None:\n"
        "            self.indptr = torch.zeros(n + 1, device='cuda')\n"
        "        else:\n"
        "            self.indptr = buf\n"
    )
    assert _attribute_rows(optional) == [1, 2, 4]


def test_bases_and_subclasses_of_the_module_are_folded_in() -> None:
    base = "class Base:\n" + DEVICE_INIT + "\n"
    # A subclass of a class of the module that assigns the attribute.
    assert _attribute_rows("    pass\n", base + "class Backend(Base):\n") == [
        1,
        2,
        3,
        4,
    ]
    # A subclass of the module that assigns it a list: the base's methods
    # may see the list.
    source = (
        "import torch\nclass Backend:\n" + DEVICE_INIT + ATTRIBUTE_USES + "\n"
        "class Host(Backend):\n"
        "    def __init__(self, n):\n        self.indptr = [0] * (n + 1)\n"
    )
    assert check_source(source, "b.py", SETTINGS) == []


def test_a_subclass_of_an_unknown_base_keeps_its_own_assignments() -> None:
    # The base (another module) is not seen: the class's own assignments
    # decide, as its methods are written against them.
    assert _attribute_rows(DEVICE_INIT, "class Backend(Base):\n") == [1, 2, 3, 4]


def test_an_isinstance_guard_says_the_else_holds_no_tensor() -> None:
    body = (
        "k = lens.cuda() if n else batch.k\n"
        "if isinstance(k, torch.Tensor):\n"
        "    a = float(k.item())\n"
        "else:\n"
        "    a = float(k)\n"
        "b = float(k)\n"
    )
    assert _rows(body) == [3, 6]


# An ``if``/``else`` each arm of which binds the name, before the use in a
# block that encloses it: the bindings before that statement cannot reach
# the use (vllm-ascend ``_get_forward_metadata_across_dp``: a list, then a
# host slice in both arms, then ``torch.max(x).item()``).
_DEVICE_THEN = "x = lens.cuda()\n"
_HOST_A = 'torch.tensor([1, 2], device="cpu")'
_HOST_B = "torch.zeros(n)[1:]"


@pytest.mark.parametrize(
    "middle",
    [
        f"if n:\n    x = {_HOST_A}\nelse:\n    x = {_HOST_B}\n",
        f"if n:\n    x = {_HOST_A}\n    y = 1\nelse:\n    y, x = 2, {_HOST_B}\n",
        (
            f"if n:\n    x = {_HOST_A}\nelif n > 2:\n    x = {_HOST_B}\n"
            f"else:\n    x: torch.Tensor = {_HOST_A}\n"
        ),
        f"if n:\n    x = {_HOST_A}\nelse:\n    if n > 2:\n        return\n    x = {_HOST_B}\n",
    ],
)
def test_an_if_else_that_binds_the_name_in_each_arm_ends_the_earlier_binding(
    middle: str,
) -> None:
    assert _rows(_DEVICE_THEN + middle + "y = torch.max(x).item()\n") == []


@pytest.mark.parametrize(
    "middle",
    [
        # One arm only.
        f"if n:\n    x = {_HOST_A}\n",
        f"if n:\n    x = {_HOST_A}\nelse:\n    pass\n",
        # An arm binds it under a further branch without an ``else``.
        f"if n:\n    x = {_HOST_A}\nelse:\n    if n > 2:\n        x = {_HOST_B}\n",
        f"if n:\n    x = {_HOST_A}\nelif n > 2:\n    x = {_HOST_B}\n",
        # A loop's target is bound only when the loop runs.
        f"if n:\n    x = {_HOST_A}\nelse:\n    for x in [{_HOST_B}]:\n        pass\n",
        # ``x += ...`` reads the earlier value.
        f"if n:\n    x = {_HOST_A}\nelse:\n    x += {_HOST_B}\n",
        # The ``if`` is in a loop (that may not run) or a ``try`` (that may
        # leave it for a handler): not in a block that encloses the use.
        f"for i in range(n):\n    if i:\n        x = {_HOST_A}\n    else:\n        x = {_HOST_B}\n",
        (
            f"try:\n    if n:\n        x = {_HOST_A}\n    else:\n        x = {_HOST_B}\n"
            "except ValueError:\n    pass\n"
        ),
        # A context manager may swallow an exception raised before the
        # binding in its body.
        f"if n:\n    with self.ctx():\n        x = {_HOST_A}\nelse:\n    x = {_HOST_B}\n",
        # ... and so may one around the ``if``, the read after it.
        (
            f"with self.ctx():\n    if n:\n        x = {_HOST_A}\n"
            f"    else:\n        x = {_HOST_B}\n"
        ),
        # A nested function may rebind it.
        (
            f"def reset():\n    nonlocal x\n    x = lens.cuda()\n"
            f"if n:\n    x = {_HOST_A}\nelse:\n    x = {_HOST_B}\nreset()\n"
        ),
    ],
)
def test_an_earlier_binding_that_may_reach_the_use_is_still_read(middle: str) -> None:
    rows = _rows(_DEVICE_THEN + middle + "y = torch.max(x).item()\n")
    assert rows == [_DEVICE_THEN.count("\n") + middle.count("\n") + 1]


def test_a_covering_if_else_in_the_same_with_body_as_the_read_counts() -> None:
    body = (
        _DEVICE_THEN
        + "with self.ctx():\n"
        + f"    if n:\n        x = {_HOST_A}\n    else:\n        x = {_HOST_B}\n"
        + "    y = x.item()\n"
        + "z = x.item()\n"
    )
    assert _rows(body) == [8]


def test_a_covering_if_else_after_the_use_says_nothing_of_it() -> None:
    body = (
        _DEVICE_THEN
        + "y = x.item()\n"
        + f"if n:\n    x = {_HOST_A}\nelse:\n    x = {_HOST_B}\n"
        + "z = x.item()\n"
    )
    assert _rows(body) == [2]


def test_range_message_names_the_tensor_read_as_a_bound() -> None:
    (finding,) = findings(
        "total = torch.sum(lens)\nfor k in range(1, total):\n    pass\n"
    )
    assert "the tensor `total` as a bound of `range()`" in finding.message
    # (at the call, as a size of a factory is)
    assert (finding.location.row, finding.location.column) == (7, 18)


def test_a_jit_kernel_body_is_no_host_code() -> None:
    # A Triton kernel named like a per-step method (``*replay*``): its
    # values are Triton's, its tests and loops run on the device.
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def fold_replay_kernel(lens, out, BLOCK: tl.constexpr):
            n = tl.load(lens + tl.program_id(0)).to(tl.int32)
            if n <= 0:
                return
            for t in range(0, n):
                tl.store(out + t, t)

        @torch.compile
        def compiled_replay(lens: torch.Tensor):
            n = lens.max()
            if n > 0:
                return lens[:n]

        def eager_replay(lens: torch.Tensor):
            n = lens.max().to(torch.int32)
            for t in range(0, n):
                pass
        """
    )
    found = check_source(source, "k.py", SETTINGS)
    rows = [f.location.row for f in found]
    # The kernel: nothing. ``torch.compile`` runs PyTorch code on the host
    # (a graph break, then a sync): still reported, as is eager code.
    assert rows == [17, 18, 22]
    # The setting names the compilers: without Triton's, the kernel reads as
    # host code; another DSL named there is left alone.
    bare = Settings(select=("ATN203",), jit_decorators=())
    found = check_source(source, "k.py", bare)
    assert [f.location.row for f in found][:2] == [9, 11]
    custom = Settings(select=("ATN203",), jit_decorators=("mydsl.kernel",))
    other = source.replace("import triton\n", "import triton, mydsl\n")
    found = check_source(other.replace("@triton.jit", "@mydsl.kernel"), "k.py", custom)
    assert [f.location.row for f in found] == [17, 18, 22]


def test_a_kernel_compiled_by_a_call_at_the_top_of_the_module_is_no_host_code() -> None:
    # ``helion.kernel(_body, ...)``: a decorator applied by hand.
    source = textwrap.dedent(
        """
        import torch
        import helion

        def _replay_body(lens: torch.Tensor):
            n = lens.max()
            if n > 0:
                return lens

        def replay_eager(lens: torch.Tensor):
            n = lens.max()
            if n > 0:
                return lens

        fp32 = helion.kernel(_replay_body, config=None)
        compiled = torch.compile(replay_eager)
        """
    )
    found = check_source(source, "k.py", SETTINGS)
    # ``torch.compile`` runs PyTorch code: still read.
    assert [f.location.row for f in found] == [12]


def test_an_arm_that_clears_the_flag_of_its_test_runs_once() -> None:
    # `if self.F:` whose body sets `self.F = False` (or `if not self.done:`
    # setting it True) runs once per object, and so does a method of the
    # class called under the flag that clears it itself.
    once = textwrap.dedent(
        """\
        class Attention:
            def __init__(self):
                self._pending = True
                self.calculate = True

            def forward(self, key, lens):
                if self._pending:
                    self.scale = key.max().item()
                    self._pending = False
                if not self._done and key is not None:
                    self.n = lens.cuda().sum().item()
                    self._done = True
                if self.calculate:
                    self.calc(key)
                return key

            def calc(self, key):
                self.k = key.max().item()
                self.calculate = False
        """
    )
    assert check_source(once, "b.py", SETTINGS) == []
    # Set again every step by other code: the arm runs per step.
    dirty = once + "\n    def reset(self):\n        self._pending = True\n"
    (finding,) = check_source(dirty, "b.py", SETTINGS)
    assert finding.location.row == 8
    # An arm that may leave before it clears the flag may run again.
    leaving = once.replace(
        "        self.scale = key.max().item()\n",
        "        self.scale = key.max().item()\n            if n:\n"
        "                return key\n",
    )
    assert leaving != once
    assert [f.location.row for f in check_source(leaving, "b.py", SETTINGS)] == [8]


def test_a_global_number_of_the_module_is_a_python_value() -> None:
    """A 0-d host tensor divided by a global the module binds to a number
    stays on the host; not where a function rebinds the global."""
    source = """
        import torch
        STEPS = 1000
        SCALE: float = 2.0
        class B:
            def forward(self, tick: float):
                t = torch.tensor(float(tick)) / STEPS * SCALE
                return t.item()
        """
    assert _module(source) == []
    rebound = textwrap.dedent(source) + (
        "def reset(x):\n    global STEPS\n    STEPS = x.cuda()\n"
    )
    (finding,) = _module(rebound)
    assert "`.item()`" in finding.message
    # Rebound through the module's namespace, with no statement binding it.
    for spelling in (
        'globals()["STEPS"] = x.cuda()',
        'vars(sys.modules[__name__])["STEPS"] = x.cuda()',
        'setattr(sys.modules[__name__], "STEPS", x.cuda())',
    ):
        reached = textwrap.dedent(source) + f"def reset(x):\n    {spelling}\n"
        (finding,) = _module(reached)
        assert "`.item()`" in finding.message, spelling


def test_the_message_of_an_assert_is_not_reported_its_test_is() -> None:
    # The message is evaluated only when the test fails, to be raised: an
    # error path, as a ``raise``.
    message = 'assert n > 0, f"bad {lens.cuda().sum().item()}"\n'
    assert not findings(message)
    test = 'assert lens.cuda().sum().item() > 0, f"bad {n}"\n'
    assert [f.location.row for f in findings(test)] == [6]
    # A sync in the message of an assert whose test syncs: the test's only.
    both = 'assert lens.cuda().any(), f"{lens.cuda().sum().item()}"\n'
    (found,) = findings(both)
    assert "truth value" in found.message
