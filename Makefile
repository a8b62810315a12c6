# Two commands for a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: serve test install install-test bench openapi clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'

serve: install
	$(BIN)/uvicorn app.main:app --host $(HOST) --port $(PORT)

test: install-test
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: install-test
	$(BIN)/python -m bench.run $(BENCH_ARGS)

openapi: install
	$(BIN)/python -m app.openapi_dump > openapi/openapi.json

clean:
	rm -rf $(VENV) build *.egg-info codecs/*.egg-info
