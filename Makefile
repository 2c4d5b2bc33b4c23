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

# The main job on the embedded data: city statistics, the Metro Data lint,
# two reference routes, and the references of every station pair of Rome.
demo: install
	mkdir -p $(OUT)
	$(BIN)/reasonmap cities | tee $(OUT)/cities.txt
	$(BIN)/reasonmap cities --json > $(OUT)/cities.json
	$(BIN)/reasonmap lint --all > $(OUT)/lint.txt
	$(BIN)/reasonmap route --city beijing 西直门站 车公庄站
	$(BIN)/reasonmap route --city rome "Termini Station" "Jonio Station"
	$(BIN)/reasonmap references --city rome --out $(OUT)/references_rome.jsonl
	@echo "outputs in $(OUT)/"

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install
	$(BIN)/python -m benchmarks.speed.references

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .hypothesis
