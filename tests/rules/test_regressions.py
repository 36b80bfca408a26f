"""False positives found by hand review of the corpus check (benchmarks/corpus.py),
each reduced to the shape of the real code it came from, and the positives the
fixes must keep.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text

ATN301 = Settings(select=("ATN301",), hot_paths_only=False)


def findings(source: str, settings: Settings = ATN301) -> list[tuple[int, str]]:
    source = textwrap.dedent(source)
    return [(f.location.row, f.code) for f in check_source(source, "t.py", settings)]


def fixed(source: str, settings: Settings = ATN301) -> str:
    result = fix_text(textwrap.dedent(source), "t.py", settings, unsafe_fixes=False)
    ast.parse(result.text)
    return result.text


# --------------------------------------------------- ATN301: sums used more than once

ATN301_NOT_FLAGGED = {
    # sglang flashinfer_backend.py (multi-item scoring): tensor arithmetic used
    # twice; inlined, the subtraction kernel would run twice per request.
    "tensor_difference_used_twice": """
        import torch

        def positions(seq_lens, delimiter_indices, first_delims, device):
            for seq_len, first_delim in zip(seq_lens, first_delims):
                relative_positions = delimiter_indices - first_delim
                suffix_range = torch.arange(seq_len, device=device)
                bucket = torch.searchsorted(relative_positions, suffix_range)
                print(relative_positions[bucket])
    """,
    # sglang moss_vl.py: interpolation weights from two tensors, used four times.
    "tensor_weights_used_four_times": """
        import torch

        def weights(grid, w_ints, device):
            for w_int in w_ints:
                w_idxs = torch.linspace(0, grid - 1, w_int, device=device)
                w_idxs_floor = w_idxs.int()
                dw = w_idxs - w_idxs_floor
                print(1 - dw, dw, (1 - dw) * dw, dw * 2)
    """,
    # A new list changed in place through the alias: inlining `head + tail` at
    # each use would append to a list nobody sees, then print another.
    "fresh_list_changed_through_the_alias": """
        def f(heads, tail):
            for head in heads:
                merged = head + tail
                merged.append(0)
                print(merged)
    """,
    # sglang lora pipeline.py: string concatenation used twice.
    "string_concatenation_used_twice": """
        def names(lora_layers):
            out = {}
            for name, layer in lora_layers.items():
                lora_b_name = name + ".lora_B"
                out[lora_b_name] = layer.get(lora_b_name)
            return out
    """,
    # An operand changed in place between the alias and its one use.
    "operand_changed_in_place_before_the_use": """
        def f(rows, acc):
            for row in rows:
                before = acc + row
                acc.add_(row)
                print(before)
    """,
    # An operand passed to an unknown call (which may change it) in between.
    "operand_passed_to_a_call_before_the_use": """
        def f(rows, acc, kernel):
            for row in rows:
                before = acc + row
                kernel(acc)
                print(before)
    """,
}


@pytest.mark.parametrize("name", sorted(ATN301_NOT_FLAGGED))
def test_atn301_false_positive_is_gone(name: str) -> None:
    assert findings(ATN301_NOT_FLAGGED[name]) == []


ATN301_STILL_FLAGGED = {
    # The seed: an enumerate index plus one, used in two slices.
    "enumerate_index_plus_one_twice": (
        """
        def update(table, cache, lens):
            for idx, n in enumerate(lens):
                end = idx + 1
                table[idx:end, :n] = cache[idx:end, :n]
        """,
        """
        def update(table, cache, lens):
            for idx, n in enumerate(lens):
                table[idx : idx + 1, :n] = cache[idx : idx + 1, :n]
        """,
    ),
    # Integers from int(), len(), .item(), .size(d), min/max of those.
    "integer_arithmetic_twice": (
        """
        def f(rows, lens, x, pad):
            offset = len(pad)
            for i in range(len(rows)):
                start = int(lens[i].item()) + offset
                n = min(len(rows[i]), x.size(0))
                end = start + n
                print(rows[i][start:end], lens[start:end])
        """,
        """
        def f(rows, lens, x, pad):
            offset = len(pad)
            for i in range(len(rows)):
                start = int(lens[i].item()) + offset
                n = min(len(rows[i]), x.size(0))
                print(rows[i][start : start + n], lens[start : start + n])
        """,
    ),
    # A tensor difference used once: inlining computes it once, as before.
    "tensor_difference_used_once": (
        """
        def f(rows, first):
            for row in rows:
                rel = row - first
                print(rel.max())
        """,
        """
        def f(rows, first):
            for row in rows:
                print((row - first).max())
        """,
    ),
    # Unknown code between that cannot reach the operands does not matter.
}

# A difference of values not known to be numbers may raise (a string minus
# an int): inlined after a call, it would raise after that call's effect.
ATN301_FLAGGED_UNSAFE = {
    "unrelated_call_before_the_only_use": (
        """
        def f(pairs, out):
            for start, end in pairs:
                length = end - start
                out.extend(range(start, end))
                out.append(length)
        """,
        """
        def f(pairs, out):
            for start, end in pairs:
                out.extend(range(start, end))
                out.append(end - start)
        """,
    ),
    "unused_difference": (
        """
        def f(pairs, out):
            for start, end in pairs:
                length = end - start
                out.append(start)
        """,
        """
        def f(pairs, out):
            for start, end in pairs:
                out.append(start)
        """,
    ),
    # A parameter annotated ``int`` is not checked at the call: a list (or an
    # array, ``5 + arr``) makes the sum a new mutable object at each use.
    "integer_arithmetic_twice_by_annotation": (
        """
        def f(rows, lens, x, offset: int):
            for i in range(len(rows)):
                start = int(lens[i].item()) + offset
                n = min(len(rows[i]), x.size(0))
                end = start + n
                print(rows[i][start:end], lens[start:end])
        """,
        """
        def f(rows, lens, x, offset: int):
            for i in range(len(rows)):
                start = int(lens[i].item()) + offset
                n = min(len(rows[i]), x.size(0))
                print(rows[i][start : start + n], lens[start : start + n])
        """,
    ),
}


@pytest.mark.parametrize("name", sorted(ATN301_STILL_FLAGGED))
def test_atn301_true_positive_is_kept_and_fixed(name: str) -> None:
    source, expected = ATN301_STILL_FLAGGED[name]
    assert [code for _, code in findings(source)] == ["ATN301"]
    assert fixed(source) == textwrap.dedent(expected)


@pytest.mark.parametrize("name", sorted(ATN301_FLAGGED_UNSAFE))
def test_atn301_fix_that_may_move_an_exception_is_unsafe(name: str) -> None:
    source, expected = ATN301_FLAGGED_UNSAFE[name]
    assert [code for _, code in findings(source)] == ["ATN301"]
    assert fixed(source) == textwrap.dedent(source)
    result = fix_text(textwrap.dedent(source), "t.py", ATN301, unsafe_fixes=True)
    assert result.text == textwrap.dedent(expected)


# ------------------------------------------------- ATN201: NumPy arrays do not sync

ATN201 = Settings(select=("ATN201",))


def test_atn201_numpy_tolist_is_not_a_host_sync() -> None:
    # sglang test_flux3_action.py: one NumPy array converted three times.
    source = """
        import numpy as np

        def payload():
            image = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
            return {"wrist": image.tolist(), "left": image.tolist()}
    """
    assert findings(source, ATN201) == []


def test_atn201_torch_tensor_made_from_numpy_still_syncs() -> None:
    source = """
        import numpy as np
        import torch

        def f(device):
            lens = torch.from_numpy(np.arange(4)).to(device)
            return lens.tolist(), lens.tolist()
    """
    assert findings(source, ATN201) == [(7, "ATN201")]


def test_atn201_name_bound_to_numpy_and_to_a_tensor_is_reported() -> None:
    source = """
        import numpy as np

        def f(t, c):
            x = np.zeros(3)
            if c:
                x = t
            return x.tolist(), x.tolist()
    """
    assert findings(source, ATN201) == [(8, "ATN201")]


# ------------------------------------ ATN103: buffers filled piece by piece, then read

ATN103 = Settings(select=("ATN103",))

ATN103_NOT_FLAGGED = {
    # sglang lfm2.py: filled slice by slice in a loop over the pieces that make
    # up its length; the path that skips the loop is the empty batch.
    "filled_in_a_loop_of_slices": """
        def unpad(Bx, conv_out, seq_lens):
            unpadded = Bx.new_empty(Bx.shape)
            offset = 0
            for batch_idx, seq_len in enumerate(seq_lens):
                end = offset + int(seq_len)
                unpadded[offset:end] = conv_out[batch_idx, :seq_len]
                offset = end
            return 2 * unpadded
    """,
    # vllm molmo2.py: two guarded partial writes that together cover the line
    # (its length is the sum of the guarded parts).
    "filled_by_guarded_parts": """
        import torch

        def tokens(w, use_col, patch_id, col_id, h, device):
            n = w + int(use_col)
            line = torch.empty(n, dtype=torch.long, device=device)
            if w > 0:
                line[:w] = patch_id
            if use_col:
                line[w] = col_id
            return line.repeat(h)
    """,
    # sglang page_interleave.py: gathered writes in a loop with `continue`.
    "filled_by_a_loop_with_continue": """
        import torch

        def interleave(counts, pools, n, shards, device):
            pages = torch.empty((n,), dtype=torch.int64, device=device)
            for c in range(shards):
                if counts[c] == 0:
                    continue
                pages[torch.arange(c, n, shards, device=device)] = pools[c]
            return pages[torch.arange(n, device=device)] * 2
    """,
}


@pytest.mark.parametrize("name", sorted(ATN103_NOT_FLAGGED))
def test_atn103_false_positive_is_gone(name: str) -> None:
    assert findings(ATN103_NOT_FLAGGED[name], ATN103) == []


def test_atn103_partial_write_after_the_read_does_not_hide_it() -> None:
    source = """
        import torch

        def f(n, m, c):
            x = torch.empty(n)
            if c:
                total = x.sum()
            x[:m] = 1
            return x
    """
    assert findings(source, ATN103) == [(7, "ATN103")]


def test_atn103_full_write_in_a_loop_that_may_not_run_is_still_reported() -> None:
    source = """
        import torch

        def f(ys, n):
            x = torch.empty(n)
            for y in ys:
                x.copy_(y)
            return x.max()
    """
    assert findings(source, ATN103) == [(8, "ATN103")]


# ---------------------------------- ATN201/ATN202: re-reading under a lock is needed

ATN2 = Settings(select=("ATN201", "ATN202"), hot_paths_only=False)


def test_atn202_double_checked_locking_is_not_redundant() -> None:
    # vllm ngram_embedding.py: read, then read again once the lock is held
    # (another thread may have allocated the buffer meanwhile).
    source = """
        class Prefetcher:
            def start(self):
                buffer = self._prefetch_buffer
                if buffer is None:
                    with self._prefetch_alloc_lock:
                        buffer = self._prefetch_buffer
                        if buffer is None:
                            buffer = self._allocate()
                return buffer
    """
    assert findings(source, ATN2) == []


def test_atn201_sync_repeated_after_taking_a_lock_is_not_reported() -> None:
    source = """
        def f(state, lock):
            n = state.lens.max().item()
            with lock:
                m = state.lens.max().item()
            return n, m
    """
    assert findings(source, ATN2) == []


def test_atn202_a_scope_made_by_the_with_statement_is_no_barrier() -> None:
    source = """
        import torch

        def f(m, a):
            m.k = a + 1
            with torch.no_grad():
                m.k = a + 1
    """
    assert findings(source, ATN2) == [(7, "ATN202")]
