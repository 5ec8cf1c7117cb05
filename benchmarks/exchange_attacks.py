"""Benchmark: the exchange attacks of issue 19, on nbgrader's default exchange and on the course's.

    sudo .venv/bin/python benchmarks/exchange_attacks.py

For each exchange, one class as tests/test_exchange.py makes it (real Unix users, a released
course, honest submissions collected once); then each attack is planted alone, the instructor runs
`nbgrader collect --update` (under a 200 MB file-size limit and a 120 s timeout, so that the
default exchange's copy of /dev/zero stops), the result is read, and the attack is removed.
Prints one row per attack: what collect did and took, before and after.
"""

import datetime
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
import test_exchange as t  # noqa: E402

ATTACKS = ["spoof", "backdated", *t.ATTACKERS, "odd names"]


def plant(w, attack):
    if attack == "spoof":
        return t.plant_spoof(w)
    if attack == "backdated":
        return t.plant_backdated(w)
    if attack == "odd names":
        return t.plant_odd(w)
    return t.plant_own(w, attack)


def size(folder):
    files = [p for p in Path(folder).rglob("*") if p.is_file() and not p.is_symlink()]
    return len(files), sum(p.stat().st_size for p in files)


def observe(w, attack, proc, seconds):
    out = proc.stdout + proc.stderr
    said = [line for line in out.splitlines() if "Refused the submission" in line or "Ignoring" in line
            or "Error" in line or "CRITICAL" in line]
    result = f"exit {proc.returncode}, {seconds:.1f} s"
    if attack == "spoof":
        wrong = b"WRONG" in (w.submitted(t.HONEST) / t.NB).read_bytes()
        result += "; A's submission is now the attacker's" if wrong else "; A's own submission kept"
    elif attack == "backdated":
        recorded = t.exchange.parse_utc((w.submitted(t.SPOOFER) / "timestamp.txt").read_text())
        early = recorded < w.before_late_submit - datetime.timedelta(seconds=60)
        result += f"; recorded {recorded:%H:%M:%S} on the {recorded:%d}th ({'the student' if early else 'the exchange'}'s)"
    elif attack == "odd names":
        taken = sorted(p.name for p in (w.course / "submitted").iterdir() if not p.name.startswith("."))
        result += f"; {len(taken)} students in submitted/"
    else:
        user = t.ATTACKERS[attack]
        count, total = size(w.submitted(user))
        same = t.digest(w.submitted(user)) == w.first[user] if w.submitted(user).exists() else False
        result += f"; submitted/{user}: {count} files, {total / 1e6:.1f} MB" + (" (the first submission, unchanged)" if same else "")
        if attack == "link":
            source = (w.course / "source" / t.ASSIGNMENT / t.NB).read_bytes()
            if (w.submitted(user) / t.NB).exists() and (w.submitted(user) / t.NB).read_bytes() == source:
                result += ", holding the instructor's source/ notebook"
    return result, said[:1]


def run(defended):
    rows = {}
    with t.exchange_world(defended=defended) as w:
        t.prepare(w)
        for attack in ATTACKS:
            planted = plant(w, attack)
            started = time.monotonic()
            proc = w.run(t.INSTRUCTOR, "prlimit", "--fsize=200000000", "--", "timeout", "120", "nbgrader", "collect",
                         "--update", t.ASSIGNMENT, cwd=w.course, check=False)
            rows[attack] = observe(w, attack, proc, time.monotonic() - started)
            for path in planted:
                shutil.rmtree(path, ignore_errors=True)
            print(f"[{'after' if defended else 'before'}] {attack}: {rows[attack]}", flush=True)
    return rows


def main():
    before, after = run(False), run(True)
    print("\n| attack | nbgrader's exchange | the course's exchange |\n|---|---|---|")
    for attack in ATTACKS:
        print(f"| {attack} | {before[attack][0]} | {after[attack][0]} |")
    for attack in ATTACKS:
        print(f"{attack}: before {before[attack][1]}\n{' ' * len(attack)}  after  {after[attack][1]}")


if __name__ == "__main__":
    main()
