# The README's two commands: `make run` (set up, then the conformance suite on the default simulated device and
# short demos) and `make test` (set up, then lint, type checks, import layers, every test, and the conformance suite
# on the simulator and on the reference backend). Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench setup clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/wia devices
	$(BIN)/wia-sim models list
	$(BIN)/wia-conformance --backend sim
	$(BIN)/python examples/what_the_simulator_shows.py

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest -q -n 2 tests conformance/meta_tests
	$(BIN)/wia-conformance coverage
	WIA_SIM_HARDWARE=wia-tiny $(BIN)/wia-conformance --backend sim -q
	$(BIN)/wia-conformance --backend reference -q

bench: $(STAMP)
	$(BIN)/python benchmarks/sim_throughput.py
	$(BIN)/python benchmarks/numeric_overhead.py
	$(BIN)/python benchmarks/pool.py
	$(BIN)/python benchmarks/kernels.py
	$(BIN)/python benchmarks/fidelity.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
