# One entry point: `make run` starts JupyterLab with the service beside it, `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The side panel (labextension/) builds into aistor_lab/labextension; an editable install copies
# that once, so the copy is replaced by a link to the working tree (as `jupyter labextension develop`).
PANEL_BUILD := aistor_lab/labextension/static/style.js
PANEL_MODULES := labextension/node_modules/.yarn-state.yml
PANEL_LINK := $(VENV)/share/jupyter/labextensions/aistor-lab
JLPM := PATH="$(CURDIR)/$(BIN):$$PATH" $(CURDIR)/$(BIN)/jlpm
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup run server test ui-test lint bench lock

# The offline Spark jar kit lives outside the clone (default ~/.cache/aistor-lab/spark-jars, or
# $AISTOR_SPARK_JARS) and is only rebuilt when it does not verify.
setup: $(STAMP) $(PANEL_BUILD)
	$(BIN)/aistor-lab spark-jars build

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	rm -rf $(PANEL_LINK)  # else a reinstall copies the wheel's panel files through the link into the build
	$(BIN)/pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[test,bench,spark,notebooks]'
	rm -rf $(PANEL_LINK) && ln -s $(CURDIR)/aistor_lab/labextension $(PANEL_LINK)
	touch $(STAMP)

# The install above builds the panel; these reinstall its npm packages and rebuild it when they
# or its sources change (the jest and Galata tests need the packages too).
$(PANEL_MODULES): labextension/package.json labextension/yarn.lock | $(STAMP)
	cd labextension && $(JLPM) install
	touch $(PANEL_MODULES)

$(PANEL_BUILD): $(PANEL_MODULES) labextension/tsconfig.json $(shell find labextension/src labextension/style -type f)
	cd labextension && $(JLPM) build
	touch $(PANEL_BUILD)

# JupyterLab on http://127.0.0.1:8888 (or the next free port), open on the quickstart notebook (the
# URL it prints and the browser it opens), with the service on 127.0.0.1:9000.
run: setup
	$(BIN)/jupyter lab --notebook-dir=notebooks --LabApp.default_url=/lab/tree/quickstart.ipynb \
		--ServerApp.allow_root=True \
		--AIStorLabApp.address=127.0.0.1:9000 --AIStorLabApp.data_dir=$(CURDIR)/.data/store

# The service alone, without Jupyter.
server: setup
	$(BIN)/aistor-lab server --address 127.0.0.1:9000 --data .data/store

lint: setup
	$(BIN)/ruff check aistor_lab tests benchmarks

test: lint ui-test
	$(BIN)/pytest

# The side panel: jest unit tests, then Galata UI tests in Debian's headless Chromium (Playwright
# cannot download its own browser here).
ui-test: setup
	command -v chromium >/dev/null || \
		{ $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }
	cd labextension && $(JLPM) test && $(JLPM) test:ui

# Quick runs of every benchmark, each beside its peers (benchmarks/README.md has full runs and figures).
bench: setup
	$(BIN)/python benchmarks/s3_bench.py --quick
	$(BIN)/python benchmarks/catalog_bench.py --quick
	$(BIN)/python benchmarks/contention_bench.py --quick
	$(BIN)/python benchmarks/sharing_bench.py --quick
	$(BIN)/python benchmarks/memory_bench.py --quick
	$(BIN)/python benchmarks/maintenance_bench.py --quick
	$(BIN)/python benchmarks/planning_bench.py --quick
	$(BIN)/python benchmarks/scale_bench.py --quick

# Re-pin every installed distribution after changing dependencies in pyproject.toml.
lock:
	$(BIN)/pip freeze --exclude-editable --disable-pip-version-check | grep -v '^aistor-lab' > requirements.lock
