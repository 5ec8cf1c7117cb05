# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: stop
# attack: reaches a listener on 127.0.0.1:47913, asks for a route to the outside (UDP connect, nothing sent), and opens other kernels' ports
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


import json
import socket

import os
import time


def _find(want, seconds=3.0):
    """Real paths p with want(p): ../../.. first, then /tmp, ~ and / (not /proc, /sys, /dev), for ~`seconds`."""
    found, start = [], time.time()
    for top in ("../../..", "/tmp", os.path.expanduser("~"), "/"):
        for folder, subfolders, files in os.walk(os.path.abspath(top)):
            subfolders[:] = [s for s in subfolders if os.path.join(folder, s) not in ("/proc", "/sys", "/dev")]
            for path in (os.path.join(folder, name) for name in subfolders + files):
                if want(path) and os.path.realpath(path) not in found:
                    found.append(os.path.realpath(path))
            if time.time() - start > seconds:
                return found
    return found


def _is_connection_file(path):
    """A Jupyter kernel's connection file: a small JSON file with "shell_port" and "key"."""
    if not path.endswith(".json") or not os.path.isfile(path) or os.path.getsize(path) > 4096:
        return False
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return False
    return '"shell_port"' in text and '"key"' in text


_report = []
try:
    with socket.create_connection(("127.0.0.1", 47913), timeout=2) as s:
        s.sendall(b"ATTACK network_loopback")
    _report.append("sent to 127.0.0.1:47913")
except Exception as exc:
    _report.append(f"127.0.0.1:47913 blocked: {exc!r}")
try:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # UDP connect only asks the routing table: nothing leaves the machine
    _report.append("a route to 192.0.2.1 exists")
except Exception as exc:
    _report.append(f"no route to 192.0.2.1: {exc!r}")
try:
    _opened, _files = 0, _find(_is_connection_file, seconds=2.0)
    for _path in _files:
        with open(_path) as f:
            _info = json.load(f)
        if _info.get("transport", "tcp") != "tcp" or _info.get("ip") not in ("127.0.0.1", "localhost"):
            continue  # safety: loopback only
        for _key in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"):
            try:
                with socket.create_connection(("127.0.0.1", int(_info[_key])), timeout=1):
                    _opened += 1
            except (OSError, KeyError, ValueError):
                pass
    _report.append(f"opened {_opened} kernel ports from {len(_files)} connection files")
except Exception as exc:
    _report.append(f"kernel ports blocked: {exc!r}")
print("ATTACK network_reach: " + "; ".join(_report))
