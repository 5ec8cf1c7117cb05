"""How long one sandbox takes to start and run an empty Python program, on each path.

    python benchmarks/sandbox_start.py [N]          # as root: the cold (bubblewrap) and the forked path
    runuser -u <user> -- python benchmarks/sandbox_start.py [N]   # as an ordinary user: the cold path

Prints one line per path: the median and the fastest of N starts, in milliseconds.
"""

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from grading import sandbox  # noqa: E402


def timed(start, n):
    times = []
    for _ in range(n):
        uid = sandbox.sandbox_uid()
        private = sandbox.make_private_dir(uid)
        try:
            t = time.perf_counter()
            start(private, uid)
            times.append((time.perf_counter() - t) * 1000)
        finally:
            sandbox.remove_private_dir(private) if hasattr(sandbox, "remove_private_dir") else \
                subprocess.run(["rm", "-rf", private])
    return f"median {statistics.median(times):6.1f} ms, fastest {min(times):6.1f} ms (n={n})"


def cold(private, uid):
    subprocess.run(sandbox.bwrap_command([sys.executable, "-c", "pass"], private_dir=private, uid=uid), check=True)


def main(n=20):
    import os

    who = "root" if os.geteuid() == 0 else "ordinary user"
    print(f"cold (bubblewrap), {who}: {timed(cold, n)}")
    if os.geteuid() == 0:
        server = sandbox.fork_server(warm=False)
        try:
            print(f"forked, {who}: {timed(lambda p, u: sandbox.run_forked('pass', p, u, server=server), n)}")
        finally:
            server.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
