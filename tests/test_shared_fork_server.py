"""make grade's one fork server for all its workers (grading/sandbox/forkserver.py, serve_shared; grading/grade.py).

It forks the workers as well as their kernels; a worker's kernels must die with the worker, whose
connection the server watches. Real processes, real sandboxes, real Unix users.
"""

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from grading import ROOT, grade
from grading.sandbox import forkserver, kernels as sandbox
from conftest import processes_of

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="forked sandboxes need root")


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shared-fork-server")
    os.chmod(folder, 0o700)
    server = forkserver.ForkServer(sandbox.fork_server_env(), listen=folder / "socket")
    yield server, folder / "socket"
    server.close()


def sleeper_request(private, uid):
    """A sandboxed program that leaves a second process of its own (its own session) and sleeps."""
    code = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(300)\ntime.sleep(300)"
    return {"python": code, "log": f"{private}/log", "env": {}, "sandbox": sandbox.sandbox_spec(private, uid)}


def gone_within(uid, seconds=10):
    end = time.time() + seconds
    while processes_of(uid) and time.time() < end:
        time.sleep(0.1)
    return not processes_of(uid)


def test_a_workers_kernels_die_with_the_worker(shared, tmp_path, request):
    """A worker stopped at its deadline (SIGKILL) closes its connection: the server kills its kernel's sandbox."""
    _, path = shared
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    request.addfinalizer(lambda: sandbox.remove_private_dir(private))
    worker = tmp_path / "worker.py"
    worker.write_text(
        f"import json, sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
        "from grading.sandbox import forkserver\n"
        f"c = forkserver.SharedForkServer({str(path)!r})\n"
        f"print(json.dumps(c.request(json.loads({json.dumps(json.dumps(sleeper_request(private, uid)))}))), flush=True)\n"
        "time.sleep(300)\n")
    proc = subprocess.Popen([sys.executable, str(worker)], stdout=subprocess.PIPE, text=True)
    reply = json.loads(proc.stdout.readline())
    assert "pid" in reply, reply
    time.sleep(0.5)
    assert len(processes_of(uid)) == 2, "the sandboxed program and its own child are running"
    proc.kill()
    proc.wait()
    assert gone_within(uid)


def test_a_kernel_outlives_nothing_but_a_live_worker_keeps_it(shared, request):
    """The other way round: while the worker's connection is open, its kernel runs; closing it ends the kernel."""
    _, path = shared
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    request.addfinalizer(lambda: sandbox.remove_private_dir(private))
    client = forkserver.SharedForkServer(path)
    assert "pid" in client.request(sleeper_request(private, uid))
    time.sleep(1)
    assert processes_of(uid)
    client.close()
    assert gone_within(uid)


def _ns(pid, kind="pid"):
    return os.readlink(f"/proc/{pid}/ns/{kind}")


def test_a_kernel_is_pid_1_of_its_own_namespace_and_the_servers_next_child_is_not_in_it(shared, tmp_path, request):
    """The server forks each kernel straight into a new PID namespace (no waiter between them) and sets its
    children's namespace back at once: after a kernel that started, and one that could not, the server's next
    children are in its own namespace (a worker forked then, and the next kernel, PID 1 of a namespace of its own),
    and a kernel's children are in the kernel's."""
    server, path = shared
    spid = server.proc.pid
    client = forkserver.SharedForkServer(path)
    request.addfinalizer(client.close)
    kernels = []
    for bad in (False, True, False):
        private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
        request.addfinalizer(lambda private=private: sandbox.remove_private_dir(private))
        job = sleeper_request(private, uid)
        if bad:
            job["sandbox"]["files"] = [("/nonexistent/file", "x.py")]
        reply = client.request(job)
        assert ("error" in reply) == bad, reply
        assert _ns(spid, "pid_for_children") == _ns(spid)
        if not bad:
            kernels.append((reply["pid"], uid))
    time.sleep(0.5)
    namespaces = set()
    for pid, uid in kernels:
        status = open(f"/proc/{pid}/status").read()
        assert status.split("NSpid:")[1].split("\n")[0].split()[-1] == "1"  # PID 1 of its namespace
        assert _ns(pid) != _ns(spid) and _ns(pid, "pid_for_children") == _ns(pid)
        child = [p for p in processes_of(uid) if p != pid]
        assert child and _ns(child[0]) == _ns(pid)  # the program's own child: in the kernel's namespace
        namespaces.add(_ns(pid))
    assert len(namespaces) == 2
    (tmp_path / "ns_worker.py").write_text("import os, sys\nprint(os.readlink('/proc/self/ns/pid'), flush=True)\n")
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    try:
        reply = client.request({"worker": {"cwd": str(tmp_path), "env": {}, "module": "ns_worker", "args": []}},
                               fds=[in_r, out_w, out_w])
    finally:
        for fd in (in_r, out_w):
            os.close(fd)
    worker = grade.ForkedWorker(reply["pid"], in_w, out_r)
    assert worker.stdout.readline().strip() == _ns(spid)
    worker.wait(timeout=30)


