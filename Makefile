# Set-up and everyday commands. Every target installs what it needs first
# (a virtual environment in .venv), so any of them can be the first one run.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= demo-out

.PHONY: install demo test lint bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/.installed

# The main job on the embedded data: generate the test split, answer it with
# every symbolic solver, score, and write the summary, tables and plots.
demo: install
	$(BIN)/reasonmap demo --out $(OUT)

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install
	$(BIN)/python -m benchmarks.speed.references

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .hypothesis
