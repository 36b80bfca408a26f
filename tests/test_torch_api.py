"""The torch vocabulary, checked against torch itself: every name exists,
in-place names end in ``_``, the positions of ``inplace`` and ``out`` are
those of the real signatures, no public torch function whose schema writes
an argument is taken for a pure one, and the context managers said never to
swallow an exception do not."""

from __future__ import annotations

import ast
import inspect

import pytest
import torch
import torch.nn.functional as F  # noqa: N812

from lint_rules.analysis import torch_api
from lint_rules.analysis.torch_api import (
    ARGUMENT_WRITES,
    DTYPE_NAMES,
    METADATA_ATTRIBUTES,
    METHODS,
    NON_SWALLOWING_MANAGERS,
    OVERWRITES,
    PURE_NAMESPACES,
    VIEW_ATTRIBUTES,
    WRITES,
    honours_out_contract,
    written_arguments,
)


def _resolve(qualified: str):
    module, _, name = qualified.rpartition(".")
    owner = {"torch": torch, "torch.nn.functional": F}.get(module)
    if owner is None:
        owner = torch
        for part in module.split(".")[1:]:
            owner = getattr(owner, part)
    return getattr(owner, name)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_method_exists_on_tensor(name):
    assert hasattr(torch.Tensor, name)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_in_place_methods_and_only_they_end_in_underscore(name):
    flags = METHODS[name]
    assert bool(flags & WRITES) == name.endswith("_")
    if flags & OVERWRITES:
        assert flags & WRITES


@pytest.mark.parametrize("name", sorted(METADATA_ATTRIBUTES | VIEW_ATTRIBUTES))
def test_attribute_exists_on_tensor(name):
    assert hasattr(torch.Tensor, name)


def test_view_attributes_share_the_tensors_memory():
    x = torch.arange(6.0).reshape(2, 3)
    for name in VIEW_ATTRIBUTES - {"imag"}:
        assert getattr(x, name).untyped_storage().data_ptr() == x.data_ptr(), name
    z = torch.zeros(3, dtype=torch.complex64)
    assert z.imag.untyped_storage().data_ptr() == z.data_ptr()


def test_code_given_data_ptr_writes_the_tensor():
    # An address is a way into the memory: ``data_ptr`` is a view's method
    # (what is done with its result may be done to the receiver), not one
    # whose result is new.
    import ctypes

    x = torch.arange(4.0) + 1
    ctypes.memset(x[2:].data_ptr(), 0, 4)
    assert x.tolist() == [1.0, 2.0, 0.0, 4.0]
    assert "data_ptr" in torch_api.VIEW_METHODS
    assert "data_ptr" not in torch_api.FRESH_METHODS


def test_overwriting_methods_overwrite_every_element():
    for name, flags in METHODS.items():
        if not flags & OVERWRITES:
            continue
        x = torch.full((4,), float("nan"))
        args = (
            (torch.ones(4),) if name == "copy_" else (1.0,) if name == "fill_" else ()
        )
        if name in ("bernoulli_", "geometric_"):
            args = (0.5,)
        getattr(x, name)(*args)
        assert not x.isnan().any(), name


def test_read_only_methods_leave_the_receiver_alone():
    for name in torch_api.FRESH_METHODS | torch_api.VIEW_METHODS:
        flags = METHODS[name]
        assert not flags & WRITES, name


@pytest.mark.parametrize("name", sorted(DTYPE_NAMES))
def test_dtype_names_are_dtypes(name):
    assert isinstance(getattr(torch, name), torch.dtype)


