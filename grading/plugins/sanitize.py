"""No student's notebook can stop `nbgrader autograde`: nbgrader's metadata in a submission is the instructor's.

nbgrader trusts the ``nbgrader`` metadata a submission carries: a cell with ``schema_version: 99``
(or an old one) makes it stop the whole run, for every student after it; other malformed metadata
(a list, a grade id that is a number, an answer cell claiming a test cell's id, a missing
``cell_type``, no cells at all) makes it drop that student's whole submission. Here, first of
``Autograde.sanitize_preprocessors`` (nbgrader_config.py), ``RestoreInstructorMetadata`` gives every
cell the instructor's metadata from the gradebook, by its grade id, strips the metadata of a cell
whose id is not the instructor's, and puts back every instructor cell the submission lacks; the
notebook is then graded as usual. A notebook nbformat cannot read at all (not JSON, an invalid
structure, over MAX_NOTEBOOK_BYTES) is refused alone (``refuse_unreadable``): it scores 0, its autograded notebook and its
feedback say why, and the student's other notebooks and everyone else are graded. Every repair and
refusal is logged with the student's name.
"""

import copy
import json
import os
import re

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer

CELL_TYPES = ("code", "markdown", "raw")
_CELL_ID = re.compile(r"[a-zA-Z0-9-_]{1,64}")


def _same(meta, right):
    """Whether a cell's nbgrader metadata is the instructor's. The checksum is left out: a released hidden test
    cell carries the checksum of its released text, the gradebook that of the instructor's (nbgrader's
    OverwriteCells puts the gradebook's back as well)."""
    strip = lambda m: {k: v for k, v in m.items() if k != "checksum"}  # noqa: E731
    return isinstance(meta, dict) and strip(meta) == strip(right)


def instructor_cells(db_url, assignment, notebook):
    """[(grade_id, cell_type, nbgrader metadata, source)] of the instructor's notebook, in its order, from the
    gradebook (what `nbgrader generate_assignment` recorded: the released cells)."""
    from nbgrader.api import GradeCell, Gradebook, SolutionCell, TaskCell

    with Gradebook(db_url) as gb:
        nb = gb.find_notebook(notebook, assignment)
        # One query per kind, loading its own columns (the notebook's cell lists load each cell's points by itself).
        of_kind = lambda kind: gb.db.query(kind).filter(kind.notebook_id == nb.id)  # noqa: E731
        grades = {c.name: c.max_score for c in of_kind(GradeCell)}
        tasks = {c.name: c.max_score for c in of_kind(TaskCell)}
        solutions = {c.name for c in of_kind(SolutionCell)}
        out = []
        for cell in nb.source_cells:
            meta = {"cell_type": cell.cell_type, "checksum": cell.checksum, "grade": cell.name in grades,
                    "grade_id": cell.name, "locked": bool(cell.locked), "schema_version": 3,
                    "solution": cell.name in solutions, "task": cell.name in tasks}
            points = grades.get(cell.name, tasks.get(cell.name))
            if points is not None:
                meta["points"] = int(points) if float(points).is_integer() else points
            if not cell.checksum:
                del meta["checksum"]
            out.append((cell.name, cell.cell_type, meta, cell.source or ""))
    return out


def released_sources(truth, parent=None):
    """{grade_id: the text a student was given} of each locked instructor cell whose released text is not the
    gradebook's: a test cell's hidden tests are cleared from the release (nbgrader's ClearHiddenTests, with the
    course's delimiters) after the gradebook recorded the whole cell."""
    from nbgrader.preprocessors import ClearHiddenTests

    clear = ClearHiddenTests(parent=parent)  # the course's delimiters, if configured
    out = {}
    for grade_id, cell_type, meta, source in truth:
        if not meta.get("locked") or cell_type != "code" or clear.begin_test_delimeter not in source:
            continue
        cell = nbformat.v4.new_code_cell(source=source)
        try:
            clear._remove_hidden_test_region(cell)
        except Exception:  # noqa: BLE001 - a malformed hidden region: compare nothing, nbgrader reports it
            continue
        if cell.source != source:
            out[grade_id] = cell.source
    return out


