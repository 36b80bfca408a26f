"""The shared analysis every rule asks: imports, functions, def-use flows."""

from lint_rules.analysis.flow import Block, Event, FunctionFlow, Kind, StmtInfo
from lint_rules.analysis.imports import ImportMap
from lint_rules.analysis.model import FunctionInfo, ModuleModel

__all__ = [
    "Block",
    "Event",
    "FunctionFlow",
    "FunctionInfo",
    "ImportMap",
    "Kind",
    "ModuleModel",
    "StmtInfo",
]