@pytest.mark.parametrize("qualified", sorted(ARGUMENT_WRITES))
def test_argument_write_positions_match_the_signatures(qualified):
    function = _resolve(qualified)
    arguments, flag, _ = ARGUMENT_WRITES[qualified]
    try:
        parameters = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        # A builtin: one of its schemas names the arguments so.
        schemas = torch._C._jit_get_schemas_for_operator(
            "aten::" + qualified.rpartition(".")[2]
        )
        places = [*arguments, *([flag[:2]] if flag else [])]
        assert any(
            all(
                position < len(schema.arguments)
                and schema.arguments[position].name
                in (keyword, "self" if keyword == "input" else keyword)
                for position, keyword in places
            )
            for schema in schemas
        ), qualified
        return
    for position, keyword in (*arguments, *([flag[:2]] if flag else [])):
        assert parameters[position] == keyword, (qualified, position, keyword)


def _public_functions(module, prefix: str):
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if callable(value) and not isinstance(value, type):
            yield f"{prefix}.{name}", value


def test_every_inplace_and_positional_out_parameter_is_known():
    """Every public function of the pure namespaces whose signature can be
    read and that has an ``inplace`` parameter, or an ``out`` parameter that
    may be passed by position, is in ``ARGUMENT_WRITES`` at that position."""
    checked = 0
    for prefix, module in (("torch.nn.functional", F), ("torch", torch)):
        for qualified, function in _public_functions(module, prefix):
            try:
                parameters = inspect.signature(function).parameters
            except (TypeError, ValueError):
                continue
            checked += 1
            for position, (name, parameter) in enumerate(parameters.items()):
                positional = parameter.kind in (
                    parameter.POSITIONAL_ONLY,
                    parameter.POSITIONAL_OR_KEYWORD,
                )
                if name == "inplace" or (name == "out" and positional):
                    entry = ARGUMENT_WRITES.get(qualified)
                    assert entry is not None, qualified
                    places = [*entry[0], *([entry[1][:2]] if entry[1] else [])]
                    assert (position, name) in places, qualified
    assert checked > 100


def test_no_public_torch_function_that_writes_an_argument_is_taken_as_pure():
    """Where torch's operator schema marks an argument written (``Tensor(a!)``)
    by a public function of the ``torch`` namespace, other than its ``out``
    overloads and TorchScript's list and generator helpers, the vocabulary
    says so."""
    found = []
    for qualified, _ in _public_functions(torch, "torch"):
        name = qualified.rpartition(".")[2]
        if name.endswith("_"):
            continue  # in place by its name
        for schema in torch._C._jit_get_schemas_for_operator("aten::" + name):
            if schema.overload_name in _NOT_TENSOR:
                continue
            written = [
                argument
                for argument in schema.arguments
                if argument.alias_info is not None
                and argument.alias_info.is_write
                and "Tensor" in str(argument.type)  # not a generator's state
            ]
            # Outputs passed by keyword (``out=``, ``values=``) are the out
            # contract's: the vocabulary reads ``out=`` itself.
            if any(not argument.kwarg_only for argument in written):
                found.append((qualified, schema.overload_name))
    assert found, "the schema search finds nothing: it checks nothing"
    unknown = [entry for entry in found if entry[0] not in ARGUMENT_WRITES]
    assert unknown == []


# TorchScript's overloads for lists and generators (``aten::sort.int`` sorts a
# Python list in place; ``aten::manual_seed.generator`` seeds a generator):
# not what ``torch.sort`` or ``torch.manual_seed`` do to tensors.
_NOT_TENSOR = frozenset({"int", "float", "bool", "str", "any", "Tensor", "generator"})


