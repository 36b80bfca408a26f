"""Programs whose safe fixes once changed what they compute, one per cause.

Each is a module for ``tests.differential.compare``: entry points named
``case...``, arguments from ``make_args()``. The generator of
tests/differential_programs.py starts from these.
"""

from __future__ import annotations

REPRODUCTIONS: dict[str, str] = {
    # 1. A custom operator's ``out=`` writes what its kernel writes, not all of it.
    "custom_op_out_is_not_a_full_write": """
import torch

def make_args():
    return (torch.arange(6.0) + 1, 6)

def case(y, n):
    x = torch.zeros(n)
    torch.ops.attnlint_diff.half_copy(y, out=x)
    return x
""",
    # 2. ``torch.full(s, 0, dtype=None)`` is int64; ``torch.empty(s, dtype=None)`` is not.
    "full_with_dtype_none_parameter": """
import torch

def make_args():
    return (torch.arange(6.0) + 0.5, 6)

def case(y, n, dtype=None):
    x = torch.full((n,), 0, dtype=dtype)
    x.copy_(y)
    return x
""",
    "full_with_literal_dtype_none": """
import torch

def make_args():
    return (torch.arange(6.0) + 0.5, 6)

def case(y, n):
    x = torch.full((n,), 0, dtype=None)
    x.copy_(y)
    return x
""",
    "full_with_an_integer_size": """
import torch

def make_args():
    return (torch.arange(6.0) + 0.5, 6)

def case(y, n):
    x = torch.full(n, 0)
    x.copy_(y)
    return x
""",
    "full_with_keyword_fill": """
import torch

def make_args():
    return (torch.arange(6.0) + 0.5, 6)

def case_keyword(y, n):
    x = torch.full((n,), fill_value=0)
    x.copy_(y)
    return x

def case_keywords(y, n):
    x = torch.full(size=(n,), fill_value=0)
    x.copy_(y)
    return x

def case_bool(y, n):
    x = torch.full((n,), fill_value=False)
    x.copy_(y)
    return x

def case_like(y, n):
    x = torch.full_like(y, fill_value=0)
    x.copy_(y)
    return x

def case_keyword_dtype_first(y, n):
    x = torch.full((n,), dtype=None, fill_value=0)
    x.copy_(y)
    return x
""",
    # 3. A context manager may swallow an exception: the ``with`` body may not finish.
    "with_suppress_zeros": """
import torch
from contextlib import suppress

def make_args():
    return (torch.arange(5.0) + 1, 6)

def case(y, n):
    x = torch.zeros(n)
    with suppress(RuntimeError):
        x.copy_(y)
    return x
""",
    "with_suppress_repeated_sync": """
import torch
from contextlib import suppress

def make_args():
    return (torch.arange(6.0),)

def case(x):
    a = 0
    with suppress(ZeroDivisionError):
        1 / 0
        a = x.max().item()
    b = x.max().item()
    return a, b
""",
    "with_suppress_reassignment": """
import torch
from contextlib import suppress

def make_args():
    return (torch.arange(6.0),)

def case(x):
    with suppress(ZeroDivisionError):
        1 / 0
        s = x * 2
    s = x * 2
    return s
""",
    "with_swallowing_class": """
import torch

class Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True

def make_args():
    return (torch.arange(6.0),)

def case(x):
    a = -1.0
    with Swallow():
        int("not a number")
        a = x.max().item()
    b = x.max().item()
    return a, b
""",
    # 4. ATN202: the first value has another name; deleting the second shares it.
    "reassignment_through_alias": """
import torch

def make_args():
    return (torch.arange(6.0),)

def case(x):
    a = x * 2
    b = a
    a = x * 2
    b.add_(1)
    return a
""",
    # 5. Writes through views and view attributes between two syncs.
    "write_through_data": """
import torch

def make_args():
    return (torch.arange(6.0),)

def case(x):
    a = x[0].item()
    x.data[0] = 5
    b = x[0].item()
    return a, b
""",
    "write_through_transpose": """
import torch

def make_args():
    return (torch.arange(6.0).reshape(2, 3),)

def case_t(x):
    a = x[0, 1].item()
    v = x.T
    v.zero_()
    b = x[0, 1].item()
    return a, b

def case_mt(x):
    a = x[0, 1].item()
    x.mT.fill_(3)
    b = x[0, 1].item()
    return a, b

def case_real(x):
    a = x[0, 1].item()
    x.real.mul_(2)
    b = x[0, 1].item()
    return a, b
""",
    # 6. A local returned by a call, or passed to one, is not private.
    "local_returned_by_a_call": """
import torch

BUF = torch.arange(6.0)

def get():
    return BUF

def bump():
    BUF.add_(1)

def make_args():
    return ()

def case():
    t = get()
    a = t.max().item()
    bump()
    b = t.max().item()
    return a, b
""",
    "local_passed_to_a_call": """
import torch

REGISTRY = []

def register(t):
    REGISTRY.append(t)

def bump_all():
    for t in REGISTRY:
        t.add_(1)

def make_args():
    return (6,)

def case(n):
    t = torch.arange(n * 1.0)
    register(t)
    a = t.max().item()
    bump_all()
    b = t.max().item()
    return a, b
""",
    # 7. Calls that change tensors.
    "relu_inplace_positional": """
import torch
import torch.nn.functional as F

def make_args():
    return (torch.arange(6.0) - 3,)

def case(x):
    a = x.min().item()
    F.relu(x, True)
    b = x.min().item()
    return a, b
""",
    "batch_norm_training": """
import torch
import torch.nn.functional as F

def make_args():
    return (torch.arange(12.0).reshape(4, 3), torch.zeros(3), torch.ones(3))

def case(x, mean, var):
    a = mean.sum().item()
    F.batch_norm(x, mean, var, training=True)
    b = mean.sum().item()
    return a, b

def case_positional(x, mean, var):
    a = mean.sum().item()
    F.batch_norm(x, mean, var, None, None, True)
    b = mean.sum().item()
    return a, b
""",
    "embedding_max_norm": """
import torch
import torch.nn.functional as F

def make_args():
    return (torch.tensor([0, 1]), torch.arange(8.0).reshape(4, 2))

def case(idx, weight):
    a = weight.sum().item()
    F.embedding(idx, weight, max_norm=1.0)
    b = weight.sum().item()
    return a, b
""",
    "normalize_positional_out": """
import torch
import torch.nn.functional as F

def make_args():
    return (torch.arange(6.0) + 1, torch.zeros(6))

def case(x, y):
    a = y.sum().item()
    F.normalize(x, 2.0, 0, 1e-12, y)
    b = y.sum().item()
    return a, b
""",
    "thread_join": """
import threading
import time
import torch

def worker(t):
    time.sleep(0.2)
    t.add_(1)

def make_args():
    return (torch.arange(6.0),)

def case(x):
    thread = threading.Thread(target=worker, args=(x,))
    thread.start()
    a = x.sum().item()
    thread.join()
    b = x.sum().item()
    return a, b
""",
    "queue_get": """
import queue
import threading
import time
import torch

def worker(t, q):
    time.sleep(0.2)
    t.add_(1)
    q.put(1)

def make_args():
    return (torch.arange(6.0),)

def case(x):
    q = queue.Queue()
    threading.Thread(target=worker, args=(x, q)).start()
    a = x.sum().item()
    q.get()
    b = x.sum().item()
    return a, b
""",
    "bound_method": """
import torch

def make_args():
    return (torch.arange(6.0),)

def case(x):
    add = x.add_
    a = x.sum().item()
    add(1)
    b = x.sum().item()
    return a, b
""",
    "closure_through_an_alias": """
import torch

def make_args():
    return (torch.arange(6.0), torch.arange(6.0) + 1, [1, 2, 3])

def case(x, y, xs):
    a = y.min().item()
    x = y
    sorted(xs, key=lambda v: (x.add_(1), v)[1])
    c = y.min().item()
    return a, c
""",
    "sorted_key_lambda": """
import torch

def make_args():
    return (torch.arange(6.0),)

def case(x):
    a = x.sum().item()
    sorted([1, 2], key=lambda v: (x.add_(1), v)[1])
    b = x.sum().item()
    return a, b
""",
    "builtin_redefined_at_module_level": """
import torch

def len(t):
    t.add_(1)
    return 0

def make_args():
    return (torch.arange(6.0),)

def case(x):
    a = x.sum().item()
    len(x)
    b = x.sum().item()
    return a, b
""",
    "print_runs_str": """
import torch

class Loud:
    def __init__(self, t):
        self.t = t

    def __str__(self):
        self.t.add_(1)
        return "loud"

def make_args():
    return (torch.arange(6.0),)

def case(x):
    loud = Loud(x)
    a = x.sum().item()
    print(loud)
    b = x.sum().item()
    return a, b
""",
    "store_through_dict": """
import torch

class Box:
    pass

def make_args():
    return (torch.arange(6.0),)

def case(x):
    box = Box()
    box.t = x
    a = box.t.sum().item()
    box.__dict__["t"] = x * 2
    b = box.t.sum().item()
    return a, b
""",
    "backward_accumulates_grad": """
import torch

def make_args():
    return ()

def case():
    w = torch.ones(3, requires_grad=True)
    (w * 2).sum().backward()
    a = w.grad.sum().item()
    (w * 3).sum().backward()
    b = w.grad.sum().item()
    return a, b
""",
    # 8. ATN301 and f-strings.
    "fstring_self_documenting": """
def make_args():
    return (3,)

def case(n):
    out = []
    for i in range(n):
        s = i + 1
        out.append(f"{s=}")
    return out
""",
    "fstring_bytes": """
def make_args():
    return (3,)

def case(n):
    out = []
    for i in range(n):
        b = b'x'
        out.append(f'{b}')
    return out

def case_other(n):
    out = []
    for i in range(n):
        j = i
        out.append(j)
    return out
""",
    # 9. ATN301 and a closure that changes an operand between the alias and its use.
    "closure_changes_operand": """
def make_args():
    return ([1, 2], [7])

def case(rows, extra):
    acc = [0]

    def bump():
        acc.append(9)

    out = []
    for r in rows:
        before = acc + extra
        bump()
        out.append(before)
    return out
""",
    # 10. ATN301 and exceptions.
    "unused_alias_raises": """
def make_args():
    return (["a", "b"],)

def case(vs):
    out = []
    for v in vs:
        s = v + 1
        out.append(v)
    return out
""",
    "inlined_raise_after_side_effect": """
def make_args():
    return (["a", "b"],)

def case(vs):
    for v in vs:
        s = v + 1
        print("before")
        print(s)
""",
    "inlined_raise_into_try": """
def make_args():
    return (["a", "b"],)

def case(vs):
    out = []
    for v in vs:
        s = v + 1
        try:
            out.append(s)
        except TypeError:
            out.append("caught")
    return out
""",
    # 11. A method named as one of torch's read-only ones changes a list or a
    # set in place (``list.sort``, ``set.add``, which also keeps its argument).
    "list_sort_between_reassignments": """
def make_args():
    return ([3, 1, 2],)

def case(xs):
    first = xs[0]
    xs.sort()
    first = xs[0]
    return first
""",
    "set_add_between_reassignments": """
def make_args():
    return ({1}, 2)

def case(seen, key):
    known = key in seen
    seen.add(key)
    known = key in seen
    return known
""",
    "list_sort_between_syncs": """
import torch

def make_args():
    return (torch.tensor([3.0, 1.0, 2.0]),)

def case(x):
    items = [x[0], x[1], x[2]]
    a = items[0].item()
    items.sort()
    b = items[0].item()
    return a, b
""",
    "set_add_keeps_its_argument": """
import torch

def make_args():
    return (set(),)

def case(pending):
    t = torch.arange(6.0)
    a = t.sum().item()
    pending.add(t)
    for u in pending:
        u.mul_(2)
    b = t.sum().item()
    return a, b
""",
    # 12. ATN104: deleting a fill deletes the error it raises, which the write
    # does not raise in another autograd mode (a leaf that requires grad, an
    # inference tensor).
    "fill_of_a_leaf_that_requires_grad": """
import torch

def make_args():
    return (torch.arange(6.0) + 1, 6)

def case(y, n):
    x = torch.ones(n, requires_grad=True)
    x.zero_()
    with torch.no_grad():
        x.copy_(y)
    return x.sum()

def case_requires_grad_later(y, n):
    x = torch.ones(n)
    x.requires_grad_()
    x.zero_()
    with torch.no_grad():
        x.copy_(y)
    return x.sum()
""",
    "fill_of_an_inference_tensor": """
import torch

def make_args():
    return (torch.arange(6.0) + 1, 6)

def case(y, n):
    with torch.inference_mode():
        x = torch.ones(n)
    x.zero_()
    with torch.inference_mode():
        x.copy_(y)
    return x.sum()
""",
    # 13. A ``match`` capture names the subject or something inside it: a
    # write through the capture is a write of the subject.
    "match_capture_aliases_the_subject": """
import torch

def make_args():
    return (torch.arange(6.0),)

def case(x):
    match x:
        case t:
            pass
    a = x.sum().item()
    t.add_(1)
    b = x.sum().item()
    return a, b

def case_in_a_sequence(x):
    match [1, x]:
        case [1, u]:
            pass
    a = x.sum().item()
    u.mul_(2)
    b = x.sum().item()
    return a, b

def case_rest_of_a_mapping(x):
    match {"k": x}:
        case {**rest}:
            pass
    a = x.sum().item()
    rest["k"].add_(1)
    b = x.sum().item()
    return a, b
""",
    # 14. A local bound to a global's object (``t = BUF``, ``m = MODEL``) is
    # reached by the module's other functions through the global.
    "local_bound_to_a_global": """
import torch

BUF = torch.arange(6.0)


class Model:
    def __init__(self):
        self.t = torch.arange(6.0)
        self.k = 1

    def bump(self):
        self.t.add_(1)
        self.k += 1


MODEL = Model()


def bump_buf():
    BUF.add_(1)


def bump_model():
    MODEL.bump()


def make_args():
    return ()


def case_tensor():
    t = BUF
    a = t.sum().item()
    bump_buf()
    b = t.sum().item()
    return a, b


def case_attribute():
    m = MODEL
    a = m.t.sum().item()
    bump_model()
    b = m.t.sum().item()
    return a, b


def case_reassignment():
    m = MODEL
    k = m.k + 1
    bump_model()
    k = m.k + 1
    return k
""",
    # 15. Objects given to code that keeps them, which the module's other
    # code then changes: a view made by a method (``register(x.view(-1))``,
    # ``x.detach()``), a store into a global's object (``HOLD.t = x``,
    # ``REG[:] = [x]``), a default value of a function (``lambda t=x: ...``).
    "kept_by_other_code": """
import torch

REG = []


class Holder:
    pass


HOLD = Holder()


def register(t):
    REG.append(t)


def bump():
    REG[0].add_(1)
    REG.clear()


def bump_held():
    HOLD.t.add_(1)


def make_args():
    return (torch.arange(6.0),)


def case_view_given_to_a_call(x):
    register(x.view(-1))
    a = x.sum().item()
    bump()
    b = x.sum().item()
    return a, b


def case_detached_given_to_a_call(x):
    register(x.detach())
    a = x.sum().item()
    bump()
    b = x.sum().item()
    return a, b


def case_view_appended_to_a_global(x):
    REG.append(x.view(2, 3))
    a = x.sum().item()
    bump()
    b = x.sum().item()
    return a, b


def case_stored_into_a_global(x):
    HOLD.t = x
    a = x.sum().item()
    bump_held()
    b = x.sum().item()
    return a, b


def case_stored_into_a_global_list(x):
    REG[:] = [x]
    a = x.sum().item()
    bump()
    b = x.sum().item()
    return a, b


def case_default_of_a_lambda(x):
    a = x.max().item()
    f = lambda t=x: t.add_(1)
    f()
    b = x.max().item()
    return a, b


def case_default_of_a_def(x):
    def f(t=x.view(-1)):
        t.add_(1)

    a = x.max().item()
    f()
    b = x.max().item()
    return a, b
""",
    # 16. A tensor kept as an index of a store (a dict's key: ``D[x] = 0``,
    # ``d[x] = 0`` with ``d`` given away later) or stored by a loop's target
    # (``for HOLD.t in [x]``, a comprehension's too) into a global's object.
    "kept_as_a_key_or_by_a_loop_target": """
import torch

D = {}
REG = []


class Holder:
    pass


HOLD = Holder()


def bump_keys():
    for t in D:
        t.add_(1)


def bump_held():
    HOLD.t.add_(1)


def bump_registered():
    for d in REG:
        for t in d:
            t.add_(1)


def make_args():
    return (torch.arange(6.0),)


def case_key_of_a_global_dict(x):
    D.clear()
    D[x] = 0
    a = x.sum().item()
    bump_keys()
    b = x.sum().item()
    return a, b


def case_key_in_a_tuple_annotated(x):
    D.clear()
    D[(x, 1)]: int = 0
    a = x.sum().item()
    for k in D:
        k[0].add_(1)
    b = x.sum().item()
    return a, b


def case_key_of_a_local_dict_given_away(x):
    REG.clear()
    d = {}
    d[x] = 0
    REG.append(d)
    a = x.sum().item()
    bump_registered()
    b = x.sum().item()
    return a, b


def case_loop_target_of_a_global(x):
    for HOLD.t in [x]:
        pass
    a = x.sum().item()
    bump_held()
    b = x.sum().item()
    return a, b


def case_comprehension_target_of_a_global(x):
    [0 for HOLD.t in [x]]
    a = x.sum().item()
    bump_held()
    b = x.sum().item()
    return a, b


def case_reassignment_around_a_key(x):
    D.clear()
    k = x.sum().item()
    D[x] = 0
    bump_keys()
    k = x.sum().item()
    return k
""",
    # 17. A comprehension's target names each item of its iterable: an
    # in-place write through it (``[t.add_(1) for t in (x,)]``) writes ``x``.
    "comprehension_target_aliases_the_items": """
import torch


def make_args():
    return (torch.arange(6.0),)


def case_list(x):
    a = x.sum().item()
    [t.add_(1) for t in (x,)]
    b = x.sum().item()
    return a, b


def case_nested_generators(x):
    a = x.sum().item()
    [u.mul_(2) for t in ((x,),) for u in t]
    b = x.sum().item()
    return a, b


def case_condition_and_view(x):
    a = x.sum().item()
    {0: t for t in [x] if t.view(-1).add_(1) is not None}
    b = x.sum().item()
    return a, b


def case_out_keyword(x):
    k = x.sum().item()
    [torch.add(t, 1, out=t) for t in (x,)]
    k = x.sum().item()
    return k
""",
    # 18. ``sum`` returns its start when there is nothing to add, and a sum of
    # lists holds their items: its result may be the tensor, or hold it.
    "sum_may_return_its_start": """
import torch


def make_args():
    return (torch.arange(6.0),)


def case_start(x):
    a = x.sum().item()
    s = sum([], x)
    s.add_(1)
    b = x.sum().item()
    return a, b


def case_start_keyword(x):
    a = x.sum().item()
    s = sum((), start=x)
    s.mul_(2)
    b = x.sum().item()
    return a, b


def case_items(x):
    a = x.sum().item()
    s = sum([[x]], [])
    s[0].add_(1)
    b = x.sum().item()
    return a, b
""",
    # 19. Iterating a generator runs its code, which may change the module's
    # state: a ``for`` loop and ``list(gen)`` counted, unpacking (``p, q =
    # gen``), a starred item (``[*gen]``), a comprehension, ``v in gen`` and
    # ``xs += gen`` did not.
    "iterating_a_generator_runs_its_code": """
import torch

BUF = torch.arange(6.0)


def produce():
    BUF.add_(1)
    yield 1
    yield 2


def make_args():
    return (torch.arange(6.0),)


def case_unpacking(x):
    g = produce()
    a = BUF.sum().item()
    p, q = g
    b = BUF.sum().item()
    return a, b


def case_starred(x):
    g = produce()
    a = BUF.sum().item()
    items = [*g]
    b = BUF.sum().item()
    return a, b, items


def case_comprehension(x):
    g = produce()
    a = BUF.sum().item()
    items = [v for v in g]
    b = BUF.sum().item()
    return a, b, items


def case_unpacked_items(x):
    g = produce()
    a = BUF.sum().item()
    for p, q in [g]:
        pass
    b = BUF.sum().item()
    return a, b


def case_membership(x):
    g = produce()
    a = BUF.sum().item()
    found = 2 in g
    b = BUF.sum().item()
    return a, b, found


def case_extend(x):
    g = produce()
    items = []
    a = BUF.sum().item()
    items += g
    b = BUF.sum().item()
    return a, b, items
""",
    # 20. Lists and tuples joined or repeated, dicts merged, hold the
    # operands' items, and ``+x`` is ``x``: a write through the result writes
    # the tensor, and one made from a global's object is reached by unknown code.
    "containers_joined_by_operators_hold_the_items": """
import torch

BUF = torch.arange(6.0)


def bump():
    BUF.add_(1)


def make_args():
    return (torch.arange(6.0), [1])


def case_joined(x, xs):
    a = x.sum().item()
    c = xs + [x]
    c[-1].add_(1)
    b = x.sum().item()
    return a, b


def case_repeated(x, xs):
    a = x.sum().item()
    c = (x,) * 2
    c[1].mul_(2)
    b = x.sum().item()
    return a, b


def case_merged(x, xs):
    a = x.sum().item()
    c = {"k": x} | {}
    c["k"].add_(1)
    b = x.sum().item()
    return a, b


def case_unary_plus(x, xs):
    a = x.sum().item()
    c = +x
    c.add_(1)
    b = x.sum().item()
    return a, b


def case_global_item(x, xs):
    c = [BUF] + xs
    a = c[0].sum().item()
    bump()
    b = c[0].sum().item()
    return a, b
""",
    # 21. ``dir()`` lists the local names, as ``locals()`` does: deleting an
    # unused loop alias changed what it returned.
    "dir_lists_the_local_names": """
def make_args():
    return ([1, 2, 3],)


def case(xs):
    out = []
    for i in xs:
        start = i
        out.append("start" in dir())
    return out
""",
    # 22. Formatting runs ``__str__``/``__format__`` wherever it happens: a
    # ``%`` of a string, and an f-string inside a comprehension.
    "formatting_with_percent_and_in_comprehensions": """
import torch


class Loud:
    def __init__(self, t):
        self.t = t

    def __str__(self):
        self.t.add_(1)
        return "loud"


def make_args():
    return (torch.arange(6.0),)


def case_percent(x):
    loud = Loud(x)
    a = x.sum().item()
    s = "%s" % loud
    b = x.sum().item()
    return a, b, s


def case_percent_tuple(x):
    loud = Loud(x)
    a = x.sum().item()
    s = "%s %d" % (loud, 1)
    b = x.sum().item()
    return a, b, s


def case_comprehension(x):
    loud = Loud(x)
    a = x.sum().item()
    s = [f"{loud}" for _ in range(2)]
    b = x.sum().item()
    return a, b, s
""",
    # 23. A nested function's annotations are evaluated where it is defined
    # (the programs run without this package's postponed annotations).
    "annotations_run_where_the_function_is_defined": """
import torch

BUF = torch.arange(6.0)


def bump():
    BUF.add_(1)
    return int


def make_args():
    return (torch.arange(6.0),)


def case_parameter(x):
    a = BUF.sum().item()

    def inner(v: bump()):
        return v

    b = BUF.sum().item()
    return a, b


def case_return(x):
    a = BUF.sum().item()

    def inner(v) -> bump():
        return v

    b = BUF.sum().item()
    return a, b
""",
    # 24. The first import of a module runs its code.
    "an_import_runs_the_module_code": """
import importlib.abc
import importlib.util
import sys

import torch

BUF = torch.arange(6.0)


class BumpingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name == "attnlint_differential_bumping":
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        BUF.add_(1)


def make_args():
    return (torch.arange(6.0),)


def case(x):
    finder = BumpingFinder()
    sys.meta_path.insert(0, finder)
    sys.modules.pop("attnlint_differential_bumping", None)
    try:
        a = BUF.sum().item()
        import attnlint_differential_bumping
        b = BUF.sum().item()
    finally:
        sys.meta_path.remove(finder)
        sys.modules.pop("attnlint_differential_bumping", None)
    return a, b
""",
    # 25. A store into an object other code holds may be one into the
    # module's namespace: it rebinds a global.
    "a_store_into_the_namespace_rebinds_a_global": """
import torch

BUF = torch.arange(6.0)
K = 0


def make_args():
    return (torch.arange(6.0), 3)


def case_globals_dict(x, n):
    namespace = globals()
    a = BUF.sum().item()
    namespace["BUF"] = x * 2
    b = BUF.sum().item()
    namespace["BUF"] = torch.arange(6.0)
    return a, b


def case_function_globals(x, n):
    a = BUF.sum().item()
    case_function_globals.__globals__["BUF"] = x * 3
    b = BUF.sum().item()
    case_function_globals.__globals__["BUF"] = torch.arange(6.0)
    return a, b


def case_reassignment(x, n):
    global K
    namespace = globals()
    K = n + 1
    namespace["K"] = 99
    K = n + 1
    return K
""",
    # 26. A frame's ``f_locals`` lists and holds the locals, as ``locals()``
    # does: of the function's own frame (``sys._getframe()``,
    # ``inspect.currentframe()``) or its caller's, from a helper
    # (``sys._getframe(1)``).
    "a_frame_holds_the_locals": """
import inspect
import sys

import torch


def bump_caller():
    sys._getframe(1).f_locals["x"].add_(1)


def names_of_caller():
    return sorted(sys._getframe(1).f_locals)


def peek_caller():
    return sys._getframe(1).f_locals["x"].sum().item()


def make_args():
    return (torch.arange(6.0), [1, 2])


def case_sync_own_frame(x, xs):
    a = x.sum().item()
    sys._getframe().f_locals["x"].add_(1)
    b = x.sum().item()
    return a, b


def case_sync_caller_frame(x, xs):
    a = x.sum().item()
    bump_caller()
    b = x.sum().item()
    return a, b


def case_reassignment_caller_frame(x, xs):
    k = x.sum().item()
    bump_caller()
    k = x.sum().item()
    return k


def case_alias_own_frame(x, xs):
    out = []
    for i in xs:
        start = i
        out.append(sorted(inspect.currentframe().f_locals))
    return out


def case_alias_caller_frame(x, xs):
    out = []
    for i in xs:
        start = i
        out.append(names_of_caller())
    return out


def case_zeros_read_through_a_frame(y, xs):
    x = torch.zeros(6)
    s = peek_caller()
    x.copy_(y)
    return x, s
""",
    # 27. ATN301: a sum of names that hold numbers may still raise: with a
    # constant that is no number (``i + "x"``, ``i - None``), of a slice
    # (``slice(i) + 1``), or of an int past the floats' range and a float
    # (``OverflowError``). Deleting the unused alias dropped the exception.
    "a_sum_of_numbers_may_raise": """
import torch


def make_args():
    return (3, [10**400, 10**400 + 1], torch.tensor([0.5]))


def case_string_constant(n, big, t):
    out = []
    for i in range(n):
        s = i + "x"
        out.append(i)
    return out


def case_none_constant(n, big, t):
    out = []
    for i in range(n):
        s = i - None
        out.append(i)
    return out


def case_slice(n, big, t):
    out = []
    for i in range(n):
        sl = slice(i)
        s = sl + 1
        out.append(i)
    return out


def case_float_constant_and_a_big_index(n, big, t):
    out = []
    for i in range(big[0], big[1]):
        s = i + 0.5
        out.append(1)
    return out


def case_item_and_a_big_int(n, big, t):
    out = []
    for v in big:
        k = int(v)
        f = t.item()
        s = k + f
        out.append(1)
    return out


def case_inlined_after_a_print(n, big, t):
    out = []
    for i in range(n):
        s = i + "x"
        print("side effect")
        out.append(s)
    return out
""",
    # 28. ATN301: an annotation is not checked at the call. With ``n: int``
    # given a list, ``i + n`` inlined at two uses makes two new lists where
    # the alias shared one: a change through one use was lost to the other.
    "an_annotation_is_not_checked": """
def make_args():
    return ([1], [2], 2)


def case(a: int, b: int, n):
    out = []
    for i in range(n):
        s = a + b
        out.append(s)
        s.append(i)
        out.append(len(s))
    return out
""",
    # 29. A module function bound once by its ``def`` may still be rebound
    # by the module's own code another way: through the namespace
    # (``globals()[...]``, ``setattr`` of the module), by ``exec``, by a
    # ``from m import *`` after the ``def``, or by replacing its code
    # (``f.__code__ = ...``). ATN101 took the ``def``'s full write as the
    # call's, and the call wrote half.
    "a_function_rebound_without_a_binding_statement": """
import torch


def _fill(dst, src):
    dst.copy_(src)


def _fill_code(dst, src):
    dst.copy_(src)


def _fill_exec(dst, src):
    dst.copy_(src)


def _half(dst, src):
    dst[:2].copy_(src[:2])


_fill_code.__code__ = _half.__code__
exec("def _fill_exec(dst, src):\\n    dst[:2].copy_(src[:2])\\n")


def imul(dst, src):
    dst.copy_(src)


from operator import *  # noqa: E402, F403 - binds ``imul`` again


def make_args():
    return (torch.arange(6.0) + 1,)


def case_globals(y):
    globals()["_fill"] = _half
    x = torch.zeros(6)
    _fill(x, y)
    return x


def case_code(y):
    x = torch.zeros(6)
    _fill_code(x, y)
    return x


def case_exec(y):
    x = torch.zeros(6)
    _fill_exec(x, y)
    return x


def case_star_import(y):
    x = torch.zeros(6)
    imul(x, y)
    return x
""",
    # 30. A public function of the module may be replaced by code the module
    # does not show (another module's patch, here one reaching the
    # namespace by a computed name): a write through it is assumed, and
    # ATN101's fix unsafe. (A private one is taken to be the module's own.)
    "a_public_function_replaced_by_other_code": """
import torch


def fill(dst, src):
    dst.copy_(src)


def half(dst, src):
    dst[:2].copy_(src[:2])


def patch():
    getattr(patch, "__glob" + "als__")["fill"] = half


def make_args():
    return (torch.arange(6.0) + 1,)


def case(y):
    patch()
    x = torch.zeros(6)
    fill(x, y)
    return x
""",
    # 31. A ``torch.distributed`` collective given a ``group`` returns at
    # once on a rank outside the group (``NON_GROUP_MEMBER``, what
    # ``dist.new_group(ranks)`` gives the others), its output unwritten.
    "a_collective_outside_its_group_writes_nothing": """
import torch
import torch.distributed as dist


def make_args():
    return (torch.arange(6.0) + 1, dist.GroupMember.NON_GROUP_MEMBER)


def case_gather(y, group):
    x = torch.zeros(6)
    dist.all_gather_into_tensor(x, y, group=group)
    return x


def case_scatter(y, group):
    x = torch.zeros(6)
    dist.reduce_scatter_tensor(x, y, dist.ReduceOp.SUM, group)
    return x


def case_all_to_all(y, group):
    x = torch.zeros(6)
    dist.all_to_all_single(x, y, group=group)
    return x


def case_recv(y, group):
    x = torch.zeros(6)
    dist.recv(x, 0, group)
    return x
""",
    # 32. ATN104: a factory given ``out=`` (``torch.ones(n, out=buf)``)
    # returns ``buf``, not a new tensor: another name reads the zeros.
    "a_factory_given_out_returns_that_tensor": """
import torch


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case(y, n):
    buf = torch.full((n,), 2.0)
    x = torch.ones(n, out=buf)
    x.zero_()
    s = buf.sum()
    x.copy_(y)
    return s * 1
""",
    # 33. ATN104: ``x.set_(buf)`` makes a new tensor share ``buf``'s memory:
    # ``buf`` then reads the zeros of ``x.zero_()``.
    "set_makes_a_new_tensor_share_memory": """
import torch


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case(y, n):
    buf = torch.full((n,), 2.0)
    x = torch.empty(n)
    x.set_(buf)
    x.zero_()
    s = buf.sum()
    x.copy_(y)
    return s * 1
""",
    # 34. ATN202: a class of the module runs code at a store or a load (a
    # property's setter, ``__setattr__``, ``__getitem__``, an operator):
    # deleting the repeated ``T = V`` runs it once less.
    "code_of_the_modules_classes_at_a_store_or_a_load": """
import torch


class Prop:
    def __init__(self):
        self.log = []

    @property
    def k(self):
        return len(self.log)

    @k.setter
    def k(self, v):
        self.log.append(v)


class Counter:
    def __init__(self):
        self.n = 0

    def __getitem__(self, i):
        self.n += 1
        return i


def make_args():
    return (torch.arange(6.0), 3)


def case_property(x, n):
    m = Prop()
    m.k = n
    j = 2
    m.k = n
    return m.log


def case_getitem(x, n):
    c = Counter()
    k = c[1]
    j = 2
    k = c[1]
    return c.n
""",
    # 35. ATN104: a manager entered by hand (``m.__enter__()``,
    # ``stack.enter_context(m)``) changes the autograd mode with no ``with``
    # showing it: the fill of an inference tensor raises, the write does not.
    "an_inference_mode_entered_by_hand": """
import contextlib

import torch


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_enter(y, n):
    with torch.inference_mode():
        x = torch.ones(n)
    x.zero_()
    mode = torch.inference_mode()
    mode.__enter__()
    x.copy_(y)
    mode.__exit__(None, None, None)
    return x.sum()


def case_exit_stack(y, n):
    with torch.inference_mode():
        x = torch.ones(n)
    x.zero_()
    stack = contextlib.ExitStack()
    stack.enter_context(torch.inference_mode())
    x.copy_(y)
    stack.close()
    return x.sum()
""",
    # 36. The arguments after ``out=x`` (``alpha=x.sum()``, ``**kw``), or
    # after a helper's written argument, are evaluated before the call
    # writes ``x``: they read what was there.
    "arguments_after_out_read_before_the_write": """
import torch


def _fill(dst, src):
    dst.copy_(src)


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_zeros(y, n):
    x = torch.zeros(n)
    torch.add(y, 1, out=x, alpha=x.sum() + 1)
    return x


def case_keywords(y, n):
    x = torch.zeros(n)
    torch.add(y, 1, out=x, **{"alpha": x.sum() + 1})
    return x


def case_helper(y, n):
    x = torch.zeros(n)
    _fill(x, y + x.sum())
    return x


def case_fill(y, n):
    x = torch.empty(n)
    x.zero_()
    torch.add(y, 1, out=x, alpha=x.sum() + 1)
    return x * 1
""",
    # 37. A method known by torch's name (``h.clone()``, ``h.new_empty(n)``,
    # ``h.new_zeros(n)``) may be one of the module's own classes, which
    # returns a tensor it keeps, or does something else.
    "a_method_of_the_modules_class_named_as_torchs": """
import torch


class Holder:
    def __init__(self):
        self.t = torch.full((6,), 2.0)

    def clone(self):
        return self.t

    def new_zeros(self, n):
        self.zeroed = True
        return self.t

    def new_empty(self, n):
        return self.t


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_clone(y, n):
    h = Holder()
    x = h.clone()
    x.zero_()
    s = h.t.sum()
    x.copy_(y)
    return s * 1


def case_new_empty(y, n):
    h = Holder()
    x = h.new_empty(n)
    x.zero_()
    s = h.t.sum()
    x.copy_(y)
    return s * 1


def case_new_zeros(y, n):
    h = Holder()
    x = h.new_zeros(n)
    x.copy_(y)
    return getattr(h, "zeroed", False)
""",
    # 38. ATN201: ``m.item()`` of an object of the module's own class runs
    # its ``item``: reusing the first value runs it once less.
    "item_of_the_modules_own_class": """
import torch


class Meter:
    def __init__(self):
        self.calls = 0

    def item(self):
        self.calls += 1
        return self.calls


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case(y, n):
    m = Meter()
    a = m.item()
    b = m.item()
    return a, b
""",
    # 39. ATN301: a value written over several lines (a comment, a
    # backslash continuation, a line break in parentheses) inlined into an
    # f-string's replacement field, which before Python 3.12 holds none of
    # them: the fixed text did not parse.
    "multiline_value_into_an_fstring": """
def make_args():
    return (3,)


def case_comment(n):
    out = []
    for i in range(n):
        j = (i  # the next row
             + 1)
        out.append(f"{j}")
    return out


def case_continuation(n):
    out = []
    for i in range(n):
        j = i + \\
            1
        out.append(f"{j}")
    return out


def case_line_break(n):
    out = []
    for i in range(n):
        j = (i +
             1)
        out.append(f"<{j}>")
    return out
""",
    # 40. A statement deleted on a row that a backslash continues into from
    # ``previous;``: deleting its rows joined the previous row to the next
    # statement, which moved into the block (a ``return`` into an ``if`` or
    # a loop body).
    "deleted_row_continued_from_a_separator": """
class M:
    pass


def make_args():
    return (M(), 3, False)


def case_reassignment(m, a, c):
    if c:
        m.k = a
        m.j = 1; \\
        m.k = a
    return 7


def case_loop_alias(m, n, c):
    out = []
    for i in range(n):
        out.append(0); \\
        j = i
    return out
""",
    # 41. ``o.__class__ = C`` changes what every attribute store and load of
    # ``o`` runs (``C``'s properties, its ``__setattr__``), as a store into
    # ``o.__dict__`` changes every attribute: ATN202 deleted a repeated
    # ``m.k = a`` whose store now ran a setter, and ATN201 reused a value
    # read through a property.
    "store_into_the_class_of_an_object": """
import torch

LOG = []


class M:
    pass


def _set(self, value):
    LOG.append(value)


N = type("N", (), {"k": property(lambda self: len(LOG), _set)})
T = type("T", (), {"t": property(lambda self: torch.ones(2) * len(LOG))})


def make_args():
    return (M(), 3)


def case_store(m, a):
    m.k = a
    m.__class__ = N
    m.k = a
    return m.k


def case_read(m, a):
    m.t = torch.zeros(2)
    LOG.append(a)
    first = m.t.sum().item()
    m.__class__ = T
    second = m.t.sum().item()
    return first, second
""",
    # 42. ATN101 rewrote an allocator imported by name (``zeros(n)``) to a
    # name the module imports (``empty``, ``torch``) where a parameter or
    # local of the function took it: the call went to that.
    "counterpart_name_taken_where_the_call_is": """
import torch
from torch import empty, full, zeros


def make_args():
    return (torch.arange(6.0), 6)


def case_parameter(y, n, empty=lambda n: torch.ones(n, dtype=torch.int32)):
    x = zeros(n)
    x.copy_(y)
    return x


def case_local(y, n):
    empty = lambda n: torch.ones(n, dtype=torch.int32)
    x = zeros(n)
    x.copy_(y)
    return x, empty(1)


def case_enclosing(y, n):
    empty = lambda n: torch.ones(n, dtype=torch.int32)

    def inner():
        x = zeros(n)
        x.copy_(y)
        return x

    return inner(), empty(1)


def case_torch_for_the_dtype(y, n, torch=None):
    x = full((n,), 0)
    x.copy_(y)
    return x
""",
    # 43. ATN301: an alias whose value may raise (``v + 1`` of a string),
    # inlined at a first use that the next statement evaluates after
    # something else that may raise first (``out.append`` looked up on
    # None, ``d["k"]`` missing, ``1 / d``): another exception came out.
    "inlined_raise_after_another_that_may_raise": """
def make_args():
    return (["a", "b"], None, {}, 0)


def case_attribute(vs, out, d, z):
    for v in vs:
        s = v + 1
        out.append(s)


def case_subscript(vs, out, d, z):
    for v in vs:
        s = v + 1
        d["missing"].append(s)


def case_argument(vs, out, d, z):
    for v in vs:
        s = v + 1
        print(d["missing"], s)


def case_operand(vs, out, d, z):
    for v in vs:
        s = v + 1
        print(1 / z + s)


def case_list(vs, out, d, z):
    for v in vs:
        s = v - 1
        return [out.x, s]
""",
    # 44. ATN202: a subscript or a view attribute makes a new object each
    # time (a slice of a list is a new list, ``t[0:2]`` and ``t.T`` new view
    # objects), as ``x * 2`` does: deleting the repeat left the target
    # holding the first object, which another name had changed meanwhile.
    "subscript_makes_a_new_object": """
import torch


def make_args():
    return ([1, 2, 3], torch.arange(6.0))


def case_slice(a, t):
    x = a[:]
    y = x
    x = a[:]
    y.append(9)
    return x


def case_view(a, t):
    x = t[0:2]
    y = x
    x = t[0:2]
    y.unsqueeze_(0)
    return x


def case_identity(a, t):
    x = a[1:]
    y = x
    x = a[1:]
    return x is y


def case_view_attribute(a, t):
    x = t.T
    y = x
    x = t.T
    y.unsqueeze_(0)
    return x
""",
    # 45. ATN301 took ``v.numel()`` and ``v.size(0)`` for integers by their
    # torch names, so deleted an unused ``s = k + 1`` as one that cannot
    # raise; ``v`` was an object of the module's own class, whose ``numel``
    # returned a string, and ``k + 1`` raised.
    "integer_method_of_the_modules_own_class": """
class Rows:
    def numel(self):
        return "many"

    def size(self, dim):
        return "many"


def make_args():
    return ([Rows(), Rows()],)


def case_numel(rows):
    out = []
    for v in rows:
        k = v.numel()
        s = k + 1
        out.append(1)
    return out


def case_size(rows):
    out = []
    for v in rows:
        k = v.size(0)
        s = k - 1
        out.append(1)
    return out
""",
    # 46. A method called between two reads, known by a torch name as
    # read-only or in-place on its receiver alone (``h.size()``,
    # ``h.view(-1)``, ``H.dim()``), is the module's own code where a class
    # of the module defines it: it changed the tensor ATN201 read twice.
    "torch_named_method_of_the_modules_own_class_between": """
import torch


class Holder:
    t = None

    def __init__(self, t):
        self.t = t

    def size(self):
        self.t.add_(1)
        return 1

    def view(self, *shape):
        self.t.add_(1)
        return self

    @classmethod
    def dim(cls):
        cls.t.add_(1)
        return 1


def make_args():
    return (torch.arange(6.0),)


def case_size(x):
    h = Holder(x)
    a = x.sum().item()
    h.size()
    b = x.sum().item()
    return a, b


def case_view(x):
    h = Holder(x)
    a = x.sum().item()
    h.view(-1)
    b = x.sum().item()
    return a, b


def case_class_method(x):
    Holder.t = x
    a = x.sum().item()
    Holder.dim()
    b = x.sum().item()
    return a, b
""",
    # 47. ATN101 called the ``empty`` (or named the ``torch``) of an import
    # the module runs only under a condition (``if TYPE_CHECKING:``, a
    # ``try`` body, an ``except`` handler): at run time the name was unbound.
    "counterpart_imported_under_a_condition": """
from typing import TYPE_CHECKING

import torch
from torch import zeros

if TYPE_CHECKING:
    from torch import empty

try:
    pass
except ImportError:
    from torch import empty_like


def make_args():
    return (torch.arange(6.0), 6)


def case_type_checking(y, n):
    x = zeros(n)
    x.copy_(y)
    return x


def case_handler(y, n):
    x = torch.zeros_like(y)
    x.copy_(y)
    return x
""",
    # 48. ATN101 named a module-level name the call did not read (``empty``
    # added to ``from torch import zeros``, or ``torch`` for a dtype) in a
    # module that rebinds names through its namespace (``globals()[...]``,
    # ``vars()``, ``exec``): the call went to what the module bound there.
    "counterpart_name_rebound_through_the_namespace": """
import torch
from torch import zeros


def _ones(n):
    return torch.ones(n, dtype=torch.int32)


globals()["empty"] = _ones


def make_args():
    return (torch.arange(6.0), 6)


def case(y, n):
    x = zeros(n)
    x.copy_(y)
    return x
""",
    # 49. ATN101 called an ``empty`` the module imports after the function's
    # ``def``; the module calls the function while it is imported, before
    # that import has run (NameError, caught here as another result).
    "counterpart_imported_after_the_function": """
import torch
from torch import zeros


def fill(y, n):
    x = zeros(n)
    x.copy_(y)
    return x


try:
    AT_IMPORT = fill(torch.arange(3.0), 3)
except NameError:
    AT_IMPORT = None

from torch import empty


def make_args():
    return ()


def case():
    return AT_IMPORT
""",
    # 50. ATN101 did not count a nested ``def``'s annotations as a read:
    # Python evaluates them where the ``def`` stands, before the write.
    "annotation_of_a_nested_def_reads_the_zeros": """
import torch


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_parameter(y, n):
    x = torch.zeros(n)

    def g(**a: x.sum()):
        return a

    x.copy_(y)
    return x, g.__annotations__


def case_return(y, n):
    x = torch.zeros(n)

    def g() -> x.sum():
        return 1

    x.copy_(y)
    return x, g.__annotations__
""",
    # 51. ATN301 took a loop alias read only by a nested ``def``'s annotation
    # for an unused one and deleted it: the ``def`` raised ``NameError``.
    "loop_alias_read_by_an_annotation": """
def make_args():
    return ([10, 20, 30],)


def case(xs):
    out = []
    for idx in range(3):
        start = idx + 1

        def g(a: start) -> start:
            pass

        out.append(g.__annotations__)
    return out
""",
    # 52. ATN201 took ``raise E`` for a statement that runs no code: raising a
    # class calls it, and the module's ``__init__`` changed the tensor.
    "raising_a_class_runs_its_init": """
import torch

HELD = []


class Retry(Exception):
    def __init__(self):
        HELD[-1].add_(1)


def make_args():
    return (torch.arange(6.0),)


def case(t):
    HELD.append(t)
    a = t.sum().item()
    try:
        raise Retry
    except Retry:
        pass
    b = t.sum().item()
    return a, b
""",
    # 53. ATN101 called an ``empty`` (or named a ``torch`` for a dtype) that a
    # second import of the module rebinds, before the function or after it
    # (the function runs once the module is imported): the call went to
    # ``os`` (``TypeError``), the dtype to ``torch.nn`` (``AttributeError``).
    "counterpart_name_rebound_by_another_import": """
import torch
from torch import zeros, empty


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case(y, n):
    x = zeros(n)
    x.copy_(y)
    return x


import os as empty
""",
    "dtype_module_rebound_by_another_import": """
import torch
from torch import full


def make_args():
    return (full((6,), 1.0).cumsum(0), 6)


def case(y, n):
    x = full((n,), 0)
    x.copy_(y)
    return x


import torch.nn as torch
""",
    # 54. The flow graph took ``for _ in range(1):`` for a loop whose body
    # runs at least once where ``range`` was the module's own function (or a
    # parameter): the body's write was taken for a full write on every path
    # (ATN101), and the fill before it for one never seen (ATN104).
    "range_that_is_not_the_builtin": """
import torch


def range(*bounds):
    return []


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_zeros(y, n):
    x = torch.zeros(n)
    for _ in range(1):
        x.copy_(y)
    return x


def case_fill(y, n):
    x = torch.ones(n)
    x.zero_()
    for _ in range(2):
        x.copy_(y)
    return x.tolist()


def _fill(dst, src, range=lambda *bounds: ()):
    for _ in range(1):
        dst.copy_(src)


def case_helper(y, n):
    x = torch.zeros(n)
    _fill(x, y)
    return x
""",
    # 55. ATN201 took the operators and truth tests between two syncs for
    # plain where a class of the module defines the special method they run
    # (``if o:`` runs ``__bool__``, ``assert o`` too, ``o + 1`` ``__add__``),
    # and the method changed the tensor.
    "special_method_of_the_modules_class_in_between": """
import torch


class Box:
    def __init__(self, t):
        self.t = t

    def __bool__(self):
        self.t.add_(1)
        return True

    def __add__(self, other):
        self.t.add_(1)
        return other


def make_args():
    return (torch.arange(6.0),)


def case_if(t):
    o = Box(t)
    a = t.sum().item()
    if o:
        pass
    b = t.sum().item()
    return a, b


def case_assert(t):
    o = Box(t)
    a = t.sum().item()
    assert o
    b = t.sum().item()
    return a, b


def case_add(t):
    o = Box(t)
    a = t.sum().item()
    c = o + 1
    b = t.sum().item()
    return a, b, c
""",
    # 56. ATN201 took an attribute load between two syncs for plain where a
    # class of the module runs code on it (a property's getter, a descriptor's
    # ``__get__``, a ``functools.cached_property``) that changed the tensor.
    "attribute_load_of_the_modules_class_in_between": """
import functools

import torch


class Counted:
    def __get__(self, obj, objtype=None):
        obj.t.add_(1)
        return 2


class Box:
    d = Counted()

    def __init__(self, t):
        self.t = t

    @property
    def p(self):
        self.t.add_(1)
        return 1

    @functools.cached_property
    def c(self):
        self.t.add_(1)
        return 3


def make_args():
    return (torch.arange(6.0),)


def case_property(t):
    o = Box(t)
    a = t.sum().item()
    z = o.p
    b = t.sum().item()
    return a, b, z


def case_descriptor(t):
    o = Box(t)
    a = t.sum().item()
    z = o.d
    b = t.sum().item()
    return a, b, z


def case_cached_property(t):
    o = Box(t)
    a = t.sum().item()
    z = o.c
    b = t.sum().item()
    return a, b, z
""",
    # 57. A finalizer of the module (a class's ``__del__``, a ``weakref.finalize``
    # callback) runs where a reference drops: ``o = None`` or ``del o`` between
    # two syncs ran code that changed the tensor; ATN201 reused the first value.
    "finalizer_between_syncs": """
import weakref

import torch


class Box:
    def __init__(self, t):
        self.t = t

    def __del__(self):
        self.t.add_(1)


class Plain:
    pass


def make_args():
    return (torch.arange(6.0),)


def case_rebound(t):
    o = Box(t)
    a = t.sum().item()
    o = None
    b = t.sum().item()
    return a, b, o


def case_deleted(t):
    o = Box(t)
    a = t.sum().item()
    del o
    b = t.sum().item()
    return a, b


def case_weakref_callback(t):
    p = Plain()
    weakref.finalize(p, t.add_, 1)
    a = t.sum().item()
    p = None
    b = t.sum().item()
    return a, b, p
""",
    # 58. A builtin given an object of the module's class runs its special
    # methods (``len(o)`` its ``__len__``, ``range(o)`` its ``__index__``, a dict
    # display its ``__hash__``), and ``C[int]`` its ``__class_getitem__``:
    # ATN201 took them for plain and reused a value the method had changed.
    "builtin_runs_a_special_method_of_the_modules_class": """
import torch

BUF = torch.arange(6.0)


class Box:
    def __init__(self, t):
        self.t = t

    def __len__(self):
        self.t.add_(1)
        return 1

    def __hash__(self):
        self.t.add_(1)
        return 1

    def __index__(self):
        self.t.add_(1)
        return 1


class Generic:
    def __class_getitem__(cls, key):
        BUF.add_(1)
        return cls


def make_args():
    return (torch.arange(6.0),)


def case_len(t):
    o = Box(t)
    a = t.sum().item()
    n = len(o)
    b = t.sum().item()
    return a, b, n


def case_range(t):
    o = Box(t)
    a = t.sum().item()
    r = range(o)
    b = t.sum().item()
    return a, b, len(r)


def case_dict_display(t):
    o = Box(t)
    a = t.sum().item()
    d = {o: 1}
    b = t.sum().item()
    return a, b, len(d)


def case_class_getitem(t):
    a = BUF.sum().item()
    Generic[int]
    b = BUF.sum().item()
    return a, b
""",
    # 59. A module that replaces a method of ``torch.Tensor`` (``torch.Tensor.item
    # = f``, ``setattr(torch.Tensor, "copy_", g)``) makes torch's name its own
    # code: ATN201 reused an ``item()`` that counts its calls, ATN101 took a
    # ``copy_`` that writes one element for a full write.
    "torch_method_replaced_by_the_module": """
import torch

_ITEM = torch.Tensor.item
_COPY = torch.Tensor.copy_


def _counting_item(self):
    _counting_item.calls += 1
    return _ITEM(self) + _counting_item.calls


_counting_item.calls = 0


def _first_copy(self, src, non_blocking=False):
    self[:1] = src[:1]
    return self


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_item(y, n):
    torch.Tensor.item = _counting_item
    try:
        a = y.sum().item()
        b = y.sum().item()
    finally:
        torch.Tensor.item = _ITEM
    return a, b


def case_copy(y, n):
    setattr(torch.Tensor, "copy_", _first_copy)
    try:
        x = torch.zeros(n)
        x.copy_(y)
    finally:
        torch.Tensor.copy_ = _COPY
    return x


def case_fill(y, n):
    setattr(torch.Tensor, "copy_", _first_copy)
    try:
        x = torch.ones(n)
        x.zero_()
        x.copy_(y)
    finally:
        torch.Tensor.copy_ = _COPY
    return x
""",
    # 60. A tensor subclass of the module with ``__torch_function__`` runs its own
    # code for every torch function of its tensors: ATN101 took its ``copy_``,
    # which writes one element, for a full write of ``zeros_like``'s result.
    "tensor_subclass_of_the_module": """
import torch


class FirstOnly(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        with torch._C.DisableTorchFunctionSubclass():
            if func is torch.Tensor.copy_:
                args[0][:1] = args[1][:1]
                return args[0]
            return func(*args, **kwargs)


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_zeros_like(y, n):
    s = y.as_subclass(FirstOnly)
    x = torch.zeros_like(s)
    x.copy_(s)
    return x.as_subclass(torch.Tensor)
""",
    # 61. A trace or profile function the module installs (``sys.settrace``,
    # ``sys.setprofile``) runs at every line or call and changed the tensor:
    # ATN201 reused a value with no code in sight between the two syncs.
    "trace_function_of_the_module": """
import sys

import torch

BUF = torch.arange(6.0)


def _trace(frame, event, arg):
    if event == "line" and frame.f_code.co_name.startswith("case"):
        BUF.add_(1)
    return _trace


def _profile(frame, event, arg):
    if event == "c_call" and frame.f_code.co_name.startswith("case"):
        BUF.add_(1)


def make_args():
    return (torch.arange(6.0),)


def case_trace(t):
    old = sys.gettrace()
    sys.settrace(_trace)
    try:
        a = BUF.sum().item()
        b = BUF.sum().item()
    finally:
        sys.settrace(old)
    return a, b


def case_profile(t):
    old = sys.getprofile()
    sys.setprofile(_profile)
    try:
        a = BUF.sum().item()
        b = BUF.sum().item()
    finally:
        sys.setprofile(old)
    return a, b
""",
    # 62. ATN301 deleted an unused loop alias that kept the previous item alive
    # until its own statement: without it, the item's ``__del__`` (the
    # module's class) ran at the loop's rebinding, before the body's first
    # statement instead of after it.
    "alias_delays_a_finalizer": """
import torch

LOG = []


class Box:
    def __init__(self, k):
        self.k = k

    def __del__(self):
        LOG.append(self.k)


def make_args():
    return ()


def case_alias():
    for o in (Box(k) for k in range(3)):
        LOG.append("start")
        j = o
        LOG.append("body")
    return list(LOG)
""",
    # 63. A module that replaces a builtin (``builtins.len = f``) makes its name
    # the module's code: ATN201 took ``len(xs)`` between two syncs for the
    # builtin, which changes nothing, and reused a value ``f`` had changed.
    "builtin_replaced_by_the_module": """
import builtins

import torch

BUF = torch.arange(6.0)
_LEN = builtins.len


def _len(x):
    BUF.add_(1)
    return _LEN(x)


def make_args():
    return ([1, 2],)


def case_len(xs):
    builtins.len = _len
    try:
        a = BUF.sum().item()
        n = len(xs)
        b = BUF.sum().item()
    finally:
        builtins.len = _LEN
    return a, b, n
""",
    # 64. A tensor subclass of the module that defines a method of torch's name
    # (``copy_``, ``__setitem__``, ``fill_``) runs it for the tensors torch
    # makes of it (``zeros_like`` of one): ATN101 took ``x.copy_(y)``, ``x[:] =
    # y`` and ``x.fill_(2)`` for full writes, and they wrote one element or
    # none.
    "tensor_subclass_method_of_the_module": """
import torch


class Half(torch.Tensor):
    def copy_(self, src, non_blocking=False):
        with torch.no_grad():
            torch.Tensor.narrow(self, 0, 0, 1).fill_(9)
        return self


class Set(torch.Tensor):
    def __setitem__(self, k, v):
        torch.Tensor.__setitem__(self, 0, 5)

    def fill_(self, v):
        return self


def make_args():
    return (torch.arange(6.0) + 1, 6)


def case_copy(y, n):
    s = y.as_subclass(Half)
    x = torch.zeros_like(s)
    x.copy_(y)
    return x.as_subclass(torch.Tensor)


def case_setitem(y, n):
    s = y.as_subclass(Set)
    x = torch.zeros_like(s)
    x[:] = y
    return x.as_subclass(torch.Tensor)


def case_fill(y, n):
    s = y.as_subclass(Set)
    x = torch.ones_like(s)
    x.zero_()
    x.fill_(2)
    return x.as_subclass(torch.Tensor).tolist()


def case_zero(y, n):
    s = y.as_subclass(Set)
    x = torch.zeros_like(s)
    x.fill_(2)
    return x.as_subclass(torch.Tensor).tolist()
""",
    # 65. A subscript hashes its key: ATN202 deleted a repeated ``v = d[k]``
    # where the key's class (the module's) defines ``__hash__``, which then ran
    # once less.
    "dict_key_hash_of_the_modules_class": """
import torch

LOG = []


class Key:
    def __hash__(self):
        LOG.append("hash")
        return 1

    def __eq__(self, other):
        return True


def make_args():
    return (torch.arange(6.0),)


def case_subscript(t):
    d = {}
    k = Key()
    d[k] = t
    v = d[k]
    v = d[k]
    return v, len(d), list(LOG)
""",
    # 66. ATN202 deleted a repeated ``m.k = n + 1`` across an attribute load
    # whose property (the module's class) changed ``m.k`` through an object
    # that holds ``m``.
    "property_between_atn202_stores": """
import torch

HOLD = []


class Box:
    @property
    def p(self):
        HOLD[0].k = 99
        return 1


class M:
    pass


def make_args():
    return (M(), 2)


def case_atn202(m, n):
    HOLD.append(m)
    o = Box()
    m.k = n + 1
    z = o.p
    m.k = n + 1
    HOLD.clear()
    return m.k, z
""",
    # 67. ``torch.zeros`` and ``torch.full`` refuse ``memory_format`` (a
    # ``TypeError``), which ``torch.empty`` takes: ATN101's rewrite made a
    # call that raised succeed.
    "memory_format_the_zero_fill_refuses": """
import torch


def make_args():
    return (torch.arange(16.0).reshape(1, 4, 2, 2) + 1,)


def case_zeros(y):
    x = torch.zeros(1, 4, 2, 2, memory_format=torch.channels_last)
    x.copy_(y)
    return x


def case_full(y):
    x = torch.full((1, 4, 2, 2), 0.0, memory_format=torch.channels_last)
    x.copy_(y)
    return x
""",
    # 68. ATN202 deleted a repeated ``a = x * 2`` across a change of one of
    # torch's global modes, which tensor operations read: under ``no_grad``
    # the result does not require grad, under ``inference_mode`` it is an
    # inference tensor, under autocast it is bfloat16, after
    # ``set_default_dtype`` an integer division is float64, after
    # ``set_flush_denormal`` a denormal is zero; and a function of the
    # module that sets the mode runs between as well as a ``with`` does.
    "global_mode_between_atn202_assignments": """
import contextlib

import torch


def off():
    torch.set_grad_enabled(False)


@contextlib.contextmanager
def quiet():
    with torch.no_grad():
        yield


def make_args():
    return (torch.arange(9.0, requires_grad=True).reshape(3, 3) / 7,)


def case_no_grad(x):
    a = x * 2
    with torch.no_grad():
        a = x * 2
    return a.requires_grad


def case_inference_mode(x):
    a = x * 2
    with torch.inference_mode():
        a = x * 2
    return a.is_inference()


def case_autocast(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        a = x @ x
    a = x @ x
    return a


def case_default_dtype(x):
    n = torch.arange(3)
    a = n / 3
    torch.set_default_dtype(torch.float64)
    a = n / 3
    torch.set_default_dtype(torch.float32)
    return a


def case_flush_denormal(x):
    d = torch.tensor([1e-39])
    a = d * 1
    torch.set_flush_denormal(True)
    a = d * 1
    torch.set_flush_denormal(False)
    return a


def case_module_function(x):
    a = x * 2
    off()
    a = x * 2
    torch.set_grad_enabled(True)
    return a.requires_grad


def case_manager_of_the_module(x):
    a = x * 2
    with quiet():
        a = x * 2
    return a.requires_grad
""",
    # 69. ATN201 reused a ``.item()`` across a change of a mode that decides
    # the value (autocast, flushing denormals; grad mode, for a chain that
    # reads ``requires_grad``): the chain computes another.
    "global_mode_between_atn201_syncs": """
import torch


def make_args():
    return (torch.arange(9.0, requires_grad=True).reshape(3, 3) / 7,)


def case_requires_grad(x):
    a = ((x * 2).requires_grad + x).sum().item()
    with torch.no_grad():
        b = ((x * 2).requires_grad + x).sum().item()
    return a, b


def case_autocast(x):
    a = (x @ x).sum().item()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        b = (x @ x).sum().item()
    return a, b


def case_flush_denormal(x):
    d = torch.full((3,), 1e-39)
    a = (d * 1).sum().item()
    torch.set_flush_denormal(True)
    b = (d * 1).sum().item()
    torch.set_flush_denormal(False)
    return a, b
""",
    # 70. ATN202 deleted a repeated ``a = x * 2`` whose first object's
    # identity was taken in between (``id(a)``, ``a.data_ptr()``): both
    # objects are alive when the second is made, so the identity taken never
    # matched the new one; after the deletion it does (a cache keyed by
    # ``data_ptr()`` is served a stale entry).
    "identity_of_the_first_atn202_object": """
import torch


def make_args():
    return (torch.arange(3.0),)


def case_id(x):
    a = x * 2
    i = id(a)
    a = x * 2
    return i == id(a)


def case_data_ptr(x):
    a = x * 2
    p = a.data_ptr()
    a = x * 2
    return p == a.data_ptr()
""",
    # 71. ATN101 rewrote an allocation given a sparse ``layout``, which the
    # zero-filled and the uninitialized allocators do not take alike:
    # ``empty_like`` refuses one that ``zeros_like`` takes (a call that
    # worked raised), ``full`` one that ``empty`` takes (the other way).
    "sparse_layout_of_the_allocation": """
import torch


def make_args():
    return (torch.tensor([0.0, 2.0, 0.0]), 3)


def case_zeros_like(y, n):
    x = torch.zeros_like(y, layout=torch.sparse_coo)
    x.copy_(y.to_sparse())
    return x.to_dense()


def case_full(y, n):
    x = torch.full((n,), 0.0, layout=torch.sparse_coo)
    x.copy_(y.to_sparse())
    return x.to_dense()
""",
    # 72. ATN201/ATN202 reused a value across a mode set by a function of
    # torch outside ``torch`` itself: ``torch.backends.mkldnn.set_flags``
    # (under a float32 matmul precision of "medium" a CPU matmul is
    # oneDNN's bfloat16 one with the flag and MKL's float32 one without;
    # ``torch.cuda.set_device``, ``torch.backends.cuda.enable_flash_sdp``
    # are such setters too). The precision is set by a name computed when
    # it runs, which no check reads, as code of another module would.
    "mode_set_by_a_backend_flag": """
import torch


def precision(value):
    getattr(torch, "set_float32_" + "matmul_precision")(value)


def make_args():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(256, 512, generator=g), torch.randn(512, 256, generator=g))


def case_atn201(x, w):
    precision("medium")
    a = (x @ w).sum().item()
    torch.backends.mkldnn.set_flags(False)
    b = (x @ w).sum().item()
    torch.backends.mkldnn.set_flags(True)
    precision("highest")
    return a, b


def case_atn202(x, w):
    precision("medium")
    a = x @ w
    torch.backends.mkldnn.set_flags(False)
    a = x @ w
    torch.backends.mkldnn.set_flags(True)
    precision("highest")
    return a
""",
    # 73. ATN201/ATN202 reused a value across a call of a helper of the
    # module that sets a mode through a setter imported under another name
    # (``from torch import set_default_dtype as sdd``: ``k / 3`` of
    # integers is float64 after it).
    "mode_set_by_an_aliased_setter": """
import torch
from torch import set_default_dtype as sdd


def widen():
    sdd(torch.float64)


def narrow():
    sdd(torch.float32)


def make_args():
    return (torch.arange(5),)


def case_atn201(k):
    a = (k / 3).sum().item()
    widen()
    b = (k / 3).sum().item()
    narrow()
    return a, b


def case_atn202(k):
    a = k / 3
    widen()
    a = k / 3
    narrow()
    return a
""",
    # 90. ATN201 reused a ``.item()`` across ``out.append(v)`` of a local
    # bound to ``[]``, which a nested function had rebound by a ``def`` after
    # ``nonlocal out`` (a binding not a ``Name``: no store of the function).
    "list_local_rebound_by_nested_def": """
import torch

def make_args():
    return (3,)

def case(n):
    t = torch.zeros(n)
    out = []

    def g():
        nonlocal out

        def out():
            pass

        out.append = lambda v: t.add_(1)

    g()
    a = t.sum().item()
    out.append(1)
    b = t.sum().item()
    return a, b
""",
    # 91. ATN201 reused a ``.item()`` across a call of a nested function that
    # changes the tensor through the enclosing ``out``: a name a deeper
    # function binds (``out = 0`` in ``h``) was taken for the nested
    # function's own, its use of the enclosing ``out`` not seen.
    "name_of_a_deeper_scope_hides_the_nested_use": """
import torch

def make_args():
    return (3,)

def case(n):
    t = torch.zeros(n)
    out = [t]

    def g():
        out[0].add_(1)

        def h():
            out = 0
            return out

    a = t.sum().item()
    g()
    b = t.sum().item()
    return a, b
""",
    # 74. ATN201 reused the first ``.item()`` (``t = s``) where the function
    # compares identities: two ``.item()`` calls return two float objects
    # (``t is s`` is False), the reused one is one object (True). ATN202's
    # deletion of a repeated ``s = x.max().item()`` after ``i = id(s)`` the
    # same way.
    "identity_of_a_reused_item": """
import torch


def make_args():
    return (torch.arange(6.0) + 1000.5,)


def case_is(x):
    s = x.max().item()
    t = x.max().item()
    return t is s


def case_id(x):
    s = x.max().item()
    t = x.max().item()
    return id(t) == id(s)


def case_id_before(x):
    s = x.max().item()
    i = id(s)
    s = x.max().item()
    return i == id(s)
""",
    # 75. ATN301 inlined ``w = i + 1000`` at two uses where the function
    # compares identities: the alias shared one int object, the two sums
    # are two (``out[0] is out[1]`` was True, then False).
    "identity_of_an_inlined_sum": """
import torch


def make_args():
    return ([torch.arange(3.0), torch.arange(2.0) + 5],)


def case_list(xs):
    out = []
    for i, v in enumerate(xs):
        w = i + 1000
        out.append(w)
        out.append(w)
    return [out[0] is out[1], out[2] is out[3]]


def case_tuple(xs):
    out = []
    for i, v in enumerate(xs):
        w = i + 1000.5
        out.append((w, w))
    return [a is b for a, b in out]
""",
    # 92. ATN201 reused a ``.item()`` of ``x`` across ``t.add_(1)`` where
    # ``t`` came from unknown code that can reach ``x``: a nested function
    # returning ``x`` (``t = g()``), a lambda, a generator, a local class
    # whose body stored it, or a helper returning a global; ATN202 deleted a
    # repeated ``s = t.sum().item()`` of such a ``t`` across ``x.mul_(2)``.
    # An object from unknown code may be any object that code can reach.
    "object_from_unknown_code_is_a_reachable_one": """
import torch

BUF = torch.arange(6.0)


def make_args():
    return (torch.arange(6.0) + 1,)


def get():
    return BUF


def case_closure(x):
    def g():
        return x

    t = g()
    a = x.sum().item()
    t.add_(1)
    b = x.sum().item()
    return a, b


def case_lambda_view(x):
    t = (lambda: x[:2])()
    a = x.sum().item()
    t.add_(1)
    b = x.sum().item()
    return a, b


def case_generator(x):
    def g():
        yield x

    for t in g():
        a = x.sum().item()
        t.add_(1)
        b = x.sum().item()
    return a, b


def case_class_attribute(x):
    class K:
        v = x

    t = K.v
    a = x.sum().item()
    t.add_(1)
    b = x.sum().item()
    return a, b


def case_global(x):
    t = get()
    a = BUF.sum().item()
    t.add_(1)
    b = BUF.sum().item()
    return a, b


def case_read_through_it(x):
    def g():
        return x

    t = g()
    s = t.sum().item()
    x.mul_(2)
    s = t.sum().item()
    return s
""",
    # 93. ATN201 reused a ``.item()`` of ``x`` across ``REG[-1].add_(1)``
    # after ``keep(x)`` had stored ``x`` in the global ``REG`` (or a nested
    # function in a list or dict it closes over), and the other way round;
    # ATN202 deleted a repeated ``s = x.sum().item()`` so. What was given
    # to unknown code may be inside anything that code reaches.
    "object_given_to_unknown_code_is_inside_a_reachable_one": """
import torch

REG = []


def make_args():
    return (torch.arange(6.0) + 1,)


def keep(t):
    REG.append(t)


def case_global_list(x):
    keep(x)
    a = x.sum().item()
    REG[-1].add_(1)
    b = x.sum().item()
    return a, b


def case_closure_list(x):
    hold = []

    def put(t):
        hold.append(t)

    put(x)
    a = x.sum().item()
    hold[0].add_(1)
    b = x.sum().item()
    return a, b


def case_closure_dict(x):
    cell = {}

    def put(t):
        cell["t"] = t

    put(x)
    a = x.sum().item()
    cell["t"].add_(1)
    b = x.sum().item()
    return a, b


def case_deleted(x):
    keep(x)
    s = x.sum().item()
    REG[-1].mul_(2)
    s = x.sum().item()
    return s


def case_read_through_the_global(x):
    keep(x)
    a = REG[-1].sum().item()
    x.add_(1)
    b = REG[-1].sum().item()
    return a, b
""",
    # 94. ATN201 reused a ``.item()`` of ``x`` across unknown code given
    # ``x.data_ptr()`` (``ctypes.memset(p, 0, 8)``, as a kernel is given
    # its pointer arguments), which wrote ``x``'s memory through the
    # address; ATN202 deleted a repeated ``s = x.sum().item()`` so.
    "code_given_an_address_writes_the_tensor": """
import ctypes

import torch


def make_args():
    return (torch.arange(6.0) + 1,)


def case_address_of_a_view(x):
    a = x.sum().item()
    ctypes.memset(x[2:].data_ptr(), 0, 8)
    b = x.sum().item()
    return a, b


def case_address_held(x):
    p = x.data_ptr()
    a = x.sum().item()
    ctypes.memset(p, 0, 8)
    b = x.sum().item()
    return a, b


def case_deleted(x):
    s = x.sum().item()
    ctypes.memset(x.data_ptr(), 0, 8)
    s = x.sum().item()
    return s
""",
    # 95. ATN201 reused a ``.item()`` of ``w.grad`` across a helper that
    # ran ``loss.backward()`` on a loss computed from ``w`` (or
    # ``torch.autograd.backward`` imported in the function under another
    # name), which accumulated into ``w.grad``; ATN202 deleted a repeated
    # ``s = w.grad.sum().item()`` so, and a repeated ``w.grad = None``.
    # Unknown code given any tensor of a graph may accumulate into the
    # ``.grad`` of its leaves.
    "backward_run_by_unknown_code": """
import torch


def make_args():
    return (torch.arange(6.0) + 1,)


def run(loss):
    loss.backward()


def case_helper(x):
    w = x.clone().requires_grad_()
    (w * 2).sum().backward()
    a = w.grad.sum().item()
    run((w * 3).sum())
    b = w.grad.sum().item()
    return a, b


def case_imported_here(x):
    from torch.autograd import backward as bw

    w = x.clone().requires_grad_()
    (w * 2).sum().backward()
    a = w.grad.sum().item()
    bw((w * 3).sum())
    b = w.grad.sum().item()
    return a, b


def case_held_grad(x):
    w = x.clone().requires_grad_()
    (w * 2).sum().backward()
    g = w.grad
    a = g.sum().item()
    run((w * 3).sum())
    b = g.sum().item()
    return a, b


def case_deleted(x):
    w = x.clone().requires_grad_()
    (w * 2).sum().backward()
    s = w.grad.sum().item()
    run((w * 3).sum())
    s = w.grad.sum().item()
    return s


def case_cleared_again(x):
    w = x.clone().requires_grad_()
    w.grad = None
    run((w * 3).sum())
    w.grad = None
    return w.grad
""",
    # 96. ATN201 reused a ``.item()`` of ``x`` across a ``match`` whose
    # patterns or guard ran a class of the module on the subject: a class
    # pattern's named or positional (``__match_args__``) attribute ran a
    # property's getter, a value pattern ``__eq__``, a sequence pattern
    # ``__len__`` and ``__getitem__``, a mapping pattern ``get``, a guard a
    # property or ``__bool__``; each changed ``x``. ATN202 deleted a repeated
    # ``s = x.sum().item()`` so. The operators' special methods counted, the
    # patterns' did not.
    "match_patterns_run_class_code": """
import collections.abc

import torch


def make_args():
    t = torch.arange(6.0)
    return (t, Prop(t), Seq(t), Eq(t), Getter(t))


class Prop:
    __match_args__ = ("v",)

    def __init__(self, t):
        self._t = t

    @property
    def v(self):
        self._t.add_(1)
        return 1


class Seq:
    def __init__(self, t):
        self._t = t

    def __len__(self):
        self._t.add_(1)
        return 1

    def __getitem__(self, i):
        self._t.add_(1)
        if i:
            raise IndexError
        return 1


collections.abc.Sequence.register(Seq)


class Eq:
    def __init__(self, t):
        self._t = t

    def __eq__(self, other):
        self._t.add_(1)
        return False

    __hash__ = object.__hash__


class Getter:
    def __init__(self, t):
        self._t = t

    def get(self, key, default=None):
        self._t.add_(1)
        return 1

    def keys(self):
        return ["k"]

    def __len__(self):
        return 1


collections.abc.Mapping.register(Getter)


def case_keyword(x, p, s, e, g):
    a = x.sum().item()
    match p:
        case Prop(v=1):
            pass
    b = x.sum().item()
    return a, b


def case_positional(x, p, s, e, g):
    a = x.sum().item()
    match p:
        case Prop(1):
            pass
    b = x.sum().item()
    return a, b


def case_sequence(x, p, s, e, g):
    a = x.sum().item()
    match s:
        case [1]:
            pass
    b = x.sum().item()
    return a, b


def case_value(x, p, s, e, g):
    a = x.sum().item()
    match e:
        case 1:
            pass
    b = x.sum().item()
    return a, b


def case_mapping(x, p, s, e, g):
    a = x.sum().item()
    match g:
        case {"k": 1}:
            pass
    b = x.sum().item()
    return a, b


def case_guard_attribute(x, p, s, e, g):
    a = x.sum().item()
    match 1:
        case _ if p.v:
            pass
    b = x.sum().item()
    return a, b


def case_guard_truth(x, p, s, e, g):
    a = x.sum().item()
    match 1:
        case _ if s:
            pass
    b = x.sum().item()
    return a, b


def case_deleted(x, p, s, e, g):
    s = x.sum().item()
    match p:
        case Prop(v=1):
            pass
    s = x.sum().item()
    return s
""",
    # 97. ATN201 reused a ``.item()`` of ``x`` across ``g = None`` (``del g``,
    # ``gens.clear()``) that dropped the last reference to a suspended
    # generator of the module: closing it ran the ``finally`` (or the
    # ``with`` exit) around its ``yield``, which changed ``x``; ATN202
    # deleted a repeated ``s = x.max().item()`` so. A module whose
    # generators clean up around a ``yield`` runs code wherever a reference
    # drops, as one whose class defines ``__del__`` does.
    "generator_closed_by_a_dropped_reference": """
import contextlib

import torch


def make_args():
    return (torch.arange(6.0),)


def steps(t):
    try:
        yield 1
    finally:
        t.add_(1)


def steps_with(t):
    with contextlib.ExitStack() as stack:
        stack.callback(t.add_, 1)
        yield 1


def case_rebound(x):
    g = steps(x)
    next(g)
    a = x.max().item()
    g = None
    b = x.max().item()
    return a, b


def case_deleted(x):
    g = steps_with(x)
    next(g)
    a = x.max().item()
    del g
    b = x.max().item()
    return a, b


def case_nested_cleared(x):
    def gen():
        try:
            yield 1
        finally:
            x.add_(1)

    gens = [gen()]
    next(gens[0])
    a = x.max().item()
    gens.clear()
    b = x.max().item()
    return a, b


def case_repeated(x):
    g = steps(x)
    next(g)
    s = x.max().item()
    del g
    s = x.max().item()
    return s
""",
    # 98. ATN201 reused a ``.item()`` of ``x`` across ``print(r)``,
    # ``str(s)``, ``format(f, "")``, ``"{}".format(f)`` or ``f"{f}"``, whose
    # object's class (of the module) defines ``__repr__``, ``__str__`` or
    # ``__format__`` that changed ``x``; ATN202 deleted a repeated ``q =
    # x.sum().item()`` so. Formatting was read only as a change of the
    # formatted value, not as code of the module's class that may change
    # anything.
    "formatting_runs_class_code": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, R(t), S(t), F(t))


