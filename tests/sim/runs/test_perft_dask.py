"""perft through Dask: -j 1 (in-process), -j 2 (local workers) and --scheduler (a scheduler and
two workers this module starts on 127.0.0.1, over TLS with certificates of a CA made here) give
the same counts and divide; a worker killed with SIGKILL mid-run is replaced and the count stays
exact; an unreachable scheduler, a scheduler with no worker and inconsistent or unusable TLS
options are one line and exit status 2."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from posdata.engine.rules.positions import BY_NAME
from posdata.sim.cli import main
from tests.sim.runs.tls_files import make_tls_files

DASK = os.path.join(os.path.dirname(sys.executable), "dask")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, process) -> None:
    """Until ``process`` listens on 127.0.0.1:``port`` (idle ~1 s for a Dask scheduler); the
    30 s deadline is a hang guard."""
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None, f"exited with status {process.returncode}"
            assert time.monotonic() < deadline, f"nothing listens on port {port} after 30 s"
            time.sleep(0.05)


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def cluster(tls, tmp_path_factory):
    """A scheduler and two one-thread workers (each under a nanny, which restarts it), over
    mutual TLS: (address, the perft options that reach it, a client of it)."""
    from distributed import Client
    from distributed.security import Security
    address = f"tls://127.0.0.1:{free_port()}"
    server_tls = ["--tls-ca-file", tls["ca"], "--tls-cert", tls["cluster"],
                  "--tls-key", tls["cluster-key"]]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,  # scratch: not /tmp
             "env": dict(os.environ, DASK_TEMPORARY_DIRECTORY=str(tmp_path_factory.mktemp("d")))}
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port",
                               address.rsplit(":", 1)[1], "--protocol", "tls",
                               "--no-dashboard", *server_tls], **quiet)]
    wait_listening(int(address.rsplit(":", 1)[1]), procs[0])
    procs += [subprocess.Popen([DASK, "worker", address, "--nworkers", "1", "--nthreads", "1",
                                "--no-dashboard", *server_tls], **quiet) for _ in range(2)]
    security = Security(require_encryption=True, tls_ca_file=str(tls["ca"]),
                        tls_client_cert=str(tls["client"]), tls_client_key=str(tls["client-key"]))
    options = ["--scheduler", address, "--tls-ca-file", str(tls["ca"]),
               "--tls-cert", str(tls["client"]), "--tls-key", str(tls["client-key"])]
    try:
        # hang guards: idle the client connects at once, the workers register within ~2 s
        with Client(address, timeout=30, security=security) as client:
            client.wait_for_workers(2, timeout=60)
            yield address, options, client
    finally:
        # the scheduler first: workers that have lost it stop at once (about 1 s in all,
        # against 8 s for workers stopped while it lives); the timeouts are hang guards
        procs[0].terminate()
        procs[0].wait(timeout=30)
        for p in procs[1:]:
            p.terminate()
        for p in procs[1:]:
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
    _, options, _ = cluster
    one = perft_json(argv + ["-j", "1"], capsys)
    two = perft_json(argv + ["-j", "2"], capsys)
    far = perft_json(argv + options, capsys)
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
    _, options, client = cluster
    pids = list(client.run(os.getpid).values())
    result = {}
    argv = ["--fen", BY_NAME["kiwipete"].fen, "--depth", "4", "--bulk", *options]
    run = threading.Thread(target=lambda: result.update(data=perft_json(argv, capsys)))
    run.start()

    def finished(dask_scheduler):
        return sum(ts.state == "memory" for ts in dask_scheduler.tasks.values())
    deadline = time.monotonic() + 60  # a hang guard: idle the first jobs end within ~0.5 s
    while client.run_on_scheduler(finished) < 5 and run.is_alive():
        assert time.monotonic() < deadline, "no job finished within a minute"
        time.sleep(0.05)
    assert run.is_alive(), "the count ended before the kill: make it larger"
    os.kill(pids[0], signal.SIGKILL)
    run.join(timeout=300)  # a hang guard: idle the count ends ~3 s after the kill
    assert not run.is_alive()
    assert result["data"]["nodes"] == BY_NAME["kiwipete"].counts[3]
    client.wait_for_workers(2, timeout=60)  # the nanny replaced it (a hang guard; idle ~1 s)
    assert pids[0] not in client.run(os.getpid).values()


def test_unreachable_scheduler_is_one_line(capsys):
    status = main(["perft", "--depth", "2", "--scheduler", f"tcp://127.0.0.1:{free_port()}"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("posdata: error: cannot reach the Dask scheduler")
    assert err.count("\n") == 1


def one_line_error(argv, capsys) -> str:
    status = main(["perft", "--depth", "2", *argv])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("posdata: error: ") and err.count("\n") == 1, err
    return err


def test_tls_options_checked_where_they_enter(tls, tmp_path, capsys):
    ca, cert = str(tls["ca"]), str(tls["client"])
    at = "tls://127.0.0.1:1"
    assert "go with --scheduler" in one_line_error(["--tls-ca-file", ca, "--tls-cert", cert],
                                                   capsys)
    assert "go together" in one_line_error(["--scheduler", at, "--tls-ca-file", ca], capsys)
    assert "go together" in one_line_error(["--scheduler", at, "--tls-cert", cert], capsys)
    assert "need a tls:// scheduler address" in one_line_error(
        ["--scheduler", "tcp://127.0.0.1:1", "--tls-ca-file", ca, "--tls-cert", cert], capsys)
    missing = str(tmp_path / "missing.pem")
    assert f"cannot read --tls-cert {missing}" in one_line_error(
        ["--scheduler", at, "--tls-ca-file", ca, "--tls-cert", missing], capsys)
    assert "cannot read --tls-ca-file" in one_line_error(
        ["--scheduler", at, "--tls-ca-file", str(tmp_path), "--tls-cert", cert], capsys)
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    assert "holds no usable certificate" in one_line_error(
        ["--scheduler", at, "--tls-ca-file", str(garbage), "--tls-cert", cert], capsys)
    assert f"--tls-cert {cert} with --tls-key {ca}" in one_line_error(
        ["--scheduler", at, "--tls-ca-file", ca, "--tls-cert", cert, "--tls-key", ca], capsys)
    assert "is a TLS scheduler: give --tls-ca-file" in one_line_error(["--scheduler", at],
                                                                      capsys)


def test_wrong_ca_is_one_line(cluster, tmp_path, capsys):
    """Certificates of another CA: the scheduler's certificate is refused, in one line."""
    address, _, _ = cluster
    other = make_tls_files(tmp_path)
    err = one_line_error(["--scheduler", address, "--tls-ca-file", str(other["ca"]),
                          "--tls-cert", str(other["client"]),
                          "--tls-key", str(other["client-key"])], capsys)
    assert "cannot reach the Dask scheduler" in err


