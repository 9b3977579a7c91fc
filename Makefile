# The quick start: `make run` records this machine into ./var/ring; `make test` runs every test.
VENV ?= .venv
BIN := $(VENV)/bin
RING ?= var/ring

.PHONY: setup run test lint bench clean

setup:
	@./tools/bootstrap

run: setup
	@mkdir -p $(dir $(RING))
	$(BIN)/kmsgd run --ring $(RING) --ring-size 16M

test: setup
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check kmsgd tests bench
	$(BIN)/ruff format --check kmsgd tests bench
	$(BIN)/mypy

bench: setup
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var build *.egg-info