class R:
    def __init__(self, t):
        self.t = t

    def __repr__(self):
        self.t.add_(1)
        return "R"


class S:
    def __init__(self, t):
        self.t = t

    def __str__(self):
        self.t.add_(1)
        return "S"


class F:
    def __init__(self, t):
        self.t = t

    def __format__(self, spec):
        self.t.add_(1)
        return "F"


def case_print(x, r, s, f):
    a = x.sum().item()
    print(r)
    b = x.sum().item()
    return a, b


def case_str(x, r, s, f):
    a = x.sum().item()
    y = str(s)
    b = x.sum().item()
    return a, b, y


def case_format(x, r, s, f):
    a = x.sum().item()
    y = format(f, "")
    b = x.sum().item()
    return a, b, y


def case_str_format(x, r, s, f):
    a = x.sum().item()
    y = "{}".format(f)
    b = x.sum().item()
    return a, b, y


def case_fstring(x, r, s, f):
    a = x.sum().item()
    y = f"{f}"
    b = x.sum().item()
    return a, b, y


def case_fstring_repr(x, r, s, f):
    a = x.sum().item()
    y = f"{[r]}"
    b = x.sum().item()
    return a, b, y


def case_repeated(x, r, s, f):
    q = x.sum().item()
    print(r)
    q = x.sum().item()
    return q
