"""The ``-j N`` workers: a Dask cluster on this host that only this process can use.

- Mutual TLS with credentials made for the run (``Security.temporary()``: a key and a self-signed
  certificate held in memory, passed to the workers through the pipe that starts them; Dask
  writes them for a moment to a file in a private temporary directory to load them): anything
  on the host can connect to 127.0.0.1, but a peer without the run's certificate is refused
  before a message is read, so it cannot submit code, read results or pose as a worker.
- Every listener on 127.0.0.1, and no HTTP server at all: Dask starts one on the scheduler
  (8787) and on each worker even with the dashboard off, serving logs, call stacks and
  metrics to anyone on the host.
- A private scratch directory (mode 0700) per run, removed when the run ends; one left by a
  killed run is removed by the next run.
- A worker that stops answering (SIGSTOP, a hung host call) misses its heartbeats for
  ``WORKER_TTL`` seconds; the scheduler then has its nanny restart it, and its jobs rerun.
  Workers that have not started within that time (at least START_TIMEOUT) fail the start.
- Ctrl-C is the parent's: the workers are started with SIGINT blocked, so that it does not
  reach them as a KeyboardInterrupt and a traceback each; the parent closes them. A SIGINT the
  parent was started ignoring (a background job) stays ignored, by it and by the workers.
- SIGTERM to the parent closes the workers too, then ends it with status 143 (as a shell reports
  a process SIGTERM killed), quietly: killed outright, it would leave the nannies' named
  semaphores to multiprocessing's resource tracker, which unlinks them with a warning on
  stderr ("There appear to be 12 leaked semaphore objects").
"""

import contextlib
import fcntl
import logging
import math
import os
import shutil
import signal
import stat
import tempfile
import threading
import time
import weakref
from multiprocessing import resource_tracker

from distributed import Nanny, Scheduler, SpecCluster, Worker
from distributed.security import Security
from distributed.system import MEMORY_LIMIT

from .pool_error import PoolError

#: how long a worker may go without a heartbeat before its jobs are moved (seconds);
#: ``$POSDATA_WORKER_TTL`` overrides it (tests use a few seconds; Dask's floor is 5)
WORKER_TTL = 60
#: scratch directories are named so, in the system's temporary directory
SCRATCH_PREFIX = "posdata-dask-"
#: the least time the workers are given to start (a short time-to-live in tests included)
START_TIMEOUT = 20
#: seconds a worker is given to stop before it is killed
KILL_GRACE = 1
HOST = "127.0.0.1"
#: the exit status of a run that SIGTERM ended while it had local workers
TERMINATED = 128 + signal.SIGTERM


class QuietScheduler(Scheduler):
    """A scheduler with no HTTP server (the dashboard off leaves one serving on 8787)."""

    def start_http_server(self, *args, **kwargs):
        pass


class QuietWorker(Worker):
    """A worker with no HTTP server."""

    def start_http_server(self, *args, **kwargs):
        pass


class LocalNanny(Nanny):
    """A nanny that gives its worker KILL_GRACE seconds to stop before SIGKILL (Dask gives 4):
    the jobs are pure computation, with nothing to save, and a stopped worker cannot stop.
    Each is listed in ``made`` (the cluster lists a nanny only once its worker has started)."""

    made = weakref.WeakSet()
    made_lock = threading.Lock()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        with LocalNanny.made_lock:
            LocalNanny.made.add(self)

    async def kill(self, timeout: float = KILL_GRACE / 0.8, reason: str = "nanny-kill"):
        return await super().kill(timeout=timeout, reason=reason)

    async def close(self, timeout: float = KILL_GRACE / 0.8, reason: str = "nanny-close"):
        return await super().close(timeout=timeout, reason=reason)


def worker_ttl() -> float:
    """``$POSDATA_WORKER_TTL`` seconds, else WORKER_TTL; ValueError (one line) for a value that
    is not a number of seconds from 1 to a day."""
    value = os.environ.get("POSDATA_WORKER_TTL")
    if not value:
        return WORKER_TTL
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 1 <= seconds <= 86400:  # also refuses nan
        raise ValueError(f"POSDATA_WORKER_TTL must be seconds from 1 to 86400, not {value!r}")
    return seconds


