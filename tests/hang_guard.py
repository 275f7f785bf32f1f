"""A call that could hang, run under a hang guard (issue 43 item 6): the test waits for the call to
return, however long a busy machine makes it; the guard, at least ten times what the call takes
on an idle machine, only turns a hang into a failure instead of a suite that never ends."""

import threading

import pytest


def guarded(function, guard: float, what: str, on_hang=None):
    """``function()``'s result (or its exception), run on a daemon thread; a test failure naming
    ``what`` if it has not returned within ``guard`` seconds. ``on_hang()`` is then called
    first (to stop the runaway call, e.g. a search's ``stop``), and the thread is left to it."""
    box = {}

    def run():
        try:
            box["value"] = function()
        except BaseException as e:  # noqa: BLE001  (raised again on the test's thread)
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True, name=f"guarded: {what}")
    thread.start()
    thread.join(guard)
    if thread.is_alive():
        if on_hang is not None:
            on_hang()
        pytest.fail(f"{what}: still running after the {guard} s hang guard")
    if "error" in box:
        raise box["error"]
    return box.get("value")
