"""Benchmark: plain `nbgrader autograde` against the parallel grader, and the sandbox's cost.

    .venv/bin/python benchmarks/grading_speed.py [N]      (default 40)

Every run grades the same N submissions (a mix of right and wrong answers from answers/,
both notebooks each) in fresh temporary courses, in this one run: plain `nbgrader autograde`
and the parallel grader with the sandbox on, and the parallel grader with
--unsafe-no-sandbox (the same grader, kernels unconfined). The floor is what no grader can
avoid: a fresh kernel that only imports torch, once per notebook. Prints seconds and
CPU-seconds per submission and the ratios.
"""

import os
import resource
import sys
import tempfile
import time
from itertools import cycle
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading import ASSIGNMENT, NOTEBOOKS, catalogue, grade, pipeline, sandbox  # noqa: E402


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
    picks = {nb: cycle(catalogue.load(nb)) for nb in NOTEBOOKS}
    for k in range(n):
        for nb in NOTEBOOKS:
            catalogue.write_submission(course / "submitted", f"student{k:03d}", nb, next(picks[nb]).code,
                                       ROOT / "release" / ASSIGNMENT)
    pipeline.nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    return course


def floor(kernels):
    """A fresh kernel that imports torch and stops, ``kernels`` times, in a child process."""
    code = ("from jupyter_client.manager import start_new_kernel\n"
            f"for _ in range({kernels}):\n"
            "    km, kc = start_new_kernel()\n"
            "    kc.execute_interactive('import torch', timeout=120)\n"
            "    kc.stop_channels(); km.shutdown_kernel(now=True)\n")
    import subprocess
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=pipeline.env())


def unsandboxed(fn):
    os.environ[sandbox.UNSAFE_ENV] = "1"
    try:
        return fn()
    finally:
        del os.environ[sandbox.UNSAFE_ENV]


def main(n=40):
    tmp = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    plain_course, par_course = make_class(tmp / "plain", n), make_class(tmp / "parallel", n)
    open_course = make_class(tmp / "unsandboxed", n)
    sample = 6
    floor_wall, floor_cpu = measure(lambda: floor(sample))
    floor_wall, floor_cpu = floor_wall / sample * len(NOTEBOOKS), floor_cpu / sample * len(NOTEBOOKS)
    plain_wall, plain_cpu = measure(lambda: pipeline.nbgrader(plain_course, "autograde", ASSIGNMENT, "--force"))
    par_wall, par_cpu = measure(lambda: grade.run_workers(par_course, grade.students(par_course), 2,
                                                          grade.default_db_url(par_course), echo=False))
    open_wall, open_cpu = measure(lambda: unsandboxed(lambda: grade.run_workers(
        open_course, grade.students(open_course), 2, grade.default_db_url(open_course), echo=False)))
    same = pipeline.scores(plain_course) == pipeline.scores(par_course) == pipeline.scores(open_course)
    print(f"{n} submissions x {len(NOTEBOOKS)} notebooks, 2 workers")
    print(f"{'':36}{'s/submission':>14}{'CPU-s/submission':>18}")
    for name, wall, cpu in (("floor (kernel + import torch)", floor_wall, floor_cpu),
                            ("plain nbgrader autograde, sandboxed", plain_wall / n, plain_cpu / n),
                            ("parallel, sandboxed", par_wall / n, par_cpu / n),
                            ("parallel, --unsafe-no-sandbox", open_wall / n, open_cpu / n)):
        print(f"{name:36}{wall:>14.2f}{cpu:>18.2f}")
    print(f"CPU per submission / floor:  plain {plain_cpu / n / floor_cpu:.2f}x   parallel {par_cpu / n / floor_cpu:.2f}x")
    print(f"wall time plain / parallel:  {plain_wall / par_wall:.2f}x   (same gradebook in all three: {same})")
    print(f"sandbox cost: {100 * (par_cpu / open_cpu - 1):+.1f}% CPU, {100 * (par_wall / open_wall - 1):+.1f}% wall "
          "(parallel sandboxed vs unsandboxed; goal: at most +10% CPU)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
