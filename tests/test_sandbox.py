"""The grading sandbox holds: each defence of grading/sandbox/kernels.py proven by a real attempt.

Every attempt runs twice: in a real bubblewrap sandbox, built by the same function that
starts cold grading kernels, and in a child forked by the fork server, which builds the
same sandbox itself (grading/sandbox/forkserver.py, the default kernels). Each checks what the code could do. The network tests connect only to
a listener this test starts on 127.0.0.1, or ask the routing table (a UDP connect() sends
nothing).
"""

import errno
import json
import os
import signal
import socket
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from conftest import processes_of
from grading import ROOT
from grading.sandbox import cgroups, kernels as sandbox


MODE = ["bubblewrap"]


def run_in_sandbox(code, tmp_path, files=(), timeout=60, env=None, cgroup=None):
    """Run ``code`` in a fresh sandbox of the current MODE (in ``cgroup`` if given); return what it printed as JSON
    (its last line)."""
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    try:
        if MODE[0] == "forked":
            _, stdout = sandbox.run_forked(textwrap.dedent(code), private, uid, files=files, env=env, timeout=timeout,
                                           cgroup=cgroup)
            stderr = stdout
        else:
            cmd = sandbox.bwrap_command([sys.executable, "-c", textwrap.dedent(code)], private_dir=private,
                                        files=files, uid=uid, env=env, cgroup=cgroup)
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
                     {str(ROOT / "grading" / "grade.py")!r}, '/etc/passwd', '/root/.bashrc']:
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
    seen = run_in_sandbox(FORK.format(n=1000), tmp_path)
    assert seen["forked"] < sandbox.LIMITS["--nproc"] and seen["error"] == 11  # EAGAIN


def test_open_files_are_limited(tmp_path):
    """Each Unix socket pair's buffers hold kernel memory that only a cgroup counts (red team: 1,500 pairs held
    427 MiB in one process): a process of the sandbox opens at most LIMITS['--nofile'] files."""
    seen = run_in_sandbox("""
        import json, socket
        held, error = [], None
        try:
            for _ in range(5000):
                held.append(socket.socketpair())
        except OSError as exc:
            error = exc.errno
        print(json.dumps({"pairs": len(held), "error": error}))
    """, tmp_path)
    assert seen["pairs"] < sandbox.LIMITS["--nofile"] // 2 and seen["error"] == 24, seen  # EMFILE


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


# --- every place a kernel can write is capped (issue 19, items 6 and 9) ---------------------------------------

FILL = """
import errno, glob, json, os, time
def fill(folder, chunk_mib=8, total_mib=240):
    written = 0
    try:
        for k in range(total_mib // chunk_mib):
            with open(os.path.join(folder, f'chunk{k}'), 'wb') as f:
                f.write(b'x' * (chunk_mib * 2**20))
            written += chunk_mib
    except OSError as exc:
        return written, exc.errno
    return written, None
def files(folder, n=300_000):
    t = time.time()
    try:
        for k in range(n):
            open(os.path.join(folder, f'f{k}'), 'w').close()
    except OSError as exc:
        return k, exc.errno, time.time() - t
    return n, None, time.time() - t
"""


def test_the_private_folder_is_capped(tmp_path):
    """240 MiB into the folder of the kernel's connection file, sockets and log: it stops at the folder's cap."""
    seen = run_in_sandbox(FILL + """
private = [p for p in glob.glob('/tmp/nbg-*') if os.access(p, os.W_OK)][0]
seen = fill(private)
for chunk in glob.glob(private + '/chunk*'):  # room again for what it prints (the forked path's log is there)
    os.remove(chunk)
print(json.dumps(seen))
""", tmp_path)
    written, error = seen
    assert written <= sandbox.PRIVATE_BYTES // 2**20 and error == errno.ENOSPC, seen


def test_scratch_folders_are_capped_in_inodes(tmp_path):
    """300,000 empty files in each scratch folder: each stops at its inode cap, at once."""
    seen = run_in_sandbox(FILL + """
print(json.dumps({folder: files(folder) for folder in ('/tmp', '/home/student', '/dev/shm')}))
""", tmp_path)
    for path, _, inodes, _ in sandbox.SCRATCH:
        made, error, seconds = seen[path]
        assert made <= inodes and error == errno.ENOSPC and seconds < 10, (path, seen[path])


