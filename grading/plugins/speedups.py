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
_COURSES = set()  # (that key, course id): a course whose row this process has found or made in that file


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
    of nbgrader's __init__ (a session; check_course once per course and file, not at each of the eight Gradebooks
    a notebook opens). PostgreSQL and in-memory URLs are left to nbgrader."""
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
                _COURSES.add((key, course_id))
            return
        # nbgrader's __init__ after the tables are made (nbgrader/api.py, 0.9.6); its check_course (find or make
        # the course's row, a query and a commit) once per course and file: rows are never removed while grading
        self.engine = engine
        self.db = scoped_session(sessionmaker(autoflush=True, bind=self.engine, future=True))
        if (key, course_id) not in _COURSES:
            self.check_course(course_id=course_id)
            _COURSES.add((key, course_id))
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


def _fast_ref_validate(original):
    """nbformat.v4's ``validate(node, ref)``, checked first by a compiled fastjsonschema validator of that ref.

    nbformat builds every output the grader reads from the kernel (nbclient's ``output_from_msg``) and every
    cell it makes with ``validate(node, ref)``; with a ref its fastjsonschema backend hands over to jsonschema,
    which walks the schema afresh each time. fastjsonschema is what nbformat itself validates whole notebooks
    with; a node it finds valid is valid, and any other goes to nbformat's own validate, so an invalid node
    raises exactly what it raised (tests/test_grader_speedups.py compares the two)."""
    import functools

    checks = {}

    @functools.wraps(original)
    def validate(node, ref=None):
        if ref is None or not enabled():
            return original(node, ref)
        check = checks.get(ref)
        if check is None:
            import fastjsonschema
            from nbformat import v4, validator

            schema = validator._get_schema_json(v4, version=v4.nbformat, version_minor=v4.nbformat_minor)
            check = checks[ref] = fastjsonschema.compile({"$ref": f"#/definitions/{ref}",
                                                          "definitions": schema["definitions"]})
        try:
            check(node)
        except Exception:  # noqa: BLE001 - nbformat says what is wrong, as it always did
            return original(node, ref)
        return None

    validate._grading_fast = True
    return validate


SHARED_ENV = "GRADER_SHARED_RESULTS"  # in make grade's workers: the run's folder of results made once for all workers


def made_once_per_run(kind, key, make, encode, decode):
    """``make()``, made once for all of make grade's workers: where ``SHARED_ENV`` names the run's folder, the first
    worker that needs it makes it and writes ``encode(value)`` there as JSON, and the others read ``decode(...)``
    of it. Each worker of a class made the diagnosis models for the same hidden checks (a third of a CPU-second
    each, issue 24). A lock file per result: a worker that needs what another is making waits for it, not makes
    it again. The folder is the coordinator's (mode 0700, removed when the run ends); no student code runs in a
    worker, and every kernel is in a sandbox that does not see it. A result that cannot be written, read or
    decoded, or is stored under another key, is made here as without the folder (and written for the others).
    ``key``: a JSON value that names the result, whole (its file is named by the key's hash)."""
    folder = os.environ.get(SHARED_ENV)
    if not folder or not enabled():
        return make()
    import fcntl
    import hashlib

    try:
        name = json.dumps([kind, key], sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        return make()
    path = os.path.join(folder, hashlib.sha256(name.encode()).hexdigest())
    try:
        lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return make()
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released by close, or by the kernel if this worker dies
        try:
            with open(path, encoding="utf-8") as fh:
                stored_name, stored = json.load(fh)
            if stored_name == name:
                return decode(stored)
        except (OSError, ValueError, TypeError, KeyError, IndexError):
            pass
        value = make()
        try:
            partial = f"{path}.{os.getpid()}"
            with open(partial, "w", encoding="utf-8") as fh:
                json.dump([name, encode(value)], fh)
            os.replace(partial, path)
        except (OSError, TypeError, ValueError):
            pass
        return value
    finally:
        os.close(lock)


_FROZEN = []  # True once this process has frozen its heap


def loaded_and_frozen(load):
    """``load()``; the first time in a grading process (it loads the course's helpers, which import torch) as
    ``forkserver.imported_then_frozen``: the collector paused during the imports, then the heap frozen. Plain
    nbgrader spent about 50 ms a submission in full collections (gc.callbacks: 0.67 s for 10 submissions; after,
    0.09 s); make grade's workers start from the worker template's frozen heap."""
    if _FROZEN:
        return load()
    from grading.sandbox.forkserver import imported_then_frozen

    out = imported_then_frozen(load)
    _FROZEN.append(True)
    return out


def save_autogrades():
    """nbgrader's SaveAutoGrades, or (speed-ups on) the same in one transaction per notebook.

    nbgrader commits after every grade and comment it writes, two dozen commits per notebook, and each commit
    expires every object the session holds, so the next cell's query loads them again. Here the writes are the
    same (flushed in the same order: the session flushes before each query), committed once at the end; a
    notebook that fails half way writes nothing, where nbgrader left its first grades.
    """
    from nbgrader.preprocessors import SaveAutoGrades

    if not enabled():
        return SaveAutoGrades
    if not _ONCE:
        _ONCE.append(_save_autogrades_once())
    return _ONCE[0]


_ONCE = []  # the class, made on first use: importing this module imports no nbgrader preprocessor


def _save_autogrades_once():
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import SaveAutoGrades

    class SaveAutoGradesOnce(SaveAutoGrades):
        __doc__ = save_autogrades.__doc__

        def preprocess(self, nb, resources):  # nbgrader 0.9.6's, with the commits deferred
            self.notebook_id = resources["nbgrader"]["notebook"]
            self.assignment_id = resources["nbgrader"]["assignment"]
            self.student_id = resources["nbgrader"]["student"]
            self.db_url = resources["nbgrader"]["db_url"]
            self.gradebook = Gradebook(self.db_url)
            with self.gradebook:
                session = self.gradebook.db
                session.commit = session.flush  # what _add_score and _add_comment call after each cell
                _preload_rows(self.gradebook, self.notebook_id, self.assignment_id, self.student_id)
                try:
                    nb, resources = super(SaveAutoGrades, self).preprocess(nb, resources)
                finally:
                    del session.commit
                session.commit()
            return nb, resources

    return SaveAutoGradesOnce


def _preload_rows(gb, notebook, assignment, student):
    """The submitted notebook's grades and comments, each kind in one query, answering ``gb.find_grade`` and
    ``gb.find_comment`` for this notebook (nbgrader asks once per cell, a query or two each).

    A row is found by its cell's name as nbgrader's queries find it: among the grade (solution) cells first, then
    the task cells; the object is the one the query returns (the session's identity map holds one per row). A name
    not found here, or held twice, and any other notebook, ask nbgrader's query, which raises what it raised."""
    from nbgrader.api import (Assignment, Comment, Grade, GradeCell, Notebook, SolutionCell, Student,
                              SubmittedAssignment, SubmittedNotebook, TaskCell)

    def rows(kind, cell):
        query = (gb.db.query(cell.name, kind).join(cell, cell.id == kind.cell_id)
                 .join(SubmittedNotebook, SubmittedNotebook.id == kind.notebook_id)
                 .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
                 .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
                 .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
                 .join(Student, Student.id == SubmittedAssignment.student_id)
                 .filter(Notebook.name == notebook, Assignment.name == assignment, Student.id == student))
        found, twice = {}, set()
        for name, row in query:
            if name in found:
                twice.add(name)
            found[name] = row
        return found, twice

    for method, kind, cell in (("find_grade", Grade, GradeCell), ("find_comment", Comment, SolutionCell)):
        (first, twice), (tasks, twice_tasks) = rows(kind, cell), rows(kind, TaskCell)
        unsure = twice | twice_tasks
        _answer_here(gb, method, (notebook, assignment, student),
                     lambda name, first=first, tasks=tasks, unsure=unsure:
                     None if name in unsure else first.get(name, tasks.get(name)))


def _answer_here(gb, method, here, lookup):
    """Make ``gb.<method>(name, *where)`` answer ``lookup(name)`` for the rows loaded ``here`` (``where == here``);
    a name it does not hold (None), another notebook or a keyword call asks nbgrader's own query, which raises
    what it raised."""
    query = getattr(type(gb), method)

    def find(name, *where, **kw):
        hit = lookup(name) if where == here and not kw else None
        return hit if hit is not None else query(gb, name, *where, **kw)

    setattr(gb, method, find)


def _preloaded_cells(original):
    """OverwriteCells.preprocess_cell, with the notebook's source and graded cells read once per notebook.

    nbgrader's OverwriteCells asks the gradebook for each cell's source cell (and a graded cell's points): two
    dozen queries per notebook for rows it could read in four. Here the first cell of a notebook loads them all
    in the preprocessor's own session; a cell found there is the object the query would have returned (the
    session's identity map holds one object per row), and any other name asks nbgrader's query, which raises
    what it raised."""
    import functools

    @functools.wraps(original)
    def preprocess_cell(self, cell, resources, cell_index):
        gb = self.gradebook
        if enabled() and not getattr(gb, "_grading_preloaded", False):
            gb._grading_preloaded = True
            here = (self.notebook_id, self.assignment_id)
            try:
                notebook = gb.find_notebook(*here)
            except Exception:  # noqa: BLE001 - nbgrader's own queries say what is missing
                notebook = None
            if notebook is not None:
                from nbgrader.api import GradeCell, TaskCell

                sources = {c.name: c for c in notebook.source_cells}
                # each kind in one query that loads its own columns (the notebook's cell list loads them one by one)
                graded = {c.name: c for c in gb.db.query(TaskCell).filter(TaskCell.notebook_id == notebook.id)}
                graded.update({c.name: c for c in gb.db.query(GradeCell).filter(GradeCell.notebook_id == notebook.id)})
                _answer_here(gb, "find_source_cell", here, sources.get)
                _answer_here(gb, "find_graded_cell", here, graded.get)
        return original(self, cell, resources, cell_index)

    preprocess_cell._grading_preloaded = True
    return preprocess_cell


def apply():
    from nbformat.v4 import nbbase
    from nbgrader import api
    from nbgrader.nbgraderformat import common
    from nbgrader.preprocessors import OverwriteCells

    from grading.sandbox import kernel_harness

    if not getattr(OverwriteCells.preprocess_cell, "_grading_preloaded", False):
        OverwriteCells.preprocess_cell = _preloaded_cells(OverwriteCells.preprocess_cell)

    common.jsonschema = _JsonSchema
    kernel_harness.read_dates_sooner()  # the dates of every message the grader reads, as its kernels read them
    if not getattr(nbbase.validate, "_grading_fast", False):
        nbbase.validate = _fast_ref_validate(nbbase.validate)
    if enabled():
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        if not event.contains(Engine, "connect", sqlite_pragmas):
            event.listen(Engine, "connect", sqlite_pragmas)
    if not getattr(api.Gradebook, "_grading_shared_engine", False):  # once per process; enabled() decides per call
        api.Gradebook.__init__ = _shared_gradebook_init(api.Gradebook.__init__)
        api.Gradebook.close = _shared_gradebook_close(api.Gradebook.close)
        api.Gradebook._grading_shared_engine = True
