# satnono developer commands. `make run` and `make test` are all a new machine needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEV_STAMP := $(VENV)/.dev-stamp
EXAMPLE ?= examples/heart-color.non
# The native engine (Rust): maturin builds it into satnono.logic._engine when the package is
# installed; cargo lints and tests it on its own.
ENGINE := engine/Cargo.toml
CARGO := PYO3_PYTHON=$(abspath $(BIN)/python) cargo
# The held-out benchmark set is regenerated (seeded) for every run, never tuned on.
HELD_OUT ?= /tmp/satnono-held-out

.PHONY: install dev-install run test lint format bench clean wheel

# `make run` installs what running satnono needs (every part: the extra `all`); `make test`
# adds the development tools (the extra `dev`: pytest, linters, the browser driver).
install: $(STAMP)

$(STAMP): pyproject.toml $(ENGINE) engine/Cargo.lock $(wildcard engine/src/*.rs engine/src/*/*.rs)
	$(PYTHON) -m venv $(VENV)
	rm -f satnono/_engine.*.so satnono/logic/_engine.cpython-*.so  # engines built before the abi3 one or its move to logic/
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all]'
	$(BIN)/python -m compileall -q satnono
	rm -f $(DEV_STAMP)
	touch $(STAMP)

dev-install: $(DEV_STAMP)

$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP)

run: install
	$(BIN)/satnono solve $(EXAMPLE)

# One abi3 wheel in dist/ (CPython 3.11 and later, this platform), for machines without Rust:
# `pip install dist/satnono-*.whl`. Built as `make install` builds the engine (same features
# and profile), so after it cargo has nothing to compile again.
wheel: install
	rm -rf dist
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .

# Two pytest workers, tests handed out in pytest-xdist's default way. (Work stealing ended the
# suite sooner, 268-281 s against 293 s, but its last clean-clone run failed two timing tests
# that run beside heavy ones: an 8-worker cluster's timeout and a picture's.)
# Bytecode is written while testing, whatever PYTHONDONTWRITEBYTECODE says (this machine sets
# it): every pytest process otherwise rewrote the assertions of all the test modules again,
# 4-6 s of CPU before its first test (the serial run's collection 7.9 s against 4.2 s).
TEST_ENV := PYTHONDONTWRITEBYTECODE=
# The files that hold the tests marked serial (tests/test_layout.py checks the list): the
# serial run collects only them (its collection of the whole suite took 5 s for two tests).
SERIAL_TESTS := tests/test_count_backbone.py tests/test_hostile.py
test: dev-install wheel
	$(BIN)/ruff check satnono tests examples tools
	$(BIN)/mypy satnono
	$(CARGO) fmt --manifest-path $(ENGINE) --check
	$(CARGO) clippy --manifest-path $(ENGINE) --all-targets --features python -q -- -D warnings
	$(CARGO) test --manifest-path $(ENGINE) --release -q
	$(TEST_ENV) $(BIN)/pytest -n 2 -m "not serial"
	$(TEST_ENV) $(BIN)/pytest -m serial $(SERIAL_TESTS)
	$(BIN)/python tools/check_wheel.py

lint: dev-install
	$(BIN)/ruff check satnono tests examples tools
	$(BIN)/ruff format --check satnono tests examples tools
	$(BIN)/mypy satnono
	$(CARGO) fmt --manifest-path $(ENGINE) --check
	$(CARGO) clippy --manifest-path $(ENGINE) --all-targets --features python -q -- -D warnings

format: dev-install
	$(BIN)/ruff check --fix satnono tests examples tools
	$(BIN)/ruff format satnono tests examples tools
	$(CARGO) fmt --manifest-path $(ENGINE)

# Bytecode first, as pip writes it for a regular install: the benchmark measures satnono, not
# the compilation of its sources (which PYTHONDONTWRITEBYTECODE would repeat in every process).
bench: install
	$(BIN)/python -m compileall -q satnono
	$(BIN)/python tools/bench.py ../shared/puzzles/webpbn-survey --single sat \
		--backends sat,portfolio,sat/automaton/glucose42,cpsat --repeat 3 --output BENCHMARKS.md
	rm -rf $(HELD_OUT) && $(BIN)/python tools/generate.py held-out $(HELD_OUT) --count 40
	$(BIN)/python tools/bench.py $(HELD_OUT) --section held-out --single sat \
		--title "Held-out set (40 generated puzzles, never tuned on), no other load" \
		--backends sat,portfolio,sat/blocks/glucose3/0 --repeat 3 --output BENCHMARKS.md
	$(BIN)/python tools/bench.py $(HELD_OUT) --section held-out-busy --single sat --busy \
		--title "Held-out set, one other busy process" \
		--backends sat,portfolio,sat/blocks/glucose3/0 --repeat 3 --output BENCHMARKS.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis engine/target satnono/_engine.*.so satnono/logic/_engine.*.so
