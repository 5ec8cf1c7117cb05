"""Faster nbgrader, same behaviour: work nbgrader repeats for every cell of every notebook, done once.

nbgrader checks each cell's nbgrader metadata with ``jsonschema.validate(meta, schema)``,
which first checks the *schema* itself against the JSON Schema meta-schema: about half a
CPU-second per submission, for a schema that never changes. ``validate`` below does what
``jsonschema.validate`` does (check the schema, validate, raise the best-matching error)
but checks each schema once. Applied by nbgrader_config.py, so the plain nbgrader CLI and
the parallel grader both use it; tests/test_forked_kernels.py compares the two validators.

An SQLite gradebook is opened in write-ahead-log mode with ``synchronous=NORMAL``
(``sqlite_pragmas``): nbgrader commits after every grade and every cell it saves, and in
SQLite's default mode each commit waits for the disk (fsync) twice; profiled, that was the
largest share of a worker's time (tests/test_speed_equivalence.py; the profile table in
the closing note of issue 24). In WAL mode a commit appends to the log and the disk is
synced at checkpoints: a crash of the grader loses nothing that was committed, a power
cut at most the last commits, never the file's consistency, and readers no longer wait
for a writer (the workers share one gradebook). ``GRADER_NO_SPEEDUPS=1`` switches this
off (the old path, for the comparison test and the benchmark's before column).
"""

import json
import os

import jsonschema
from jsonschema.exceptions import best_match

_validators = {}


def validate(instance, schema):
    """``jsonschema.validate(instance, schema)``, with the checked validator of each schema kept."""
    key = json.dumps(schema, sort_keys=True)
    validator = _validators.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _validators[key] = cls(schema)
    error = best_match(validator.iter_errors(instance))
    if error is not None:
        raise error


class _JsonSchema:
    """What nbgrader's metadata validator uses of the jsonschema module."""

    validate = staticmethod(validate)
    ValidationError = jsonschema.ValidationError


OFF_ENV = "GRADER_NO_SPEEDUPS"  # "1": grade the old way (no SQLite pragmas), for comparisons


def enabled():
    return os.environ.get(OFF_ENV) != "1"


def sqlite_pragmas(dbapi_connection, _record=None):
    """On each new SQLite connection of the gradebook: the write-ahead log, commits without waiting for the disk."""
    import sqlite3

    if not isinstance(dbapi_connection, sqlite3.Connection):
        return  # PostgreSQL (--db-url): nothing to do
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.OperationalError:  # a read-only gradebook, say: it is used as it is
        pass
    finally:
        cursor.close()


def apply():
    from nbgrader.nbgraderformat import common

    common.jsonschema = _JsonSchema
    if enabled():
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        if not event.contains(Engine, "connect", sqlite_pragmas):
            event.listen(Engine, "connect", sqlite_pragmas)