""",
    # 99. ATN201 reused a ``.item()`` of ``x`` across code of the module's
    # class that the class statement's own block did not show: a special
    # method bound by a lambda (``__bool__ = lambda self: ...``), defined
    # under an ``if`` of the class body, stored into the class afterwards
    # (``P.__invert__ = f``, ``setattr(P, "__pos__", g)``), or bound by a
    # class made with ``type(name, bases, namespace)``. Each changed ``x``;
    # each case uses a special method of its own, so each differs alone.
    # And ATN101 rewrote ``h.new_zeros(6)`` to ``h.new_empty(6)`` where the
    # module's class binds both by lambdas (its ``new_empty`` returns a
    # tensor it keeps, which the write then changed).
    "special_methods_bound_otherwise": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, L(t), N(t), P(t), Q(t), H())


class L:
    def __init__(self, t):
        self.t = t

    __bool__ = lambda self: self.t.add_(1) is None


class H:
    def __init__(self):
        self.buf = torch.full((6,), 7.0)

    new_zeros = lambda self, n: torch.zeros(n)
    new_empty = lambda self, n: self.buf


class N:
    def __init__(self, t):
        self.t = t

    if True:

        def __neg__(self):
            self.t.add_(1)
            return 0


class P:
    def __init__(self, t):
        self.t = t


def _invert(self):
    self.t.add_(1)
    return 0


P.__invert__ = _invert
setattr(P, "__pos__", _invert)


def _init(self, t):
    self.t = t


Q = type("Q", (), {"__init__": _init, "__matmul__": lambda self, o: _invert(self)})


def case_lambda(x, l, n, p, q, h):
    a = x.sum().item()
    if l:
        pass
    b = x.sum().item()
    return a, b


def case_lambda_new_empty(x, l, n, p, q, h):
    y = h.new_zeros(6)
    y.copy_(x)
    return y, h.buf


def case_nested_block(x, l, n, p, q, h):
    a = x.sum().item()
    r = -n
    b = x.sum().item()
    return a, b, r


def case_stored(x, l, n, p, q, h):
    a = x.sum().item()
    r = ~p
    b = x.sum().item()
    return a, b, r


def case_setattr(x, l, n, p, q, h):
    a = x.sum().item()
    r = +p
    b = x.sum().item()
    return a, b, r


def case_type(x, l, n, p, q, h):
    a = x.sum().item()
    r = q @ 1
    b = x.sum().item()
    return a, b, r
""",
    # (99, continued) ... or stored into the namespace a metaclass's
    # ``__new__`` makes the class of (``ns["__bool__"] = f``).
    "special_methods_from_a_metaclass_namespace": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, Box(t))


