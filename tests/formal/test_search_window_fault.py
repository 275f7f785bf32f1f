"""The search thread's window check can fail: with Return's cutoff line stuck at 0 (the seam
tests/hdl/search/test_search_faults.py uses), a child whose score reaches the parent's beta
raises the parent's alpha to it, and the bounded check of the same claims finds the
counterexample from reset (a quiescence child that fails low is back in Return at step 14)."""

import re
from pathlib import Path

from amaranth import Const

import posdata.hdl.search.search_thread

from .checks import BY_NAME, Check, run


def test_a_stuck_cutoff_breaks_the_window(monkeypatch):
    monkeypatch.setattr(posdata.hdl.search.search_thread, "fails_high",
                        lambda score, beta: Const(0))
    deep = BY_NAME["search-window-deep"]
    check = Check("search-window-fault", deep.harness, "bmc", 16, False, deep.what)
    result = run(check)
    assert result.status == "FAIL", result.describe()
    assert result.vcd is not None and result.vcd.exists(), result.describe()
    # the assertion that failed, by its source line (sby names it by file and line)
    (line,) = set(re.findall(r"failed assertion \S+ at \S+harness_search\.py:(\d+)",
                             result.log))
    source = (Path(__file__).parent / "harness_search.py").read_text().splitlines()
    assert "alpha < beta in the current ply's record" in source[int(line) - 1]
