from lint_rules.cli import run

run()
