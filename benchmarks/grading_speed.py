"""Benchmark: `make grade` and plain `nbgrader autograde`, side by side with the floor, in one run.

    .venv/bin/python benchmarks/grading_speed.py [N] [--scale=M]   (default N=40, M=400: M more, to show it stays linear)
    .venv/bin/python benchmarks/grading_speed.py --quick           (N=10, the two main rows only, 3 rounds, no scale run)
    ... [--rounds=R]                                               (R rounds, each between two floors: medians)
    .venv/bin/python benchmarks/grading_speed.py --profile [N]     (one worker grading N=20 under py-spy: the phase table)
    ... --assignment=level24_residual_and_bonus                    (Level 24's three notebooks instead of Level 23's two)

Every row grades the same N submissions (a mix of right and wrong answers from answers/,
both notebooks each) in a fresh temporary course: the parallel grader (`make grade`'s
run_workers with its default workers, one per core and one more, forked kernels, sandbox) and plain `nbgrader autograde` (one process,
forked kernels, sandbox); without --quick also both with the speed-ups off
(GRADER_NO_SPEEDUPS=1, grading/plugins/speedups.py), on cold kernels and without the sandbox. The floor
is a cold kernel that only imports torch, once per notebook, measured before and after the rows
(their mean), less its client process's own start-up. CPU is counted in a cpuacct cgroup
(every descendant, reaped or not); wall times depend on what else the machine runs.
"""

import os
import re
import resource
import sys
import tempfile
import time
from itertools import cycle
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading import ASSIGNMENT, ASSIGNMENTS, NOTEBOOKS, grade, pipeline  # noqa: E402
from grading.build import catalogue
from grading.sandbox import kernels as sandbox
from grading.plugins import speedups


CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def measure(fn):
    """(wall seconds, CPU seconds of every process ``fn`` starts).

    Sandboxed kernels live in their own PID namespaces: when a sandbox is torn down its
    processes are reaped there, so their CPU never reaches this process's RUSAGE_CHILDREN.
    A cgroup (cpuacct) counts every descendant, reaped or not; it is used when it can be made.
    """
    group = CPUACCT / f"bench-grading-{os.getpid()}-{time.monotonic_ns()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        group = None
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = int((group / "cpuacct.usage").read_text()) if group else 0
    wall = time.perf_counter()
    try:
        fn()
    finally:
        wall = time.perf_counter() - wall
        if group:
            others = lambda: set((group / "cgroup.procs").read_text().split()) - {str(os.getpid())}  # noqa: E731
            end = time.monotonic() + 30
            while others() and time.monotonic() < end:  # fork servers stop a moment after their worker
                time.sleep(0.05)
            used = (int((group / "cpuacct.usage").read_text()) - start) / 1e9
            (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
            group.rmdir()
    if not group:
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        print("(no cpuacct cgroup: CPU from RUSAGE_CHILDREN, which misses sandboxed kernels)")
        used = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    return wall, used


def make_class(root, n):
    course = pipeline.make_course(root)
    picks = {nb: cycle(catalogue.load(nb, assignment=ASSIGNMENT)) for nb in NOTEBOOKS}
    for k in range(n):
        for nb in NOTEBOOKS:
            catalogue.write_submission(course / "submitted", f"student{k:03d}", nb, next(picks[nb]).code,
                                       ROOT / "release" / ASSIGNMENT, ASSIGNMENT)
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    return course


def floor(kernels):
    """A fresh kernel that imports torch and stops, ``kernels`` times, in a child process (0: the child only
    imports jupyter_client, the start-up that ``floor_per_submission`` subtracts)."""
    code = ("from jupyter_client.manager import start_new_kernel\n"
            f"for _ in range({kernels}):\n"
            "    km, kc = start_new_kernel()\n"
            "    kc.execute_interactive('import torch', timeout=120)\n"
            "    kc.stop_channels(); km.shutdown_kernel(now=True)\n")
    import subprocess
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=pipeline.env())