def test_dev_is_read_only_and_dev_shm_is_small(tmp_path):
    seen = run_in_sandbox(FILL + """
out = {}
for path in ('/dev/evil', '/dev/shm/../evil'):
    try:
        open(path, 'w').write('x'); out[path] = 'written'
    except OSError as exc:
        out[path] = exc.errno
open('/dev/null', 'w').write('the devices still work')
out['zero'] = len(open('/dev/zero', 'rb').read(10))
out['shm'] = fill('/dev/shm')
print(json.dumps(out))
""", tmp_path)
    assert seen["/dev/evil"] == seen["/dev/shm/../evil"] == errno.EROFS and seen["zero"] == 10
    written, error = seen["shm"]
    assert written <= 16 and error == errno.ENOSPC, seen


def test_an_honest_notebook_writes_a_file_into_its_working_folder(tmp_path):
    helper = tmp_path / "spec_checks.py"
    helper.write_text("X = 1\n")
    seen = run_in_sandbox("""
import json, os
open('results.csv', 'w').write('step,accepted\\n1,3\\n')
out = {'read_back': open('results.csv').read(), 'cwd': os.getcwd()}
try:
    open('spec_checks.py', 'a').write('X = 2'); out['copy'] = 'changed'
except OSError as exc:
    out['copy'] = type(exc).__name__
print(json.dumps(out))
""", tmp_path, files=[(str(helper), "spec_checks.py")])
    assert seen["read_back"] == "step,accepted\n1,3\n" and seen["cwd"] == sandbox.WORKDIR
    assert seen["copy"] != "changed" and helper.read_text() == "X = 1\n"


HOLD = """
import os, time
for _ in range({n}):
    if os.fork() == 0:
        time.sleep(120)
        os._exit(0)
print('holding', flush=True)
time.sleep(120)
"""

FORK = """
import json, os, time
children, error = [], None
for _ in range({n}):
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc.errno
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    children.append(pid)
print(json.dumps({{"forked": len(children), "error": error}}))
"""
FORK_50 = FORK.format(n=50)


