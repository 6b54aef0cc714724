# make demo       set up .venv (pyopencl with pocl and Intel's CPU runtime) and run the demo
# make test       set up .venv (+ test tools, R and clang from Debian) and run ruff and the
#                 test-suite: on pocl, on Intel's CPU runtime, and in the GPU schedules
# make docs       set up .venv and build the documentation site into build/docs/html
# make gpu-check  on a machine with a GPU: every gpu test and benchmark, one results file
# make bench      run the benchmarks (GPU figures need a GPU)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?= -m "not gpu"
# The capability tests run once more with every capability forced onto its GPU code path.
SCHEDULE_TESTS := tests/test_random.py tests/test_fisher.py tests/test_permutation.py \
	tests/test_fields.py tests/test_gsea.py tests/test_epistasis.py tests/test_epistasis_tiles.py \
	tests/test_device_math.py tests/test_distributed.py tests/test_spatial.py \
	tests/test_singlesample.py

.PHONY: demo test setup setup-test lint docs docs-build bench gpu-check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install -q --upgrade pip

# Debian's pocl where apt-get reaches it (PyPI's pocl cannot compile on AMD Zen 5 CPUs).
setup: $(BIN)/python
	bash tools/setup-pocl.sh
	$(BIN)/python -m pip install -q ".[pocl,intel,plot]"

demo: setup
	$(BIN)/oclstat demo

# rpy2 (the [r] extra) is installed where R is: the R comparisons then run for real. ABI mode
# needs only R's shared library, no compiler.
setup-test: $(BIN)/python
	bash tools/setup-pocl.sh
	bash tools/setup-system.sh
	$(BIN)/python -m pip install -q ".[pocl,intel,test,docs]"
	if command -v R >/dev/null 2>&1; then RPY2_CFFI_MODE=ABI $(BIN)/python -m pip install -q ".[r]"; fi

lint: setup-test
	$(BIN)/ruff check oclstat tests benchmarks tools docs

# pytest runs against the installed wheel (tests/ is not a package, the checkout is not on
# sys.path); tests/test_cli.py also runs the source tree with PYTHONPATH=. and no install.
# Pass 1 (pocl) also runs the `impl` tests, which compare pocl, Intel and oclgrind themselves
# and compile every kernel for GPUs; the other passes leave them out.
test: lint docs-build
	OCLSTAT_DEVICE=pocl OCLSTAT_REQUIRE_IMPLEMENTATIONS=pocl,intel,oclgrind \
	OCLSTAT_REQUIRE_TOOLS=1 $(BIN)/pytest $(PYTEST_ARGS)
	OCLSTAT_DEVICE=intel $(BIN)/pytest $(PYTEST_ARGS) -m "not gpu and not impl"
	OCLSTAT_DEVICE=pocl OCLSTAT_SCHEDULE=gpu $(BIN)/pytest -q -m "not gpu and not impl and not r" \
		$(SCHEDULE_TESTS)
	OCLSTAT_DEVICE=intel OCLSTAT_SCHEDULE=gpu $(BIN)/pytest -q -m "not gpu and not impl and not r" \
		$(SCHEDULE_TESTS)

# The documentation site (docs/, Sphinx with numpydoc and myst-nb) into build/docs/html:
# warnings are errors, the tutorials run (on ../shared/data where it is beside the checkout),
# every internal link and reference must resolve; then the docstrings' examples as doctests.
# tests/test_docs.py opens the built pages in headless Chromium.
SPHINX := $(BIN)/python -m sphinx -W --keep-going -q -j 1

docs: setup-test docs-build

docs-build:
	$(SPHINX) -b html docs build/docs/html
	$(SPHINX) -b doctest docs build/docs/doctest

gpu-check:
	bash tools/gpu-check.sh

bench: setup
	$(BIN)/python -m pip install -q ".[bench,dask,test]"
	$(BIN)/python benchmarks/bench_implementations.py
	$(BIN)/python benchmarks/bench_random.py
	$(BIN)/python benchmarks/bench_fisher.py
	$(BIN)/python benchmarks/bench_permutation.py
	$(BIN)/python benchmarks/bench_gsea.py
	$(BIN)/python benchmarks/bench_prerank.py
	$(BIN)/python benchmarks/bench_spatial.py
	$(BIN)/python benchmarks/bench_fields.py
	$(BIN)/python benchmarks/bench_epistasis.py
	$(BIN)/python benchmarks/bench_distributed.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
