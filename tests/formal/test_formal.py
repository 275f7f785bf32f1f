"""The fast formal set under pytest (``make test``): one test per check, failing with the
counterexample's VCD path. ``make formal-full`` (tests/formal/run.py --full) runs the rest."""

import shutil

import pytest

from . import sby
from .checks import FAST, run


@pytest.mark.skipif(shutil.which("yowasp-sby", path=sby.tool_env()["PATH"]) is None,
                    reason="yowasp-sby is not installed (pip install -e '.[dev]')")
@pytest.mark.parametrize("check", FAST, ids=[c.name for c in FAST])
def test_formal(check):
    result = run(check)
    assert result.passed, result.describe()
