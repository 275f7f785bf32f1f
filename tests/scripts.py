"""The repository's scripts (bench/, not a package) loaded as modules for their tests."""

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"


def load_script(path: Path, name: str | None = None):
    """The script at ``path`` as a module (named ``<stem>_under_test``, or ``name``), its folder
    first on the path while it loads, as when Python runs it (its neighbours import by bare
    name)."""
    import sys
    spec = importlib.util.spec_from_file_location(name or f"{path.stem}_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def load_bench(name: str, monkeypatch):
    """bench/``name``.py as a module; a bench imports its neighbours by bare name, so bench/
    goes on the path for the test."""
    monkeypatch.syspath_prepend(str(BENCH))
    return load_script(BENCH / f"{name}.py")
