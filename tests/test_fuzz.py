"""Bounded fuzzing in CI: no crash, every fix output parses and is a fixpoint.

Sized to run in well under a minute on two cores (about 25 s unloaded); the
long run is ``python -m benchmarks.fuzz``.
"""

from __future__ import annotations

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from pysource_codegen import generate

from tests.fuzzing import backend_programs, check_properties

CI_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@CI_SETTINGS
@given(backend_programs())
def test_backend_shaped_programs(source):
    check_properties(source)


@settings(CI_SETTINGS, max_examples=40)
@given(hypothesmith.from_grammar())
def test_grammar_generated_text(source):
    check_properties(source)


@settings(CI_SETTINGS, max_examples=20)
@given(hypothesmith.from_node())
def test_libcst_generated_modules(source):
    check_properties(source)


@pytest.mark.parametrize("seed", range(20))
def test_random_valid_asts(seed):
    check_properties(generate(seed, depth_limit=6, node_limit=2000))