def test_scheduler_without_workers_is_one_line(monkeypatch, capsys, tmp_path):
    """A scheduler that has no worker for the time-to-live (short here): one line."""
    import dask
    from distributed import LocalCluster
    monkeypatch.setenv("POSDATA_WORKER_TTL", "1")
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty:
        start = time.monotonic()
        err = one_line_error(["--scheduler", empty.scheduler_address], capsys)
    assert "has had no worker for 1 s" in err
    # idle ~2 s (the 1 s time-to-live, looked at every second), as under load: a wall clock's
    # deadline. The bound catches the default time-to-live (60 s) in place of the one given.
    assert time.monotonic() - start < 30


@pytest.mark.slow
def test_scheduler_stopped_mid_run_is_one_line(tmp_path):
    """SIGSTOP the scheduler of a cluster mid-count: the run ends in one line within its bound
    (a time-to-live of 1 s here), not waiting on the scheduler for ever."""
    address = f"tcp://127.0.0.1:{free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
             "env": dict(os.environ, DASK_TEMPORARY_DIRECTORY=str(tmp_path))}
    scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port",
                                  address.rsplit(":", 1)[1], "--no-dashboard"], **quiet)
    worker = subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-dashboard"],
                              **quiet)
    posdata = os.path.join(os.path.dirname(sys.executable), "posdata")
    try:
        from distributed import Client
        with Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
        run = subprocess.Popen([posdata, "perft", "--depth", "5", "--scheduler", address],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, POSDATA_WORKER_TTL="1"))
        time.sleep(3)  # into the count (some 30 s of work: it holds wherever the stop lands)
        assert run.poll() is None, "the count ended before the stop: make it larger"
        os.kill(scheduler.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            out, err = run.communicate(timeout=60)  # a hang guard
        finally:
            if run.poll() is None:
                run.kill()
        # idle a few seconds (the 1 s time-to-live), as under load: a wall clock's deadline;
        # the bound catches the default time-to-live (60 s) in place of the one given
        assert time.monotonic() - stopped < 30
        assert run.returncode == 2
        assert err == f"posdata: error: the Dask scheduler at {address} has not answered for 1 s\n"
    finally:
        os.kill(scheduler.pid, signal.SIGKILL)
        scheduler.wait(timeout=30)
        worker.terminate()
        worker.wait(timeout=30)
