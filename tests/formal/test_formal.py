"""The fast formal set under pytest (``make test``, but for ``NOT_IN_TEST``, which ``-m slow`` and
``make formal`` run): one test per check, failing with the counterexample's VCD path.
``make formal-full`` (tests/formal/run.py --full) runs the rest."""

import shutil

import pytest

from . import sby
from .checks import FAST, run

#: in ``make formal`` but not in ``make test``: the CI budget (cover-moves is ~70-100 s, the
#: costliest check; the rest of the fast set together take about as long)
NOT_IN_TEST = {"cover-moves"}
PARAMS = [pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.name in NOT_IN_TEST else [])
          for c in FAST]


@pytest.mark.skipif(shutil.which("yowasp-sby", path=sby.tool_env()["PATH"]) is None,
                    reason="yowasp-sby is not installed (pip install -e '.[dev]')")
@pytest.mark.parametrize("check", PARAMS)
def test_formal(check):
    result = run(check)
    assert result.passed, result.describe()
