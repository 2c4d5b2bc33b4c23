# Set-up and everyday commands. Every target installs what it needs first
# (a virtual environment in .venv), so any of them can be the first one run.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= demo-out

.PHONY: install fonts demo test lint bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,all]'
	touch $@

install: $(BIN)/.installed

# The map renderer draws Chinese labels with a CJK font from the system
# (Debian/Ubuntu: fonts-noto-cjk); installed here when missing and allowed.
fonts:
	@if fc-list :lang=zh 2>/dev/null | grep -q .; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null; \
	elif command -v apt-get >/dev/null && sudo -n true 2>/dev/null; then \
	  sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null; \
	else echo "note: no CJK font found: install one (e.g. fonts-noto-cjk) for the renderer's Chinese labels" >&2; fi

# The main job on the embedded data: generate the test split, answer it with
# every symbolic solver, score, and write the summary, tables and plots.
demo: install
	$(BIN)/reasonmap demo --out $(OUT)

test: install fonts
	$(BIN)/python -m pytest -n auto

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

bench: install
	$(BIN)/python -m benchmarks.speed.references
	$(BIN)/python -m benchmarks.speed.scoring
	$(BIN)/python -m benchmarks.speed.ocr

clean:
	rm -rf $(VENV) $(OUT) error-analysis-out .pytest_cache .hypothesis
