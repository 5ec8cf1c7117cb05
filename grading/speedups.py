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
largest share of a worker's time (the profile table in the closing note of issue 24;
tests/test_gradebook_speedup.py checks that plain nbgrader gets it). In WAL mode a commit appends to the log and the disk is
synced at checkpoints: a crash of the grader loses nothing that was committed, a power
cut at most the last commits, never the file's consistency, and readers no longer wait
for a writer (the workers share one gradebook). The Gradebooks of one SQLite file in a
process share one engine (``_shared_gradebook_init``), so SQLAlchemy compiles each statement
once, not once per Gradebook. ``GRADER_NO_SPEEDUPS=1`` switches both off (the old path, for
the benchmark's before column).
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


_ENGINES = {}  # (SQLite URL, the file's device and inode): the engine every Gradebook of this process uses


def _sqlite_file(db_url):
    """The database file of an SQLite URL on disk (``sqlite:///path``), or None (PostgreSQL, in-memory)."""
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return os.path.abspath(url.database)


def _shared_gradebook_init(original):
    """Gradebook.__init__, with one engine per SQLite gradebook file in a process.

    nbgrader opens a Gradebook (a new SQLAlchemy engine, a table inspection, ``create_all``) several times for
    every notebook it grades, and disposes the engine each time, so SQLAlchemy's cache of compiled statements
    starts empty every time: profiled, that was most of the gradebook's share of a worker's time. Here the
    first Gradebook of a file does what nbgrader does; later ones of the same file (the same device and inode:
    a gradebook deleted or replaced gets a fresh engine) reuse its engine, whose tables exist, and run the rest
    of nbgrader's __init__ (a session, check_course). PostgreSQL and in-memory URLs are left to nbgrader."""
    import functools

    @functools.wraps(original)
    def __init__(self, db_url, course_id="default_course", authenticator=None):
        from sqlalchemy.orm import scoped_session, sessionmaker

        path = _sqlite_file(db_url) if enabled() else None

        def file_key():
            try:
                stat = os.stat(path) if path else None
            except OSError:
                return None
            return (db_url, stat.st_dev, stat.st_ino) if stat else None

        key = file_key()
        engine = _ENGINES.get(key) if key else None
        if engine is None:
            original(self, db_url, course_id=course_id, authenticator=authenticator)
            key = file_key()  # the file exists now, if this Gradebook made it
            if key:
                for old in [k for k in _ENGINES if k[0] == db_url]:
                    _ENGINES.pop(old).dispose()
                _ENGINES[key] = self.engine
            return
        # nbgrader's __init__ after the tables are made (nbgrader/api.py, 0.9.6)
        self.engine = engine
        self.db = scoped_session(sessionmaker(autoflush=True, bind=self.engine, future=True))
        self.check_course(course_id=course_id)
        self.course_id = course_id
        self.authenticator = authenticator

    return __init__


def _shared_gradebook_close(original):
    import functools

    @functools.wraps(original)
    def close(self):
        if any(engine is self.engine for engine in _ENGINES.values()):
            self.db.remove()  # the engine stays for the next Gradebook of this file
        else:
            original(self)

    return close


def apply():
    from nbgrader import api
    from nbgrader.nbgraderformat import common

    common.jsonschema = _JsonSchema
    if enabled():
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        if not event.contains(Engine, "connect", sqlite_pragmas):
            event.listen(Engine, "connect", sqlite_pragmas)
    if not getattr(api.Gradebook, "_grading_shared_engine", False):  # once per process; enabled() decides per call
        api.Gradebook.__init__ = _shared_gradebook_init(api.Gradebook.__init__)
        api.Gradebook.close = _shared_gradebook_close(api.Gradebook.close)
        api.Gradebook._grading_shared_engine = True