def _truth(self):
    self.t.add_(1)
    return True


class Meta(type):
    def __new__(mcls, name, bases, ns):
        ns["__bool__"] = _truth
        return super().__new__(mcls, name, bases, ns)


class Box(metaclass=Meta):
    def __init__(self, t):
        self.t = t


def case_meta(x, o):
    a = x.sum().item()
    if o:
        pass
    b = x.sum().item()
    return a, b
""",
    # 100. ATN201 reused a ``.item()`` of ``x`` across ``m["k"]``, and
    # ATN202 deleted a repeated ``s = x.sum().item()`` across it, where
    # ``m`` is a dict subclass of the module whose ``__missing__`` (run for
    # a key the dict lacks) changed ``x``: a subscript's hooks did not
    # name ``__missing__``.
    "dict_missing_runs_class_code": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, M(t))


class M(dict):
    def __init__(self, t):
        super().__init__()
        self.t = t

    def __missing__(self, key):
        self.t.add_(1)
        return 0


def case_reused(x, m):
    a = x.sum().item()
    v = m["k"]
    b = x.sum().item()
    return a, b, v


def case_repeated(x, m):
    s = x.sum().item()
    v = m["k"]
    s = x.sum().item()
    return s, v
""",
    # 101. ATN201 reused a ``.item()`` of ``x`` across ``%`` formatting
    # that ran code of the module's class the hooks of ``%`` did not name:
    # ``"%d" % k`` its ``__int__``, ``"%(name)s" % m`` the mapping's
    # ``__getitem__``, ``b"%s" % y`` its ``__bytes__``; each changed ``x``.
    "percent_formatting_runs_class_code": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, K(t), Mp(t), By(t))


