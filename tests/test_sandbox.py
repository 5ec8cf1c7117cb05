"""The grading sandbox holds: each defence of grading/sandbox.py proven by a real attempt.

Every attempt runs twice: in a real bubblewrap sandbox, built by the same function that
starts cold grading kernels, and in a child forked by the fork server, which builds the
same sandbox itself (grading/forkserver.py, the default kernels). Each checks what the code could do. The network tests connect only to
a listener this test starts on 127.0.0.1, or ask the routing table (a UDP connect() sends
nothing).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from conftest import processes_of
from grading import sandbox


MODE = ["bubblewrap"]


def run_in_sandbox(code, tmp_path, files=(), timeout=60, env=None):
    """Run ``code`` in a fresh sandbox of the current MODE; return what it printed as JSON (its last line)."""
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    try:
        if MODE[0] == "forked":
            _, stdout = sandbox.run_forked(textwrap.dedent(code), private, uid, files=files, env=env, timeout=timeout)
            stderr = stdout
        else:
            cmd = sandbox.bwrap_command([sys.executable, "-c", textwrap.dedent(code)], private_dir=private,
                                        files=files, uid=uid, env=env)
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            stdout, stderr = proc.stdout, proc.stderr
    finally:
        sandbox.remove_private_dir(private)
    assert stdout.strip(), f"the sandbox printed nothing: {stderr[-2000:]}"
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module", autouse=True, params=["bubblewrap", "forked"])
def mode(request):
    """Each test module pass uses one way of starting the sandbox."""
    MODE[0] = request.param
    if request.param == "forked":
        os.environ.pop(sandbox.COLD_ENV, None)
    problem = sandbox.check()
    assert problem is None, problem
    yield request.param
    MODE[0] = "bubblewrap"


def test_runs_as_an_unprivileged_user_with_no_capabilities(tmp_path):
    seen = run_in_sandbox("""
        import json, os
        caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')]
        print(json.dumps({"uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "caps": caps[0]}))
    """, tmp_path)
    assert seen["uid"] != 0 and seen["euid"] != 0 and seen["gid"] != 0
    assert int(seen["caps"], 16) == 0


def test_sees_no_course_files_and_cannot_write_the_system(tmp_path):
    course = tmp_path / "course"
    (course / "source").mkdir(parents=True)
    (course / "gradebook.db").write_text("grades")
    (course / "source" / "secret.ipynb").write_text("hidden tests")
    seen = run_in_sandbox(f"""
        import json, os
        out = {{}}
        for path in [{str(course / 'gradebook.db')!r}, {str(course / 'source' / 'secret.ipynb')!r},
                     {str(sandbox.HARNESS.parent / 'grade.py')!r}, '/etc/passwd', '/root/.bashrc']:
            try:
                open(path).read(); out[path] = 'read'
            except OSError as exc:
                out[path] = type(exc).__name__
        for path in ['/usr/evil', {sys.prefix + '/evil'!r}, '/grader/evil']:
            try:
                open(path, 'w').write('x'); out[path] = 'written'
            except OSError as exc:
                out[path] = type(exc).__name__
        out['cwd'] = os.getcwd(); out['listing'] = sorted(os.listdir('.'))
        print(json.dumps(out))
    """, tmp_path, files=[(str(course / "gradebook.db"), "copy_of_a_file.txt")])
    cwd, listing = seen.pop("cwd"), seen.pop("listing")
    assert not [p for p, what in seen.items() if what in ("read", "written")], seen
    assert cwd == sandbox.WORKDIR and listing == ["copy_of_a_file.txt"]


def test_the_working_folder_copy_is_read_only_and_scratch_is_capped(tmp_path):
    helper = tmp_path / "spec_checks.py"
    helper.write_text("X = 1\n")
    seen = run_in_sandbox("""
        import json
        out = {}
        try:
            open('spec_checks.py', 'a').write('X = 2'); out['append'] = 'ok'
        except OSError as exc:
            out['append'] = type(exc).__name__
        written = 0
        try:
            for k in range(40):
                with open(f'/tmp/chunk{k}', 'wb') as f:
                    f.write(b'x' * (8 * 2**20))
                written += 8
        except OSError as exc:
            out['scratch_error'] = exc.errno
        out['scratch_mib'] = written
        print(json.dumps(out))
    """, tmp_path, files=[(str(helper), "spec_checks.py")])
    assert seen["append"] != "ok"
    assert seen["scratch_mib"] <= sandbox.TMPFS_BYTES // 2**20 and seen.get("scratch_error") == 28  # ENOSPC
    assert helper.read_text() == "X = 1\n"


def test_a_big_file_is_cut_at_the_file_size_limit(tmp_path):
    seen = run_in_sandbox("""
        import json, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        try:
            open('/home/student/big.bin', 'wb').write(b'x' * (200 * 2**20)); out = 'written'
        except OSError as exc:
            out = exc.errno
        print(json.dumps({"result": out}))
    """, tmp_path)
    assert seen["result"] in (27, 28)  # EFBIG (rlimit) or ENOSPC (tmpfs cap)


def test_has_no_network_not_even_the_hosts_loopback(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    received = []

    def accept():
        end = time.time() + 20
        while time.time() < end:
            try:
                conn, _ = listener.accept()
                received.append(conn.recv(100))
            except OSError:
                pass
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    seen = run_in_sandbox(f"""
        import json, socket
        out = {{}}
        try:
            socket.create_connection(('127.0.0.1', {port}), timeout=3).sendall(b'escaped'); out['tcp'] = 'connected'
        except OSError as exc:
            out['tcp'] = exc.errno
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            u.connect(('192.0.2.1', 9)); out['route'] = 'has a route'   # asks the routing table, sends nothing
        except OSError as exc:
            out['route'] = exc.errno
        out['interfaces'] = sorted(name for _, name in socket.if_nameindex())
        print(json.dumps(out))
    """, tmp_path)
    listener.close()
    assert seen["tcp"] != "connected" and not received
    assert seen["route"] == 101  # ENETUNREACH
    assert seen["interfaces"] == ["lo"]


def test_has_its_own_pid_namespace_and_cannot_signal_the_grader(tmp_path):
    seen = run_in_sandbox(f"""
        import json, os
        out = {{'pids': sorted(int(p) for p in os.listdir('/proc') if p.isdigit())}}
        try:
            os.kill({os.getpid()}, 0); out['grader'] = 'reachable'
        except OSError as exc:
            out['grader'] = exc.errno
        print(json.dumps(out))
    """, tmp_path)
    assert max(seen["pids"]) < 10 and seen["grader"] == 3  # ESRCH: no such process in its namespace


def test_process_count_is_limited(tmp_path):
    seen = run_in_sandbox("""
        import json, os, time
        children, error = [], None
        for _ in range(1000):
            try:
                pid = os.fork()
            except OSError as exc:
                error = exc.errno
                break
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            children.append(pid)
        print(json.dumps({"forked": len(children), "error": error}))
    """, tmp_path)
    assert seen["forked"] < sandbox.LIMITS["--nproc"] and seen["error"] == 11  # EAGAIN


def test_the_environment_is_not_the_graders(tmp_path):
    os.environ["GRADER_SECRET_FOR_TEST"] = "db-password"
    try:
        seen = run_in_sandbox("import json, os; print(json.dumps(dict(os.environ)))", tmp_path)
    finally:
        del os.environ["GRADER_SECRET_FOR_TEST"]
    assert "GRADER_SECRET_FOR_TEST" not in seen and "db-password" not in json.dumps(seen)


def test_nothing_outlives_the_sandbox_when_its_parent_dies(tmp_path):
    """A detached, daemonised child in the sandbox dies when the process that started the sandbox dies."""
    marker = f"sandbox-orphan-{os.getpid()}"
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    inner = [sys.executable, "-c", f"import os, time\nif os.fork() == 0:\n    os.setsid()\n"
             f"    if os.fork() == 0:\n        time.sleep(120)  # {marker}\n        os._exit(0)\n    os._exit(0)\n"
             "time.sleep(120)"]
    starter = subprocess.Popen([sys.executable, "-c", "import subprocess, sys; subprocess.run(sys.argv[1:])",
                                *sandbox.bwrap_command(inner, private_dir=private, uid=uid)])
    try:
        time.sleep(3)
        assert processes_of(uid), "the sandbox did not start"
        starter.send_signal(signal.SIGKILL)
        starter.wait()
        deadline = time.time() + 10
        while processes_of(uid) and time.time() < deadline:
            time.sleep(0.2)
        assert not processes_of(uid)
    finally:
        sandbox.remove_private_dir(private)


def test_check_names_the_fix_when_bubblewrap_is_missing(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    message = sandbox.check()
    assert message and "apt-get install bubblewrap" in message and "--unsafe-no-sandbox" in message


def test_a_python_environment_under_tmp_is_still_mounted(tmp_path, monkeypatch):
    """A clone under /tmp (as on CI) keeps its venv visible: /tmp's scratch tmpfs is mounted first."""
    env_dir = tmp_path / "clone" / ".venv"
    env_dir.mkdir(parents=True)
    (env_dir / "marker.txt").write_text("visible")
    env_dir.chmod(0o755)
    for parent in env_dir.parents:
        if str(parent).startswith("/tmp/"):
            parent.chmod(0o755)
    roots = sandbox._python_roots()
    monkeypatch.setattr(sandbox, "_python_roots", lambda: roots + [str(env_dir)])
    seen = run_in_sandbox(f"import json; print(json.dumps(open({str(env_dir / 'marker.txt')!r}).read()))", tmp_path)
    assert seen == "visible"


def test_an_environment_reached_through_a_symlink_is_mounted_there_too(tmp_path, monkeypatch):
    """A `.venv` that is a symlink: kernels start as <symlink>/bin/python, so that path must exist inside."""
    link = tmp_path / "linked" / ".venv"
    link.parent.mkdir()
    link.symlink_to(Path(sys.prefix).resolve())
    monkeypatch.setattr(sys, "prefix", str(link))
    seen = run_in_sandbox(f"import json, os; print(json.dumps(os.path.exists({str(link / 'bin' / 'python')!r})))",
                          tmp_path)
    assert seen is True