def test_written_arguments_reads_flags_by_keyword_and_position():
    def call(text: str) -> ast.Call:
        return ast.parse(text).body[0].value  # type: ignore[attr-defined]

    def written(text: str) -> list[str] | None:
        found = written_arguments(qualified_of(text), call(text))
        return None if found is None else [ast.unparse(node) for node in found]

    def qualified_of(text: str) -> str:
        name = text.partition("(")[0]
        return name.replace("F.", "torch.nn.functional.")

    assert written("F.relu(x)") == []
    assert written("F.relu(x, True)") == ["x"]
    assert written("F.relu(x, inplace=True)") == ["x"]
    assert written("F.relu(x, False)") == []
    assert written("F.relu(x, flag)") == ["x"]
    assert written("F.batch_norm(x, m, v)") == []
    assert written("F.batch_norm(x, m, v, training=True)") == ["m", "v"]
    assert written("F.batch_norm(x, m, v, None, None, True)") == ["m", "v"]
    assert written("F.instance_norm(x, m, v)") == ["m", "v"]
    assert written("F.embedding(i, w)") == []
    assert written("F.embedding(i, w, max_norm=1.0)") == ["w"]
    assert written("F.embedding(i, w, None, None)") == []
    assert written("F.normalize(x, 2.0, 0, 1e-12, y)") == ["y"]
    assert written("torch.add(x, y, out=z)") == ["z"]
    assert written("torch.add_(x, y)") is None
    assert written("F.relu(*args)") is None
    assert written("F.relu(x, **kwargs)") is None
    assert written("F.gelu(x, inplace=True)") is None  # a flag not in the table


@pytest.mark.parametrize(
    ("qualified", "honoured"),
    [
        ("torch.mul", True),
        ("torch.linalg.norm", True),
        ("torch.nn.functional.normalize", True),
        ("torch.ops.aten.mul.out", True),
        ("torch.ops.aten.empty.out", False),
        ("torch.ops.mylib.kernel", False),
        ("torch.ops.vllm.unified_attention_with_output", False),
        ("torch.empty", False),
        ("torch._private", False),
        ("torch.distributed.all_gather_into_tensor", False),
    ],
)
def test_out_contract(qualified, honoured):
    assert honours_out_contract(qualified) is honoured


def test_out_contract_holds_for_torch_functions():
    # A torch function resizes ``out`` and writes every element of it.
    out = torch.full((2,), float("nan"))
    torch.mul(torch.arange(5.0), 2, out=out)
    assert out.shape == (5,) and not out.isnan().any()


def test_pure_namespaces_exist():
    for namespace in PURE_NAMESPACES:
        assert namespace.startswith("torch")


@pytest.mark.parametrize("qualified", sorted(NON_SWALLOWING_MANAGERS))
def test_non_swallowing_managers_exist(qualified):
    if qualified.startswith("contextlib."):
        import contextlib

        assert hasattr(contextlib, qualified.rpartition(".")[2])
    else:
        assert callable(_resolve(qualified))


@pytest.mark.parametrize(
    "qualified", sorted(torch_api.GRAD_MODE_MANAGERS | torch_api.CAPTURE_MANAGERS)
)
def test_grad_mode_and_capture_managers_exist(qualified):
    assert callable(_resolve(qualified))


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.no_grad(),
        lambda: torch.enable_grad(),
        lambda: torch.inference_mode(),
        lambda: torch.set_grad_enabled(True),
        lambda: torch.autocast("cpu"),
        lambda: torch.device("cpu"),
        lambda: torch.profiler.record_function("step"),
        lambda: torch.autograd.profiler.record_function("step"),
    ],
)
def test_non_swallowing_managers_let_exceptions_through(make):
    with pytest.raises(RuntimeError), make():
        raise RuntimeError("must propagate")


def test_every_mode_setter_of_torch_is_named():
    # ``module_sets_torch_modes`` looks for these names; every public setter
    # of torch's global modes must be among them.
    public = {
        name
        for name in dir(torch)
        if name.startswith(("set_", "use_")) and callable(getattr(torch, name))
    }
    assert public <= torch_api.MODE_SETTER_NAMES
    for name in public:
        assert torch_api.sets_global_mode(f"torch.{name}")
    assert not torch_api.sets_global_mode("torch.manual_seed")
    assert not torch_api.sets_global_mode("torch.cumsum")
    # setters of torch's other modules: the backends' flags, the device
    for qualified in (
        "torch.backends.mkldnn.set_flags",
        "torch.backends.cuda.enable_flash_sdp",
        "torch.backends.cuda.preferred_linalg_library",
        "torch.cuda.set_device",
        "torch.autograd.set_grad_enabled",
        "torch._C._set_grad_enabled",
    ):
        assert torch_api.sets_global_mode(qualified), qualified
    assert not torch_api.sets_global_mode("torch.cuda.synchronize")
    assert not torch_api.sets_global_mode("torch.backends.cudnn.is_available")
    assert not torch_api.sets_global_mode("numpy.set_printoptions")