class K:
    def __init__(self, t):
        self.t = t

    def __int__(self):
        self.t.add_(1)
        return 3


class Mp:
    def __init__(self, t):
        self.t = t

    def __getitem__(self, key):
        self.t.add_(1)
        return key


class By:
    def __init__(self, t):
        self.t = t

    def __bytes__(self):
        self.t.add_(1)
        return b"by"


def case_int(x, k, m, y):
    a = x.sum().item()
    s = "%d" % k
    b = x.sum().item()
    return a, b, s


def case_mapping(x, k, m, y):
    a = x.sum().item()
    s = "%(name)s" % m
    b = x.sum().item()
    return a, b, s


def case_bytes(x, k, m, y):
    a = x.sum().item()
    s = b"%s" % y
    b = x.sum().item()
    return a, b, s
""",
    # 102. ATN201 reused a ``.item()`` of ``x`` across an operator that
    # runs a special method the hooks of that operator did not name, of an
    # object of the module's class that changed ``x``: ``o in d`` of a
    # dict (or a set) hashes ``o`` (``__hash__``), ``[0] * o`` and ``"ab" *
    # o`` take its ``__index__``, ``xs += o`` of a list iterates ``o``
    # (``__len__`` and ``__getitem__``), ``{**o}`` and ``d |= o`` of a dict
    # call its ``keys``.
    "in_hashes_the_operand": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, Box(t), {1: 2}, {1, 2})


class Box:
    def __init__(self, t):
        self.t = t

    def __hash__(self):
        self.t.add_(1)
        return 1



def case_in_dict(x, o, d, s):
    a = x.sum().item()
    r = o in d
    b = x.sum().item()
    return a, b, r


def case_in_set(x, o, d, s):
    a = x.sum().item()
    r = o not in s
    b = x.sum().item()
    return a, b, r
""",
    "repeat_count_runs_index": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, Box(t))


