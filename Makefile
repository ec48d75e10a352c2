# The two set-up commands of the README: `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test lint format clean

ART_STAMP := .art/.installed

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Card art for the scene generator, from Debian and npm packages (never committed).
$(ART_STAMP): datasets/install_art.sh
	bash datasets/install_art.sh
	touch $(ART_STAMP)

# The broker and browser of the tournament board's tests, from Debian packages.
BOARD_STAMP := .art/.board-installed
$(BOARD_STAMP): board/install_debian.sh
	bash board/install_debian.sh
	mkdir -p .art && touch $(BOARD_STAMP)

install: $(STAMP) $(ART_STAMP) $(BOARD_STAMP)

## Install, then run the main job on its built-in default (the demo match, table mode).
run: $(STAMP) $(ART_STAMP)
	$(VENV)/bin/hakam run --match demo --headless

## Install, then lint and run the whole test suite.
test: $(STAMP) $(ART_STAMP) $(BOARD_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
