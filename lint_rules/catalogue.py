"""attnlint's rules by name, without importing them: which codes exist, what
each is called, where its class lives, and which rules users opt into.

A leaf of the import graph: configuration (which needs the codes to resolve
a selection) reads it without importing the rules; ``lint_rules.rules``
imports a rule's module only when its class is asked for. A test keeps the
catalogue and the rule classes in agreement.
"""

from __future__ import annotations

#: (code, name, module in lint_rules.rules, class), in registry order.
CATALOGUE: tuple[tuple[str, str, str, str], ...] = (
    ("ATN001", "unused-noqa", "atn001_unused_noqa", "UnusedNoqa"),
    ("ATN101", "zeros-overwritten", "atn101_zeros_overwritten", "ZerosOverwritten"),
    (
        "ATN102",
        "zeros-persistent-buffer",
        "atn102_zeros_persistent_buffer",
        "ZerosPersistentBuffer",
    ),
    ("ATN103", "uninitialized-read", "atn103_uninitialized_read", "UninitializedRead"),
    (
        "ATN104",
        "redundant-zero-fill",
        "atn104_redundant_zero_fill",
        "RedundantZeroFill",
    ),
    ("ATN201", "repeated-host-sync", "atn201_repeated_host_sync", "RepeatedHostSync"),
    (
        "ATN202",
        "redundant-reassignment",
        "atn202_redundant_reassignment",
        "RedundantReassignment",
    ),
    (
        "ATN203",
        "host-sync-in-hot-path",
        "atn203_host_sync_in_hot_path",
        "HostSyncInHotPath",
    ),
    (
        "ATN205",
        "non-blocking-from-pageable",
        "atn205_non_blocking_from_pageable",
        "NonBlockingFromPageable",
    ),
    ("ATN301", "dead-loop-alias", "atn301_dead_loop_alias", "DeadLoopAlias"),
)

#: The codes of the rules, in registry order (no rule module imported).
CODES: tuple[str, ...] = tuple(code for code, _, _, _ in CATALOGUE)

#: The codes of the rules users opt into (``Rule.opt_in``): ``ALL`` and
#: ``ATN`` do not select them, ``ATN0`` or the code itself does.
OPT_IN_CODES: frozenset[str] = frozenset({"ATN001"})