def test_the_shared_server_forks_a_worker_as_a_new_process_would_start(shared, tmp_path):
    """A forked worker: its own session, stdin/stdout/stderr, folder, environment and sys.path; children it
    waits for (SIGCHLD is not the server's SIG_IGN)."""
    _, path = shared
    (tmp_path / "probe_worker.py").write_text(
        "import json, os, signal, subprocess, sys\n"
        "line = sys.stdin.readline()\n"
        "print(json.dumps({'got': line.strip(), 'sid': os.getsid(0) == os.getpid(), 'cwd': os.getcwd(),\n"
        "                  'env': dict(os.environ), 'path0': sys.path[0], 'argv': sys.argv,\n"
        "                  'child': subprocess.run(['true']).returncode,\n"
        "                  'sigchld': signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL}), flush=True)\n"
        "sys.stderr.write('to the log\\n')\n"
        "sys.exit(3)\n")
    client = forkserver.SharedForkServer(path)
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err = os.open(tmp_path / "err.log", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        reply = client.request({"worker": {"cwd": str(tmp_path), "env": {"ONLY": "this"}, "module": "probe_worker",
                                           "args": ["--flag"]}}, fds=[in_r, out_w, err])
    finally:
        for fd in (in_r, out_w, err):
            os.close(fd)
    assert "pid" in reply, reply
    worker = grade.ForkedWorker(reply["pid"], in_w, out_r)
    worker.stdin.write("hello\n")
    worker.stdin.flush()
    seen = json.loads(worker.stdout.readline())
    worker.wait(timeout=30)
    client.close()
    assert seen["got"] == "hello" and seen["sid"] and seen["child"] == 0 and seen["sigchld"]
    assert seen["cwd"] == str(tmp_path) and seen["path0"] == str(tmp_path)
    assert seen["env"] == {"ONLY": "this"} and seen["argv"][1:] == ["--flag"]
    assert (tmp_path / "err.log").read_text() == "to the log\n"


def test_bad_requests_get_an_answer_and_the_server_stays_single_threaded(shared):
    _, path = shared
    client = forkserver.SharedForkServer(path)
    assert "error" in client.request({"worker": {"cwd": "/", "env": {}, "module": "x", "args": []}})  # no fds
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    raw.connect(str(path))
    raw.send(b"not json")
    assert "error" in json.loads(raw.recv(65536))
    raw.send(b"x" * (forkserver.MAX_MESSAGE + 20_000))
    assert "too long" in json.loads(raw.recv(65536))["error"]
    raw.close()
    assert client.request({"ping": 1}) == {"threads": 1}
    client.close()


def parent_of(pid):
    with open(f"/proc/{pid}/status") as fh:
        return int(next(line for line in fh if line.startswith("PPid:")).split()[1])


def test_make_grade_forks_its_workers_from_one_server(tmp_path, monkeypatch):
    """run_workers starts one server; both workers are forked (not new Python processes) from one worker
    template, the server's child, which has imported what a worker needs (grade.preload)."""
    started, servers = [], []
    real = forkserver.ForkServer.__init__

    def spy(self, env, log=None, warm=True, listen=None):
        started.append(listen)
        real(self, env, log=log, warm=warm, listen=listen)
        servers.append(self.proc.pid)

    seen, parents = [], []
    real_start = grade._start_worker

    def start(course, db_url, log, shared=None, made_once=None):
        proc = real_start(course, db_url, log, shared, made_once)
        seen.append(type(proc).__name__)
        parents.append((parent_of(proc.pid), parent_of(parent_of(proc.pid))))
        return proc

    monkeypatch.setattr(forkserver.ForkServer, "__init__", spy)
    monkeypatch.setattr(grade, "_start_worker", start)
    from grading import pipeline

    course = pipeline.make_course(tmp_path / "course")
    results = grade.run_workers(course, ["nobody-1", "nobody-2"], 2, grade.default_db_url(course), echo=False)
    assert [bool(listen) for listen in started] == [True]
    assert seen == ["ForkedWorker", "ForkedWorker"], results  # a third: a worker was replaced, and why
    assert len(set(parents)) == 1 and parents[0][0] not in servers and parents[0][1] in servers, (parents, servers)
    assert set(results) == {"nobody-1", "nobody-2"}  # not submitted: nbgrader's error, but an answer for each


def request_worker(client, cwd, module, preload):
    """Ask the shared server for a worker running ``module`` in ``cwd`` with ``preload``, its stdin and stdout pipes
    and stderr to /dev/null, as make grade's coordinator does: (its pid, our end of its stdin, our end of its stdout)."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err = os.open(os.devnull, os.O_WRONLY)
    try:
        reply = client.request({"worker": {"cwd": str(cwd), "env": {}, "module": module, "args": [],
                                           "preload": preload}}, fds=[in_r, out_w, err])
    finally:
        for fd in (in_r, out_w, err):
            os.close(fd)
    return reply["pid"], in_w, out_r

def test_a_worker_template_runs_its_preload_once_and_a_failing_one_leaves_the_server_forking(shared, tmp_path):
    """Workers asking for the same preload are forked from one template that ran it once; a preload that fails
    costs nothing but the template: the server forks those workers itself, and they run."""
    server, path = shared
    server = server.proc.pid
    (tmp_path / "probe_preload.py").write_text("import os\ndef warm():\n    open('preloaded', 'a').write('x')\n")
    (tmp_path / "probe_quiet.py").write_text("import sys\nprint(sys.stdin.readline().strip(), flush=True)\n")
    client = forkserver.SharedForkServer(path)

    def start(preload):
        worker = grade.ForkedWorker(*request_worker(client, tmp_path, "probe_quiet", preload))
        parent = parent_of(worker.pid)
        worker.stdin.write("echo\n")
        worker.stdin.flush()
        assert worker.stdout.readline().strip() == "echo"
        worker.wait(timeout=30)
        return parent

    try:
        templated = [start("probe_preload:warm") for _ in range(2)]
        failed = [start("probe_preload:missing") for _ in range(2)]
    finally:
        client.close()
    assert (tmp_path / "preloaded").read_text() == "x"
    assert templated[0] == templated[1] != server
    assert failed == [server, server]



def test_a_worker_that_dies_at_start_is_seen_at_once(shared, tmp_path):
    """A worker's stdout is held by the worker alone: when it exits, its coordinator reads the end at once. The
    worker template kept the stdout of the worker whose request started it (and every worker it forked, a
    copy), so a first worker that died at start was seen only at make grade's start deadline, 300 s later."""
    import select

    _, path = shared
    (tmp_path / "probe_dies_preload.py").write_text("def warm():\n    pass\n")
    (tmp_path / "probe_dies.py").write_text("raise SystemExit(3)\n")
    client = forkserver.SharedForkServer(path)

    try:
        # the first starts the template; the others are forked from it
        workers = [request_worker(client, tmp_path, "probe_dies", "probe_dies_preload:warm") for _ in range(3)]
        for pid, in_w, out_r in workers:
            readable, _, _ = select.select([out_r], [], [], 30)
            assert readable and os.read(out_r, 1) == b"", f"worker {pid}: its stdout is still open elsewhere"
            os.close(in_w)
            os.close(out_r)
    finally:
        client.close()
