# Set-up and everyday commands. Every target installs what it needs first
# (a virtual environment in .venv), so any of them can be the first one run.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= demo-out

.PHONY: install fonts demo test lint bench clean

# Two stamps: the demo needs the core alone (about 0.75 GB); the tests every optional part (Ray, Inspect,
# datasets, pyarrow: about 1.6 GB in all). pip lists what it fetches and installs: a first install shows its progress.
$(BIN)/.core: pyproject.toml
	@test -x $(BIN)/python || { echo "creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "installing the toolkit's core into $(VENV) (a few minutes on a fresh machine)"
	$(BIN)/python -m pip install --progress-bar off -e .
	@$(BIN)/python -c "import reasonmap" && touch $@

$(BIN)/.installed: $(BIN)/.core
	@echo "installing every optional part and the test tools into $(VENV)"
	$(BIN)/python -m pip install --progress-bar off -e '.[test,all]'
	@$(BIN)/python -c "import inspect_ai, ray, pytest" && touch $@

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
demo: $(BIN)/.core
	$(BIN)/reasonmap demo --out $(OUT)
	@echo "the \`reasonmap\` command lives in $(VENV): run \`. $(VENV)/bin/activate\` to have it on your PATH"

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
	rm -rf $(VENV) $(OUT) error-analysis-out ablations-out .pytest_cache .hypothesis
