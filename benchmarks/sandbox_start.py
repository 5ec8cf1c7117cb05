"""How long one sandbox takes to start and run an empty Python program, on each path.

    python benchmarks/sandbox_start.py [N]          # as root: the cold (bubblewrap) and the forked path
    runuser -u <user> -- python benchmarks/sandbox_start.py [N]   # as an ordinary user: the cold path

Prints one line per path, with and without a cgroup per sandbox (grading/sandbox/cgroups.py, where one can be made):
the median and the fastest of N starts, in milliseconds (a cgroup's making and removal included).
"""

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from grading.sandbox import cgroups, kernels as sandbox  # noqa: E402


def timed(start, n, cgroup=False):
    times = []
    for _ in range(n):
        uid = sandbox.sandbox_uid()
        private = sandbox.make_private_dir(uid)
        try:
            t = time.perf_counter()
            group = cgroups.make() if cgroup else None
            start(private, uid, group)
            if group:
                group.remove()
            times.append((time.perf_counter() - t) * 1000)
        finally:
            sandbox.remove_private_dir(private) if hasattr(sandbox, "remove_private_dir") else \
                subprocess.run(["rm", "-rf", private])
    return f"median {statistics.median(times):6.1f} ms, fastest {min(times):6.1f} ms (n={n})"


def cold(private, uid, group):
    subprocess.run(sandbox.bwrap_command([sys.executable, "-c", "pass"], private_dir=private, uid=uid, cgroup=group),
                   check=True)


def main(n=20):
    import os

    who = "root" if os.geteuid() == 0 else "ordinary user"
    ways = [False] + ([True] if cgroups.setup() else [])
    print(sandbox.limits_note())
    for cgroup in ways:
        print(f"cold (bubblewrap), {who}, {'a cgroup' if cgroup else 'no cgroup'}: {timed(cold, n, cgroup)}")
    if os.geteuid() == 0:
        server = sandbox.fork_server(warm=False)
        try:
            for cgroup in ways:
                forked = lambda p, u, g: sandbox.run_forked("pass", p, u, server=server, cgroup=g)  # noqa: E731
                print(f"forked, {who}, {'a cgroup' if cgroup else 'no cgroup'}: {timed(forked, n, cgroup)}")
        finally:
            server.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
