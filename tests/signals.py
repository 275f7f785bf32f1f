"""Starting a child that a test then signals as a terminal would, and what a process's signal
dispositions are.

A child inherits ignored signals and the signal mask across exec, and Python keeps an ignored
SIGINT ignored (no KeyboardInterrupt). A suite started in the background (``make test &`` from
a script, a CI step, ``nohup ... &``) has SIGINT ignored, and so would every child it starts: a
test that sends one SIGINT would wait for ever. So such a test starts its child with
``preexec_fn=sigint_default``, whatever this suite inherited.
"""

import signal


def sigint_default() -> None:
    """``preexec_fn``: SIGINT as a terminal's foreground process has it (its default action,
    and so Python's KeyboardInterrupt), and not blocked."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def sigint_ignored() -> None:
    """``preexec_fn``: SIGINT ignored, as a background job of a non-interactive shell starts."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ignores(pid: int, sig: int) -> bool:
    """Whether process ``pid`` ignores ``sig`` (its SigIgn mask in /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("SigIgn:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    raise AssertionError(f"no SigIgn line for process {pid}")


def dispositions() -> tuple[dict, set]:
    """This process's signal handlers (those Python can set) and the main thread's mask."""
    handlers = {}
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            handlers[sig] = signal.getsignal(sig)
        except (OSError, ValueError):
            continue
    return handlers, signal.pthread_sigmask(signal.SIG_BLOCK, ())


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:  # a real-time signal between SIGRTMIN and SIGRTMAX
        return f"signal {int(sig)}"
