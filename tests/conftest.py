"""Shared helpers of the engine tests: how a move-set mismatch is reported; and every test's
guard that it leaves this process's signal handlers and mask as it found them."""

import signal
import threading

import pytest

from posdata.engine.rules.defs import move_uci
from tests.signals import dispositions, signal_name


@pytest.fixture(autouse=True)
def signal_dispositions_kept():
    """Fails a test that leaves a signal handler or the mask changed, and puts them back: the
    children of every later test would inherit them (an ignored or blocked SIGINT, say)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers, mask = dispositions()
    yield
    handlers_after, mask_after = dispositions()
    changed = [s for s, h in handlers_after.items() if handlers.get(s) != h]
    for sig in changed:
        if handlers.get(sig) is not None:  # None: not set from Python, so not by a test
            signal.signal(sig, handlers[sig])
    if mask_after != mask:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    left = [f"the handler of {', '.join(map(signal_name, changed))}"] if changed else []
    if mask_after != mask:
        left.append(f"the mask ({', '.join(map(signal_name, sorted(mask_after))) or 'none'} "
                    f"blocked, not {', '.join(map(signal_name, sorted(mask))) or 'none'})")
    if left:
        pytest.fail(f"the test left {' and '.join(left)} changed")


def uci_set(moves) -> set[str]:
    """Move words (ints), python-chess moves (anything with ``uci()``) or UCI strings as a set of
    UCI strings."""
    return {m if isinstance(m, str) else m.uci() if hasattr(m, "uci") else move_uci(m)
            for m in moves}


def move_set_diff(fen: str, got, want, got_name: str = "ours", want_name: str = "oracle") -> str:
    """An empty string when the two move collections hold the same UCI moves, else a report
    naming the position and the missing and extra moves (as seen from ``got``)."""
    got_s, want_s = uci_set(got), uci_set(want)
    if got_s == want_s:
        return ""
    missing = sorted(want_s - got_s)
    extra = sorted(got_s - want_s)
    return (f"move sets differ ({got_name} vs {want_name}) in {fen}\n"
            f"  missing from {got_name}: {' '.join(missing) or '-'}\n"
            f"  extra in {got_name}:     {' '.join(extra) or '-'}")
