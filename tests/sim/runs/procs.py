"""What /proc says about the processes of a run: its children, whether one is alive, the CPU
time it has used, the TCP ports they listen on."""

import os
import socket
import time


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def children(pid: int, marker: bytes = b"") -> list[int]:
    """The child processes of ``pid`` whose command line holds ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and parent_of(int(name)) == pid:
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if marker in f.read():
                        found.append(int(name))
            except OSError:
                continue
    return found


def alive(pid: int) -> bool:
    """Running or stopped, not gone and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) ``pid`` has used; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_computing(pids, cpu: float = 0.2, guard: float = 60.0) -> None:
    """Until each of ``pids`` has used ``cpu`` seconds of CPU more than when called: a worker
    at its jobs (an event: a busy machine makes it come later, not wrong). ``guard`` is a hang
    guard, far above the fraction of a second it takes idle."""
    start = {pid: cpu_seconds(pid) for pid in pids}
    deadline = time.monotonic() + guard
    while waiting := [p for p in pids if cpu_seconds(p) - start[p] < cpu]:
        assert all(alive(p) for p in waiting), f"{waiting}: gone before they computed"
        assert time.monotonic() < deadline, f"{waiting}: not computing after {guard} s"
        time.sleep(0.02)


def listening(pids) -> set[tuple[str, int]]:
    """(host, port) of the TCP sockets the processes ``pids`` listen on."""
    inodes = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and inode in inodes:  # LISTEN
                    host, port = local.split(":")
                    if len(host) == 8:
                        host = socket.inet_ntoa(bytes.fromhex(host)[::-1])
                    found.add((host, int(port, 16)))
    return found
