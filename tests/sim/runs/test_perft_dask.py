"""perft through Dask: -j 1 (in-process), -j 2 (a LocalCluster) and --scheduler (a scheduler and
two workers this module starts on 127.0.0.1) give the same counts and divide; a worker killed
with SIGKILL mid-run is replaced and the count stays exact; an unreachable scheduler is one line
and exit status 2."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from posdata.engine.positions import BY_NAME
from posdata.sim.cli import main

DASK = os.path.join(os.path.dirname(sys.executable), "dask")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two one-thread workers (each under a nanny, which restarts it)."""
    from distributed import Client
    address = f"tcp://127.0.0.1:{free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port",
                               address.rsplit(":", 1)[1], "--no-dashboard"], **quiet)]
    time.sleep(1)
    procs += [subprocess.Popen([DASK, "worker", address, "--nworkers", "1", "--nthreads", "1",
                                "--no-dashboard"], **quiet) for _ in range(2)]
    try:
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
            yield address, client
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


def perft_json(argv, capsys):
    status = main(["perft", "--json", "--divide", "--quiet", *argv])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize("argv", [
    ["--fen", BY_NAME["kiwipete"].fen, "--depth", "3"],
    ["--depth", "3", "--backend", "gen"],
], ids=["sw-kiwipete-3", "gen-initial-3"])
def test_one_two_and_cluster_agree(cluster, capsys, argv):
    address, _ = cluster
    one = perft_json(argv + ["-j", "1"], capsys)
    two = perft_json(argv + ["-j", "2"], capsys)
    far = perft_json(argv + ["--scheduler", address], capsys)
    for other in (two, far):
        assert other["nodes"] == one["nodes"]
        assert other["divide"] == one["divide"]
        for key in ("generator_calls", "hw_cycles", "hw_moves"):
            assert other.get(key) == one.get(key), key
    pos = BY_NAME["kiwipete"] if "--fen" in argv else BY_NAME["initial"]
    assert one["nodes"] == pos.counts[2]


def test_worker_killed_mid_run(cluster, capsys):
    """SIGKILL one worker once jobs have finished and others are running: its nanny starts a
    new one, the scheduler reruns its jobs, and every job is counted once."""
    address, client = cluster
    pids = list(client.run(os.getpid).values())
    result = {}
    argv = ["--fen", BY_NAME["kiwipete"].fen, "--depth", "4", "--bulk", "--scheduler", address]
    run = threading.Thread(target=lambda: result.update(data=perft_json(argv, capsys)))
    run.start()

    def finished(dask_scheduler):
        return sum(ts.state == "memory" for ts in dask_scheduler.tasks.values())
    deadline = time.monotonic() + 60
    while client.run_on_scheduler(finished) < 5 and run.is_alive():
        assert time.monotonic() < deadline, "no job finished within a minute"
        time.sleep(0.05)
    assert run.is_alive(), "the count ended before the kill: make it larger"
    os.kill(pids[0], signal.SIGKILL)
    run.join(timeout=300)
    assert not run.is_alive()
    assert result["data"]["nodes"] == BY_NAME["kiwipete"].counts[3]
    client.wait_for_workers(2, timeout=60)  # the nanny replaced it
    assert pids[0] not in client.run(os.getpid).values()


def test_unreachable_scheduler_is_one_line(capsys):
    status = main(["perft", "--depth", "2", "--scheduler", f"tcp://127.0.0.1:{free_port()}"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("posdata: error: cannot reach the Dask scheduler")
    assert err.count("\n") == 1
