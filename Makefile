# Two commands for a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: serve test install install-test bench openapi clean browser

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

serve: install
	$(BIN)/plybits serve --host $(HOST) --port $(PORT)

test: install-test browser
	$(BIN)/python -m pytest $(PYTEST_ARGS)

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

clean:
	rm -rf $(VENV) build *.egg-info codecs/*.egg-info