def _new_cell(cell_type, source, metadata):
    make = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell,
            "raw": nbformat.v4.new_raw_cell}[cell_type]
    return make(source=source, metadata=metadata)


def _as_type(cell, cell_type):
    """``cell`` (a dict) as a well-formed cell of ``cell_type``, keeping its source and metadata."""
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    if not isinstance(source, str):
        source = ""
    new = _new_cell(cell_type, source, cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {})
    if cell_type == "code" and cell.get("cell_type") == "code":
        outputs = cell.get("outputs")
        new["outputs"] = outputs if isinstance(outputs, list) else []
    if "id" in cell and isinstance(cell["id"], str):
        new["id"] = cell["id"]
    if cell_type != "code" and isinstance(cell.get("attachments"), dict):
        new["attachments"] = cell["attachments"]
    return new


class RestoreInstructorMetadata(NbGraderPreprocessor):
    """Every cell's nbgrader metadata (and cell type) is the instructor's, from the gradebook; see the module."""

    max_metadata_chars = Integer(10_000, help="Characters of a cell's or the notebook's other metadata kept "
                                              "(a larger value is dropped)").tag(config=True)

    def _small(self, value):
        try:
            return len(json.dumps(value, default=str)) <= self.max_metadata_chars
        except (TypeError, ValueError, RecursionError):
            return False

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        who = f"student '{info['student']}', notebook {info['notebook']}"
        truth = instructor_cells(info["db_url"], info["assignment"], info["notebook"])
        by_id = {grade_id: (cell_type, meta) for grade_id, cell_type, meta, _ in truth}
        sources = {grade_id: source for grade_id, _, _, source in truth}
        released = released_sources(truth, self)
        repairs = []

        metadata = nb.get("metadata")
        nb["metadata"] = {k: v for k, v in metadata.items() if self._small(v)} if isinstance(metadata, dict) else {}
        raw = nb.get("cells")
        if not isinstance(raw, list):
            repairs.append("the notebook had no list of cells")
            raw = []

        # Which cell holds each instructor id: a claimed id held by several cells goes to the one whose source is
        # the instructor's (a locked cell left as it was), else to the last, as nbgrader's DeduplicateIds does.
        claims = {}
        for index, cell in enumerate(raw):
            meta = cell.get("metadata") if isinstance(cell, dict) else None
            nbg = meta.get("nbgrader") if isinstance(meta, dict) else None
            grade_id = nbg.get("grade_id") if isinstance(nbg, dict) else None
            if isinstance(grade_id, str) and grade_id in by_id:
                claims.setdefault(grade_id, []).append(index)
        holder = {}
        for grade_id, indexes in claims.items():
            right = [i for i in indexes if self._unchanged(raw[i], by_id[grade_id])]
            holder[(right or indexes)[-1]] = grade_id
            if len(indexes) > 1:
                repairs.append(f"{len(indexes)} cells claimed the id '{grade_id}'")

        cells = []
        for index, cell in enumerate(raw):
            if not isinstance(cell, dict):
                repairs.append(f"cell {index} was not a cell (dropped)")
                continue
            meta = cell.get("metadata")
            if not isinstance(meta, dict):
                repairs.append(f"cell {index}'s metadata was not a mapping")
                meta = {}
            kept = {k: v for k, v in meta.items() if k != "nbgrader" and self._small(v)}
            if len(kept) + ("nbgrader" in meta) < len(meta):
                repairs.append(f"cell {index}'s metadata over {self.max_metadata_chars} characters was dropped")
            grade_id = holder.get(index)
            if grade_id is not None:
                cell_type, right = by_id[grade_id]
                if not _same(meta.get("nbgrader"), right) or cell.get("cell_type") != cell_type:
                    repairs.append(f"cell {index} ('{grade_id}') had metadata or a cell type not the instructor's")
                kept["nbgrader"] = copy.deepcopy(right)
                if right.get("locked") and cell.get("source") == released.get(grade_id):
                    # The released text of a cell with hidden tests: nbgrader's OverwriteCells would put the
                    # instructor's back too, but log it as a changed checksum (tampering) for every honest student.
                    cell = dict(cell, source=sources[grade_id])
            else:
                cell_type = cell.get("cell_type")
                if "nbgrader" in meta:
                    repairs.append(f"cell {index} carried nbgrader metadata of no instructor cell (removed)")
                if cell_type not in CELL_TYPES:
                    repairs.append(f"cell {index} had no valid cell type (kept as a raw cell, not run)")
                    cell_type = "raw"
            cell = dict(cell, metadata=kept)
            cells.append(_as_type(cell, cell_type) if self._malformed(cell, cell_type) else nbformat.from_dict(cell))

        present = set(holder.values())
        for position, (grade_id, cell_type, meta, source) in enumerate(truth):
            if grade_id in present:
                continue
            repairs.append(f"the instructor's cell '{grade_id}' was missing (put back)")
            earlier = [g for g, *_ in truth[:position] if g in present]
            at = 0
            if earlier:
                at = 1 + next(i for i, c in enumerate(cells)
                              if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == earlier[-1])
            cells.insert(at, _new_cell(cell_type, source, {"nbgrader": copy.deepcopy(meta)}))
            present.add(grade_id)
        nb["cells"] = cells
        minor = nb.get("nbformat_minor")
        nb["nbformat"], nb["nbformat_minor"] = 4, minor if isinstance(minor, int) and 0 <= minor <= 5 else 5
        for cell in cells:  # cell ids exist from nbformat 4.5 on, and are then required
            if nb["nbformat_minor"] < 5:
                cell.pop("id", None)
            elif not (isinstance(cell.get("id"), str) and _CELL_ID.fullmatch(cell["id"])):
                cell["id"] = nbformat.v4.new_code_cell().id
        if repairs:
            self.log.warning("Metadata of %s restored from the instructor's: %s", who, "; ".join(repairs[:20])
                             + (f"; and {len(repairs) - 20} more" if len(repairs) > 20 else ""))
        return nb, resources

    @staticmethod
    def _unchanged(cell, instructor):
        from nbgrader.utils import compute_checksum

        cell_type, meta = instructor
        if not meta.get("locked") or cell.get("cell_type") != cell_type or not meta.get("checksum"):
            return False
        try:
            probe = _as_type(dict(cell, metadata={"nbgrader": meta}), cell_type)
            return compute_checksum(probe) == meta["checksum"]
        except Exception:  # noqa: BLE001 - a cell too odd to check is not the instructor's
            return False

    @staticmethod
    def _malformed(cell, cell_type):
        if cell.get("cell_type") != cell_type or not isinstance(cell.get("source"), str):
            return True
        if cell_type == "code":
            return not isinstance(cell.get("outputs"), list) or "execution_count" not in cell
        return False


