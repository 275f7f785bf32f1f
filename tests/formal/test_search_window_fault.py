"""The search thread's window check can fail: with Return's cutoff line stuck at 0 (the control
built with a faulty ``fails_high``, as tests/hdl/search/test_search_faults.py builds the
thread), a child whose score reaches the parent's beta raises the parent's alpha to it, and the
bounded check of the same claims finds the counterexample from reset (the root's first child,
made and left at once, is back in Return at step 12; the root's alpha reaches its beta at step
13)."""

import re
from pathlib import Path

from amaranth import Const

from .checks import BY_NAME, Check, run
from .harness_search import SearchHarness


def test_a_stuck_cutoff_breaks_the_window():
    deep = BY_NAME["search-window-deep"]
    check = Check("search-window-fault",
                  lambda: SearchHarness("window-bounded", lambda score, beta: Const(0)),
                  "bmc", deep.depth, False, deep.what)
    result = run(check)
    assert result.status == "FAIL", result.describe()
    assert result.vcd is not None and result.vcd.exists(), result.describe()
    # the assertion that failed, by its source line (sby names it by file and line)
    (line,) = set(re.findall(r"failed assertion \S+ at \S+harness_search\.py:(\d+)",
                             result.log))
    source = (Path(__file__).parent / "harness_search.py").read_text().splitlines()
    assert "alpha < beta in the current ply's record" in source[int(line) - 1]
