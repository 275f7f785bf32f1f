"""Lowest set bit of a vector: isolate it with ``v & -v`` (one carry chain on an FPGA), then
encode the one-hot result: index bit k is set when the one-hot bit lies in a position whose
bit k is set (an OR tree per index bit). Written with whole-vector operations and one
intermediate signal, so Amaranth's Python simulator evaluates it in a handful of steps."""

from amaranth import Cat, Const, Signal


def lowest_set_bit(m, vector, name="lowest"):
    """Return ``(any, index)``: whether any bit of ``vector`` is set, and the lowest one's index.
    Adds its logic to module ``m``'s comb domain."""
    width = len(vector)
    onehot = Signal(width, name=f"{name}_onehot")
    m.d.comb += onehot.eq(vector & -vector)
    bits = max(1, (width - 1).bit_length())
    masks = [Const(sum(1 << i for i in range(width) if i >> k & 1), width) for k in range(bits)]
    index = Signal(bits, name=f"{name}_index")
    m.d.comb += index.eq(Cat(*((onehot & mask).any() for mask in masks)))
    return vector.any(), index
