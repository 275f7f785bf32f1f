"""The Verilator model of the exported Verilog at run time: its C entry points
(sim/models/gen_entry.cc) are the CXXRTL model's, so the CXXRTL driver loads it."""

from posdata.engine.rules.capabilities import refusal

from ..models.toolchain import ToolchainError
from .gen_cxxrtl import CxxrtlGenerator


class VerilatorGenerator(CxxrtlGenerator):
    """``generate(board) -> Generation`` on the Verilator model (built and cached on first use
    by sim.models.verilator). Chess's tables only (Chess960 runs on them)."""

    MODEL = "the Verilator model of the move generator"

    def __init__(self, verbose=True, library: str | None = None, variant: str = "chess",
                 **options):
        problem = refusal(variant, "gen-verilator")
        if problem:
            raise ToolchainError(problem)
        if library is None:
            from ..models.verilator import build_library
            library = build_library(verbose=verbose)
        super().__init__(library=library, variant=variant, **options)