def floor_per_submission(sample):
    """(wall, CPU) of the floor per submission: ``sample`` cold kernels, less what their client process costs with
    none (its own Python and jupyter_client start-up, which would otherwise be spread over the sample), times the
    notebooks of a submission."""
    wall, cpu = measure(lambda: floor(sample))
    base_wall, base_cpu = measure(lambda: floor(0))
    return (wall - base_wall) / sample * len(NOTEBOOKS), (cpu - base_cpu) / sample * len(NOTEBOOKS)


def with_env(fn, **values):
    """Run ``fn`` with these environment variables set (the workers inherit them)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        return fn()
    finally:
        for key, value in saved.items():
            os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)


MAKE_GRADE = f"make grade ({grade.default_workers()} workers, forked, sandbox)"


def parallel(course, workers=None):
    workers = workers or grade.default_workers()
    return lambda: grade.run_workers(course, grade.students(course, ASSIGNMENT), workers, grade.default_db_url(course),
                                     echo=False, assignment=ASSIGNMENT)


def plain(course):
    return lambda: pipeline.nbgrader(course, "autograde", ASSIGNMENT, "--force")


def old_path(fn):
    """``fn`` with this branch's grading speed-ups switched off (grading/plugins/speedups.py), for the before column."""
    return lambda: with_env(fn, **{speedups.OFF_ENV: "1"})


def main(n=40, scale=0, quick=False, rounds=None):
    """Each round grades a fresh copy of the class once per row, between two measurements of the floor (a round's
    floor is the mean of the two around it); the table gives each row's median over the rounds."""
    import statistics

    rounds = rounds or (3 if quick else 1)
    tmp = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    rows = {  # name: (course maker, how it is graded)
        MAKE_GRADE: parallel,
        "plain nbgrader autograde (forked, sandbox)": plain,
    }
    if not quick:
        rows[f"make grade, one worker per core ({os.cpu_count()})"] = lambda c: parallel(c, os.cpu_count())
        rows["make grade, a fork server per worker"] = lambda c: lambda: with_env(parallel(c), **{grade.SHARED_OFF_ENV: "1"})
        rows["make grade, speed-ups off"] = lambda c: old_path(parallel(c))
        rows["plain autograde, speed-ups off"] = lambda c: old_path(plain(c))
        rows["make grade, cold kernels"] = lambda c: lambda: with_env(parallel(c), **{sandbox.COLD_ENV: "1"})
        rows["make grade, forked, no sandbox"] = lambda c: lambda: with_env(parallel(c), **{sandbox.UNSAFE_ENV: "1"})
    sample = 3 if quick else 6
    courses = {(r, name): make_class(tmp / f"round{r}-{k}", n) for r in range(rounds) for k, name in enumerate(rows)}
    floors = [floor_per_submission(sample)]
    runs = {}  # (round, name): (wall, CPU) for the class
    for r in range(rounds):
        for name, how in rows.items():
            runs[r, name] = measure(how(courses[r, name]))
        floors.append(floor_per_submission(sample))  # the machine's speed drifts: each round between two floors
    floor_of = [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in zip(floors, floors[1:])]
    tables = [pipeline.scores(course) for course in courses.values()]
    same = all(table == tables[0] for table in tables)
    med = statistics.median
    floor_wall, floor_cpu = med(f[0] for f in floor_of), med(f[1] for f in floor_of)
    ratios = {name: [runs[r, name][1] / n / floor_of[r][1] for r in range(rounds)] for name in rows}
    print(f"{n} submissions x {len(NOTEBOOKS)} notebooks of {ASSIGNMENT}; CPU counted in a cpuacct cgroup "
          f"(every descendant process, fork servers and sandboxed kernels included); {os.cpu_count()} cores; "
          f"{rounds} round{'s' * (rounds > 1)}, medians")
    print(f"| {'':44} | {'wall for ' + str(n):>12} | {'CPU per submission':>18} | {'CPU / floor':>11} |")
    print(f"|{'-' * 46}|{'-' * 14}|{'-' * 20}|{'-' * 13}|")
    print(f"| {'floor (cold kernel + import torch, per sub.)':44} | {floor_wall * n:>10.1f} s | "
          f"{floor_cpu:>16.2f} s | {1:>10.2f}x |")
    for name in rows:
        wall, cpu = med(runs[r, name][0] for r in range(rounds)), med(runs[r, name][1] for r in range(rounds))
        print(f"| {name:44} | {wall:>10.1f} s | {cpu / n:>16.2f} s | {med(ratios[name]):>10.2f}x |")
    print(f"  the floor before, between and after the rounds: {', '.join(f'{f[1]:.2f}' for f in floors)} CPU-s "
          "per submission")
    for name in list(rows)[:2]:
        print(f"  {name}, each round's CPU / its floor: {', '.join(f'{x:.2f}x' for x in ratios[name])}")
    grade_wall = med(runs[r, MAKE_GRADE][0] for r in range(rounds))
    plain_name = "plain nbgrader autograde (forked, sandbox)"
    print(f"goals: make grade {n} in under 30 s wall: {grade_wall:.1f} s; CPU/submission <= 0.25x floor: "
          f"{med(ratios[MAKE_GRADE]):.2f}x; plain autograde <= 0.3x: {med(ratios[plain_name]):.2f}x")
    print(f"same gradebook in every run: {same}")
    if scale:
        grade_cpu = med(runs[r, MAKE_GRADE][1] for r in range(rounds))
        big = make_class(tmp / "scale", scale)
        wall, cpu = measure(parallel(big))
        print(f"{scale} submissions, make grade: {wall:.1f} s wall, {cpu:.1f} CPU-s = {cpu / scale:.2f} CPU-s per "
              f"submission ({cpu / grade_cpu:.1f}x the CPU and {wall / grade_wall:.1f}x the wall of {n}; "
              f"linear would be {scale / n:.0f}x)")


