# Speculative decoding course (Levels 23 and 24): every command a student, instructor or grader needs.
#   make demo   install, regenerate release/, autograde the example class, feedback, scores
#   make test   install, then run every test
#   make docs   the handbook (docs/*.md) as HTML in docs/_build/html/
#   make grade  autograde submitted/ in parallel workers, feedback, class report
#   make export grades.csv, moodle_grades.csv, and CANVAS=<Canvas gradebook export> filled as canvas_grades.csv
#   make hub    a JupyterHub classroom on 127.0.0.1:8000 (as root): demo users, the exchange, Ctrl-C stops
#   make lab    JupyterLab on the assignments; `make lab LANG=zh`: JupyterLab in Chinese (both levels' *_zh folders)
#   Both grade in the sandbox (bubblewrap); ARGS=--unsafe-no-sandbox runs trusted code without it.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
ASSIGNMENT := level23_speculative_decoding
# Every assignment and edition is its own nbgrader assignment (grading/__init__.py: ASSIGNMENTS), with its folder in source/.
ASSIGNMENTS := $(notdir $(patsubst %/,%,$(wildcard source/*/)))
# `make lab LANG=zh` (or a zh_CN locale) opens the Chinese edition; anything else, the English assignments.
LAB_ZH := $(filter zh zh_CN% zh-CN%,$(LANG))
# nbgrader runs `alembic` by name, so the environment's bin/ goes first on PATH.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: install notebooks release demo test docs lab grade export hub hub-down clean

$(VENV)/.installed: requirements.txt grading/startup/_grading_lazy_imports.py
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing the pinned environment into $(VENV)/ (about a minute the first time)"
	@$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt 2>&1 | { grep -v "is ignored: it is neither" || true; }
	@# jsonschema's IRI checks (rfc3987_syntax) loaded when first used, not at every nbformat import: 2 s a process
	@site=$$($(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])") && \
	  cp grading/startup/_grading_lazy_imports.py "$$site/" && echo "import _grading_lazy_imports" > "$$site/_grading_lazy_imports.pth"
	@# The grading sandbox. Without root or apt-get, `make grade` later says how to install it.
	@command -v bwrap >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
	  { echo "Installing bubblewrap (the grading sandbox) with apt-get"; apt-get install -y -q bubblewrap >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }; }
	@# A CJK font for the Chinese edition's pictures (matplotlib and the browser): Debian's fonts-noto-cjk.
	@fc-list 2>/dev/null | grep "Noto Sans CJK" >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
	  { echo "Installing fonts-noto-cjk (Chinese text in the figures) with apt-get"; \
	    apt-get install -y -q --no-install-recommends fonts-noto-cjk >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends fonts-noto-cjk >/dev/null; }; }
	@# An emoji font for the lessons' and feedback pages' headings (🎯): Debian's fonts-noto-color-emoji.
	@fc-list 2>/dev/null | grep "Noto Color Emoji" >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
	  { echo "Installing fonts-noto-color-emoji (the pages' emoji) with apt-get"; \
	    apt-get install -y -q --no-install-recommends fonts-noto-color-emoji >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends fonts-noto-color-emoji >/dev/null; }; }
	@touch $@

install: $(VENV)/.installed

notebooks: install  ## source/<assignment>/*.ipynb from the jupytext lessons/<assignment>/*.py
	$(PY) -m grading.build

# release/ exactly as nbgrader generates it from source/, and every assignment registered in the course's
# gradebook, which `nbgrader autograde` needs. Each is generated into a scratch folder first and moved into
# release/ only when nbgrader succeeds: nbgrader refuses cells added or removed after students submitted (and
# with --force would have deleted release/<assignment> first), so release/ and the submissions stay as they were.
release: notebooks
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; mkdir -p release; for a in $(ASSIGNMENTS); do \
	  nbgrader generate_assignment $$a --force --CourseDirectory.release_directory="$$tmp" 2>&1 | \
	    { grep -E "WARNING|ERROR|Error: " | grep -v "Removing existing\|not recognized by" || true; } && ls "$$tmp/$$a"/*.ipynb >/dev/null || \
	  { echo "make release: nbgrader could not generate $$a into the gradebook (above); release/$$a is unchanged."; \
	    echo "  nbgrader keeps the cells of an assignment with submissions: see docs/instructors.md, \"Changing a released assignment\"."; exit 1; }; \
	  rm -rf "release/$$a" && mv "$$tmp/$$a" "release/$$a" || exit 1; done

demo: install
	$(PY) -m grading.demo $(ARGS)

grade: install  ## autograde submitted/ in parallel, then feedback and reports/index.html
	$(PY) -m grading.grade $(ARGS)

export: install  ## grades.csv, moodle_grades.csv, canvas_grades.csv (CANVAS=export.csv), MOODLE=export.csv, lms_report.txt
	nbgrader export --exporter=grading.plugins.export.LMSExport $(if $(CANVAS),--LMSExport.canvas=$(CANVAS)) \
	  $(if $(MOODLE),--LMSExport.moodle=$(MOODLE))

test: install
	$(PY) -m pytest

docs: install  ## the handbook: docs/*.md (MyST) built by Sphinx into docs/_build/html/, warnings as errors
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "The handbook: docs/_build/html/index.html"

# A student's JupyterLab: grading/lab/labconfig/page_config.json turns off nbgrader's instructor panels (Create
# Assignment, Formgrader, Courses), which belong to the hub's instructor, not to a student (issue 42 item 5).
# It starts with the first lesson open and both sidebars collapsed (grading/lab/first_layout.py writes that layout
# into .lab-workspaces/ when there is none yet): a fresh JupyterLab opens its file browser over a phone's whole screen.
# grading/lab/share/labextensions/@course/student-lab (on JUPYTER_PATH) puts nbgrader's Validate button and dialog
# in the interface's language: nbgrader writes their words as plain strings that no JupyterLab language pack reaches.
LAB_DIR := release$(if $(filter command line,$(origin ASSIGNMENT)),/$(ASSIGNMENT))
lab: install  ## JupyterLab on the student notebooks (every assignment: ASSIGNMENT=level24_residual_and_bonus for one; LANG=zh: JupyterLab in Chinese, the Chinese editions are the *_zh folders)
ifneq ($(LAB_ZH),)
	@mkdir -p .lab-zh/@jupyterlab/translation-extension
	@echo '{"locale": "zh_CN"}' > .lab-zh/@jupyterlab/translation-extension/plugin.jupyterlab-settings
	LANG=C.UTF-8 JUPYTERLAB_SETTINGS_DIR=$(CURDIR)/.lab-zh JUPYTER_CONFIG_PATH=$(CURDIR)/grading/lab \
	  JUPYTER_PATH=$(CURDIR)/grading/lab/share$${JUPYTER_PATH:+:$$JUPYTER_PATH} JUPYTERLAB_WORKSPACES_DIR=$$($(PY) grading/lab/first_layout.py $(LAB_DIR) zh) jupyter lab --notebook-dir=$(LAB_DIR)
else
	JUPYTER_CONFIG_PATH=$(CURDIR)/grading/lab JUPYTER_PATH=$(CURDIR)/grading/lab/share$${JUPYTER_PATH:+:$$JUPYTER_PATH} \
	  JUPYTERLAB_WORKSPACES_DIR=$$($(PY) grading/lab/first_layout.py $(LAB_DIR)) \
	  jupyter lab --notebook-dir=$(LAB_DIR)
endif

# JupyterHub's proxy, pinned in hub/package-lock.json, into hub/node_modules/.
hub/node_modules/.installed: hub/package.json hub/package-lock.json
	@command -v npm >/dev/null || { echo "make hub needs node >= 20 and npm (Debian: apt-get install nodejs npm)"; exit 2; }
	npm ci --prefix hub --no-audit --no-fund
	@touch $@

hub: install hub/node_modules/.installed  ## JupyterHub for the course on http://127.0.0.1:8000 (run as root)
	$(PY) hub/classroom.py run

hub-down:  ## remove the hub's demo users, their homes and /srv/level23-hub
	$(PY) hub/classroom.py down

clean:
	rm -rf submitted autograded/*/ feedback gradebook.db gradebook.db-wal gradebook.db-shm grades.csv reports
