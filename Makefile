# Every target bootstraps .venv on a fresh machine that has only Python 3.11+ and pip.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PYPROJECTS := pyproject.toml $(wildcard packages/*/pyproject.toml)
EDITABLES  := $(foreach p,$(wildcard packages/*),-e $(p))
# Two cores: pytest-xdist spreads the suite over both.
PYTEST_ARGS ?= -n 2

.PHONY: all demo test test-all fuzz lint bench venv browser clean

all: test

# Re-install whenever a pyproject changes, so new dependencies reach every checkout.
$(STAMP): $(PYPROJECTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(EDITABLES) -e '.[test]'
	# Byte-code for the editable sources: where PYTHONDONTWRITEBYTECODE is set (CI, these
	# machines), every command a test launches would otherwise recompile them (~0.2 CPU-s).
	$(BIN)/python -m compileall -q packages/*/src
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" bash examples/demo.sh
	@echo
	@echo "== all four in the browser: $(BIN)/esochess studio  (see docs/studio.md)"

# Headless Chromium for the HTML-board test; installed only when missing, and the
# test skips itself with a reason when this could not be done.
browser:
	@{ command -v chromium && command -v chromedriver; } >/dev/null 2>&1 || { \
	  echo "installing chromium and its driver for the browser tests (Debian packages)"; \
	  apt-get update -qq >/dev/null 2>&1 || echo "apt-get update failed: trying the install with the lists at hand"; \
	  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null 2>&1 \
	  || echo "chromium could not be installed: the browser tests will be skipped"; }

test: $(STAMP) browser
	$(BIN)/mypy packages/
	$(BIN)/pytest $(PYTEST_ARGS) -m "not slow"

test-all: $(STAMP) browser
	$(BIN)/mypy packages/
	$(BIN)/pytest $(PYTEST_ARGS)

# The fuzz targets (tests/fuzzing.py) at FUZZ_SCALE times the examples `make test` runs.
FUZZ_SCALE ?= 100
fuzz: $(STAMP)
	FUZZ_SCALE=$(FUZZ_SCALE) $(BIN)/pytest $(PYTEST_ARGS) tests/cqlvars/test_pgn_fuzz.py tests/cqlvars/test_frontend_fuzz.py

lint: $(STAMP)
	$(BIN)/ruff check packages tests benchmarks
	$(BIN)/mypy packages/

bench: $(STAMP)
	@for b in benchmarks/*.py; do echo "== $$b"; PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .hypothesis .ruff_cache
