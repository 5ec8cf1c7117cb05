"""Build the source notebooks of every edition from the reviewable jupytext files in lessons/.

    python -m grading.build          # write source/<assignment>/*.ipynb for every assignment
    python -m grading.build --check  # exit 1 if a notebook or a helper copy is out of date

lessons/<assignment>/NN_name.py (py:percent, nbgrader metadata in each cell marker) is the file to edit;
source/<assignment>/NN_name.ipynb is generated from it, without outputs, and committed so that
nbgrader and JupyterLab can use it directly. Helpers shared by the assignments (SHARED_HELPERS)
have one source in Level 23's folder and are copied into the other English assignments' folders
here; --check fails when a copy drifts.

A translated edition (grading.EDITIONS, e.g. level23_speculative_decoding_zh) is built from
its template's lessons and helpers, with its text from lessons/i18n/<edition>.py:

- each markdown cell is replaced by the translation of its ``l10n`` id (the marker's
  ``l10n="..."``; every markdown cell of an assignment that has an edition needs one), which
  records a hash of the English text it was made from: when the English cell changes, the
  build stops and asks for the translation to be updated;
- comments in code cells are replaced line by line (COMMENTS, keyed by the English comment);
  the code itself is never touched, so both editions run, test and grade the same code;
- each helper module beside the notebooks (spec_checks.py, spec_widgets.py, spec_quiz.py) is
  copied with its text block (``TEXT = {...}`` between the BEGIN TEXT and END TEXT lines)
  replaced by the edition's, which must have the same ids, list lengths and {blanks}.
"""

import hashlib
import importlib.util
import json
import re
import string
import sys

import jupytext
import nbformat

from grading import ASSIGNMENT, ASSIGNMENTS, EDITIONS, ROOT, language, template

BEGIN_TEXT = "# ---------------------------------------------------------------- text: BEGIN TEXT"
END_TEXT = "# ---------------------------------------------------------------- text: END TEXT"
_COMMENT = re.compile(r"^(?P<code>(?:[^#'\"]|'[^']*'|\"[^\"]*\")*?)(?P<sep>#+ ?)(?P<text>.*)$")


class TranslationError(ValueError):
    """A translated edition cannot be built: a text is missing, stale or has other blanks."""


def lesson_path(name, assignment=ASSIGNMENT):
    return ROOT / "lessons" / assignment / f"{name}.py"


def notebook_path(name, assignment=ASSIGNMENT):
    return ROOT / "source" / assignment / f"{name}.ipynb"


# Helpers shared by the assignments: one source (in Level 23's folder), copied into the other
# English assignments' folders. A translated edition gets its copy from its template's folder,
# with its own text (helper_files below).
SHARED_HELPERS = ("spec_quiz.py",)


def shared_copies():
    """[(source, copy)] of every shared helper and its copy in each later English assignment's folder."""
    return [(ROOT / "source" / ASSIGNMENT / name, ROOT / "source" / assignment / name)
            for name in SHARED_HELPERS for assignment in ASSIGNMENTS
            if assignment != ASSIGNMENT and template(assignment) == assignment]


def has_editions(assignment):
    """Whether a translated edition is built from ``assignment``'s lessons."""
    return any(template(edition) == assignment for edition in EDITIONS)


def text_hash(text):
    """The short hash a translation records of the English text it translates."""
    return hashlib.sha256(text.strip().encode()).hexdigest()[:8]


def i18n_path(assignment):
    return ROOT / "lessons" / "i18n" / f"{assignment}.py"


