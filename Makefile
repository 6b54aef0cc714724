# make demo   set up .venv (pyopencl with pocl) and run `oclstat demo` on the best device
# make test   set up .venv (+ test tools, R from Debian) and run ruff and the test-suite
# make bench  run the benchmarks (GPU figures need a GPU)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?= -m "not gpu"

.PHONY: demo test setup setup-test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/python -m pip install -q ".[pocl]"

demo: setup
	$(BIN)/oclstat demo

# rpy2 (the [r] extra) is installed where R is: the R comparisons then run for real. ABI mode
# needs only R's shared library, no compiler.
setup-test: $(BIN)/python
	bash tools/setup-system.sh
	$(BIN)/python -m pip install -q ".[pocl,test]"
	if command -v R >/dev/null 2>&1; then RPY2_CFFI_MODE=ABI $(BIN)/python -m pip install -q ".[r]"; fi

lint: setup-test
	$(BIN)/ruff check oclstat tests benchmarks

# pytest runs against the installed wheel (tests/ is not a package, the checkout is not on
# sys.path); tests/test_cli.py also runs the source tree with PYTHONPATH=. and no install.
test: lint
	$(BIN)/pytest $(PYTEST_ARGS)

bench: setup
	$(BIN)/python -m pip install -q ".[bench,dask,test]"
	$(BIN)/python benchmarks/bench_random.py
	$(BIN)/python benchmarks/bench_fisher.py
	$(BIN)/python benchmarks/bench_permutation.py
	$(BIN)/python benchmarks/bench_gsea.py
	$(BIN)/python benchmarks/bench_fields.py
	$(BIN)/python benchmarks/bench_epistasis.py
	$(BIN)/python benchmarks/bench_distributed.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
