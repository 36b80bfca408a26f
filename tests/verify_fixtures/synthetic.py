"""Synthetic unsafe fixes for ``attnlint verify`` tests, independent of the rules.

Every ``torch.zeros`` becomes ``torch.empty`` (ATN102's rewrite, unsafe); every
``torch.ones`` gets a safe fix, which verify must leave alone.
"""

from __future__ import annotations

import re

from lint_rules.diagnostics import Applicability, Edit, Finding, Fix, Location


def zeros_to_empty_findings(text: str, filename: str) -> list[Finding]:
    findings = []
    for match in re.finditer(r"torch\.(zeros|ones)\(", text):
        unsafe = match.group(1) == "zeros"
        name_start = match.start(1)
        replacement = "empty" if unsafe else "ones"
        fix = Fix(
            (Edit(name_start, match.end(1), replacement),),
            Applicability.UNSAFE if unsafe else Applicability.SAFE,
            f"Replace `torch.{match.group(1)}` with `torch.{replacement}`",
        )
        line_start = text.rfind("\n", 0, match.start()) + 1
        row = text.count("\n", 0, match.start()) + 1
        column = match.start() - line_start + 1
        findings.append(
            Finding(
                code="ATN102" if unsafe else "ATN101",
                name="zeros-persistent-buffer" if unsafe else "zeros-overwritten",
                message=f"`torch.{match.group(1)}` buffer",
                location=Location(row, column),
                end_location=Location(row, column + len(match.group(0))),
                fix=fix,
                filename=filename,
                offset=match.start(),
            )
        )
    return findings


BACKEND = '''\
"""A tiny graph-state backend: persistent buffers written at replay."""

import torch


class TinyBackend:
    def init_cuda_graph_state(self, max_bs):
        self.cache_seqlens = torch.zeros(max_bs, dtype=torch.int32)
        self.page_table = torch.zeros(max_bs, 4, dtype=torch.int64)
        self.out = torch.zeros(max_bs, 8)
{planted}        self.scale = torch.ones(max_bs)

    def replay(self, seqlens, pages, values):
{planted_use}        self.cache_seqlens.copy_(seqlens)
        self.page_table[:] = pages
        self.out.copy_(values)
        return self.out.sum(1) + self.cache_seqlens + self.page_table.sum(1)
'''

PLANTED = "        self.acc = torch.zeros(max_bs)\n"
# Decays what earlier replays left in the buffer: reads it before anything wrote
# it. Harmless on zeros, NaN everywhere on poisoned memory.
PLANTED_USE = (
    "        self.acc.mul_(0.5)\n        values = values + self.acc[:, None]\n"
)

TESTS = """\
import torch

from tiny_backend import TinyBackend


def test_replay_values():
    backend = TinyBackend()
    backend.init_cuda_graph_state(3)
    seqlens = torch.tensor([1, 2, 3], dtype=torch.int32)
    pages = torch.arange(12).reshape(3, 4)
    out = backend.replay(seqlens, pages, torch.ones(3, 8))
    assert torch.equal(out, torch.tensor([8.0, 8.0, 8.0]) + seqlens + pages.sum(1))


def test_buffer_shapes():
    backend = TinyBackend()
    backend.init_cuda_graph_state(3)
    assert backend.page_table.shape == (3, 4)
"""


def backend_source(planted: bool) -> str:
    return BACKEND.format(
        planted=PLANTED if planted else "", planted_use=PLANTED_USE if planted else ""
    )


if __name__ == "__main__":
    # `python -m tests.verify_fixtures.synthetic ARGS`: verify with these fixes.
    import sys

    from lint_rules.verify import run_verify

    sys.exit(run_verify(sys.argv[1:], find=zeros_to_empty_findings))
