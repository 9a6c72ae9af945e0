# Two entry points (see README): `make demo` and `make test`. Both do all set-up themselves and are
# fast when nothing changed (stamp files in .stamps/ record finished steps).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .stamps
export LLVM_SYS_221_PREFIX ?= /usr/lib/llvm-22
APT_PACKAGES := llvm-22-dev libzstd-dev zlib1g-dev libffi-dev libxml2-dev libz3-dev libedit-dev \
                ocl-icd-libopencl1 ocl-icd-opencl-dev spirv-tools
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RUST_SOURCES := $(shell find rust -name '*.rs') Cargo.toml Cargo.lock pyproject.toml
PY_SOURCES := $(shell find numba_ext -name '*.py')

# `make wheel` also needs Polly's static libraries (llvm-config lists them among LLVM's).
WHEEL_APT_PACKAGES := libpolly-22-dev

.PHONY: demo test lint test-python test-rust test-dpnp test-oldest setup build wheel clean

# The demo, then the benchmark suite at preset S on the default device (table, goals, JSON) and its
# plots, all into benchmarks/out/ (git-ignored). Plots are drawn even when a variant failed; the
# exit status still reports the failure.
demo: build
	$(PY) -m numba_ext.demo
	@json=benchmarks/out/$$(date +%Y%m%d-%H%M%S)-S.json; \
	  $(PY) benchmarks/run.py --preset S --json $$json; rc=$$?; \
	  $(PY) benchmarks/plot.py $$json && exit $$rc

test: lint test-rust test-python test-dpnp test-oldest

# Style, layering and types: ruff (lint + format), rustfmt, clippy (with and without the Python
# bindings), import-linter (the layer contracts in pyproject.toml), mypy on the package and stubtest
# of the compiled module against numba_ext/_core.pyi.
lint: build
	$(VENV)/bin/ruff check numba_ext tests benchmarks scripts
	$(VENV)/bin/ruff format --check numba_ext tests benchmarks scripts
	@rustup component list --installed 2>/dev/null | grep -q clippy || rustup component add clippy rustfmt
	cargo fmt --check
	cargo clippy --release --all-targets -- -D warnings
	cargo clippy --release --all-targets --features python -- -D warnings
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest numba_ext._core --allowlist .stubtest-allowlist

test-rust: $(STAMPS)/apt $(STAMPS)/venv
	cargo test --release

# The suite runs twice: on the default device as it is (USM on the CPU device), and with the cl_mem
# buffer back end that devices without USM (NVIDIA GPUs) use, forced on the same CPU device.
test-python: build
	$(PY) -m pytest -q -rs -n 2 tests
	NUMBA_EXT_FORCE_BUFFERS=1 $(PY) -m pytest -q -rs -n 2 tests --deselect tests/docs/test_notebooks.py

# dpctl / dpnp interop (tests/interop_dpnp) in a separate environment with dpnp and dpctl from PyPI;
# skipped with the reason where they cannot be installed.
test-dpnp: build
	bash scripts/test_dpnp.sh

# The suite (USM pass) against the oldest NumPy and Numba that pyproject.toml accepts, in a second
# environment (.venv-oldest) with the extension installed as in .venv: their typing, promotion and
# interchange rules differ from the newest's in ways only a run shows.
OLDEST_VENV := .venv-oldest
OLDEST_PINS := numpy==2.1.3 numba==0.68.0
test-oldest: $(STAMPS)/venv-oldest
	VIRTUAL_ENV=$(abspath $(OLDEST_VENV)) PATH=$(abspath $(OLDEST_VENV))/bin:$$PATH \
	  $(OLDEST_VENV)/bin/maturin develop --release -q -F python -F dynamic-llvm
	$(OLDEST_VENV)/bin/python -c 'import numpy, numba; print("oldest: NumPy", numpy.__version__, "Numba", numba.__version__)'
	$(OLDEST_VENV)/bin/python -m pytest -q -rs -n 2 tests --deselect tests/docs/test_notebooks.py

$(STAMPS)/venv-oldest: requirements-dev.txt Makefile $(STAMPS)/apt
	@mkdir -p $(STAMPS)
	test -x $(OLDEST_VENV)/bin/python || python3 -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install -q --upgrade pip
	grep -v -E '^(numba|numpy)==' requirements-dev.txt > $(STAMPS)/requirements-oldest.txt
	$(OLDEST_VENV)/bin/python -m pip install -q -r $(STAMPS)/requirements-oldest.txt $(OLDEST_PINS)
	@touch $@

setup: $(STAMPS)/apt $(STAMPS)/venv
build: $(STAMPS)/build

$(STAMPS)/apt:
	@mkdir -p $(STAMPS)
	@if dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then echo "apt packages present"; else \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES); fi
	@touch $@

$(STAMPS)/venv: requirements-dev.txt
	@mkdir -p $(STAMPS)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	@touch $@

# Development builds link the shared libLLVM (feature dynamic-llvm, as cargo build/test do); the
# features given here replace the wheel's (python, static-llvm) from pyproject.toml.
$(STAMPS)/build: $(STAMPS)/apt $(STAMPS)/venv $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release -q \
	  -F python -F dynamic-llvm
	@touch $@

# The self-contained wheel (LLVM linked statically, manylinux tag from auditwheel) into dist/.
wheel: $(STAMPS)/apt $(STAMPS)/venv
	@dpkg -s $(WHEEL_APT_PACKAGES) >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(WHEEL_APT_PACKAGES); }
	bash scripts/build_wheel.sh dist

clean:
	rm -rf $(STAMPS) target dist
