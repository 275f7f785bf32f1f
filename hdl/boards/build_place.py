"""A board build runs in a directory of its own beside the final one and is moved into place
only when complete, its report last: the final directory holds one complete build (the
bitstream and the report that describes it) or none, whatever becomes of a build under way.
Every hardware time is quoted at a report's clock, so a report beside another build's files
would be quoted as current (sim.cli.clock reads only ``report.json`` in the final directory)."""

import json
import os
import shutil
import tempfile

REPORT = "report.json"
#: where a failed build's files stay for their logs (one, the latest)
FAILED_SUFFIX = ".failed"


def start(final: str) -> str:
    """A fresh directory for a build whose place is ``final``, on the same file system (a
    rename moves it into place)."""
    parent, name = os.path.split(os.path.abspath(final))
    os.makedirs(parent, exist_ok=True)
    return tempfile.mkdtemp(prefix=f".{name}.building-", dir=parent)


def previous(final: str) -> str:
    """What an unfinished build left in place, for its message."""
    if os.path.isfile(os.path.join(final, REPORT)):
        return f"the previous build in {final} is untouched"
    return f"{final} holds no complete build"


def install(work: str, final: str, report: dict) -> None:
    """Move the build in ``work`` into ``final`` and write ``report`` there last."""
    os.makedirs(final, exist_ok=True)
    # the old report goes first: while the files are moving, no report vouches for them
    try:
        os.remove(os.path.join(final, REPORT))
    except FileNotFoundError:
        pass
    for name in sorted(os.listdir(work)):
        path = os.path.join(work, name)
        if os.path.isfile(path) and name != REPORT:
            os.replace(path, os.path.join(final, name))
    partial = os.path.join(final, f".{REPORT}.{os.getpid()}.tmp")
    with open(partial, "w") as f:
        json.dump(report, f, indent=2)
    os.replace(partial, os.path.join(final, REPORT))
    shutil.rmtree(work, ignore_errors=True)


def keep_failed(work: str, final: str) -> str:
    """Keep a failed build's files (their logs say why) beside ``final``; returns where."""
    failed = os.path.abspath(final).rstrip(os.sep) + FAILED_SUFFIX
    shutil.rmtree(failed, ignore_errors=True)
    try:
        os.replace(work, failed)
    except OSError:
        return work
    return os.path.relpath(failed) if not os.path.isabs(final) else failed


def abandon(work: str) -> None:
    shutil.rmtree(work, ignore_errors=True)
