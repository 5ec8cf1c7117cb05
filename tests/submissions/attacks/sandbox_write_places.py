# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: stop
# attack: fills every place a kernel can write or hold memory: 240 MiB into its private folder (connection file, sockets, log), 300,000 empty files in /tmp, /dev and /dev/shm, memfds and System V segments, a tmpfs in a user namespace of its own, 6 processes of 500 MiB at once (stopped after 5 s), and 240 sleeping processes held while classmates are graded
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            continue
    return accepted_tokens



import glob, os, subprocess, sys


def _attempt(name, action):
    try:
        print(f"ATTACK sandbox_write_places: {name}: {action()}")
    except BaseException as exc:
        print(f"ATTACK sandbox_write_places: {name}: blocked: {exc!r}")


def _fill(folder, chunk=8 * 2**20, total=240 * 2**20):
    written, stop = 0, ""
    try:
        while written < total:
            with open(os.path.join(folder, f"ATTACK_chunk{written // chunk}"), "wb") as f:
                f.write(bytes(chunk))
            written += chunk
    except OSError as exc:
        stop = f", then {exc!r}"
    finally:
        for path in glob.glob(os.path.join(folder, "ATTACK_chunk*")):
            os.remove(path)
    return f"wrote {written >> 20} MiB{stop}"


def _files(folder, n=300_000):
    made, stop = 0, ""
    try:
        for made in range(n):
            open(os.path.join(folder, f"ATTACK_f{made}"), "w").close()
        made = n
    except OSError as exc:
        stop = f", then {exc!r}"
    finally:
        for path in glob.glob(os.path.join(folder, "ATTACK_f*")):
            os.remove(path)
    return f"made {made} files{stop}"


def _memfds():
    fds = [os.memfd_create(f"m{k}") for k in range(4)]
    for fd in fds:
        os.write(fd, bytes(2**26))
    return f"held {64 * len(fds)} MiB in memfds"


def _userns_tmpfs():
    r = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=1g none /tmp && echo mounted"],
                       capture_output=True, text=True)
    return r.stdout.strip() or f"refused: {r.stderr.strip()[-200:]}"


def _memory(n=6, mib=500):
    # n processes of a small Python each take and touch mib MiB (each far under the 6 GiB address-space limit)
    # and hold it 2 s: together they want 3,000 MiB at once. Those that exit 0 held theirs to the end. Past 5 s
    # (a sandbox at its memory limit is slow to hand out more) the whole group is stopped, so none of them is
    # left holding memory or a process slot when the next cell starts.
    code = (f"import os, time\npids = []\nfor k in range({n}):\n    pid = os.fork()\n    if pid == 0:\n"
            f"        held = b'\\1' * ({mib} * 2**20)\n        time.sleep(2)\n        os._exit(0)\n"
            "    pids.append(pid)\nprint(sum(os.waitpid(pid, 0)[1] == 0 for pid in pids))")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, late = proc.communicate(timeout=5)[0].strip(), ""
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait()
        out, late = "0", ", stopped after 5 s"
    for _ in range(15):  # until every process of the group is gone (a killed one may take a moment to exit)
        try:
            os.killpg(proc.pid, 0)
        except OSError:
            break
        __import__("time").sleep(0.1)
    return f"held {out or 0} x {mib} MiB at once of {n}{late}"


def _hold(n=240):
    # A small Python forks them (forking this kernel 240 times would take longer than a cell may), as many as the
    # sandbox's process limit lets it (its own threads count too), and says how many it holds.
    code = (f"import os, time\nheld = 0\nfor k in range({n}):\n    try:\n        pid = os.fork()\n"
            "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n"
            "    held += 1\nprint('holding', held, flush=True)\ntime.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    return f"{proc.stdout.readline().strip() or 'stopped'} of {n} sleeping processes while classmates are graded"


_private = [p for p in glob.glob("/tmp/nbg-*") if os.access(p, os.W_OK)]
_attempt("private folder", lambda: _fill(_private[0]) if _private else "no private folder found")
_attempt("/tmp inodes", lambda: _files("/tmp"))
_attempt("/dev", lambda: open("/dev/ATTACK", "w") and "wrote /dev/ATTACK")
_attempt("/dev/shm", lambda: _fill("/dev/shm"))
_attempt("memfd", _memfds)
_attempt("user namespace", _userns_tmpfs)
# %% a code cell of its own
_attempt("memory", _memory)
# %% a code cell of its own
_attempt("processes", _hold)
