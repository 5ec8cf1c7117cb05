"""Student and assignment ids: one rule, checked wherever an id enters the course.

An id is a folder name in submitted/, autograded/, feedback/ and the exchange, a row of the
gradebook and a word of the class report, so an odd one (a space, a slash, "..", a control
character, a leading dash) is refused with a message that names it and the rule, never
split, guessed at or graded under another name. ``check_id`` is the one check: `make grade`
(grading/grade.py), the plain nbgrader commands (``refuse_odd_ids``, switched on in
nbgrader_config.py) and the kernel's preprocessor (grading/plugins/preprocessors.py) use it, and so
can the exchange.
"""

import re

MAX_LENGTH = 64
ALLOWED = "letters a-z and A-Z, digits, '_', '-', '.' and '@'"
RULE = (f"an id is 1 to {MAX_LENGTH} characters: {ALLOWED}; it starts with a letter, digit or '_' "
        "and has no '..'")
_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]*")


class OddId(ValueError):
    """An id that breaks the rule; its message names the id and the rule."""


def _shown(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + f"... ({len(value)} characters)"


def problem(value):
    """What is wrong with ``value`` as an id, in a few words, or None."""
    if not isinstance(value, str):
        return f"is of type {type(value).__name__}, not text"
    if not value:
        return "is empty"
    if len(value) > MAX_LENGTH:
        return f"is {len(value)} characters long"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        return "contains a control character"
    if any(ch.isspace() for ch in value):
        return "contains a space"
    if "/" in value or "\\" in value:
        return "contains a slash"
    if ".." in value:
        return "contains '..'"
    bad = sorted({ch for ch in value if not _ID.fullmatch("a" + ch)})
    if bad:
        return "contains " + ", ".join(repr(ch) for ch in bad[:5])
    if not _ID.fullmatch(value):
        return f"starts with {value[0]!r}"
    return None


def check_id(kind, value):
    """None if ``value`` is a good ``kind`` id ("student", "assignment"), else the message saying why not."""
    why = problem(value)
    return None if why is None else f"{kind} id {_shown(value)} is refused: it {why} ({RULE})"


def require_id(kind, value):
    """``value``, or OddId with check_id's message."""
    message = check_id(kind, value)
    if message:
        raise OddId(message)
    return value


def refuse_odd_ids():
    """The converters that read students' folders (`nbgrader autograde`, `nbgrader generate_feedback`) refuse a
    student or assignment with an odd id before they touch the gradebook or any file: nbgrader logs the
    message, skips that submission and carries on with the rest, and the command ends with an error naming it."""
    from nbgrader.converters import Autograde, GenerateFeedback
    from nbgrader.converters.base import BaseConverter

    original = getattr(BaseConverter.init_destination, "__wrapped__", BaseConverter.init_destination)

    def init_destination(self, assignment_id, student_id):
        checked = (("assignment", assignment_id), ("student", student_id))
        for kind, value in checked if isinstance(self, (Autograde, GenerateFeedback)) else ():
            message = check_id(kind, value)
            if message:
                self.log.error("%s: not processed", message)
                raise OddId(message)
        return original(self, assignment_id, student_id)

    init_destination.__wrapped__ = original
    BaseConverter.init_destination = init_destination
