"""A throwaway PostgreSQL server from Debian's packages, on 127.0.0.1, for the gradebook tests."""

import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import lab


def bindir():
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


def _as_postgres(cmd):
    if os.geteuid() == 0:  # initdb refuses to run as root
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@contextmanager
def server():
    """Start PostgreSQL; yield a db_url for an empty database; stop and delete it afterwards."""
    bins = bindir()
    base = Path(tempfile.mkdtemp(prefix="pg-", dir="/tmp"))
    data, port = base / "data", lab.free_port()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    run = lambda *cmd: subprocess.run(_as_postgres([str(c) for c in cmd]), check=True,  # noqa: E731
                                      capture_output=True, text=True, timeout=120)
    try:
        run(bins / "initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
        run(bins / "pg_ctl", "-D", data, "-l", base / "server.log", "-w", "-t", "60", "-o",
            f"-p {port} -h 127.0.0.1 -k {base} -c fsync=off", "start")
        run(bins / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "gradebook")
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}/gradebook"
    finally:
        subprocess.run(_as_postgres([str(bins / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                       capture_output=True, timeout=60)
        time.sleep(0.2)
        shutil.rmtree(base, ignore_errors=True)