class LocalWorkers:
    """``processes`` one-thread workers under nannies, their scheduler in this process, all
    on 127.0.0.1 over mutual TLS. ``.client()`` is this run's client; ``.close()`` stops the
    workers and removes the scratch directory."""

    def __init__(self, processes: int):
        ttl = worker_ttl()
        self.security = Security.temporary()
        sweep_scratch()
        self.cluster = self._lock = self._sigterm = None
        self.scratch = tempfile.mkdtemp(prefix=SCRATCH_PREFIX)  # mode 0700
        try:
            self._sigterm = exit_on_sigterm()
            # Held while the run lives: the next run removes a directory whose lock is free.
            self._lock = os.open(os.path.join(self.scratch, "lock"), os.O_RDWR | os.O_CREAT,
                                 0o600)
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._start(processes, ttl)
        except BaseException:
            self.close()
            raise

    def _start(self, processes: int, ttl: float) -> None:
        import dask

        common = {"host": HOST, "protocol": "tls://", "security": self.security}
        scheduler = {"cls": QuietScheduler,
                     "options": {**common, "port": 0, "dashboard": False,
                                 "dashboard_address": None, "worker_ttl": ttl}}
        worker = {"cls": LocalNanny,
                  "options": {**common, "worker_class": QuietWorker, "nthreads": 1,
                              "dashboard": False, "local_directory": self.scratch,
                              "memory_limit": MEMORY_LIMIT // processes,
                              "silence_logs": logging.CRITICAL}}
        # Started here, not from the event loop: starting it unblocks SIGINT in the thread
        # that does (multiprocessing's resource tracker).
        resource_tracker.ensure_running()
        with dask.config.set({"temporary-directory": self.scratch}):
            with sigint_blocked():
                # The cluster's event-loop thread is made here and inherits the blocked
                # SIGINT; the threads it makes and the worker processes they spawn inherit it
                # in turn. A Ctrl-C meanwhile is raised as the block ends, with self.cluster
                # set to close.
                self.cluster = SpecCluster(scheduler=scheduler, worker=worker,
                                           silence_logs=logging.CRITICAL,
                                           security=self.security)
                self.cluster.scale(processes)
            self._await_workers(processes, max(ttl, START_TIMEOUT))

    def _await_workers(self, processes: int, timeout: float) -> None:
        """Until ``processes`` workers have registered with the scheduler; PoolError (one line)
        when one fails to start or they have not within ``timeout`` seconds (a worker stopped
        while it starts is waited for by its nanny for ever)."""
        from distributed.core import Status

        deadline = time.monotonic() + timeout
        while len(self.cluster.scheduler.workers) < processes:
            if any(n.status in (Status.failed, Status.closing, Status.closed)
                   for n in nannies_of(self.cluster)):
                raise PoolError("a local Dask worker failed to start")
            if time.monotonic() > deadline:
                raise PoolError(f"the local Dask workers did not start within {timeout:g} s")
            time.sleep(0.02)

    def client(self):
        from distributed import Client
        return Client(self.cluster, security=self.security)

    def close(self) -> None:
        cluster, lock, self.cluster, self._lock = self.cluster, self._lock, None, None
        sigterm, self._sigterm = self._sigterm, None
        try:
            with held(signal.SIGTERM):  # the workers closed whole first, then SIGTERM's exit
                if cluster is not None:
                    kill_unregistered(cluster)
                    cluster.close()
        finally:
            if lock is not None:
                os.close(lock)
            shutil.rmtree(self.scratch, ignore_errors=True)
            if sigterm is not None:
                signal.signal(signal.SIGTERM, sigterm)


def nannies_of(cluster) -> list[LocalNanny]:
    with LocalNanny.made_lock:
        return [n for n in LocalNanny.made if n.scheduler_addr == cluster.scheduler.address]


def kill_unregistered(cluster) -> None:
    """SIGKILL the worker processes that have not registered with the scheduler: starting, or
    stopped while starting, which their nannies would wait for, for ever, before closing."""
    registered = {ws.pid for ws in list(cluster.scheduler.workers.values())}
    for nanny in nannies_of(cluster):
        pid = nanny.pid
        if pid and pid not in registered:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def exit_on_sigterm():
    """SIGTERM raised as SystemExit(TERMINATED) in the main thread while the workers live, so
    that they are closed and the interpreter exits as usual; returns the handler to put back,
    or None when nothing changed: not the main thread (Python runs handlers there only), or
    SIGTERM not at its default (ignored, or a program's own handler, is left as it is)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None
    return signal.signal(signal.SIGTERM, _exit_terminated)


def _exit_terminated(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    raise SystemExit(TERMINATED)


@contextlib.contextmanager
def held(*signums):
    """Those of ``signums`` that this process catches (a Python handler: KeyboardInterrupt's
    for SIGINT, exit_on_sigterm's) held back while the block runs, then handed to their handler
    as it ends. Only the main thread can (Python runs handlers there); elsewhere nothing is
    held. An ignored signal stays ignored."""
    caught = {}
    if threading.current_thread() is threading.main_thread():
        caught = {s: h for s in signums if callable(h := signal.getsignal(s))}
    arrived = []
    for sig in caught:
        signal.signal(sig, lambda signum, _: arrived.append(signum))
    try:
        yield
    finally:
        for sig, handler in caught.items():
            signal.signal(sig, handler)
        if arrived:
            caught[arrived[0]](arrived[0], None)


@contextlib.contextmanager
def sigint_blocked():
    """SIGINT blocked in this thread (and so in the threads it starts), and a Ctrl-C or a
    SIGTERM that arrives meanwhile held back (held): raised as the block ends."""
    with held(signal.SIGINT, signal.SIGTERM):
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield
        finally:
            # a SIGINT pending meanwhile is taken here, by held's handler
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def sweep_scratch() -> None:
    """Remove the scratch directories of runs that ended without removing theirs (killed):
    those of this user whose lock no process holds (or with no lock after a minute)."""
    base = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(base) if n.startswith(SCRATCH_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(base, name)
        try:
            st = os.lstat(path)
            if st.st_uid != os.getuid() or not stat.S_ISDIR(st.st_mode):
                continue
            try:
                fd = os.open(os.path.join(path, "lock"), os.O_RDWR)
            except FileNotFoundError:  # killed before it took the lock, or being made
                if time.time() - st.st_mtime > 60:
                    shutil.rmtree(path, ignore_errors=True)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(path, ignore_errors=True)
            finally:
                os.close(fd)
        except OSError:
            continue  # in use by a live run, or not ours to remove
