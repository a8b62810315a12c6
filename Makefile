# Two commands for a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: serve test install install-test compile pure bench openapi clean browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Installs are editable (code changes need none) and remembered by a stamp file: redone only when
# pyproject.toml changes, so `make serve` starts at once when nothing did.
install: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	@touch $@

install-test: $(VENV)/.installed-test
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	@touch $@ $(VENV)/.installed

# Serves the compiled build: `make compile` builds it first when a C compiler is here (once; again only when its
# sources change), else says once that the pure-Python modules serve. The log's first lines name the build in use.
serve: install compile
	$(BIN)/plybits serve --host $(HOST) --port $(PORT)

# The full suite, on the compiled build (the one the image ships) when there is one. Its
# tests/test_pure_pass.py runs the test files of the compiled modules (found from plybits.compiled.MODULES) again
# on the pure-Python modules, in a child pytest with PLYBITS_PURE=1 (sampled by PLYBITS_QUICK=1): once, in the
# suite, so plain `pytest` runs it too. PYTEST_ARGS picks tests.
test: install-test browser compile
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The compiled build (docs/architecture.md): mypyc compiles the modules of plybits.compiled.MODULES to C
# extension modules in place, beside their .py files, so the editable install, `make serve` and the tests load
# them; redone when one of their sources changes (touched after: an unchanged extension is not rewritten, and
# plybits loads the pure-Python modules when a .py is newer than its extension). Without a C compiler it says so
# (at each run, and looks again the next time) and the pure-Python modules stay in use. `make pure` removes the
# extension modules (the next `make serve` or `make test` builds them again); PLYBITS_PURE=1 ignores them at run time.
COMPILED_SOURCES := setup.py codecs/plybits/compiled.py $(shell $(PYTHON) codecs/plybits/compiled.py)
HAVE_CC = $(BIN)/python codecs/plybits/compiled.py cc
# An incremental mypyc build can crash on a cache written before a class changed ("ValueError: value is not in
# list" in emit_undefined_attr_check): the build is then redone once from an empty cache.
MYPYC_BUILD = PLYBITS_COMPILE=1 $(BIN)/python setup.py --quiet build_ext --inplace --parallel 2 \
	--build-lib build/mypyc/lib --build-temp build/mypyc/temp
compile: $(VENV)/.compiled
$(VENV)/.compiled: $(COMPILED_SOURCES) constraints.txt | $(VENV)/.installed
	@if $(HAVE_CC); then \
		echo "compile: mypyc is compiling the hot core to C extension modules (a few minutes of both cores, once)"; \
		$(BIN)/pip install --quiet -c constraints.txt setuptools wheel mypy && \
		$(MYPYC_BUILD) || { echo "compile: mypyc failed; once more from a clean cache (build/mypyc/cache)"; \
			rm -rf build/mypyc/cache && $(MYPYC_BUILD); } || exit 1; \
		find codecs -name '*.so' -exec touch {} + && touch $@; \
	else echo "compile: no C compiler (or Python headers): plybits runs its pure-Python modules, several times slower"; fi

pure:
	find codecs -name '*.so' -delete
	rm -f $(VENV)/.compiled

# Headless Chromium for tests/test_playground.py (Debian's packages), and a CJK font for xiangqi's pieces.
# Installed only when missing and only as root; otherwise the browser test skips and says why.
BROWSER_FILES := /usr/bin/chromium /usr/bin/chromedriver /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
browser:
	@missing=""; for f in $(BROWSER_FILES); do [ -e $$f ] || missing="$$missing $$f"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "browser: installing chromium, chromium-driver, fonts-wqy-microhei with apt-get (missing:$$missing):"; \
		echo "browser: about 510 MB, and apt may upgrade packages they depend on"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver fonts-wqy-microhei; \
	else echo "browser: missing$$missing and not root: the browser test will skip"; fi

# Each benchmark prints its BENCHMARKS.md section; `make bench BENCH=chess BENCH_ARGS=--write` rewrites it.
BENCH ?= chess
bench: install-test
	$(BIN)/python -m bench.$(BENCH) $(BENCH_ARGS)

openapi: install
	$(BIN)/python -m app.openapi_dump > openapi/openapi.json

clean: pure
	rm -rf $(VENV) build *.egg-info codecs/*.egg-info