# --profile: one worker under py-spy (grader, fork server and every forked kernel), each sample put in a phase
# by its process and its frames. py-spy cannot tell a sandboxed kernel's blocked threads from running ones,
# so samples whose innermost frame blocks (select, poll, wait, read, ...) count as idle; waiting on the disk in
# an SQLite commit is not idle (the worker waits for it).
BLOCKING = ("select", "poll", "wait", "device", "_watch_pipe_fd", "read", "recv", "sleep", "accept", "acquire")


def _execute_sleep_line():
    """ipykernel's line that sleeps after each cell (``time.sleep(self._execute_sleep)``, half a millisecond): py-spy
    shows that sleep as the Python frame calling it, busy; its samples are idle."""
    import ipykernel.kernelbase

    with open(ipykernel.kernelbase.__file__) as fh:
        lines = [n for n, line in enumerate(fh, 1) if "time.sleep(self._execute_sleep)" in line]
    return f"(ipykernel/kernelbase.py:{lines[0]})" if lines else None


def phase(procs, frames):
    """The phase of one py-spy sample: ``procs`` its process chain, ``frames`` its stack, outermost first."""
    s, name = ";".join(frames), procs[-1]
    # make grade's workers are forked by the shared fork server (its command line): told apart by their frames
    if "forkserver.py" in name and "_run_worker (" not in s:
        if "_zygote (" in s:  # the worker template's imports (once per run), not a kernel's
            return "nbgrader start-up (once per worker)"
        if "prewarm" in s or "serve (" in s and "_harness (" in s:
            return "kernel fork and sandbox (fork server's imports, once)"
        if frames and frames[0].startswith("Thread._bootstrap") and "kernel_harness" not in s:
            return "kernel threads (IOPub, shell channel, history)"
        if "_kernel (" not in s or "enter_sandbox" in s or "_fresh_process_state" in s:
            return "kernel fork and sandbox"
        if "grader_call_request" in s:
            return "student cells (the grader's calls)"
        if "run_cell" in s or "execute_request" in s:
            if "matplotlib" in s:
                return "lesson cells: figures (matplotlib)"
            if "ipywidgets" in s or "spec_widgets" in s or "spec_quiz" in s:
                return "lesson cells: widgets and quizzes"
            if "_find_and_load" in s:
                return "lesson cells: imports"
            return "lesson cells and student cells, the rest"
        return "kernel start-up (ipykernel, IPython)"
    if len(procs) < 2:  # py-spy may name a worker by its parent's command line (read before the exec): by depth
        return "run_workers, the coordinator"
    if "verdicts" in s or "diagnosis" in s:
        return "grader-side checks"
    if "SaveAutoGrades" in s or "Gradebook" in s or "sqlalchemy" in s:
        return "gradebook"
    # (not "grading/sandbox/" alone: a worker of make grade runs under forkserver.py's _run_worker, every sample)
    if any(k in s for k in ("ForkServer", "grading/sandbox/kernels.py", "start_kernel", "shutdown_kernel")):
        return "kernel fork and sandbox"
    if any(k in s for k in ("nbformat", "nbconvert", "jsonschema", "deepcopy")):
        return "nbconvert and nbformat"
    if "_find_and_load" in s:
        return "nbgrader start-up (once per worker)"
    return "nbgrader and nbclient, the rest"


