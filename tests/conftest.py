"""Shared helpers of the engine tests: how a move-set mismatch is reported."""

from posdata.engine.defs import move_uci


def uci_set(moves) -> set[str]:
    """Move words (ints), python-chess moves (anything with ``uci()``) or UCI strings as a set of
    UCI strings."""
    return {m if isinstance(m, str) else m.uci() if hasattr(m, "uci") else move_uci(m)
            for m in moves}


def move_set_diff(fen: str, got, want, got_name: str = "ours", want_name: str = "oracle") -> str:
    """An empty string when the two move collections hold the same UCI moves, else a report
    naming the position and the missing and extra moves (as seen from ``got``)."""
    got_s, want_s = uci_set(got), uci_set(want)
    if got_s == want_s:
        return ""
    missing = sorted(want_s - got_s)
    extra = sorted(got_s - want_s)
    return (f"move sets differ ({got_name} vs {want_name}) in {fen}\n"
            f"  missing from {got_name}: {' '.join(missing) or '-'}\n"
            f"  extra in {got_name}:     {' '.join(extra) or '-'}")
