"""The ``-j N`` workers (sim.runs.pool_local, opened as ``-j 2`` opens them): another process
on the host cannot run code on them, and nothing of theirs serves HTTP (Dask's dashboard and the
workers' HTTP servers, which serve logs and call stacks even with the dashboard off)."""

import http.server
import json
import os
import socket
import subprocess
import sys
import threading

import pytest

from posdata.sim.runs.pool import close_client, open_client
from tests.sim.runs.procs import children, listening

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def this_and_children() -> set[int]:
    return {os.getpid(), *children(os.getpid())}


def answers_http(host: str, port: int) -> bool:
    # timeout: a hang guard (idle an HTTP server answers within ms; a Dask server says nothing
    # to it and resets it at once)
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
        try:
            return s.recv(5) == b"HTTP/"
        except OSError:  # reset or timed out: no HTTP
            return False


@pytest.fixture(scope="module")
def run():
    """What ``-j 2`` opens, and the sockets that appeared with it."""
    before = listening(this_and_children())
    client = open_client(2)
    try:
        client.wait_for_workers(2, timeout=60)  # a hang guard: idle ~1.5 s
        yield client, listening(this_and_children()) - before
    finally:
        close_client(client)


def addresses(client) -> tuple[str, list[str]]:
    workers = client.scheduler_info()["workers"]
    others = list(workers) + [w["nanny"] for w in workers.values()]
    return client.scheduler.address, others


def test_only_dask_listeners_on_loopback_and_no_http(run):
    client, new = run
    scheduler, others = addresses(client)
    expected = {(a.split("://")[1].rsplit(":", 1)[0], int(a.rsplit(":", 1)[1]))
                for a in [scheduler, *others]}
    assert all(a.startswith("tls://127.0.0.1:") for a in [scheduler, *others])
    assert new == expected  # scheduler, two workers, two nannies: no HTTP server beside them
    assert not [port for host, port in new if answers_http(host, port)]


def test_http_probe_sees_an_http_server():
    """The probe above can fail: it sees a plain HTTP server."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        assert answers_http(*server.server_address)
    finally:
        server.shutdown()
        server.server_close()


def test_stranger_cannot_run_code(run, tmp_path):
    """A process without the run's credentials fails every way it tries; with them (the
    control) it runs code on the scheduler's workers and through every worker and nanny."""
    client, _ = run
    scheduler, others = addresses(client)
    security = client.security
    credentials = tmp_path / "credentials.json"
    credentials.touch(mode=0o600)
    credentials.write_text(json.dumps({
        "require_encryption": True, "tls_ca_file": security.tls_ca_file,
        "tls_client_cert": security.tls_client_cert, "tls_client_key": security.tls_client_key}))
    proc = subprocess.run([sys.executable, "-m", "tests.sim.runs.stranger", scheduler, *others,
                           "--credentials", str(credentials)],
                          cwd=ROOT, capture_output=True, text=True,
                          timeout=120)  # a hang guard: idle the 30 attempts take ~1 s
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(proc.stdout)
    worker_pids = set(map(str, client.run(os.getpid).values()))
    controls = {k: v for k, v in results.items() if k.endswith("with the run's credentials")}
    strangers = {k: v for k, v in results.items() if k not in controls}
    assert len(controls) == 5 and len(strangers) == 25
    for attempt, outcome in controls.items():
        assert outcome.isdigit(), f"{attempt}: {outcome}"
    assert results["scheduler with the run's credentials"] in worker_pids
    for attempt, outcome in strangers.items():
        assert outcome.startswith("error: "), f"{attempt} ran code: pid {outcome}"