PROCESS = re.compile(r'process \d+:"[^"]*";?')


def parse_sample(line):
    """(process chain, frames, count) of one line of py-spy's raw output; a command line may hold ';'."""
    stack, count = line.rsplit(" ", 1)
    procs = [p.rstrip(";") for p in PROCESS.findall(stack)]
    frames = [f for f in PROCESS.sub("", stack).split(";") if f]
    return procs, frames, int(count)


def profile(n=20, rate=50):
    import collections
    import shutil
    import subprocess

    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    course = make_class(Path(tempfile.mkdtemp(prefix="bench-profile-")), n)
    out = course / "profile.txt"
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from grading import grade; "
            f"grade.run_workers({str(course)!r}, grade.students({str(course)!r}, {ASSIGNMENT!r}), 1, "
            f"grade.default_db_url({str(course)!r}), echo=False, assignment={ASSIGNMENT!r})")
    wall, cpu = measure(lambda: subprocess.run([spy, "record", "--subprocesses", "-r", str(rate), "-f", "raw", "-o",
                                                str(out), "--", sys.executable, "-c", code], check=True,
                                               capture_output=True, env=pipeline.env()))
    phases, idle = collections.Counter(), 0
    sleeping = _execute_sleep_line()
    for line in out.read_text().splitlines():
        procs, frames, count = parse_sample(line)
        leaf = frames[-1].split(" (")[0].rsplit(".", 1)[-1].lower() if frames else ""
        if any(leaf.startswith(k) or leaf.endswith(k) for k in BLOCKING) or sleeping and frames and frames[-1].endswith(sleeping):
            idle += count
        else:
            phases[phase(procs, frames)] += count
    busy = sum(phases.values())
    print(f"one worker, {n} submissions of {ASSIGNMENT} under py-spy ({rate}/s): {wall:.1f} s wall, {cpu:.1f} CPU-s (cgroup); "
          f"{busy / rate:.1f} s of busy samples (every process), {idle / rate:.1f} s blocked")
    print(f"| {'phase':54} | share of busy samples |")
    for name, count in phases.most_common():
        print(f"| {name:54} | {100 * count / busy:>20.1f}% |")
    print(f"| {'idle: cores not used (2 cores x wall - CPU), for reference':54} | "
          f"{100 * max(0.0, 1 - cpu / (2 * wall)):>20.1f}% |")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    chosen = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--assignment=")), ASSIGNMENT)
    if chosen not in ASSIGNMENTS:
        sys.exit(f"--assignment: one of {', '.join(ASSIGNMENTS)}")
    ASSIGNMENT, NOTEBOOKS = chosen, ASSIGNMENTS[chosen]
    if "--profile" in sys.argv:
        profile(int(args[0]) if args else 20)
        sys.exit()
    quick = "--quick" in sys.argv
    option = lambda name, default: next((int(a.split("=")[1]) for a in sys.argv[1:] if a.startswith(f"--{name}=")),  # noqa: E731
                                        default)
    main(int(args[0]) if args else (10 if quick else 40), option("scale", 0 if quick else 400), quick,
         option("rounds", None))