class Box:
    def __init__(self, t):
        self.t = t

    def __index__(self):
        self.t.add_(1)
        return 2



def case_list(x, o):
    a = x.sum().item()
    r = [0] * o
    b = x.sum().item()
    return a, b, r


def case_string(x, o):
    a = x.sum().item()
    r = "ab" * o
    b = x.sum().item()
    return a, b, r


def case_augmented(x, o):
    a = x.sum().item()
    r = [0]
    r *= o
    b = x.sum().item()
    return a, b, r
""",
    "list_extend_iterates_the_operand": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, Box(t))


class Box:
    def __init__(self, t):
        self.t = t

    def __len__(self):
        self.t.add_(1)
        return 1

    def __getitem__(self, i):
        if i > 0:
            raise IndexError
        return i



def case_iadd(x, o):
    a = x.sum().item()
    r = [0]
    r += o
    b = x.sum().item()
    return a, b, r
""",
    "mapping_unpacking_runs_keys": """
import torch


def make_args():
    t = torch.arange(6.0)
    return (t, Box(t))


class Box:
    def __init__(self, t):
        self.t = t

    def keys(self):
        self.t.add_(1)
        return ["k"]

    def __getitem__(self, key):
        return 1



def case_display(x, o):
    a = x.sum().item()
    r = {**o}
    b = x.sum().item()
    return a, b, r


def case_update(x, o):
    a = x.sum().item()
    r = {}
    r |= o
    b = x.sum().item()
    return a, b, r
""",
    # 103. ATN201 reused a ``.item()`` of ``x`` across ``o >= 1`` and ``o
    # <= 1``, where the module's class defines ``__lt__`` (which changed
    # ``x``) and ``functools.total_ordering`` makes ``__ge__`` and
    # ``__le__`` of it: the hooks of ``>=`` named only ``__ge__`` and
    # ``__le__``.
    "total_ordering_runs_lt": """
import functools

import torch


def make_args():
    t = torch.arange(6.0)
    return (t, Box(t))


@functools.total_ordering
class Box:
    def __init__(self, t):
        self.t = t

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__

    def __lt__(self, other):
        self.t.add_(1)
        return False


def case_ge(x, o):
    a = x.sum().item()
    r = o >= 1
    b = x.sum().item()
    return a, b, r


def case_le(x, o):
    a = x.sum().item()
    r = o <= 1
    b = x.sum().item()
    return a, b, r
""",
    # 104. ATN201 reused a ``.item()`` of ``x`` across a call of unknown
    # code (``cb()``) where ``x`` had been stored, through the value of a
    # call that keeps nothing itself, into an object that code reaches:
    # ``HOLD.t = torch.narrow(x, 0, 0, 3)`` (a view), ``REG.append(
    # torch.flatten(x))`` (``x`` itself), ``D.update(zip(["k"], [x]))``,
    # ``HOLD.t = getattr(x, "data")``, ``REG.extend([x] + [])``; or into
    # the module's namespace, ``globals()["K"] = x``. A call that keeps none
    # of its arguments was taken to give none of them on, a joined list to
    # hold nothing of its operands, and a store into what ``globals()``
    # returns for one into a new object.
    "escape_through_a_calls_value": """
import types

import torch

REG = []
D = {}
HOLD = types.SimpleNamespace(t=None)
K = None


def make_args():
    return (torch.arange(6.0), poke)


def poke():
    for t in REG:
        t.add_(1)
    for t in D.values():
        t.add_(1)
    if HOLD.t is not None:
        HOLD.t.add_(1)
    if K is not None:
        K.add_(1)


def case_narrow(x, cb):
    HOLD.t = torch.narrow(x, 0, 0, 3)
    a = x.sum().item()
    cb()
    b = x.sum().item()
    return a, b


def case_flatten(x, cb):
    REG.append(torch.flatten(x))
    a = x.sum().item()
    cb()
    b = x.sum().item()
    return a, b


def case_zip(x, cb):
    D.update(zip(["k"], [x]))
    a = x.sum().item()
    cb()
    b = x.sum().item()
    return a, b


def case_getattr(x, cb):
    HOLD.t = getattr(x, "data")
    a = x.sum().item()
    cb()
    b = x.sum().item()
    return a, b


def case_globals(x, cb):
    globals()["K"] = x
    a = x.sum().item()
    cb()
    b = x.sum().item()
    return a, b


def case_joined(x, cb):
    REG.extend([x] + [])
    a = x.sum().item()
    cb()
    b = x.sum().item()
    return a, b
""",
    # 105. ``zeros``, ``new_zeros`` and ``zero_`` have no kernel for a
    # quantized dtype (``NotImplementedError``) where ``empty`` and
    # ``new_empty`` take it: ATN101's rewrite of ``torch.zeros(n,
    # dtype=torch.qint8)`` and ATN104's deletion of ``x.zero_()`` of
    # ``torch.empty(n, dtype=torch.qint8)`` made the call that raised
    # succeed (the ``copy_`` after it then raised another error).
    "quantized_dtype_refused_by_zero_fills": """
import torch


def make_args():
    return (torch.ones(3), 3)


def case_zeros(y, n):
    x = torch.zeros(n, dtype=torch.qint8)
    x.copy_(y)
    return x.sum()


def case_new_zeros(y, n):
    x = y.new_zeros(n, dtype=torch.quint8)
    x.copy_(y)
    return x.sum()


def case_zero_fill(y, n):
    x = torch.empty(n, dtype=torch.qint32)
    x.zero_()
    x.copy_(y)
    return x.sum()
""",
    # 106. ATN201 reused a ``.item()`` of ``x`` across ``c = None`` that
    # dropped the last reference to a suspended coroutine of the module:
    # closing it ran the ``finally`` (or the ``async with`` exit) around its
    # ``await``, which changed ``x``; ATN202 deleted a repeated ``s =
    # x.max().item()`` so. Only a ``yield`` was taken for a suspension.
    "coroutine_closed_by_a_dropped_reference": """
import torch


class Ready:
    def __await__(self):
        yield


class Exiting:
    def __init__(self, t):
        self.t = t

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.t.add_(1)


async def job(t):
    try:
        await Ready()
    finally:
        t.add_(1)


async def job_with(t):
    async with Exiting(t):
        await Ready()


def make_args():
    return (torch.arange(6.0),)


def case_rebound(x):
    c = job(x)
    c.send(None)
    a = x.max().item()
    c = None
    b = x.max().item()
    return a, b


def case_async_with(x):
    c = job_with(x)
    c.send(None)
    a = x.max().item()
    del c
    b = x.max().item()
    return a, b


def case_repeated(x):
    c = job(x)
    c.send(None)
    s = x.max().item()
    c = None
    s = x.max().item()
    return s
""",
    # 107. ATN201 reused a ``.item()`` of ``x`` across a ``match`` whose
    # class pattern ran ``isinstance`` against an ABC of the module, whose
    # ``__subclasshook__`` changed ``x``: only a metaclass's
    # ``__instancecheck__`` was taken to run there.
    "class_pattern_runs_a_subclass_hook": """
import abc

import torch

HELD = []


class Kind(abc.ABC):
    @classmethod
    def __subclasshook__(cls, other):
        HELD[-1].add_(1)
        return NotImplemented


def make_args():
    t = torch.arange(6.0)
    HELD.append(t)
    return (t, 3)


def case_match(x, v):
    a = x.sum().item()
    match v:
        case Kind():
            pass
        case _:
            pass
    b = x.sum().item()
    return a, b
""",
    # 108. ATN201 reused a ``.item()`` of ``x`` across ``d["k"]`` of a
    # ``collections.defaultdict`` whose factory (a lambda of the module, or
    # one set as ``d.default_factory``) changed ``x``: the subscript, for a
    # key the dict lacked, called it. ATN202 deleted a repeated sync so.
    "defaultdict_factory_run_by_a_subscript": """
import collections

import torch


def make_args():
    return (torch.arange(6.0),)


def case_closure(x):
    d = collections.defaultdict(lambda: x.add_(1))
    a = x.sum().item()
    d["k"]
    b = x.sum().item()
    return a, b


def case_repeated(x):
    d = collections.defaultdict(lambda: x.add_(1))
    s = x.max().item()
    v = d["k"]
    s = x.max().item()
    return s, v


def case_factory_set_after(x):
    d = collections.defaultdict(list)
    d.default_factory = lambda: x.mul_(2)
    a = x.sum().item()
    d["k"]
    b = x.sum().item()
    return a, b
""",
    # 109. ATN201 reused a ``.item()`` of ``x`` across ``w * w`` run where
    # the module's saved-tensor hooks were installed (a ``with
    # saved_tensors_hooks(pack, unpack):`` or a class deriving from it,
    # around the function's caller too): ``pack`` runs at every operation
    # that saves a tensor for backward, and it changed ``x``.
    "saved_tensor_hooks_run_by_tensor_operations": """
import torch


class Offload(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self, t):
        def pack(saved):
            t.add_(1)
            return saved

        super().__init__(pack, lambda saved: saved)


def make_args():
    return (torch.arange(6.0), torch.ones(3, requires_grad=True))


def case_with(x, w):
    def pack(saved):
        x.add_(1)
        return saved

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda saved: saved):
        a = x.sum().item()
        y = w * w
        b = x.sum().item()
    return a, b, y


def _step(x, w):
    a = x.sum().item()
    y = w * w
    b = x.sum().item()
    return a, b, y


def case_in_a_callee(x, w):
    with Offload(x):
        return _step(x, w)
""",
    # 110. ATN201 reused a ``.item()`` of ``x`` across ``m.weight`` of a
    # module the module parametrized (``register_parametrization``): the
    # load ran the parametrization's ``forward``, which changed ``x``.
    "parametrization_run_by_an_attribute_load": """
import torch
import torch.nn.utils.parametrize as parametrize

HELD = []


class Scaled(torch.nn.Module):
    def forward(self, weight):
        if HELD:
            HELD[-1].add_(1)
        return weight * 2


def make_args():
    module = torch.nn.Module()
    module.weight = torch.nn.Parameter(torch.ones(2, 2))
    parametrize.register_parametrization(module, "weight", Scaled())
    t = torch.arange(6.0)
    HELD.append(t)
    return (t, module)


def case_load(x, m):
    a = x.sum().item()
    w = m.weight
    b = x.sum().item()
    return a, b, w
""",
    # 111. ATN201 reused a ``.item()`` of ``SEEN`` across ``torch.tensor(t)``
    # of a tensor, which warns: the warning ran the ``warnings.showwarning``
    # the module installed, which changed ``SEEN``.
    "warning_display_run_by_a_torch_call": """
import warnings

import torch

SEEN = torch.zeros(1)


def _show(message, category, filename, lineno, file=None, line=None):
    SEEN.add_(1)


warnings.showwarning = _show
warnings.simplefilter("always")


def make_args():
    return (torch.arange(3.0),)


def case_warning(t):
    a = SEEN.sum().item()
    y = torch.tensor(t)
    b = SEEN.sum().item()
    return a, b, y
""",
    # 112. ATN201 reused a ``.item()`` of ``SEEN`` across ``y.apply_(f)``
    # and ``y.map_(y, f)``, taken for in-place methods that change their
    # receiver only: they call ``f`` once per element, and ``f`` changed
    # ``SEEN``. ATN202 deleted a repeated sync so.
    "inplace_methods_that_call_a_function": """
import torch

SEEN = torch.zeros(1)


def _count(v):
    SEEN.add_(1)
    return v


def make_args():
    return (torch.ones(3),)


def case_apply(y):
    a = SEEN.sum().item()
    y.apply_(_count)
    b = SEEN.sum().item()
    return a, b


def case_map(y):
    a = SEEN.sum().item()
    y.map_(y, lambda p, q: _count(p))
    b = SEEN.sum().item()
    return a, b


def case_repeated(y):
    s = SEEN.max().item()
    y.apply_(_count)
    s = SEEN.max().item()
    return s
""",
    # 113. ``full`` and ``fill_`` have no kernel for torch's bit and
    # sub-byte dtypes (``torch.bits8``, ``torch.uint4``, ``NotImplementedError``)
    # where ``zero_``, ``zeros`` and ``empty`` take them: ATN101's rewrite of
    # ``torch.full(s, 0.0, dtype=torch.bits8)`` (or of ``full_like`` of a
    # ``.view(torch.float4_e2m1fn_x2)``) and ATN104's deletion of
    # ``x.fill_(0)`` of ``torch.empty(n, dtype=torch.bits8)`` made the call
    # that raised succeed. (The program turns the harness's filling of
    # uninitialized memory off, which has no kernel for them either.)
    "bit_dtypes_refused_by_fill": """
import importlib

import torch


def make_args():
    # Uninitialized memory as torch leaves it (the harness fills it, and
    # its fill has no kernel for these dtypes either).
    importlib.import_module("torch.utils.deterministic").fill_uninitialized_memory = False
    return (torch.full((3,), 7, dtype=torch.uint8), 3)


def case_full(y, n):
    x = torch.full((n,), 0.0, dtype=torch.bits8)
    x.copy_(y.view(torch.bits8))
    return x.view(torch.uint8)


def case_fill(y, n):
    x = torch.empty(n, dtype=torch.bits8)
    x.fill_(0)
    x.copy_(y.view(torch.bits8))
    return 1


def case_full_like(y, n):
    x = torch.full_like(y.view(torch.float4_e2m1fn_x2), 0.0)
    x.copy_(y.view(torch.float4_e2m1fn_x2))
    return x.view(torch.uint8)
""",
    # 114. ATN201 reused a ``.item()`` of ``SEEN`` across ``g = None`` that
    # dropped an asynchronous generator started and not finished, in a
    # module that installs a finalizer for them (``sys.set_asyncgen_hooks``):
    # it ran there and changed ``SEEN``, though the generator has no
    # ``finally``. ATN202 deleted a repeated sync across ``del g`` so.
    "asyncgen_finalizer_run_by_a_dropped_reference": """
import sys

import torch

SEEN = torch.zeros(1)


def _finalize(agen):
    SEEN.add_(1)


sys.set_asyncgen_hooks(finalizer=_finalize)


async def numbers():
    yield 1
    yield 2


def make_args():
    return (torch.ones(3),)


def case_dropped(y):
    g = numbers()
    try:
        g.asend(None).send(None)
    except StopIteration:
        pass
    a = SEEN.sum().item()
    g = None
    b = SEEN.sum().item()
    return a, b


def case_repeated(y):
    g = numbers()
    try:
        g.asend(None).send(None)
    except StopIteration:
        pass
    s = SEEN.max().item()
    del g
    s = SEEN.max().item()
    return s
""",
    # 115. ATN201 reused a ``.item()`` of ``SEEN`` across ``torch.tensor(t)``
    # of a tensor, which warns, where the module had sent the standard error
    # stream to an object of its own (``redirect_stderr(Log())``, ``sys.stderr
    # = Log()``): the warning's display called its ``write``, which changed
    # ``SEEN``.
    "warning_written_to_a_stream_of_the_module": """
import contextlib
import warnings

import torch

SEEN = torch.zeros(1)


class Log:
    def write(self, text):
        SEEN.add_(1)

    def flush(self):
        pass


def make_args():
    return (torch.arange(3.0),)


def case_redirected(t):
    with warnings.catch_warnings(), contextlib.redirect_stderr(Log()):
        warnings.simplefilter("always")
        a = SEEN.sum().item()
        y = torch.tensor(t)
        b = SEEN.sum().item()
    return a, b, y
""",
    # 116. ATN201 reused a ``.item()`` of ``SEEN`` across ``getattr(m,
    # "size")`` and ``hasattr(m, "size")``, builtins taken to run nothing
    # where the module's classes define no special method: they ran the
    # property ``size`` of the module's class, as ``m.size`` does, which
    # changed ``SEEN``. ATN202 deleted a repeated sync so.
    "getattr_runs_a_property": """
import torch

SEEN = torch.zeros(1)


class Meta:
    @property
    def size(self):
        SEEN.add_(1)
        return 3


def make_args():
    return (Meta(),)


def case_getattr(m):
    a = SEEN.sum().item()
    n = getattr(m, "size")
    b = SEEN.sum().item()
    return a, b, n


def case_hasattr(m):
    a = SEEN.sum().item()
    h = hasattr(m, "size")
    b = SEEN.sum().item()
    return a, b, h


def case_getattr_default(m):
    a = SEEN.sum().item()
    n = getattr(m, "size", None)
    b = SEEN.sum().item()
    return a, b, n


def case_repeated(m):
    s = SEEN.max().item()
    getattr(m, "size")
    s = SEEN.max().item()
    return s
""",
    # 117. ATN201 reused a ``.item()`` of ``SEEN`` across ``type("K",
    # (Base,), {})``, the builtin taken to run nothing: making a class runs
    # the bases' ``__init_subclass__`` (and a metaclass's code, the
    # namespace's ``__set_name__``), which changed ``SEEN``. ATN202 deleted a
    # repeated sync so.
    "type_with_three_arguments_makes_a_class": """
import torch

SEEN = torch.zeros(1)


class Base:
    def __init_subclass__(cls, **kwargs):
        SEEN.add_(1)


def make_args():
    return (torch.ones(3),)


def case_type(y):
    a = SEEN.sum().item()
    K = type("K", (Base,), {})
    b = SEEN.sum().item()
    return a, b


def case_repeated_sync(y):
    s = SEEN.max().item()
    type("K", (Base,), {})
    s = SEEN.max().item()
    return s
""",
    # 118. ATN301 deleted an unused alias ``j = i + 1`` that a helper read
    # through its caller's frame, reached by names given as strings
    # (``getattr(sys, "_getframe")(1)``): only spelled attributes and names
    # (``sys._getframe``) were taken to reach a frame.
    "frame_reached_through_getattr": """
import sys


def _names():
    frame = getattr(sys, "_getframe")(1)
    return sorted(getattr(frame, "f_" + "locals"))


def make_args():
    return (3,)


def case_alias(n):
    out = []
    for i in range(n):
        j = i + 1
        out.append(_names())
    return out
""",
    # 119. ATN201 reused a ``.item()`` of ``BUF`` where the module had
    # installed a profile function (``getattr(sys, "setprofile")(f)``) or
    # made a finalizer (``importlib.import_module("weakref").finalize(o,
    # f)``, ``__import__("weakref")``) through names given as strings:
    # only spelled attributes and import statements were seen.
    "hooks_installed_through_names_given_as_strings": """
import importlib
import sys

import torch

BUF = torch.arange(6.0)


def _profile(frame, event, arg):
    if event == "c_call" and frame.f_code.co_name.startswith("case"):
        BUF.add_(1)


class Box:
    pass


def _bump():
    BUF.add_(1)


def make_args():
    return (torch.arange(6.0),)


def case_profile(t):
    old = sys.getprofile()
    getattr(sys, "setprofile")(_profile)
    try:
        a = BUF.sum().item()
        b = BUF.sum().item()
    finally:
        getattr(sys, "setprofile")(old)
    return a, b


def case_finalize(t):
    o = Box()
    importlib.import_module("weakref").finalize(o, _bump)
    a = BUF.sum().item()
    o = None
    b = BUF.sum().item()
    return a, b


def case_dunder_import(t):
    o = Box()
    __import__("weakref").finalize(o, _bump)
    a = BUF.sum().item()
    del o
    b = BUF.sum().item()
    return a, b
""",
    # 120. ATN201 reused a ``.item()`` of ``SEEN`` across ``torch.neg(x)``
    # where the module had registered a kernel of its own for ``aten::neg``
    # (``torch.library.Library("aten", "IMPL").impl("neg", f, "CPU")``,
    # ``torch.library.impl(lib, "neg", "CPU")(f)``): torch's operator ran
    # the module's code, which changed ``SEEN``. ATN202 deleted a repeated
    # sync so. (Each case removes its registration.)
    "torch_operator_kernel_registered_by_the_module": """
import torch

SEEN = torch.zeros(1)


def _neg(self):
    SEEN.add_(1)
    return self * -1


def make_args():
    return (torch.ones(3),)


def case_override(x):
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("neg", _neg, "CPU")
    try:
        a = SEEN.sum().item()
        y = torch.neg(x)
        b = SEEN.sum().item()
    finally:
        lib._destroy()
    return a, b, y


def case_decorated(x):
    lib = torch.library.Library("aten", "IMPL")
    torch.library.impl(lib, "neg", "CPU")(_neg)
    try:
        s = SEEN.max().item()
        y = torch.neg(x)
        s = SEEN.max().item()
    finally:
        lib._destroy()
    return s, y
""",
    # 121. ATN201 reused a ``.item()`` of ``SEEN`` across ``torch.Size(g)``
    # of a generator of the module, taken for a torch function that runs
    # nothing: it iterates any iterable, running the generator's code, which
    # changed ``SEEN``. ATN202 deleted a repeated sync so.
    "torch_size_iterates_a_generator": """
import torch

SEEN = torch.zeros(1)


def _sizes(n):
    SEEN.add_(1)
    yield n


def make_args():
    return (torch.ones(3),)


def case_size(y):
    g = _sizes(3)
    a = SEEN.sum().item()
    s = torch.Size(g)
    b = SEEN.sum().item()
    return a, b, s


def case_repeated(y):
    g = _sizes(2)
    s = SEEN.max().item()
    torch.Size(g)
    s = SEEN.max().item()
    return s
""",
    # 122. ATN201 reused a ``.item()`` of ``SEEN`` across ``torch.save(y,
    # out)`` and ``torch.load(source)``, taken for torch functions that run
    # nothing: they call the file object's ``write`` and ``read`` (here the
    # module's, which changed ``SEEN``), and unpickling runs what the data
    # names.
    "torch_save_and_load_run_the_file_objects_code": """
import io

import torch

SEEN = torch.zeros(1)


class Sink(io.RawIOBase):
    def writable(self):
        return True

    def write(self, data):
        SEEN.add_(1)
        return len(data)


class Source(io.BytesIO):
    def read(self, *args):
        SEEN.add_(1)
        return super().read(*args)


def make_args():
    data = io.BytesIO()
    torch.save(torch.ones(2), data)
    return (torch.ones(3), data.getvalue())


def case_save(y, data):
    out = Sink()
    a = SEEN.sum().item()
    torch.save(y, out)
    b = SEEN.sum().item()
    return a, b


def case_load(y, data):
    source = Source(data)
    a = SEEN.sum().item()
    loaded = torch.load(source)
    b = SEEN.sum().item()
    return a, b, loaded
""",
    # 123. ATN201 reused a ``.item()`` of ``SEEN`` across ``torch.split(p,
    # 2)`` and ``torch.tensordot(p, p)`` of an object of the module's class:
    # torch's functions written in Python call their argument's methods by
    # name when it is no tensor (``p.split(2)``, ``p.dim()``), here the
    # module's, which changed ``SEEN``. ATN202 deleted a repeated sync so.
    "torch_functions_call_their_arguments_methods": """
import torch

SEEN = torch.zeros(1)


class Pages:
    def split(self, size, dim=0):
        SEEN.add_(1)
        return (self,)

    def dim(self):
        SEEN.add_(1)
        return 1


def make_args():
    return (Pages(),)


def case_split(p):
    a = SEEN.sum().item()
    parts = torch.split(p, 2)
    b = SEEN.sum().item()
    return a, b, len(parts)


def case_tensordot(p):
    s = SEEN.max().item()
    try:
        torch.tensordot(p, p)
    except Exception:
        pass
    s = SEEN.max().item()
    return s
""",
    # 124. ATN201 reused a ``.item()`` of ``SEEN`` across a truth test of
    # an object of the module's class whose ``__bool__`` a ``for`` loop's
    # target bound from outside the class body (``for Box.__bool__ in
    # [loud]:``), as a ``with ... as Box.__len__`` or a comprehension's
    # target (``[0 for Box.__eq__ in [f]]``) may: the module's classes were
    # read for special methods bound by assignments only. ATN202 deleted a
    # repeated sync so.
    "special_methods_bound_by_loop_with_and_comprehension_targets": """
import contextlib
import torch

SEEN = torch.zeros(1)


class Box:
    pass


class Bag:
    pass


class Key:
    pass


def loud(self):
    SEEN.add_(1)
    return True


def count(self):
    SEEN.add_(1)
    return 1


def same(self, other):
    SEEN.add_(1)
    return True


@contextlib.contextmanager
def giving(value):
    yield value


for Box.__bool__ in [loud]:
    pass

with giving(count) as Bag.__len__:
    pass

[0 for Key.__eq__ in [same]]


def make_args():
    return (Box(), Bag(), Key())


def case_loop_target(box, bag, key):
    a = SEEN.sum().item()
    if box:
        pass
    b = SEEN.sum().item()
    return a, b


def case_with_target(box, bag, key):
    a = SEEN.sum().item()
    n = len(bag)
    b = SEEN.sum().item()
    return a, b, n


def case_comprehension_target(box, bag, key):
    a = SEEN.sum().item()
    equal = key == key
    a = SEEN.sum().item()
    return a, equal
""",
    # 125. ATN201 reused a ``.item()`` of ``SEEN`` across a subscript of a
    # ``defaultdict`` made by another name (``from collections import
    # defaultdict as dd``) or by a class of the module derived from it,
    # given a factory of the module: reproduction 108's check knew the type
    # by its own name only. ATN202 deleted a repeated sync so.
    "defaultdict_by_another_name": """
import collections
from collections import defaultdict as dd

import torch

SEEN = torch.zeros(1)


class Counts(collections.defaultdict):
    pass


def make():
    SEEN.add_(1)
    return 0


def make_args():
    return ()


def case_alias():
    table = dd(make)
    a = SEEN.sum().item()
    table["k"]
    b = SEEN.sum().item()
    return a, b


def case_subclass():
    table = Counts(make)
    s = SEEN.max().item()
    table["k"]
    s = SEEN.max().item()
    return s
""",
    # 126. Found by a reviewer reading the sixteenth review afresh: a
    # comprehension written without a blank after a number (``[0for
    # Key.__eq__ in fs]``) binds ``__eq__`` as 124's does, and the rows
    # holding ``for`` were looked for as words a digit could not end.
    "comprehension_target_after_a_number": """
import torch

SEEN = torch.zeros(1)


class Key:
    pass


def same(self, other):
    SEEN.add_(1)
    return True


[0for Key.__eq__ in [same]]


def make_args():
    return (Key(),)


def case_equal(key):
    a = SEEN.sum().item()
    equal = key == key
    a = SEEN.sum().item()
    return a, equal
""",
    # 127. A ``defaultdict`` made from the type of one made plainly
    # (``type(PLAIN)(make)``, ``PLAIN.__class__(make)``) runs ``make`` at a
    # subscript, as 108's and 125's do.
    "defaultdict_made_from_a_value_s_type": """
from collections import defaultdict

import torch

SEEN = torch.zeros(1)
PLAIN = defaultdict(list)


def make():
    SEEN.add_(1)
    return 0


def make_args():
    return ()


def case_type_of():
    table = type(PLAIN)(make)
    s = SEEN.max().item()
    table["k"]
    s = SEEN.max().item()
    return s


def case_class_of():
    table = PLAIN.__class__(make)
    a = SEEN.sum().item()
    table["k"]
    b = SEEN.sum().item()
    return a, b
""",
    # 128. Warnings handed to ``logging`` (``logging.captureWarnings(True)``)
    # are shown by the handlers the module gives it: a torch call that
    # warns runs the module's ``emit``, as 111's ``showwarning`` does.
    "warnings_captured_by_logging": """
import logging
import warnings

import torch

SEEN = torch.zeros(1)


class Count(logging.Handler):
    def emit(self, record):
        SEEN.add_(1)


logging.captureWarnings(True)
logging.getLogger("py.warnings").addHandler(Count())
logging.getLogger("py.warnings").propagate = False
warnings.simplefilter("always")


def make_args():
    return (torch.arange(3.0),)


def case_warns(t):
    s = SEEN.max().item()
    y = torch.tensor(t)
    s = SEEN.max().item()
    return s, y
""",
    # 129. A kernel registered for one of torch's operators under a
    # namespace the text does not spell (``NS + "::neg"``), or through a
    # library made by another name (``Lib = torch.library.Library``), runs
    # at ``torch.neg``, as 120's does.
    "kernel_registered_under_a_computed_namespace": """
import torch

SEEN = torch.zeros(1)
NS = "at" + "en"


def _neg(self):
    SEEN.add_(1)
    return self * -1


def make_args():
    return (torch.ones(3),)


def case_computed(x):
    torch.library.impl(NS + "::neg", "CPU")(_neg)
    s = SEEN.max().item()
    y = torch.neg(x)
    s = SEEN.max().item()
    return s, y
""",
}
