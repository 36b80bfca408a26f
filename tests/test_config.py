"""Settings and ``[tool.attnlint]`` loading."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lint_rules.config import (
    DEFAULT_EXCLUDES,
    DEFAULT_GRAPH_STATE_METHODS,
    OPTIONS,
    ConfigError,
    GlobError,
    RuleSelection,
    Settings,
    find_config,
    glob_to_regex,
    load_settings,
    resolve_selection,
    settings_from_table,
)
from tests.engine_rules import ENGINE, ENGINE_RULES

CODES = ("ATN101", "ATN102", "ATN103", "ATN201", "ATN202", "ATN301")


def enabled(*layers: RuleSelection) -> list[str]:
    return sorted(resolve_selection(CODES, layers))


def write_pyproject(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


def load_table(table: dict, **kwargs) -> Settings:
    return settings_from_table(
        table, config_file="pyproject.toml", codes=CODES, **kwargs
    )


# ----------------------------------------------------------------- rule selection


@pytest.mark.parametrize(
    ("layers", "on"),
    [
        ((), False),  # the default: select = ["ALL"]
        ((RuleSelection(select=("ALL",)),), False),
        ((RuleSelection(select=("ATN",)),), False),
        ((RuleSelection(select=("ATN0",)),), True),
        ((RuleSelection(select=("ATN001",)),), True),
        ((RuleSelection(extend_select=("ATN001",)),), True),
        ((RuleSelection(select=("ALL",), extend_select=("ATN00",)),), True),
        ((RuleSelection(ignore=("ATN",), extend_select=("ATN001",)),), True),
        (
            (RuleSelection(extend_select=("ATN001",)), RuleSelection(ignore=("ATN0",))),
            False,
        ),
    ],
)
def test_unused_noqa_is_selected_only_by_name(layers, on: bool) -> None:
    settings = Settings(extra_selections=layers)
    assert ("ATN001" in settings.enabled_codes) is on
    # Every other rule as ALL would select it.
    others = settings.enabled_codes - {"ATN001"}
    assert others == Settings(
        select=("ALL",), extra_selections=layers
    ).enabled_codes - {"ATN001"}


def test_opt_in_codes_are_the_rules_that_say_so() -> None:
    from lint_rules.rules import ALL_RULES, OPT_IN_CODES, Registry, default_registry

    assert OPT_IN_CODES == {rule.code for rule in ALL_RULES if rule.opt_in}
    assert Settings().opt_in_codes == OPT_IN_CODES
    assert Registry(ALL_RULES).settings().opt_in_codes == OPT_IN_CODES
    assert default_registry().opt_in_codes == OPT_IN_CODES


def test_default_settings_enable_every_rule() -> None:
    settings = ENGINE.settings()
    assert ENGINE.rules_for(settings.enabled_codes) == ENGINE_RULES


def test_select_prefix_enables_the_family() -> None:
    assert enabled(RuleSelection(select=("ATN1",))) == ["ATN101", "ATN102", "ATN103"]


def test_select_all_then_ignore_one_code() -> None:
    assert "ATN301" not in enabled(RuleSelection(select=("ALL",), ignore=("ATN301",)))


def test_more_specific_select_beats_less_specific_ignore() -> None:
    result = enabled(RuleSelection(select=("ATN301",), ignore=("ATN3",)))
    assert result == ["ATN301"]


def test_ignore_beats_select_at_equal_specificity() -> None:
    assert enabled(RuleSelection(select=("ATN2",), ignore=("ATN2",))) == []


def test_extend_select_adds_to_select() -> None:
    result = enabled(RuleSelection(select=("ATN101",), extend_select=("ATN301",)))
    assert result == ["ATN101", "ATN301"]


def test_later_layer_with_select_starts_afresh() -> None:
    config = RuleSelection(select=("ATN1",), ignore=("ATN101",))
    cli = RuleSelection(select=("ATN301",))
    assert enabled(config, cli) == ["ATN301"]


def test_later_layer_without_select_refines() -> None:
    config = RuleSelection(select=("ATN1",))
    cli = RuleSelection(ignore=("ATN102",), extend_select=("ATN202",))
    assert enabled(config, cli) == ["ATN101", "ATN103", "ATN202"]


def test_later_extend_select_reenables_an_ignored_rule() -> None:
    config = RuleSelection(select=("ALL",), ignore=("ATN301",))
    cli = RuleSelection(extend_select=("ATN3",))
    assert "ATN301" in enabled(config, cli)


def test_with_cli_selection_layers_on_top() -> None:
    settings = ENGINE.settings(ignore=("TST1",))
    layered = settings.with_cli_selection(RuleSelection(select=("TST101",)))
    assert layered.enabled_codes == {"TST101"}
    assert settings.with_cli_selection(RuleSelection()) is settings


# ------------------------------------------------------------------- validation


def test_unknown_key_names_the_key_and_file() -> None:
    with pytest.raises(ConfigError) as caught:
        load_table({"selec": ["ATN"]})
    message = str(caught.value)
    assert "pyproject.toml" in message and "'selec'" in message
    assert "did you mean 'select'" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ("[tool.attnlint] ", "write ignore, select in [tool.attnlint] itself"),
        ("", "write ignore, select at the top level of the file"),
    ],
)
def test_a_ruff_style_lint_table_says_where_its_keys_go(
    section: str, expected: str
) -> None:
    """`[tool.attnlint.lint]`, as a ruff user writes `[tool.ruff.lint]`: the
    message says where the keys go (was: unknown key 'lint', and nothing
    more)."""
    with pytest.raises(ConfigError) as caught:
        settings_from_table(
            {"lint": {"select": ["ATN1"], "ignore": []}},
            config_file="pyproject.toml",
            section=section,
        )
    assert str(caught.value) == (
        f"pyproject.toml: {section}unknown key 'lint' (unlike ruff, attnlint has "
        f"no lint table: {expected})"
    )


@pytest.mark.parametrize(
    ("key", "selector", "suggested"),
    [
        ("select", "atn1", "ATN1"),
        ("ignore", "atn203", "ATN203"),
        ("extend-select", "all", "ALL"),
        ("ignore", "ATN109", "ATN104"),
    ],
)
def test_an_unknown_selector_suggests_what_was_meant(
    key: str, selector: str, suggested: str
) -> None:
    """A selector in lower case is the one in upper case (was: `atn1` got
    "did you mean 'ATN301'?", the closest whole code, not the prefix typed);
    a typo still gets the closest code."""
    with pytest.raises(ConfigError) as caught:
        settings_from_table({key: [selector]}, config_file="pyproject.toml")
    assert str(caught.value) == (
        f"pyproject.toml: [tool.attnlint] {key}: unknown rule selector {selector!r}"
        f" (did you mean {suggested!r}?)"
    )


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ({"select": "ATN301"}, "select: expected an array of strings, got a string"),
        ({"select": ["ATN999"]}, "select: unknown rule selector 'ATN999'"),
        ({"ignore": ["atn301"]}, "ignore: unknown rule selector 'atn301'"),
        ({"extend-select": [3]}, "extend-select: expected an array of strings"),
        ({"fix": "yes"}, "fix: expected true or false, got a string"),
        ({"unsafe-fixes": 1}, "unsafe-fixes: expected true or false, got an integer"),
        ({"output-format": "xml"}, "output-format: expected one of concise"),
        ({"exclude": ["build/["]}, "exclude: invalid glob: unclosed '['"),
        ({"extend-exclude": ["{a,b"]}, "extend-exclude: invalid glob: unclosed '{'"),
        ({"graph-state-methods": ["init_[cuda"]}, "graph-state-methods: invalid glob"),
        ({"graph-state-methods": [""]}, "graph-state-methods: empty pattern"),
        ({"per-file-ignores": ["x"]}, "per-file-ignores: expected a table"),
        ({"per-file-ignores": {"tests/*": "ATN"}}, "per-file-ignores.'tests/*'"),
        ({"per-file-ignores": {"tests/[": ["ATN"]}}, "invalid glob"),
        ({"per-file-ignores": {"x.py": ["NOPE1"]}}, "unknown rule selector 'NOPE1'"),
        ({"cache-dir": ""}, "cache-dir: expected a non-empty string"),
    ],
)
def test_bad_values_are_one_line_errors(table: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_table(table)
    message = str(caught.value)
    assert fragment in message
    assert message.startswith("pyproject.toml: [tool.attnlint] ")
    assert "\n" not in message


def test_every_documented_key_loads() -> None:
    settings = load_table(
        {
            "select": ["ATN1", "ATN301"],
            "ignore": ["ATN103"],
            "extend-select": ["ATN2"],
            "per-file-ignores": {"tests/*": ["ATN"]},
            "extend-per-file-ignores": {"tests/*": ["ATN301"], "x.py": ["ALL"]},
            "exclude": ["vendored"],
            "extend-exclude": ["generated/**"],
            "force-exclude": True,
            "graph-state-methods": ["init_*_graph_state"],
            "cache-dir": ".cache/attnlint",
            "fix": True,
            "unsafe-fixes": False,
            "show-fixes": True,
            "output-format": "json",
        },
        project_root="/project",
    )
    assert settings.select == ("ATN1", "ATN301")
    assert settings.ignore == ("ATN103",)
    assert settings.extend_select == ("ATN2",)
    assert dict(settings.per_file_ignores) == {
        "tests/*": ("ATN", "ATN301"),
        "x.py": ("ALL",),
    }
    assert settings.exclude == ("vendored",)
    assert settings.extend_exclude == ("generated/**",)
    assert settings.force_exclude is True
    assert settings.graph_state_methods == ("init_*_graph_state",)
    assert settings.cache_dir == ".cache/attnlint"
    assert settings.fix is True and settings.unsafe_fixes is False
    assert settings.show_fixes is True
    assert settings.output_format == "json"
    assert settings.enabled_codes == {"ATN101", "ATN102", "ATN201", "ATN202", "ATN301"}


def test_defaults_when_keys_are_absent() -> None:
    settings = load_table({})
    assert settings.select == ("ALL",)
    assert settings.exclude == DEFAULT_EXCLUDES
    assert settings.graph_state_methods == DEFAULT_GRAPH_STATE_METHODS
    assert settings.unsafe_fixes is None
    assert settings.output_format == "concise"


def test_graph_state_methods_default_and_globs() -> None:
    from lint_rules.analysis.class_uses import method_matches

    assert "init_cuda_graph_state" in DEFAULT_GRAPH_STATE_METHODS
    default = Settings().graph_state_methods
    assert method_matches("init_cuda_graph_state", default)
    assert not method_matches("forward_decode", default)
    custom = Settings(
        graph_state_methods=("init_*_state", "setup_graph")
    ).graph_state_methods
    assert method_matches("init_draft_cuda_graph_state", custom)
    assert method_matches("setup_graph", custom)
    assert not method_matches("init_cuda_graph_state_extra", custom)
    assert not method_matches("Init_cuda_graph_state", default)  # case counts


# ---------------------------------------------------------------------- loading


def test_find_config_searches_upward_and_skips_files_without_the_table(
    tmp_path: Path,
) -> None:
    write_pyproject(tmp_path, "[tool.attnlint]\nselect = ['ATN301']\n")
    inner = tmp_path / "pkg" / "sub"
    inner.mkdir(parents=True)
    write_pyproject(tmp_path / "pkg", "[project]\nname = 'pkg'\n")
    assert find_config(inner) == tmp_path / "pyproject.toml"
    (inner / "mod.py").write_text("")
    assert find_config(inner / "mod.py") == tmp_path / "pyproject.toml"


def test_load_settings_roots_relative_paths_at_the_config(tmp_path: Path) -> None:
    config = write_pyproject(tmp_path, "[tool.attnlint]\nextend-exclude = ['gen']\n")
    (tmp_path / "a").mkdir()
    settings = load_settings(start=tmp_path / "a")
    assert settings.config_file == str(config)
    assert settings.project_root == str(tmp_path)
    assert settings.extend_exclude == ("gen",)
    assert settings.is_excluded(str(tmp_path / "gen"))
    assert settings.cache_path == tmp_path / ".attnlint_cache"


def test_load_settings_without_config_uses_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings(start=tmp_path)
    assert settings.config_file is None
    assert settings.project_root == str(tmp_path)
    assert settings.select == ("ALL",)


def test_explicit_config_path(tmp_path: Path) -> None:
    config = write_pyproject(tmp_path, "[tool.attnlint]\nfix = true\n")
    assert load_settings(config).fix is True


def test_explicit_config_path_missing(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="configuration file not found"):
        load_settings(tmp_path / "nope.toml")


def test_invalid_toml_is_a_config_error(tmp_path: Path) -> None:
    config = write_pyproject(tmp_path, "[tool.attnlint]\nselect = [\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    assert str(caught.value).startswith(f"{config}: invalid TOML")


def test_error_names_the_file(tmp_path: Path) -> None:
    config = write_pyproject(tmp_path, "[tool.attnlint]\nbogus = 1\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(start=tmp_path)
    assert str(caught.value) == f"{config}: [tool.attnlint] unknown key 'bogus'"


def test_overrides_win_and_are_validated_on_their_own(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.attnlint]\nfix = false\n")
    assert load_settings(start=tmp_path, overrides={"fix": True}).fix is True
    with pytest.raises(ConfigError, match=r"^--config: \[tool.attnlint\] fix"):
        load_settings(start=tmp_path, overrides={"fix": "no"})


def test_tool_attnlint_must_be_a_table(tmp_path: Path) -> None:
    config = write_pyproject(tmp_path, "[tool]\nattnlint = 3\n")
    with pytest.raises(ConfigError, match="must be a table"):
        load_settings(config)


# ------------------------------------------------------------- per-file-ignores


def test_per_file_ignores_basename_path_and_negation(tmp_path: Path) -> None:
    settings = Settings(
        project_root=str(tmp_path),
        per_file_ignores=(
            ("conftest.py", ("ATN1",)),
            ("tests/**/*.py", ("ATN3",)),
            ("!src/*", ("ATN2",)),
        ),
        available_codes=CODES,
    )
    assert settings.ignored_codes_for(str(tmp_path / "a" / "conftest.py")) == (
        "ATN1",
        "ATN2",
    )
    assert "ATN3" in settings.ignored_codes_for(str(tmp_path / "tests" / "x" / "t.py"))
    assert "ATN3" in settings.ignored_codes_for(str(tmp_path / "tests" / "t.py"))
    assert settings.ignored_codes_for(str(tmp_path / "src" / "m.py")) == ()


def test_per_file_ignores_with_relative_filename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings(
        project_root=str(tmp_path), per_file_ignores=(("gen/*", ("ATN",)),)
    )
    assert settings.ignored_codes_for(os.path.join("gen", "m.py")) == ("ATN",)
    assert settings.ignored_codes_for("m.py") == ()


# ------------------------------------------------------------------------ globs


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.py", ["a.py", "dir/a.py"], ["a.pyi"]),
        ("/r/**/gen", ["/r/gen", "/r/a/b/gen"], ["/r/gen2"]),
        ("/r/gen/**", ["/r/gen/x.py"], ["/r/gen"]),
        ("test_?.py", ["test_a.py"], ["test_ab.py"]),
        ("[!_]*.py", ["a.py"], ["_a.py"]),
        ("[a-c].py", ["b.py"], ["d.py"]),
        ("*.{py,pyi}", ["a.py", "a.pyi"], ["a.pyc"]),
        (r"a\*b", ["a*b"], ["axb"]),
    ],
)
def test_glob_semantics(pattern: str, matches: list[str], misses: list[str]) -> None:
    regex = glob_to_regex(pattern)
    for text in matches:
        assert regex.match(text), (pattern, text)
    for text in misses:
        assert not regex.match(text), (pattern, text)


@pytest.mark.parametrize("pattern", ["[abc", "{a,b", "{a,{b}}", "a\\"])
def test_bad_globs_raise(pattern: str) -> None:
    with pytest.raises(GlobError):
        glob_to_regex(pattern)


def test_default_excludes_cover_ruffs_list_and_build_output() -> None:
    for name in (".git", ".venv", "venv", "build", "dist", ".tox", ".nox", ".eggs"):
        assert name in DEFAULT_EXCLUDES
    for name in ("__pycache__", "node_modules", "site-packages"):
        assert name in DEFAULT_EXCLUDES
    settings = Settings(project_root="/p")
    assert settings.is_excluded("/p/x/node_modules")
    assert not settings.is_excluded("/p/x/building")


# ------------------------------------------------------------------ option table

#: A TOML value other than the default, per option kind (an option of a new
#: kind needs one here, so that the tests below cover it).
SAMPLE_VALUES = {
    "array of rule selectors": ["ATN301"],
    "array of globs": ["zz_*"],
    "table of glob = [rule selectors]": {"zz.py": ["ATN3"]},
    "string": "json",
    "table of call name = [positions or keywords]": {"fill_kernel": [0, "out"]},
}


def sample_value(option):
    if option.kind == "boolean":
        return not option.default
    assert option.kind in SAMPLE_VALUES, f"add a sample value for {option.kind!r}"
    return SAMPLE_VALUES[option.kind]


def test_every_option_is_a_settings_attribute_with_its_default() -> None:
    settings = Settings()
    for option in OPTIONS:
        if option.extends is None:
            assert getattr(settings, option.attribute) == option.default, option.key
            assert option.attribute in Settings._fields
        else:
            assert option.extends in {o.key for o in OPTIONS}


@pytest.mark.parametrize("key", [option.key for option in OPTIONS])
def test_an_option_is_in_the_cache_key_exactly_when_it_affects_findings(
    key: str,
) -> None:
    from lint_rules.cache import settings_fingerprint
    from lint_rules.config import OPTIONS_BY_KEY

    option = OPTIONS_BY_KEY[key]
    value = sample_value(option)
    default = settings_from_table({}, project_root="/p")
    changed = settings_from_table({key: value}, project_root="/p")
    assert changed != default, key
    differs = settings_fingerprint(changed) != settings_fingerprint(default)
    assert differs is option.affects_findings, key


def test_rule_options_are_the_options_rules_read() -> None:
    from lint_rules.config import RuleOptions

    names = {option.attribute for option in OPTIONS if option.for_rules}
    assert "graph_state_methods" in names
    assert set(RuleOptions()._fields) == names
    custom = Settings(graph_state_methods=("setup_*",)).options
    assert custom.graph_state_methods == ("setup_*",)
    assert custom == RuleOptions({"graph_state_methods": ("setup_*",)})
    with pytest.raises(TypeError, match="cache_dir"):
        RuleOptions({"cache_dir": "x"})


def test_unknown_settings_field_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="no_such_option"):
        Settings(no_such_option=1)
