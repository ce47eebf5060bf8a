# The README's two commands: `make demo` (install, then mine the shared enwiki sample) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SHARED ?= ../shared/data
RUN ?= runs/demo

.PHONY: install demo test browser

install: $(VENV)/.installed

$(VENV)/.installed: setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: install
	$(BIN)/picforge mine --input $(SHARED)/wiki/enwiki-sample-5pages.xml.bz2 \
		--wic $(SHARED)/wic/WiC_dataset.zip --out $(RUN)

# Headless Chromium for the annotation-page tests (Debian packages; needs root, skipped otherwise).
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } || \
	  echo "chromium not installed: browser tests will be skipped"

test: install browser
	$(BIN)/python -m pytest -q
