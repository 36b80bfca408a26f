"""pytest plugin: run tests with uninitialized memory poisoned.

Under poisoning, memory from ``torch.empty`` and its family holds NaN (floating
point and complex) or the integer maximum instead of whatever was there, so a
test that reads a buffer before writing it sees garbage that shows. This is the
runtime check for attnlint's unsafe ``zeros`` -> ``empty`` fixes.

Three ways to ask for it:

- ``pytest --attnlint-poison`` or ``ATTNLINT_POISON=1``: the whole session
  (collection, fixtures and every test);
- ``@pytest.mark.attnlint_poison``: one test, its fixtures' setup and teardown
  included;
- the ``attnlint_poison`` fixture: from the fixture's setup to its teardown.

A poisoned test whose body leaves poisoning switched off (deterministic algorithms
or the fill) fails: torch.empty held the allocator's bytes in it.

The plugin is loaded into every pytest run wherever attnlint is installed, so
it imports torch only when poisoning is asked for; torch need not be installed
otherwise.

When the environment variable ``ATTNLINT_POISON_WITNESS`` names a file, a
poisoned session appends JSON lines to it: one when poisoning starts and one
per failed test. ``attnlint verify`` uses them to prove that its test command
really ran with poisoning on, and to name the failing tests.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator

import pytest

from lint_rules.poison import (
    POISON_ENV,
    poison_requested_by_env,
    poisoned_memory,
    poisoning_is_on,
)

MARKER = "attnlint_poison"
WITNESS_ENV = "ATTNLINT_POISON_WITNESS"

_session_poison_key = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("attnlint", "attnlint: uninitialized-memory poisoning")
    group.addoption(
        "--attnlint-poison",
        action="store_true",
        default=False,
        dest="attnlint_poison",
        help=(
            "run the whole session with uninitialized memory poisoned: torch.empty "
            "and its family return NaN (floating point) or the integer maximum "
            f"(integers). Same as {POISON_ENV}=1. Needs torch."
        ),
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}: run this test (its fixtures' setup and teardown included) with "
        "uninitialized memory poisoned: torch.empty returns NaN / integer max.",
    )
    if config.getoption("attnlint_poison", False):
        source = "--attnlint-poison"
    elif poison_requested_by_env():
        source = f"{POISON_ENV}={os.environ[POISON_ENV]}"
    else:
        return
    _require_torch(source)
    config.stash[_session_poison_key] = source
    # Poison from here on, so allocations at import and collection time count too.
    stack = contextlib.ExitStack()
    stack.enter_context(poisoned_memory())
    config.add_cleanup(stack.close)
    _witness({"event": "poisoned", "pid": os.getpid(), "source": source})


def pytest_report_header(config: pytest.Config) -> list[str]:
    source = config.stash.get(_session_poison_key, None)
    if source is None:
        return []
    return [
        "attnlint: uninitialized memory poisoned (torch.empty -> NaN / integer max), "
        f"by {source}"
    ]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    # Under session poisoning, each test is still wrapped: a test that switches
    # deterministic algorithms off must not switch poisoning off for the next.
    wanted = _session_poison_key in item.config.stash or (
        item.get_closest_marker(MARKER) is not None
    )
    if not wanted:
        yield
        return
    if not _torch_importable():
        yield  # the test fails in setup (see pytest_runtest_setup)
        return
    with poisoned_memory():
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    # A test that switches deterministic algorithms (or the fill) off reads the
    # allocator's bytes from torch.empty from then on: its pass proves nothing.
    wanted = (
        _session_poison_key in item.config.stash
        or item.get_closest_marker(MARKER) is not None
        or MARKER in getattr(item, "fixturenames", ())
    )
    # Only a switch in the test's body counts: a fixture that sets poisoning up
    # or off on purpose (attnlint's own tests do) is the fixture's business.
    on_at_start = wanted and _torch_importable() and poisoning_is_on()
    result = yield
    if on_at_start and not poisoning_is_on():
        pytest.fail(
            "attnlint: uninitialized-memory poisoning was switched off during this "
            "test (torch.use_deterministic_algorithms(False), or "
            "torch.utils.deterministic.fill_uninitialized_memory = False), so its "
            "passing proves nothing about torch.empty",
            pytrace=False,
        )
    return result


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker(MARKER) is not None and not _torch_importable():
        pytest.fail(_no_torch_message(f"@pytest.mark.{MARKER}"), pytrace=False)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _witness({"event": "failed", "nodeid": report.nodeid, "when": report.when})


@pytest.fixture
def attnlint_poison() -> Iterator[None]:
    """Poison uninitialized memory from this fixture's setup to its teardown."""
    if not _torch_importable():
        pytest.fail(_no_torch_message(f"the {MARKER} fixture"), pytrace=False)
    with poisoned_memory():
        yield


def _require_torch(source: str) -> None:
    if not _torch_importable():
        raise pytest.UsageError(_no_torch_message(source))


def _torch_importable() -> bool:
    try:
        import torch.utils.deterministic  # noqa: F401
    except ImportError:
        return False
    return True


def _no_torch_message(source: str) -> str:
    return (
        f"attnlint: {source} asks for uninitialized-memory poisoning, which needs "
        "torch (torch.utils.deterministic.fill_uninitialized_memory), but torch "
        "cannot be imported here"
    )


def _witness(record: dict[str, object]) -> None:
    path = os.environ.get(WITNESS_ENV)
    if not path or not poison_requested_by_env():
        return
    # One short line per write with O_APPEND: safe with parallel workers.
    with open(path, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(record) + "\n")