def load_i18n(assignment):
    """The content module of a translated edition: CELLS, COMMENTS, HELPERS, DIAGNOSES, DIAGNOSIS."""
    path = i18n_path(assignment)
    spec = importlib.util.spec_from_file_location(f"_i18n_{assignment}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _translate_comments(source, comments, where):
    out = []
    for line in source.split("\n"):
        m = _COMMENT.match(line)
        if not m or m.group("sep").startswith("##") or not m.group("text").strip():
            out.append(line)  # code, or nbgrader's ### BEGIN/END markers
            continue
        english = m.group("text").rstrip()
        if english not in comments:
            raise TranslationError(f"{where}: no translation of the comment {english!r} in COMMENTS")
        out.append(m.group("code") + m.group("sep") + comments[english])
    return "\n".join(out)


# CJK characters and full-width punctuation: markdown renders a line break as a space, which Chinese
# text must not have between two such characters or next to full-width punctuation.
CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
FULL_WIDTH = "\u3000-\u303f\uff00-\uffef"
_CJK_CHAR = re.compile(f"[{CJK}]")
_FULL_WIDTH_CHAR = re.compile(f"[{FULL_WIDTH}]")
_BLOCK_START = re.compile(r"\s*$|\s*([-*+>]\s|#+\s|[|<]|\$\$|\d+\.\s|```)")


def join_cjk_lines(markdown):
    """``markdown`` with each hard line break that would render as a space inside Chinese text removed:
    between two CJK characters, or next to full-width punctuation. A line that starts a block (a list
    item, a table row, a heading, a quote, a formula, HTML, a fence) and a heading or table row
    before a break stay as they are."""
    out = []
    for line in markdown.split("\n"):
        if out and out[-1] and not re.match(r"\s*(#|\||```|\$\$)", out[-1]) and not _BLOCK_START.match(line):
            before, after = out[-1].rstrip().rstrip("*_")[-1:], line.lstrip().lstrip("*_")[:1]  # past **bold**
            if (_CJK_CHAR.match(before) and _CJK_CHAR.match(after)) or _FULL_WIDTH_CHAR.match(before) \
                    or _FULL_WIDTH_CHAR.match(after):
                out[-1] = out[-1].rstrip() + line.lstrip()
                continue
        out.append(line)
    return "\n".join(out)


def _translate_strings(source, strings, where):
    """``source`` with each string literal whose text is a key of ``strings`` (an English text the
    code prints or shows) replaced by its translation; the code around it is unchanged."""
    import io
    import tokenize

    offsets = [0]
    for line in source.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    pieces, pos = [], 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.STRING:
            continue
        m = re.match(r"(?is)([a-z]*)('\'\'|\"\"\"|'|\")(.*)\2$", tok.string)
        if not m or m.group(3) not in strings:
            continue
        english, translated = m.group(3), strings[m.group(3)]
        if blanks(english.replace("{{", "").replace("}}", "")) != blanks(translated.replace("{{", "").replace("}}", "")) \
                and "f" in m.group(1).lower():
            raise TranslationError(f"{where}: STRINGS[{english!r}] has other {{blanks}} than the English")
        if m.group(2) in translated or "\n" in translated and len(m.group(2)) == 1:
            raise TranslationError(f"{where}: STRINGS[{english!r}] holds its own quote or a line break")
        start = offsets[tok.start[0] - 1] + tok.start[1]
        end = offsets[tok.end[0] - 1] + tok.end[1]
        pieces += [source[pos:start], m.group(1) + m.group(2) + translated + m.group(2)]
        pos = end
    return "".join(pieces) + source[pos:]


def language_info(committed):
    """The notebook's language_info exactly as the course's kernel (ipykernel) reports it on connecting. JupyterLab
    writes the kernel's into a notebook as it opens, so any other value (such as {"name": "python"} alone) opened
    every notebook already marked unsaved. The version is this Python's; a notebook already committed with the same
    major.minor keeps its own, so that a patch release elsewhere does not rewrite every notebook."""
    version = sys.version.split()[0]
    try:
        kept = json.loads(committed.read_text())["metadata"]["language_info"]["version"]
        if kept.split(".")[:2] == version.split(".")[:2]:
            version = kept
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return {"codemirror_mode": {"name": "ipython", "version": sys.version_info[0]}, "file_extension": ".py",
            "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
            "pygments_lexer": "ipython3", "version": version}


def build(name, assignment=ASSIGNMENT):
    """The source notebook for lesson ``name`` in edition ``assignment``, as nbformat text."""
    nb = jupytext.read(lesson_path(name, template(assignment)), fmt="py:percent")
    nb.metadata.pop("jupytext", None)
    nb.metadata["language_info"] = language_info(notebook_path(name, assignment))
    lang = language(assignment)
    text = load_i18n(assignment) if lang != "en" else None
    for index, cell in enumerate(nb.cells):
        cell.pop("id", None)
        key = cell.metadata.pop("l10n", None)
        if cell.cell_type == "markdown" and key is None and (text is not None or has_editions(assignment)):
            raise TranslationError(f"{lesson_path(name, template(assignment)).relative_to(ROOT)}: markdown cell "
                                   f"{index} has no l10n=\"...\" id in its marker")
        if text is not None and cell.cell_type == "markdown":
            entry = text.CELLS.get(name, {}).get(key)
            if entry is None:
                raise TranslationError(f"{assignment}: no translation of cell {key!r} of {name}")
            made_from, translated = entry
            if made_from != text_hash(cell.source):
                raise TranslationError(
                    f"{assignment}: the English cell {key!r} of {name} changed since it was translated: update the "
                    f"translation and its hash to {text_hash(cell.source)!r} (English now begins "
                    f"{cell.source.strip()[:60]!r})")
            cell.source = join_cjk_lines(translated.strip("\n"))
        elif text is not None and cell.cell_type == "code":
            cell.source = _translate_comments(cell.source, text.COMMENTS, f"{assignment}/{name} cell {index}")
            cell.source = _translate_strings(cell.source, getattr(text, "STRINGS", {}), f"{assignment}/{name} cell {index}")
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.nbformat, nb.nbformat_minor = 4, 4
    return nbformat.writes(nb) + "\n"


# ------------------------------------------------------------------ helper modules

def text_block(source):
    """(before, the TEXT dict, after) of a helper module's source; None if it has no text block."""
    if BEGIN_TEXT not in source:
        return None
    before, rest = source.split(BEGIN_TEXT, 1)
    block, after = rest.split(END_TEXT, 1)
    literal = block[block.index("TEXT = ") + len("TEXT = "):]
    import ast

    return before, ast.literal_eval(literal.strip()), after


def blanks(text):
    return sorted(field for _, field, _, _ in string.Formatter().parse(text) if field is not None)


def compare_texts(english, translated, where="TEXT"):
    """Problems that keep ``translated`` from standing in for ``english``: ids, lengths, {blanks}."""
    problems = []
    if isinstance(english, dict):
        if not isinstance(translated, dict):
            return [f"{where} should be a dict"]
        for key in english:
            if key not in translated:
                problems.append(f"{where}[{key!r}] has no translation")
            elif key != "lang" and key != "fonts":
                problems += compare_texts(english[key], translated[key], f"{where}[{key!r}]")
        problems += [f"{where}[{key!r}] is not in the English text" for key in translated if key not in english]
    elif isinstance(english, list):
        if not isinstance(translated, list) or len(translated) != len(english):
            return [f"{where} should be a list of {len(english)}"]
        for k, (a, b) in enumerate(zip(english, translated)):
            problems += compare_texts(a, b, f"{where}[{k}]")
    elif isinstance(english, str):
        if not isinstance(translated, str) or not translated.strip():
            problems.append(f"{where} is empty")
        elif blanks(english) != blanks(translated):
            problems.append(f"{where} has the blanks {blanks(translated)}, the English {blanks(english)}")
    elif english != translated:
        problems.append(f"{where} should be {english!r}")
    return problems


def render_text(text):
    """A TEXT dict as Python source (JSON is a Python literal for dicts, lists and strings)."""
    return "TEXT = " + json.dumps(text, ensure_ascii=False, indent=4) + "\n"


def helper(source, assignment, module):
    """The edition's copy of the helper module ``module`` whose template source is ``source``."""
    parts = text_block(source)
    if parts is None or language(assignment) == "en":
        return source
    before, english, after = parts
    translated = load_i18n(assignment).HELPERS.get(module)
    if translated is None:
        raise TranslationError(f"{assignment}: no HELPERS[{module!r}] in {i18n_path(assignment).relative_to(ROOT)}")
    problems = compare_texts(english, translated, f"HELPERS[{module!r}]")
    if problems:
        raise TranslationError(f"{assignment}: " + "\n  ".join(problems))
    header = ("\n# This edition's text, written by `python -m grading.build` from "
              f"lessons/i18n/{assignment}.py: edit it there.\n")
    return before + BEGIN_TEXT + header + render_text(translated) + END_TEXT + after


def helper_files(assignment):
    """{target path: text} of the helper modules (and their data files) a translated edition gets from its template."""
    base = template(assignment)
    if base == assignment:
        return {}
    out = {}
    for path in sorted((ROOT / "source" / base).glob("*.py")):
        out[ROOT / "source" / assignment / path.name] = helper(path.read_text(), assignment, path.stem)
    for path in sorted((ROOT / "source" / base).iterdir()):  # data the helpers read (tiny_corpus.txt, weights)
        if path.is_file() and path.suffix not in (".py", ".ipynb"):
            out[ROOT / "source" / assignment / path.name] = path.read_bytes()
    return out


def outputs():
    """{path: text} of every file this build writes."""
    out = {}
    for assignment, notebooks in ASSIGNMENTS.items():
        for name in notebooks:
            if lesson_path(name, template(assignment)).exists():
                out[notebook_path(name, assignment)] = build(name, assignment)
        out.update(helper_files(assignment))
    for source, copy in shared_copies():
        out[copy] = source.read_text()
    return out


def main(argv):
    stale = []
    try:
        files = outputs()
    except TranslationError as exc:
        print(f"cannot build: {exc}")
        return 1
    for target, text in files.items():
        binary = isinstance(text, bytes)  # a data file copied as it is
        if target.exists() and (target.read_bytes() if binary else target.read_text()) == text:
            continue
        stale.append(target)
        if "--check" not in argv:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text) if binary else target.write_text(text)
    if stale and "--check" in argv:
        print("out of date (run `make notebooks`):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
