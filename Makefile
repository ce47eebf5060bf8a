# The README's two commands: `make demo` (install, then mine the enwiki sample shipped in examples/data) and
# `make test` (reads the sample and WiC zip shipped in examples/data, and the third-party data the project cannot
# ship in ../shared/data; the tests needing that skip, and the run ends with how many skipped and why).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_DATA ?= examples/data
RUN ?= runs/demo

.PHONY: install demo docs test test-quick system-deps

install: $(VENV)/.installed

$(VENV)/.installed: setup.py
	$(PYTHON) -m venv $(VENV)
	@echo "installing picforge into $(VENV): pip, torch 2.13.0 (CPU), then picforge and its extras (a few minutes)"
	$(BIN)/pip install --upgrade pip setuptools wheel
	$(BIN)/pip install torch==2.13.0
	$(BIN)/pip install -e '.[test,postgres,mcphrasy,gcp,aws,dask]'
	touch $@

demo: install
	$(BIN)/picforge mine --input $(DEMO_DATA)/enwiki-sample-103pages.xml.bz2 \
		--wic $(DEMO_DATA)/WiC_dataset.zip --out $(RUN)

# The README's and docs' command and option tables, rewritten from the verb and stage registries
# (tests/test_doc_tables.py fails when a committed table differs).
docs: install
	$(BIN)/python docs/tables.py

# Debian packages the tests use: headless Chromium (annotation pages), PostgreSQL (the ledger on a real
# server) and WordNet 3.0 (PEARL's synonyms, read offline from /usr/share/wordnet), installed in one apt-get
# run when missing. Needs root; otherwise their tests are skipped.
system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v chromedriver >/dev/null 2>&1 || missing="$$missing chromium-driver"; \
	{ command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl; } >/dev/null 2>&1 || missing="$$missing postgresql"; \
	[ -f /usr/share/wordnet/data.noun ] || missing="$$missing wordnet-base"; \
	[ -z "$$missing" ] || { [ "$$(id -u)" = 0 ] && echo "installing with apt-get:$$missing (a minute or two)" && \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; } || \
	  echo "not installed:$$missing; the tests that need them will be skipped"

# The tests run on pytest-xdist workers, one per logical core (TEST_WORKERS=0 runs them in this process; `auto` counts
# physical cores, 1 on a 2-vCPU runner whose vCPUs are one core's two threads); the fixtures that
# mine or build something are built once and shared by all workers. test-quick leaves out the tests marked slow
# (whole pipelines and real models on the real sample), for the inner loop.
TEST_WORKERS ?= logical

test: install system-deps
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS)

test-quick: install
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not slow"
