"""Which settings apply to each file: those of the nearest configuration file.

As ruff does (its hierarchical configuration): a file is checked with the
settings of the configuration file (:data:`~lint_rules.config.CONFIG_FILE_NAMES`)
nearest above it; a file with none above it gets the run's default settings
(those found from the first path given, or the current directory). When a
configuration file is named (``--config PATH``) every file gets its settings.
The command line's options apply on top of every file's settings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from lint_rules.config import Settings, config_in_folder


class Resolver:
    """Settings by folder, each configuration file loaded once.

    ``load(path)`` turns a configuration file into settings (the command
    line's options applied); None means hierarchical discovery is off and
    every file gets ``default``.
    """

    def __init__(
        self, default: Settings, load: Callable[[Path], Settings] | None = None
    ) -> None:
        self.default = default
        self._load = load
        self._by_folder: dict[str, Settings] = {}
        self._by_file: dict[str, Settings] = {}
        if default.config_file is not None:
            self._by_file[default.config_file] = default

    @property
    def hierarchical(self) -> bool:
        return self._load is not None

    def settings_for(self, path: str | os.PathLike[str]) -> Settings:
        """The settings of a file (by its folder)."""
        return self.settings_for_folder(os.path.dirname(os.path.abspath(path)))

    def settings_for_folder(
        self, folder: str, names: Iterable[str] | None = None
    ) -> Settings:
        """The settings of the files in ``folder`` (absolute); ``names`` are its
        entries when a walk has listed them. Raises ConfigError."""
        if self._load is None:
            return self.default
        known = self._by_folder.get(folder)
        if known is not None:
            return known
        # Up to the nearest folder already known or holding a configuration file.
        pending: list[str] = []
        current = folder
        found: Settings | None = None
        while True:
            known = self._by_folder.get(current)
            if known is not None:
                found = known
                break
            config = config_in_folder(current, names if current == folder else None)
            if config is not None:
                found = self._settings_of(config)
                break
            pending.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                found = self.default
                break
            current = parent
        for entry in pending:
            self._by_folder[entry] = found
        self._by_folder[current] = found
        return found

    def _settings_of(self, config: Path) -> Settings:
        key = str(config)
        settings = self._by_file.get(key)
        if settings is None:
            assert self._load is not None
            settings = self._by_file[key] = self._load(config)
        return settings

    def all_settings(self) -> list[Settings]:
        """Every distinct settings object handed out so far (the default first)."""
        seen: dict[int, Settings] = {id(self.default): self.default}
        for settings in self._by_folder.values():
            seen.setdefault(id(settings), settings)
        return list(seen.values())