def test_one_sandbox_holding_240_processes_does_not_stop_another(tmp_path):
    """A classmate's sandbox holds 240 sleeping processes; this one still starts 50 (per-sandbox limit)."""
    private = sandbox.make_private_dir(uid := sandbox.sandbox_uid())
    log = os.path.join(private, "program.log")
    hold = HOLD.format(n=240)
    if MODE[0] == "forked":
        reply = sandbox.fork_server().request({"python": hold, "log": log, "env": sandbox.sandbox_env(),
                                               "sandbox": sandbox.sandbox_spec(private, uid)})
        holder = __import__("grading.sandbox.forkserver").sandbox.forkserver.ForkedProcess(reply["pid"])
    else:
        holder = subprocess.Popen(sandbox.bwrap_command([sys.executable, "-c", hold], private_dir=private, uid=uid),
                                  stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while "holding" not in open(log).read() and time.time() < deadline:
            time.sleep(0.2)
        assert "holding" in open(log).read(), open(log).read()[-2000:]
        seen = run_in_sandbox(FORK_50, tmp_path)
    finally:
        holder.kill()
        sandbox.remove_private_dir(private)
    assert seen == {"forked": 50, "error": None}


ORDINARY_USER = """
import json, os, subprocess, sys, tempfile, time
sys.path.insert(0, {root!r})
from grading.sandbox import kernels as sandbox
assert os.geteuid() != 0
def start(code, **kw):
    private = sandbox.make_private_dir(None)
    return private, subprocess.Popen(sandbox.bwrap_command([sys.executable, "-c", code], private_dir=private),
                                     text=True, **kw)
private, holder = start({hold!r}, stdout=subprocess.PIPE)
assert holder.stdout.readline().strip() == 'holding'
out = {{}}
for name, code in (('fork', {fork!r}), ('files', {files!r})):
    p, proc = start(code, stdout=subprocess.PIPE)
    out[name] = json.loads(proc.communicate(timeout=60)[0].strip().splitlines()[-1])
    sandbox.remove_private_dir(p)
holder.kill()
sandbox.remove_private_dir(private)
print(json.dumps(out))
"""

FILES_AS_USER = FILL + """
out = {}
try:
    open('/dev/evil', 'w'); out['dev'] = 'written'
except OSError as exc:
    out['dev'] = exc.errno
out['shm'] = fill('/dev/shm')
out['tmp_files'] = files('/tmp')[:2]
open('/home/student/work/results.csv', 'w').write('ok'); out['workdir'] = open('/home/student/work/results.csv').read()
import ctypes
out['userns'] = ctypes.CDLL(None, use_errno=True).unshare(0x10000000) or 'made'
print(json.dumps(out))
"""


@pytest.fixture
def ordinary_user():
    """A real Unix user of our own (l23s-...), removed afterwards: the hub's instructor grading with `make grade`."""
    name = f"l23s-{os.getpid() % 100000}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        yield name
    finally:
        subprocess.run(["userdel", name], check=False)


def site_packages():
    return str(Path(next(p for p in sys.path if p.endswith("site-packages"))).resolve())


def run_as_user(user, name, program, timeout):
    """Run ``program`` (Python source) as the Unix ``user``, with the system's Python (the user cannot read this
    machine's Python, a pyenv under /root) and this environment's packages; its output lines. The script lives
    in a folder the user can read (pytest's tmp_path is root's, 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="l23-as-user-"))
    script = folder / name
    script.write_text(program)
    folder.chmod(0o755)
    script.chmod(0o644)
    try:
        proc = subprocess.run(["runuser", "-u", user, "--", "env", "-i", "PATH=/usr/bin:/bin",
                               f"PYTHONPATH={site_packages()}", "/usr/bin/python3", str(script)],
                              capture_output=True, text=True, timeout=timeout, cwd="/")
    finally:
        shutil.rmtree(folder)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()


def test_as_an_ordinary_user_each_sandbox_has_its_own_limits(tmp_path, ordinary_user):
    """As the instructor (not root): 240 processes held by one sandbox do not stop another's 50; /dev is
    read-only, /dev/shm and /tmp's inodes are capped, the working folder is writable, no new user namespace."""
    if MODE[0] == "forked":
        pytest.skip("graded as an ordinary user, every kernel is cold (bubblewrap)")
    lines = run_as_user(ordinary_user, "grader_as_user.py", ORDINARY_USER.format(
        root=str(ROOT), hold=HOLD.format(n=240), fork=FORK_50, files=FILES_AS_USER), 180)
    seen = json.loads(lines[-1])
    assert seen["fork"] == {"forked": 50, "error": None}, seen
    files = seen["files"]
    assert files["dev"] == errno.EROFS and files["workdir"] == "ok" and files["userns"] == -1, files
    assert files["shm"][0] <= 16 and files["shm"][1] == errno.ENOSPC, files
    assert files["tmp_files"][0] <= sandbox.TMPFS_INODES and files["tmp_files"][1] == errno.ENOSPC, files


def test_the_limits_are_said_once_at_start_up(monkeypatch, capsys):
    """One line, from one place, says how a sandbox's memory and processes are limited here, and why not by cgroup."""
    monkeypatch.setattr(sandbox, "_CHECKED", [])
    assert sandbox.check_once() is None and sandbox.check_once() is None
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("Sandbox limits:")]
    assert lines == [sandbox.limits_note()]
    where = cgroups.setup()
    if where:
        assert f"limited per sandbox by cgroup (v{where.version})" in lines[0]
    else:
        assert "rlimits only" in lines[0] and cgroups.why_not() in lines[0]


def test_without_a_usable_cgroup_start_up_says_why(monkeypatch):
    monkeypatch.setattr(cgroups, "_FOUND", [])
    monkeypatch.setenv(cgroups.ENV, "/no-such-cgroup-l23")
    note = sandbox.limits_note()
    assert note.startswith("Sandbox limits: rlimits only") and "/no-such-cgroup-l23" in note, note


def test_no_user_namespace_of_its_own_to_mount_an_uncapped_tmpfs(tmp_path):
    """In a user namespace of its own, student code could mount a tmpfs of any size: it cannot make one."""
    seen = run_in_sandbox("""
import ctypes, json, os, subprocess, threading
libc = ctypes.CDLL(None, use_errno=True)
out = {'unshare': libc.unshare(0x10000000 | 0x00020000) or 'made', 'errno': ctypes.get_errno()}
r = subprocess.run(['unshare', '-Urm', 'sh', '-c', 'mount -t tmpfs -o size=1g none /tmp && echo mounted'],
                   capture_output=True, text=True)
out['tool'] = r.stdout.strip() or r.returncode
t = threading.Thread(target=lambda: out.update(thread='ran')); t.start(); t.join()  # threads still start
out['child'] = subprocess.run(['true']).returncode
print(json.dumps(out))
""", tmp_path)
    assert seen["unshare"] == -1 and seen["errno"] == errno.EPERM and seen["tool"] != "mounted", seen
    assert seen["thread"] == "ran" and seen["child"] == 0


