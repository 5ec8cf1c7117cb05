"""Benchmark: plain `nbgrader autograde`, the parallel grader on cold and on forked kernels, against the floor.

    .venv/bin/python benchmarks/grading_speed.py [N] [--scale=M]     (default N=40; M: also grade M forked)

Every run grades the same N submissions (a mix of right and wrong answers from answers/,
both notebooks each) in fresh temporary courses, in this one run: plain `nbgrader autograde`
on cold kernels, the parallel grader on cold kernels, the parallel grader on forked kernels
(grading/forkserver.py), all sandboxed, and the forked grader with --unsafe-no-sandbox. The
floor is a cold kernel that only imports torch, once per notebook. Prints seconds and
CPU-seconds per submission and the ratios; --scale=400 also grades 400 on forked kernels.
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


def with_env(fn, **values):
    """Run ``fn`` with these environment variables set (the workers inherit them)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        return fn()
    finally:
        for key, value in saved.items():
            os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)


def parallel(course):
    return lambda: grade.run_workers(course, grade.students(course), 2, grade.default_db_url(course), echo=False)


def main(n=40, scale=0):
    tmp = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    courses = {name: make_class(tmp / name, n) for name in ("plain", "cold", "forked", "forked_open")}
    sample = 6
    floor_wall, floor_cpu = measure(lambda: floor(sample))
    floor_wall, floor_cpu = floor_wall / sample * len(NOTEBOOKS), floor_cpu / sample * len(NOTEBOOKS)
    cold = {sandbox.COLD_ENV: "1"}
    runs = {  # name: (wall, CPU) for the whole class
        "plain nbgrader autograde, cold": measure(lambda: with_env(
            lambda: pipeline.nbgrader(courses["plain"], "autograde", ASSIGNMENT, "--force"), **cold)),
        "parallel, cold kernels": measure(lambda: with_env(parallel(courses["cold"]), **cold)),
        "parallel, forked kernels": measure(parallel(courses["forked"])),
        "parallel, forked, no sandbox": measure(lambda: with_env(parallel(courses["forked_open"]),
                                                                 **{sandbox.UNSAFE_ENV: "1"})),
    }
    tables = [pipeline.scores(course) for course in courses.values()]
    same = all(table == tables[0] for table in tables)
    print(f"{n} submissions x {len(NOTEBOOKS)} notebooks, 2 workers, sandboxed unless said; "
          "CPU of every process (fork servers included)")
    print(f"{'':36}{'s/submission':>14}{'CPU-s/submission':>18}{'CPU / floor':>13}")
    print(f"{'floor (cold kernel + import torch)':36}{floor_wall:>14.2f}{floor_cpu:>18.2f}{1:>13.2f}")
    for name, (wall, cpu) in runs.items():
        print(f"{name:36}{wall / n:>14.2f}{cpu / n:>18.2f}{cpu / n / floor_cpu:>13.2f}")
    forked_wall, forked_cpu = runs["parallel, forked kernels"]
    cold_wall, cold_cpu = runs["parallel, cold kernels"]
    print(f"forked vs cold (parallel): {cold_cpu / forked_cpu:.1f}x less CPU, {cold_wall / forked_wall:.1f}x less wall")
    print(f"goal CPU/submission <= 0.5x floor (moonshot 0.2x): {forked_cpu / n / floor_cpu:.2f}x")
    print(f"goal {n} submissions in under 30 s wall: {forked_wall:.1f} s   (same gradebook in all four: {same})")
    print(f"sandbox cost on forked kernels: {100 * (forked_cpu / runs['parallel, forked, no sandbox'][1] - 1):+.1f}% CPU")
    if scale:
        big = make_class(tmp / "scale", scale)
        wall, cpu = measure(parallel(big))
        print(f"{scale} submissions, forked: {wall:.1f} s wall, {cpu:.1f} CPU-s = {cpu / forked_cpu:.1f}x the CPU "
              f"and {wall / forked_wall:.1f}x the wall of {n} (goal: at most 10x for {scale // n}x the class)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--scale")]
    scale = next((int(a.split("=")[1]) for a in sys.argv[1:] if a.startswith("--scale=")), 0)
    main(int(args[0]) if args else 40, scale)
