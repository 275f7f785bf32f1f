"""What the benches share: their results as JSON for `make measurements` (bench/measure.py).

Each bench prints its tables for a person and, given ``--json FILE``, also writes what it
measured to FILE, whole (a temp file renamed over it), so a run cut short leaves no half file.
"""

import json
import os


def add_json_option(parser) -> None:
    parser.add_argument("--json", metavar="FILE",
                        help="also write the results to FILE as JSON (the text is unchanged)")


def write_json(path: str | None, data: dict) -> None:
    """``data`` to ``path`` as JSON (nothing when ``path`` is None)."""
    if not path:
        return
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
