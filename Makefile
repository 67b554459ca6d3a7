# Shortcuts for the scripts the README names.
.PHONY: run test lint

run:
	scripts/run.sh

test:
	scripts/test.sh

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check .
