"""The make-unmake check can fail: with unmake forgetting to restore the en passant square (the
thread's fault seam, as tests/hdl/chip/test_chip_faults.py uses it), the bounded check finds a
counterexample and names its VCD (about 10 s)."""

import posdata.hdl.chip.make_unmake

from .checks import BY_NAME, run


def test_unmake_that_forgets_the_en_passant_square_is_caught(monkeypatch):
    def forgetful(undo, rights, ep_valid, ep_sq):
        return [rights.eq(undo.rights)]
    monkeypatch.setattr(posdata.hdl.chip.make_unmake, "restore_after_unmake", forgetful)
    result = run(BY_NAME["make-unmake"], name="make-unmake-fault")
    assert result.status == "FAIL", result.describe()
    assert result.vcd is not None and result.vcd.exists(), result.describe()
    assert "counterexample: " in result.describe()
