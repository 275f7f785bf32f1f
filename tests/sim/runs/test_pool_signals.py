"""``posdata perft -j 2`` in a subprocess, under signals: a worker stopped with SIGSTOP is noticed
(its heartbeats stop; a short time-to-live is set here) and the count ends exact, or with one
line, within a bound; Ctrl-C is one line; neither leaves a process or a file behind."""

import os
import signal
import subprocess
import sys
import time

import pytest

from posdata.engine.rules.positions import BY_NAME
from tests.signals import sigint_default
from tests.sim.runs.procs import alive, children, listening, wait_computing

POSDATA = os.path.join(os.path.dirname(sys.executable), "posdata")


def start(tmp_path, argv, **env):
    """The run, in its own session (a signal to its group reaches nothing else), with its own
    temporary directory; and its two workers once they listen (they register with the
    scheduler next, and the jobs follow)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([POSDATA, "perft", "-j", "2", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=sigint_default,
                            env=dict(os.environ, TMPDIR=str(tmp), **env))
    deadline = time.monotonic() + 60  # a hang guard: idle they listen within ~1.3 s
    while True:  # two worker processes (not the resource tracker), each serving
        workers = children(proc.pid, b"spawn_main")
        if len(workers) == 2 and all(listening([w]) for w in workers):
            break
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no workers within a minute"
        time.sleep(0.05)
    return proc, workers, tmp


def test_stopped_worker_is_noticed(tmp_path):
    """SIGSTOP one worker: the scheduler misses its heartbeats for the time-to-live, has its
    nanny replace it and reruns its jobs; the count is exact (or the run fails with one line)
    well within the bound, and the stopped process is gone."""
    initial = BY_NAME["initial"]  # depth 4: some 3 s of work, well past the stop
    proc, workers, tmp = start(tmp_path, ["--depth", "4", "--quiet"], POSDATA_WORKER_TTL="1")
    wait_computing(workers[:1])  # at its jobs (idle ~0.3 s after it listens)
    os.kill(workers[0], signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        out, err = proc.communicate(timeout=120)  # a hang guard: idle the run ends ~8 s on
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        if alive(workers[0]):
            os.kill(workers[0], signal.SIGKILL)
            raise AssertionError("the stopped worker outlived the run")
    took = time.monotonic() - stopped
    if proc.returncode == 0:
        assert f"nodes    {initial.counts[3]}\n" in out, out
    else:
        assert proc.returncode == 2 and err.count("\n") == 1, err
    # the worker's jobs could not finish while it was stopped: they waited for its time-to-live
    assert took >= 5, f"ended {took:.1f} s after the stop: did the stop reach a running job?"
    assert not [w for w in workers if alive(w)]
    assert os.listdir(tmp) == []  # the run's scratch directory removed


@pytest.mark.parametrize("kill, code, said", [
    (os.killpg, 130, "posdata: interrupted\n"),  # Ctrl-C: the run's process group
    (os.kill, 143, ""),  # `kill PID`: the run alone
], ids=["SIGINT", "SIGTERM"])
def test_interrupt_is_one_line(tmp_path, kill, code, said):
    """Ctrl-C (SIGINT to the terminal's process group: the run and its workers) once the
    workers are up: "posdata: interrupted", exit 130, no worker traceback, nothing left.
    SIGTERM to the run: the workers closed, exit 143, nothing said (no resource tracker's
    warning of leaked semaphores either: stderr is read until the tracker has ended too)."""
    proc, workers, tmp = start(tmp_path, ["--depth", "6", "--quiet"])
    wait_computing(workers)  # the count under way (idle ~0.3 s after they listen)
    kill(proc.pid, signal.SIGINT if code == 130 else signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=30)  # a hang guard: idle the run ends in ~1 s
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, err) == (code, said)
    deadline = time.monotonic() + 10  # a hang guard: idle the workers are gone at once
    while [w for w in workers if alive(w)]:
        assert time.monotonic() < deadline, "workers outlived the run"
        time.sleep(0.05)
    assert os.listdir(tmp) == []


@pytest.mark.slow
def test_workers_stopped_while_starting(tmp_path):
    """SIGSTOP both workers as soon as they exist: their nannies would wait for them for ever;
    the run gives up within its start bound (20 s at the least), in one line, killing them."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([POSDATA, "perft", "-j", "2", "--depth", "3", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            env=dict(os.environ, TMPDIR=str(tmp), POSDATA_WORKER_TTL="1"))
    deadline = time.monotonic() + 60  # a hang guard: idle they exist within ~1 s
    while len(workers := children(proc.pid, b"spawn_main")) < 2:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)
    try:
        out, err = proc.communicate(timeout=240)  # a hang guard: idle the run ends at ~20 s
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    if proc.returncode != 0:  # the workers were stopped before they registered (usually)
        assert proc.returncode == 2, err
        assert err == "posdata: error: the local Dask workers did not start within 20 s\n"
    assert not [w for w in workers if alive(w)]
    assert os.listdir(tmp) == []
