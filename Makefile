# One entry point: `make run` starts JupyterLab with the service beside it, `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Editable installs skip data files: the file that enables the Jupyter server extension is copied.
EXTENSION_CONFIG := etc/jupyter/jupyter_server_config.d/aistor_lab.json

.PHONY: setup run server test lint bench lock

# The offline Spark jar kit lives outside the clone (default ~/.cache/aistor-lab/spark-jars, or
# $AISTOR_SPARK_JARS) and is only rebuilt when it does not verify.
setup: $(STAMP)
	$(BIN)/aistor-lab spark-jars build

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[test,bench,spark]'
	install -D -m 644 jupyter-config/jupyter_server_config.d/aistor_lab.json $(VENV)/$(EXTENSION_CONFIG)
	touch $(STAMP)

# JupyterLab on http://127.0.0.1:8888 (or the next free port), open on the quickstart notebook (the
# URL it prints and the browser it opens), with the service on 127.0.0.1:9000.
run: setup
	$(BIN)/jupyter lab --notebook-dir=notebooks --LabApp.default_url=/lab/tree/quickstart.ipynb \
		--ServerApp.allow_root=True \
		--AIStorLabApp.address=127.0.0.1:9000 --AIStorLabApp.data_dir=$(CURDIR)/.data

# The service alone, without Jupyter.
server: setup
	$(BIN)/aistor-lab server --address 127.0.0.1:9000 --data .data

lint: setup
	$(BIN)/ruff check aistor_lab tests benchmarks

test: lint
	$(BIN)/pytest

bench: setup
	$(BIN)/python benchmarks/s3_bench.py

# Re-pin every installed distribution after changing dependencies in pyproject.toml.
lock:
	$(BIN)/pip freeze --exclude-editable --disable-pip-version-check | grep -v '^aistor-lab' > requirements.lock
