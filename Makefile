# One entry point: `make run` starts the service, `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench lock

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[test,bench]'
	touch $(STAMP)

run: setup
	$(BIN)/aistor-lab server --address 127.0.0.1:9000 --data .data

lint: setup
	$(BIN)/ruff check aistor_lab tests benchmarks

test: lint
	$(BIN)/pytest

bench: setup
	$(BIN)/python benchmarks/s3_bench.py

# Re-pin every installed distribution after changing dependencies in pyproject.toml.
lock:
	$(BIN)/pip freeze --exclude-editable --disable-pip-version-check > requirements.lock
