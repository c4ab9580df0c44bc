# The README's two commands: `make run` (set up, then a quick conformance run on the default simulated device and
# short demos; `make suite` gives the full verdict) and `make test` (set up, then lint, type checks, import layers, every test, and the conformance suite
# on the simulator (one device, and a four-device system), the reference backend (two devices) and OpenCL). Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run suite test bench setup clean pocl

$(STAMP): pyproject.toml
	@echo "Setting up $(VENV): wia and its dependencies (numpy, simpy, pydantic, pyopencl, matplotlib, ray, ...)."
	@echo "The first time this takes about two minutes; later runs skip it."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,opencl,plot,ray]"
	touch $(STAMP)

setup: $(STAMP)

# PoCL, a real OpenCL CPU device, comes from Debian (the pip wheel's LLVM cannot build on some CPUs): installed when
# this runs as root with apt (as CI does); otherwise the OpenCL runs use what is there and say what is missing.
pocl:
	@if ls /etc/OpenCL/vendors/*pocl* >/dev/null 2>&1; then echo "PoCL: installed"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "PoCL: installing Debian's pocl-opencl-icd"; \
		(apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pocl-opencl-icd >/dev/null) \
			|| echo "PoCL: apt-get could not install pocl-opencl-icd; OpenCL runs use Oclgrind only"; \
	else echo "PoCL: skipped (installing pocl-opencl-icd needs root and apt-get); OpenCL runs use Oclgrind only"; fi

run: $(STAMP)
	$(BIN)/wia devices
	$(BIN)/wia-sim models list
	$(BIN)/wia-conformance --backend sim --quick
	$(BIN)/python examples/what_the_simulator_shows.py
	$(BIN)/python examples/profile_a_model.py
	$(BIN)/python examples/multi_device.py
	$(BIN)/python examples/safe_compute.py
	$(BIN)/wia-sim whatif transformer --preset llama2-7b --param phase=prefill,decode --param batch=1,32 \
		--hardware nvidia-h100-sxm5-80gb,amd-mi300x
	@echo "What-if studies (sweeps, plots, 70B on 8 GPUs): docs/whatif.md"
	@echo "The full conformance verdict (about 1000 tests, a minute or two): make suite"

# The full suite on the default simulated device: the verdict per level.
suite: $(STAMP)
	$(BIN)/wia-conformance --backend sim

test: $(STAMP) pocl
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest -q -n 2 tests conformance/meta_tests
	$(BIN)/wia-conformance coverage
	WIA_SIM_HARDWARE=wia-tiny $(BIN)/wia-conformance --backend sim -q
	WIA_SIM_HARDWARE=wia-tiny-4x $(BIN)/wia-conformance --backend sim -q
	$(BIN)/wia-conformance --backend reference --option devices=2 -q
	$(BIN)/wia --backend opencl --option device=oclgrind devices
	$(BIN)/wia-conformance --backend opencl --option device=oclgrind -q
	@if $(BIN)/wia --backend opencl --option device=pocl devices; then \
		$(BIN)/wia-conformance --backend opencl --option device=pocl -q; \
	else echo "skipped the suite on PoCL: no usable PoCL device (above: why)"; fi

bench: $(STAMP)
	$(BIN)/python benchmarks/sim_throughput.py
	$(BIN)/python benchmarks/numeric_overhead.py
	$(BIN)/python benchmarks/pool.py
	$(BIN)/python benchmarks/kernels.py
	$(BIN)/python benchmarks/fidelity.py
	$(BIN)/python benchmarks/backends.py
	$(BIN)/python benchmarks/mutants.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
