"""Fixes the rules share: edits built from the analysis, as data.

- ``empty``: the zeros -> empty rewrite of ATN101 and ATN102;
- ``blocks``: keys that keep two fixes of one statement list out of the
  same fixer pass.

(``lint_rules.edits`` holds the statement-level edits: deleting a
statement, inlining a value.)
"""
