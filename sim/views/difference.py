"""Report the first difference between two move sequences the way a chess programmer wants to
read it: the position as FEN, the first index where the sequences part, and the moves one side
has that the other lacks."""

from posdata.engine.rules.defs import FLAGS_SHIFT, Flag, move_uci


def first_difference(hw: list[int], sw: list[int]) -> int | None:
    """Index of the first differing move (or the shorter length), None if equal."""
    if hw == sw:
        return None
    for i, (a, b) in enumerate(zip(hw, sw)):
        if a != b:
            return i
    return min(len(hw), len(sw))


def describe_difference(fen: str, hw: list[int], sw: list[int], hw_name="hw", sw_name="sw",
                        uci=move_uci) -> str:
    """``uci`` names a move (a board's ``uci`` for a variant's letters and castling)."""
    i = first_difference(hw, sw)
    if i is None:
        return f"{fen}: equal"

    def at(seq):
        if i >= len(seq):
            return "(end)"
        flags = "|".join(f.name.lower() for f in Flag if seq[i] & int(f) << FLAGS_SHIFT)
        return uci(seq[i]) + (" " + flags if flags else "")
    missing = sorted(set(sw) - set(hw))
    extra = sorted(set(hw) - set(sw))
    parts = [f"FEN {fen}",
             f"first difference at index {i}: {hw_name} {at(hw)}, {sw_name} {at(sw)}"]
    if missing:
        parts.append(f"missing from {hw_name}: {' '.join(uci(m) for m in missing)}")
    if extra:
        parts.append(f"extra in {hw_name}: {' '.join(uci(m) for m in extra)}")
    if not missing and not extra:
        parts.append("same moves, different order or flags")
    return "; ".join(parts)