MAX_NOTEBOOK_BYTES = 20_000_000  # a released notebook is about 100 kB; nbgrader reads a notebook whole, into memory


class TooLarge(ValueError):
    """A submitted notebook over MAX_NOTEBOOK_BYTES: not read at all."""


UNREADABLE_NOTE = ("**This notebook was not graded: the grader could not read it as a notebook** ({kind}). "
                   "It scores 0. Submit the notebook file itself, saved by Jupyter (File > Save).")


def refuse_unreadable():
    """`nbgrader autograde` refuses, alone, a submitted notebook nbformat cannot read: see the module."""
    from nbgrader.api import Gradebook
    from nbgrader.converters import Autograde

    original = getattr(Autograde.convert_single_notebook, "__wrapped__", Autograde.convert_single_notebook)

    def convert_single_notebook(self, notebook_filename):
        try:
            size = os.path.getsize(notebook_filename)
            if size > MAX_NOTEBOOK_BYTES:
                raise TooLarge(f"{size:,} bytes, over the grader's limit of {MAX_NOTEBOOK_BYTES:,}")
            with open(notebook_filename, encoding="utf-8") as f:
                nbformat.read(f, as_version=4)
        except Exception as e:  # noqa: BLE001 - whatever the file is, it costs only this notebook
            why = f"{type(e).__name__}: {str(e)[:300]}"
        else:
            return original(self, notebook_filename)
        resources = self.init_single_notebook_resources(notebook_filename)
        info = resources["nbgrader"]
        self.log.error("Notebook %s.ipynb for student '%s' cannot be read (%s): it is not graded and scores 0; the "
                       "student's other notebooks and the rest of the class are graded", info["notebook"],
                       info["student"], why)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            submission = gb.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            for grade in submission.grades:
                grade.auto_score, grade.needs_manual_grade = 0, False
            gb.db.commit()
        dest = self._format_dest(info["assignment"], info["student"])
        os.makedirs(dest, exist_ok=True)
        # The note names the error's type only: the file's own text (in the error's message) stays out of the page.
        kind = why.split(":", 1)[0]
        note = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(UNREADABLE_NOTE.format(kind=kind))])
        nbformat.write(note, os.path.join(dest, f"{info['notebook']}.ipynb"))

    convert_single_notebook.__wrapped__ = original
    Autograde.convert_single_notebook = convert_single_notebook


