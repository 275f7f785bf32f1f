"""Where a build came from, for its report: the source's commit and the build's time. A
projected hardware time names the report its clock came from; a report that names its commit
says which gateware that clock was measured on."""

import os
import subprocess
import time

from ..common import children

#: what a build is made from: a change elsewhere (the measurements a bench writes into docs/
#: and the README while a run of them goes on) does not make its commit ``-dirty``
SOURCES = (":/engine", ":/hdl", ":/sim", ":/pyproject.toml")


def source_commit(where: str | None = None) -> str | None:
    """The commit of the checkout posdata runs from (or ``where``), ``-dirty`` when its
    sources have changes; None for an installed wheel, or no git."""
    here = where or os.path.dirname(os.path.abspath(__file__))
    try:
        head = children.run(["git", "-C", here, "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = children.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no",
                              "--", *SOURCES], capture_output=True, text=True, timeout=10)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.returncode == 0 and dirty.stdout.strip()
                                  else "")


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