def test_mode_neutral_managers_exist_and_leave_the_modes_alone():
    import contextlib

    for qualified in torch_api.MODE_NEUTRAL_MANAGERS:
        if qualified.startswith("contextlib."):
            assert hasattr(contextlib, qualified.rpartition(".")[2])
        else:
            assert callable(_resolve(qualified))
    before = (torch.is_grad_enabled(), torch.get_default_dtype())
    with contextlib.nullcontext(), contextlib.suppress(ValueError):
        with torch.profiler.record_function("step"):
            assert (torch.is_grad_enabled(), torch.get_default_dtype()) == before


def test_gradient_functions_and_methods_exist():
    for qualified in torch_api.GRADIENT_FUNCTIONS:
        assert callable(_resolve(qualified))
    for name in torch_api.GRADIENT_METHODS:
        assert hasattr(torch.Tensor, name)


def test_sync_methods_copy_to_the_host():
    x = torch.arange(3.0)
    assert isinstance(x.sum().item(), float) and isinstance(x.tolist(), list)
    assert torch_api.SYNC_METHODS == {"item", "tolist", "cpu", "numpy"}


def test_collective_outputs_and_async_op_are_where_the_signatures_say():
    import torch.distributed as dist

    from lint_rules.analysis.torch_api import (
        _ASYNC_OP,
        _GROUP,
        COLLECTIVE_LIST_OUTPUTS,
        COLLECTIVE_OUTPUTS,
    )

    outputs = {**COLLECTIVE_OUTPUTS, **COLLECTIVE_LIST_OUTPUTS}
    assert len(outputs) == len(COLLECTIVE_OUTPUTS) + len(COLLECTIVE_LIST_OUTPUTS)
    for qualified, (position, keyword) in outputs.items():
        parameters = list(
            inspect.signature(getattr(dist, qualified.rpartition(".")[2])).parameters
        )
        assert parameters[position] == keyword, qualified
        if "async_op" in parameters:
            assert _ASYNC_OP[qualified] == parameters.index("async_op"), qualified
        else:
            assert qualified not in _ASYNC_OP
        assert _GROUP[qualified] == parameters.index("group"), qualified


def test_a_collective_outside_its_group_writes_nothing():
    """A rank outside a collective's group (``NON_GROUP_MEMBER``, what
    ``dist.new_group(ranks)`` gives the others) returns at once, its output
    unwritten: why ``collective_in_a_group`` makes such a write assumed."""
    import torch.distributed as dist

    outside = dist.GroupMember.NON_GROUP_MEMBER
    for name in ("all_gather_into_tensor", "reduce_scatter_tensor", "recv"):
        out = torch.zeros(4)
        if name == "recv":
            dist.recv(out, 0, group=outside)
        else:
            getattr(dist, name)(out, torch.ones(4), group=outside)
        assert out.eq(0).all(), name
    out = torch.zeros(4)
    dist.all_to_all_single(out, torch.ones(4), group=outside)
    assert out.eq(0).all()
    out = torch.zeros(4)
    # (Given ``src``, a global rank, it raises instead: the group has none.)
    dist.scatter(out, [torch.ones(4)], group=outside, group_src=0)
    assert out.eq(0).all()
    for name in ("all_gather", "all_to_all"):
        outs = [torch.zeros(4), torch.zeros(4)]
        other = [torch.ones(4)] * 2 if name == "all_to_all" else torch.ones(4)
        getattr(dist, name)(outs, other, group=outside)
        assert all(out.eq(0).all() for out in outs), name