KERNEL_AS_USER = """
import asyncio, json, os, sys
sys.path.insert(0, {root!r})
from grading.sandbox import kernels as sandbox
assert os.geteuid() != 0
site = {site!r}
# This machine's Python is not the user's to read (a pyenv under /root): the kernel is the system's
# Python 3.11 with the course's packages bound read-only, as the hub's copy of the environment would be.
sandbox._python_roots = lambda: [site]
env = sandbox.sandbox_env
sandbox.sandbox_env = lambda extra=None: {{**env(extra), "PYTHONPATH": site}}
CELL = '''
import glob, json, os
private = [p for p in glob.glob('/tmp/nbg-*') if os.access(p, os.W_OK)][0]
written, error = 0, None
try:
    for k in range(30):
        with open(os.path.join(private, f'chunk{{k}}'), 'wb') as f:
            f.write(b'x' * 2**23)
        written += 8
except OSError as exc:
    error = exc.errno
for k in range(30):
    if os.path.exists(os.path.join(private, f'chunk{{k}}')):
        os.remove(os.path.join(private, f'chunk{{k}}'))
open('saved.txt', 'w').write('kept')
print(json.dumps({{"written_mib": written, "error": error, "saved": open('saved.txt').read()}}))
'''
async def main():
    km = sandbox.SandboxedKernelManager()
    km.helpers_path = {helpers!r}
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    printed = []
    try:
        await kc.wait_for_ready(timeout=120)
        group = km.cgroup
        in_cgroup = bool(group and group.pids_in())
        hook = lambda m: printed.append(m["content"]["text"]) if m["msg_type"] == "stream" else None
        reply = await kc.execute_interactive(CELL, output_hook=hook, timeout=60)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
    print(json.dumps({{"in_cgroup": in_cgroup, "gone": bool(group) and not any(os.path.exists(d) for d in group.dirs)}}))
    print("".join(printed).strip().splitlines()[-1])
asyncio.run(main())
"""


def test_as_an_ordinary_user_a_real_kernel_has_a_capped_private_folder(cgroup_user):
    """As the instructor (not root), a real grading kernel's private folder (its connection file, sockets)
    is a capped tmpfs of the sandbox's own, reached by the grader through /proc; the kernel still runs, in a
    cgroup of its own (the instructor's delegated one, as the hub makes it), removed with it."""
    if MODE[0] == "forked":
        pytest.skip("graded as an ordinary user, every kernel is cold (bubblewrap)")
    helpers = ROOT / "source" / "level23_speculative_decoding" / "spec_checks.py"
    lines = run_as_user(cgroup_user, "kernel_as_user.py", KERNEL_AS_USER.format(
        root=str(ROOT), site=site_packages(), helpers=str(helpers)), 300)
    seen = json.loads(lines[-2])
    assert seen["in_cgroup"] and seen["gone"], seen
    seen = json.loads(lines[-1])
    assert seen["written_mib"] <= sandbox.PRIVATE_BYTES // 2**20 and seen["error"] == errno.ENOSPC, seen
    assert seen["saved"] == "kept"


def test_no_memory_held_outside_the_caps_in_memfds_or_system_v_segments(tmp_path):
    """6 memfds of 64 MiB, and 3 System V segments of 256 MiB filled then detached (they outlive the
    mapping): memory that no file system's cap nor the address-space limit counts. Neither can be made."""
    seen = run_in_sandbox("""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
out, fds = {}, []
try:
    for k in range(6):
        fd = os.memfd_create(f'm{k}')
        os.write(fd, b'x' * 2**26)
        fds.append(fd)
except OSError as exc:
    out['memfd_error'] = exc.errno
out['memfd_mib'] = 64 * len(fds)
libc.shmget.restype, libc.shmat.restype = ctypes.c_int, ctypes.c_void_p
held = 0
for k in range(3):
    segment = libc.shmget(0, 2**28, 0o1600)
    if segment < 0:
        out['shm_error'] = ctypes.get_errno()
        break
    address = libc.shmat(segment, None, 0)
    ctypes.memset(address, 1, 2**28)
    libc.shmdt(ctypes.c_void_p(address))
    held += 256
out['shm_mib'] = held
print(json.dumps(out))
""", tmp_path)
    assert seen == {"memfd_mib": 0, "memfd_error": errno.ENOSYS, "shm_mib": 0, "shm_error": errno.ENOSYS}, seen


