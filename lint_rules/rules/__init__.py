"""The rule registry: one module per rule, found here by code."""

from __future__ import annotations

from lint_rules.rules.atn101_zeros_overwritten import ZerosOverwritten
from lint_rules.rules.atn102_zeros_persistent_buffer import ZerosPersistentBuffer
from lint_rules.rules.atn103_uninitialized_read import UninitializedRead
from lint_rules.rules.atn201_repeated_host_sync import RepeatedHostSync
from lint_rules.rules.atn202_redundant_reassignment import RedundantReassignment
from lint_rules.rules.atn301_dead_loop_alias import DeadLoopAlias
from lint_rules.rules.base import Invalid, Rule

ALL_RULES: tuple[type[Rule], ...] = (
    ZerosOverwritten,
    ZerosPersistentBuffer,
    UninitializedRead,
    RepeatedHostSync,
    RedundantReassignment,
    DeadLoopAlias,
)

RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
RULES_BY_NAME: dict[str, type[Rule]] = {rule.name: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "RULES_BY_NAME", "Invalid", "Rule"]
