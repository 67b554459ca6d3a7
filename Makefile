# Shortcuts for the scripts the README names.
.PHONY: run test lint package

run:
	scripts/run.sh

test:
	scripts/test.sh

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check .

# The packaged desktop app: dist/attention-workbench/attention-workbench, built and smoke-tested.
package:
	scripts/package.sh