def test_a_private_folder_left_by_a_killed_grader_is_removed_by_the_next():
    """A grader killed past its deadline runs no cleanup: its kernel's private tmpfs is unmounted and removed
    when the next grading process starts (``check_once``)."""
    if MODE[0] == "forked":
        pytest.skip("the private folder is the same on both paths")
    killed = subprocess.run([sys.executable, "-c", "import os, signal, sys; sys.path.insert(0, sys.argv[1]);"
                             "from grading.sandbox import kernels as sandbox; print(sandbox.make_private_dir(sandbox.sandbox_uid()),"
                             " flush=True); os.kill(os.getpid(), signal.SIGKILL)", str(ROOT)],
                            capture_output=True, text=True)
    left = killed.stdout.strip()
    assert left and os.path.isdir(left) and os.path.ismount(left) == (os.geteuid() == 0)
    sandbox.remove_stale_private_dirs()
    assert not os.path.exists(left)
    ours = sandbox.make_private_dir(sandbox.sandbox_uid())  # a live grader's folder is left alone
    try:
        sandbox.remove_stale_private_dirs()
        assert os.path.isdir(ours)
    finally:
        sandbox.remove_private_dir(ours)



def test_graders_cleaning_up_the_same_left_folders_at_once_all_start(monkeypatch):
    """make grade's workers each clean up as they start, at the same moment: a left folder another worker
    unmounts and removes between this one's look at it and its own unmount is skipped, not an error (it stopped
    the worker at start, and every worker of the run with it); so is one removed before this one looks."""
    if MODE[0] == "forked":
        pytest.skip("the private folder is the same on both paths")
    killed = subprocess.run([sys.executable, "-c", "import os, signal, sys; sys.path.insert(0, sys.argv[1]);"
                             "from grading.sandbox import kernels as sandbox; print(*(sandbox.make_private_dir(sandbox.sandbox_uid())"
                             " for _ in range(3)), flush=True); os.kill(os.getpid(), signal.SIGKILL)",
                             str(ROOT)], capture_output=True, text=True)
    left = killed.stdout.split()
    assert len(left) == 3 and all(os.path.isdir(p) for p in left)
    real_ismount, looks = os.path.ismount, []

    def ismount_while_another_worker_cleans(path):
        mounted = real_ismount(path)
        looks.append(path)
        if path == left[0] and looks.count(path) == (2 if os.geteuid() == 0 else 1):  # as it is about to unmount
            monkeypatch.setattr(os.path, "ismount", real_ismount)
            sandbox.remove_private_dir(left[0])  # the other worker
            monkeypatch.setattr(os.path, "ismount", ismount_while_another_worker_cleans)
        return mounted

    sandbox.remove_private_dir(left[1])  # removed before this grader looks
    monkeypatch.setattr(os.path, "ismount", ismount_while_another_worker_cleans)
    sandbox.remove_stale_private_dirs()
    monkeypatch.setattr(os.path, "ismount", real_ismount)
    assert left[0] in looks and not any(os.path.exists(p) for p in left)

# --- memory and processes per sandbox, in a cgroup (issue 19, items 6 and 9) ---------------------------------

# Four processes of one sandbox each take 300 MB at once (written, so the pages are real), and hold it.
HOG = """
import json, os, time
children = []
for k in range({n}):
    pid = os.fork()
    if pid == 0:
        try:
            held = b'\\x01' * ({mb} * 2**20)
        except MemoryError:
            os._exit(3)
        time.sleep({hold})
        os._exit(0)
    children.append(pid)
codes = []
for pid in children:
    status = os.waitpid(pid, 0)[1]
    codes.append(os.waitstatus_to_exitcode(status))
print(json.dumps({{"codes": codes}}))
"""


def _held(codes):
    return sum(1 for code in codes if code == 0)