# What of a student's notebook is kept before anything renders it (issue 41): the autograded notebook (CapOutputSize)
# and every page of one (SanitizeStudentContent). The course's notebooks have at most 46 cells, 1,600 characters a
# cell, 15,000 in all, and attachments of a few bytes; a notebook past these bounds is cut, with a note on top.
MAX_CELLS = 500  # cells kept; the instructor's cells are always kept, the student's own first ones up to this
MAX_CELL_SOURCE = 20_000  # characters shown of one cell's source (head and tail)
MAX_NOTEBOOK_SOURCE = 200_000  # characters of source in all; past them each further cell shows its first SHORT_SOURCE
SHORT_SOURCE = 1_000
MAX_ATTACHMENTS = 10  # attachments kept in a notebook
MAX_ATTACHMENT_CHARS = 500_000  # characters (base64) of one attachment kept, and 2 x this of all together
MARKER_ROOM = 200  # characters left in a cut cell's bound for the marker saying it was cut
CUT_MARK = "grader_cut"  # the note cell's metadata: what was cut, in English, for the class report (grading/grade.py)


def _source_text(cell):
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def bound_notebook(nb, assignment="", shown_graded=False):
    """Cut ``nb`` (a notebook node, in place) to the bounds above; a markdown cell on top says what was cut, in
    ``assignment``'s language (grading/judge/grader_text.py), and carries it in English in its metadata (CUT_MARK).
    ``shown_graded``: ``nb`` is an autograded notebook being shown, whose first cell may be the grader's own note.
    Returns what was cut, as English phrases ([] when nothing was)."""
    from grading.judge import grader_text

    cells = nb.get("cells")
    if not isinstance(cells, list):
        return []
    words, english = grader_text.words(assignment), grader_text.ENGLISH
    # An earlier note of the grader's (the autograded notebook's, now shown) is kept on top, outside the bounds;
    # only there: anywhere else, and in a notebook being graded, the mark is removed (a student's is not believed).
    earlier = cells[0] if shown_graded and cells and isinstance(cells[0], dict) and isinstance(cells[0].get("metadata"), dict) \
        and cells[0]["metadata"].get(CUT_MARK) and cells[0].get("cell_type") == "markdown" else None
    if earlier is not None:
        nb["cells"] = cells[1:]
        try:
            return _bound(nb, words, english)
        finally:
            nb["cells"].insert(1 if nb["cells"] and nb["cells"][0].get("metadata", {}).get(CUT_MARK) else 0, earlier)
    return _bound(nb, words, english)


