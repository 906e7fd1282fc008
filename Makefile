# GNU make. Needs only python3 (3.11) and make; everything else goes in .venv.

PYTHON_SYSTEM ?= python3
VENV          := .venv
PY            := $(VENV)/bin/python
STAMP         := $(VENV)/.installed
DEV_STAMP     := $(VENV)/.installed-dev
HOST          ?= 127.0.0.1
PORT          ?= 8000
PYTEST_ARGS   ?=
# pytest-xdist workers of `make test`, a test file to each at a time (a module's server and
# browser stay one); PYTEST_WORKERS=0 runs the tests serially in one process.
PYTEST_WORKERS ?= 2
PROCESSES     ?= 2

.DEFAULT_GOAL := help
.PHONY: help venv run serve serve-prod migrate test lint bench clean

help:
	@echo "make run     serve on http://$(HOST):$(PORT)/ with a demo place played by five bots"
	@echo "make serve   serve without bots (start places from the admin or manage.py)"
	@echo "             (both: the 2011 bots' WebSocket on $(HOST):$$(($(PORT) + 81)) too, LEGACY_WS_PORT, and"
	@echo "             the UECda port on $(HOST):$$(($(PORT) + 34485)), UECDA_PORT: both follow PORT unless set)"
	@echo "make serve-prod  nginx on $(HOST):$(PORT) (and 8081) in front of PROCESSES=$(PROCESSES) server"
	@echo "             processes, production settings (needs REDIS_URL; DATABASE_URL for PostgreSQL)"
	@echo "make test    ruff check, then pytest in PYTEST_WORKERS=$(PYTEST_WORKERS) workers (0: serially;"
	@echo "             it names the 20 slowest tests at the end;"
	@echo "             extra args: PYTEST_ARGS='-k health')"
	@echo "make lint    ruff check"
	@echo "make bench   the benchmarks that print figures (engine, turn, place; see docs/benchmarks.md)"
	@echo "make clean   remove .venv and db.sqlite3"

# The runtime set (requirements.txt) for the server; the tests' and tools' set on top of it
# (requirements-dev.txt) only for the targets that need it.
$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON_SYSTEM) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	$(PY) -m pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $@

venv: $(STAMP)

migrate: $(STAMP)
	$(PY) manage.py migrate --noinput

run: $(STAMP)
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 PORT=$(PORT) $(PY) manage.py demo --host $(HOST) --port $(PORT)

serve: $(STAMP)
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 PORT=$(PORT) $(PY) -m daihinmin.serve -b $(HOST) -p $(PORT) daihinmin.asgi:application

serve-prod: $(STAMP)
	$(PY) deploy/serve_prod.py --processes $(PROCESSES) --listen $(HOST):$(PORT)

lint: $(DEV_STAMP)
	$(PY) -m ruff check .

# The tests' events and counts go under a prefix of their own on a shared Redis: a
# concurrent run on the same Redis is not heard (REDIS_PREFIX, docs/operations.md).
test: $(DEV_STAMP)
	$(PY) -m ruff check .
	DEBUG=1 REDIS_PREFIX=$${REDIS_PREFIX:-test-$$$$} $(PY) -m pytest \
		-n $(PYTEST_WORKERS) --dist loadfile --durations=20 $(PYTEST_ARGS)

bench: $(DEV_STAMP)
	$(PY) bench/engine.py
	$(PY) bench/turn.py
	$(PY) bench/place.py --db sqlite

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm db.sqlite3-journal