def test_memory_is_limited_per_sandbox_not_per_process(tmp_path):
    """4 x 300 MB in one sandbox whose cgroup allows 512 MB: not all four hold it (one is killed or gets
    MemoryError), while a second sandbox at the same time still takes its 300 MB."""
    assert cgroups.setup(), cgroups.why_not()
    greedy, classmate = cgroups.SandboxCgroup(memory=512 * 2**20), cgroups.SandboxCgroup(memory=512 * 2**20)
    seen = {}
    try:
        other = threading.Thread(target=lambda: seen.update(
            classmate=run_in_sandbox(HOG.format(n=1, mb=300, hold=6), tmp_path, cgroup=classmate)))
        other.start()
        seen["greedy"] = run_in_sandbox(HOG.format(n=4, mb=300, hold=4), tmp_path, cgroup=greedy)
        other.join()
    finally:
        greedy.remove()
        classmate.remove()
    assert _held(seen["greedy"]["codes"]) <= 1, seen  # 512 MB holds one 300 MB process, not two
    assert set(seen["greedy"]["codes"]) <= {0, 3, -9}, seen  # held, MemoryError, or killed by the OOM killer
    assert seen["classmate"]["codes"] == [0], seen
    assert not any(os.path.exists(d) for d in greedy.dirs + classmate.dirs)


PIDS = """
import json, os, threading, time
stop = threading.Event()
threads = []
for _ in range({threads}):
    t = threading.Thread(target=stop.wait); t.start(); threads.append(t)
forked, error = 0, None
for _ in range(100):
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc.errno
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    forked += 1
stop.set()
print(json.dumps({{"threads": len(threads), "forked": forked, "error": error}}))
"""


def test_the_process_limit_counts_threads_and_processes_per_sandbox(tmp_path):
    """A cgroup of 64: 40 threads, then processes until it is full; the threads count (fewer than 24 processes
    start), though the rlimit per uid (256) would allow 100 more."""
    assert cgroups.setup(), cgroups.why_not()
    group = cgroups.SandboxCgroup(pids=64)
    try:
        seen = run_in_sandbox(PIDS.format(threads=40), tmp_path, cgroup=group)
    finally:
        group.remove()
    assert seen["threads"] == 40 and seen["forked"] < 24 and seen["error"] == errno.EAGAIN, seen


def test_a_real_kernel_runs_in_its_cgroup_which_is_gone_with_it():
    """A grading kernel (forked or cold) is in its sandbox's cgroup; once the kernel is shut down, it is removed."""
    import asyncio

    assert cgroups.setup(), cgroups.why_not()
    helpers = ROOT / "source" / "level23_speculative_decoding" / "spec_checks.py"
    manager = sandbox.ForkedSandboxedKernelManager if MODE[0] == "forked" else sandbox.SandboxedKernelManager

    async def run():
        km = manager()
        km.helpers_path = str(helpers)
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=120)
            group = km.cgroup
            inside = group.pids_in()
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
        return group, inside
    group, inside = asyncio.run(run())
    assert inside, "nothing ran in the sandbox's cgroup"
    assert not any(os.path.exists(d) for d in group.dirs), group.dirs


def test_a_cgroup_left_by_a_killed_grader_is_removed_by_the_next():
    if MODE[0] == "forked":
        pytest.skip("the cgroup is the same on both paths")
    assert cgroups.setup(), cgroups.why_not()
    killed = subprocess.run([sys.executable, "-c", "import os, signal, sys; sys.path.insert(0, sys.argv[1]);"
                             "from grading.sandbox import cgroups; g = cgroups.SandboxCgroup(); print(' '.join(g.dirs),"
                             " flush=True); os.kill(os.getpid(), signal.SIGKILL)", str(ROOT)],
                            capture_output=True, text=True)
    left = killed.stdout.split()
    assert left and all(os.path.isdir(d) for d in left), killed.stderr
    ours = cgroups.SandboxCgroup()  # a live grader's cgroup is left alone
    try:
        cgroups.remove_stale()
        assert not any(os.path.exists(d) for d in left) and all(os.path.isdir(d) for d in ours.dirs)
    finally:
        ours.remove()


