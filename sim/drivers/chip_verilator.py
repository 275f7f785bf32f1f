"""The perft chip under Verilator: its C entry points (sim/models/chip_entry.cc) are the CXXRTL
chip's, so the CXXRTL chip's driver runs it; the model is another simulator's build of the
same gateware, with the same clocks to the clock."""

from .chip_cxxrtl import ChipModel


class VerilatorChip(ChipModel):
    """``perft(board, depth)`` and ``list_moves`` on the Verilator model of the chip (built and
    cached on first use by sim.models.verilator, one library per engines, layout and RTL:
    variants that differ only in memory contents share it, each loading its own image,
    sim.models.memory_images)."""

    MODEL = "the Verilator model of the perft chip"

    @staticmethod
    def build(verbose: bool, params: dict) -> str:
        from ..models.verilator import build_library
        return build_library(verbose=verbose, design="chip", params=params)