def _bound(nb, words, english):
    """bound_notebook's work on ``nb``'s cells, with no earlier note of the grader's among them."""
    cells = nb["cells"]
    for cell in cells:
        if isinstance(cell, dict) and isinstance(cell.get("metadata"), dict):
            cell["metadata"].pop(CUT_MARK, None)
    cut = []  # (key of the phrase, its blanks)
    ours = sum(1 for c in cells if isinstance(c, dict) and isinstance(c.get("metadata"), dict)
               and "nbgrader" in c["metadata"])
    if len(cells) > MAX_CELLS:
        room, kept = max(MAX_CELLS - ours, 0), []
        for cell in cells:
            if isinstance(cell, dict) and isinstance(cell.get("metadata"), dict) and "nbgrader" in cell["metadata"]:
                kept.append(cell)
            elif room > 0:
                kept.append(cell)
                room -= 1
        cut.append(("cut_cells", dict(count=len(cells) - len(kept), total=len(cells), most=MAX_CELLS)))
        nb["cells"] = cells = kept
    long_cells = short_cells = 0
    total = 0
    attachments = attachment_chars = dropped = 0
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _source_text(cell)
        if len(source) > MAX_CELL_SOURCE:
            half = (MAX_CELL_SOURCE - MARKER_ROOM) // 2  # with the marker, within the bound: not cut again when shown
            marker = words["cut_in_cell"].format(count=len(source) - 2 * half)
            source = f"{source[:half]}\n... [{marker}] ...\n{source[-half:]}"
            long_cells += 1
        if total > MAX_NOTEBOOK_SOURCE and len(source) > SHORT_SOURCE:
            source = f"{source[:SHORT_SOURCE - MARKER_ROOM]}\n... [{words['cut_rest_of_cell']}]"
            short_cells += 1
        total += len(source)
        if source is not cell.get("source"):
            cell["source"] = source
        found = cell.get("attachments")
        if found is None:
            continue
        kept = {}
        for name, bundle in (found.items() if isinstance(found, dict) else ()):
            size = len(json.dumps(bundle, default=str)) if isinstance(bundle, dict) else MAX_ATTACHMENT_CHARS + 1
            if (attachments < MAX_ATTACHMENTS and size <= MAX_ATTACHMENT_CHARS
                    and attachment_chars + size <= 2 * MAX_ATTACHMENT_CHARS):
                kept[name] = bundle
                attachments += 1
                attachment_chars += size
            else:
                dropped += 1
        if not isinstance(found, dict) or len(kept) < len(found):
            cell["attachments"] = kept
    if long_cells:
        cut.append(("cut_long_cells", dict(count=long_cells, chars=MAX_CELL_SOURCE)))
    if short_cells:
        cut.append(("cut_short_cells", dict(count=short_cells, chars=MAX_NOTEBOOK_SOURCE,
                                            short=SHORT_SOURCE - MARKER_ROOM)))
    if dropped:
        cut.append(("cut_attachments", dict(count=dropped, most=MAX_ATTACHMENTS, chars=MAX_ATTACHMENT_CHARS,
                                            total=2 * MAX_ATTACHMENT_CHARS)))
    if not cut:
        return []
    said = [english[key].format(**fields) for key, fields in cut]
    note = nbformat.v4.new_markdown_cell(words["notebook_cut"].format(
        what=words["cut_joiner"].join(words[key].format(**fields) for key, fields in cut)),
        metadata={CUT_MARK: english["cut_joiner"].join(said)})
    minor = nb.get("nbformat_minor")
    if not isinstance(minor, int) or minor < 5:  # cell ids exist from nbformat 4.5 on
        note.pop("id", None)
    cells.insert(0, note)
    return said