def test_left_cgroups_are_waited_for_together_not_each_in_turn(monkeypatch):
    """A grader that starts after several killed ones waits one deadline for all their cgroups, not one deadline
    each: every worker sweeps them as it starts, and a worker's start has a deadline of its own. Processes that
    outlive SIGKILL for a while (in uninterruptible sleep) stand in as a pid that is never gone; the clock is the
    test's own, so nothing waits for real."""
    if MODE[0] == "forked":
        pytest.skip("the cgroup is the same on both paths")
    assert cgroups.setup(), cgroups.why_not()
    killed = subprocess.run([sys.executable, "-c", "import os, signal, sys; sys.path.insert(0, sys.argv[1]);"
                             "from grading.sandbox import cgroups; gs = [cgroups.SandboxCgroup() for _ in range(3)];"
                             "print(' '.join(d for g in gs for d in g.dirs), flush=True); os.kill(os.getpid(), 9)",
                             str(ROOT)], capture_output=True, text=True)
    left = killed.stdout.split()
    assert len(left) >= 3 and all(os.path.isdir(d) for d in left), killed.stderr

    class Clock:
        now = 0.0

        def monotonic(self):
            return self.now

        def sleep(self, seconds):
            self.now += seconds

    clock, real = Clock(), cgroups.SandboxCgroup.pids_in
    never_gone = 2**22 + 4321  # past Linux's largest pid: os.kill finds no such process
    monkeypatch.setattr(cgroups, "time", clock)
    monkeypatch.setattr(cgroups.SandboxCgroup, "pids_in",
                        lambda self: {never_gone} if set(self.dirs) & set(left) else real(self))
    cgroups.remove_stale()
    assert 4.9 <= clock.now <= 5.1, f"waited {clock.now:.1f} s for three left cgroups (5 s for all of them)"
    assert not any(os.path.exists(d) for d in left)


CGROUP_AS_USER = """
import json, os, subprocess, sys, threading
sys.path.insert(0, {root!r})
from grading.sandbox import cgroups, kernels as sandbox
assert os.geteuid() != 0
out = {{"setup": cgroups.setup() and cgroups.setup().describe(), "why": cgroups.why_not(), "note": sandbox.limits_note()}}
def run(code, group):
    private = sandbox.make_private_dir(None)
    try:
        proc = subprocess.run(sandbox.bwrap_command([sys.executable, "-c", code], private_dir=private, cgroup=group),
                              capture_output=True, text=True, timeout=120)
        return json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else proc.stderr[-2000:]
    finally:
        sandbox.remove_private_dir(private)
greedy, classmate, small = (cgroups.SandboxCgroup(memory=512 * 2**20), cgroups.SandboxCgroup(memory=512 * 2**20),
                            cgroups.SandboxCgroup(pids=64))
other = threading.Thread(target=lambda: out.update(classmate=run({one!r}, classmate)))
other.start()
out["greedy"] = run({four!r}, greedy)
other.join()
out["pids"] = run({pids!r}, small)
for group in (greedy, classmate, small):
    group.remove()
out["gone"] = not any(os.path.exists(d) for g in (greedy, classmate, small) for d in g.dirs)
print(json.dumps(out))
"""


@pytest.fixture
def cgroup_user():
    """A real Unix user of our own (l23c-...) with a cgroup delegated the way hub/classroom.py delegates one."""
    name = f"l23c-{os.getpid() % 100000}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        cgroups.delegate(name)
        yield name
    finally:
        cgroups.undelegate(name)
        subprocess.run(["userdel", name], check=False)


def test_as_an_ordinary_user_a_delegated_cgroup_limits_each_sandbox(cgroup_user):
    """As the instructor (not root), with the cgroup hub/classroom.py delegates: 4 x 300 MB in a sandbox of 512 MB
    do not all hold, a classmate's sandbox at the same time does; 40 threads count toward a limit of 64."""
    if MODE[0] == "forked":
        pytest.skip("graded as an ordinary user, every kernel is cold (bubblewrap)")
    lines = run_as_user(cgroup_user, "cgroup_as_user.py", CGROUP_AS_USER.format(
        root=str(ROOT), one=HOG.format(n=1, mb=300, hold=6),
        four=HOG.format(n=4, mb=300, hold=4), pids=PIDS.format(threads=40)), 300)
    seen = json.loads(lines[-1])
    assert seen["setup"] and cgroups.delegated_path(cgroup_user) in seen["setup"], seen
    assert "limited per sandbox by cgroup (v" in seen["note"], seen
    assert _held(seen["greedy"]["codes"]) <= 1 and set(seen["greedy"]["codes"]) <= {0, 3, -9}, seen
    assert seen["classmate"] == {"codes": [0]}, seen
    assert seen["pids"]["threads"] == 40 and seen["pids"]["forked"] < 24, seen
    assert seen["gone"], seen
