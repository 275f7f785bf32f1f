"""Lowest set bit of a vector, by binary search: the low half is empty, so the answer's top
bit is 1 and the search continues in the high half, and so on down to one bit. Six levels of
2:1 muxes for 64 bits, built from contiguous slices only, which both simulators (Amaranth's and
CXXRTL) evaluate in a handful of word operations."""

from amaranth import Cat, Mux, Signal


def lowest_set_bit(m, vector, name="lowest"):
    """Return ``(any, index)``: whether any bit of ``vector`` is set, and the lowest one's index.
    ``len(vector)`` must be a power of two. Adds its logic to module ``m``'s comb domain."""
    width = len(vector)
    assert width > 1 and width & (width - 1) == 0, "width must be a power of two"
    bits = []
    window = vector
    level = 0
    while len(window) > 1:
        half = len(window) // 2
        high = Signal(name=f"{name}_bit{level}")
        m.d.comb += high.eq(~window[:half].any())
        narrower = Signal(half, name=f"{name}_window{level}")
        m.d.comb += narrower.eq(Mux(high, window[half:], window[:half]))
        bits.append(high)
        window = narrower
        level += 1
    index = Signal(len(bits), name=f"{name}_index")
    m.d.comb += index.eq(Cat(*reversed(bits)))
    return vector.any(), index