def test_a_tensor_given_for_an_output_list_raises_before_writing():
    """A tensor (or a tuple) passed where ``all_gather`` or ``all_to_all``
    take their output list raises a ``TypeError`` before the collective
    runs: why ``COLLECTIVE_LIST_OUTPUTS`` may count whatever is passed there
    as written whole."""
    import torch.distributed as dist

    for name, other in (("all_gather", torch.ones(4)), ("all_to_all", [torch.ones(4)])):
        for given in (torch.zeros(4), (torch.zeros(4),)):
            with pytest.raises(TypeError):
                getattr(dist, name)(given, other)


def test_collective_outputs_are_written_whole(tmp_path):
    """On a one-rank gloo group, the outputs the vocabulary lists as written
    whole are: every element of a NaN-filled output changes."""
    import torch.distributed as dist

    dist.init_process_group(
        "gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1
    )
    try:
        for name, call in (
            (
                "all_gather_into_tensor",
                lambda out, x: dist.all_gather_into_tensor(out, x),
            ),
            ("all_to_all_single", lambda out, x: dist.all_to_all_single(out, x)),
            ("scatter", lambda out, x: dist.scatter(out, [x], src=0)),
        ):
            out = torch.full((4,), float("nan"))
            call(out, torch.arange(4.0))
            assert not out.isnan().any(), name
        for name, call in (
            ("all_gather", lambda outs, x: dist.all_gather(outs, x)),
            ("all_to_all", lambda outs, x: dist.all_to_all(outs, [x])),
        ):
            outs = [torch.full((4,), float("nan"))]
            call(outs, torch.arange(4.0))
            assert not outs[0].isnan().any(), name
    finally:
        dist.destroy_process_group()


def _collectives_on_a_rank(rank: int, world: int, store: str, results) -> None:
    """One rank of ``test_collective_outputs_are_written_whole_on_every_rank``:
    NaN-filled outputs of each collective, what is left of them sent back."""
    import datetime

    import torch.distributed as dist

    dist.init_process_group(
        "gloo",
        init_method=f"file://{store}",
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=60),
    )
    try:
        x = torch.arange(4.0) + 10 * rank
        gathered = [torch.full((4,), float("nan")) for _ in range(world)]
        dist.all_gather(gathered, x)
        exchanged = [torch.full((2,), float("nan")) for _ in range(world)]
        dist.all_to_all(
            exchanged, [torch.arange(2.0) + 10 * rank + r for r in range(world)]
        )
        scattered = torch.full((4,), float("nan"))
        chunks = [torch.arange(4.0) + 100 * r for r in range(world)]
        dist.scatter(scattered, chunks if rank == 0 else None, src=0)
        results.put(
            (
                rank,
                [t.tolist() for t in gathered],
                [t.tolist() for t in exchanged],
                scattered.tolist(),
            )
        )
    finally:
        dist.destroy_process_group()


def test_collective_outputs_are_written_whole_on_every_rank(tmp_path):
    """On two gloo ranks, ``all_gather`` and ``all_to_all`` write every
    tensor of their output list, and ``scatter`` its output, on each rank
    (the source's too): no NaN of the outputs is left."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    world = 2
    ranks = [
        context.Process(
            target=_collectives_on_a_rank,
            args=(rank, world, str(tmp_path / "store"), results),
        )
        for rank in range(world)
    ]
    for process in ranks:
        process.start()
    try:
        found = sorted(results.get(timeout=120) for _ in ranks)
    finally:
        for process in ranks:
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()
    for rank, gathered, exchanged, scattered in found:
        assert gathered == [[0.0, 1.0, 2.0, 3.0], [10.0, 11.0, 12.0, 13.0]], rank
        assert exchanged == [[rank, rank + 1.0], [10.0 + rank, 11.0 + rank]], rank
        assert scattered == [100.0 * rank + i for i in range(4)], rank
