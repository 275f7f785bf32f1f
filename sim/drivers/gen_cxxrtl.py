"""The compiled model at run time: ctypes loads the shared library that sim.models.cxxrtl made
(the gateware's CXXRTL model with the C entry points of sim/models/gen_entry.cc) and calls one
function per generation, so Python pays one call per generation instead of one per clock."""

import ctypes

from posdata.engine.rules.defs import MAX_MOVES
from posdata.hdl.common.contract import DEFAULT_LAYOUT, castling_word
from posdata.hdl.image.variant import hardware_name

from ..models.cxxrtl import build_library
from .compiled_model import CompiledModel, i32, pointer, u32, u64, vp
from .interface import (
    Generation,
    MoveOverflowError,
    ShadowBoard,
    VariantCheck,
    WatchdogError,
    position_inputs,
)


def model_params(layout: str | None = None, variant: str = "chess") -> dict | None:
    """The generator model's build parameters; the default layout and chess's tables need none
    (one cache entry either way)."""
    params = {}
    if layout not in (None, DEFAULT_LAYOUT):
        params["layout"] = layout
    if hardware_name(variant) != "chess":
        params["variant"] = hardware_name(variant)
    return params or None


class CxxrtlGenerator(CompiledModel):
    """Same interface as PysimGenerator: ``generate(board) -> Generation``. ``capacity`` is the
    size of the move buffer (tests make it small to see an overflow); ``variant`` (an
    engine.rules.variants name) the tables the model loads (one compiled library per
    ROM geometry, each variant's tables an image it loads: sim.models.memory_images; Chess960
    runs on chess's)."""

    MODEL = "the compiled (CXXRTL) move generator"
    SIGNATURES = {
        "posdata_clocks": ([vp], u64),
        "posdata_spin": ([vp, u64], u64),
        "posdata_generate": ([vp, ctypes.c_char_p, i32, u32, u32, u64, u32, u32, pointer(u32),
                              i32, i32, pointer(u32)], i32),
    }

    def __init__(self, watchdog: int = 20_000, library: str | None = None, verbose=True,
                 capacity: int = MAX_MOVES, layout: str | None = None, variant: str = "chess"):
        self.check_variant = VariantCheck(variant)
        if library is None:
            library = build_library(verbose=verbose, params=model_params(layout, variant))
        self.watchdog = watchdog
        super().__init__(library)
        self.shadow = ShadowBoard()
        self.capacity = capacity
        self._moves = (u32 * capacity)()
        self._cycles = u32()
        self._castles, self._castling = None, 0

    @property
    def clocks(self) -> int:
        """Clock cycles simulated so far (board writes and idle cycles included)."""
        return self.lib.posdata_clocks(self.handle)

    def spin(self, board, clocks: int) -> int:
        """Load ``board`` and run back-to-back generations of it for ``clocks`` clocks in the
        native loop (a speed measurement); returns the generations completed."""
        self.generate(board)
        return self.lib.posdata_spin(self.handle, clocks)

    def generate(self, board) -> Generation:
        self.check_variant(board)
        writes = self.shadow.diff(board)
        packed = bytes(v for w in writes for v in w)
        i = position_inputs(board)
        # The entry point stores at most `capacity` moves but counts them all.
        if board.castles is not self._castles:  # the same records for a whole game
            self._castles, self._castling = board.castles, castling_word(board.castles)
        n = self.lib.posdata_generate(
            self.handle, packed, len(writes), i["side"], i["castle"], self._castling,
            i["ep_valid"], i["ep_sq"], self._moves,
            self.capacity, self.watchdog, ctypes.byref(self._cycles))
        if n < 0:
            raise WatchdogError(f"generation did not finish within {self.watchdog} cycles")
        if n > self.capacity:
            raise MoveOverflowError(
                f"the gateware reported {n} moves in one generation, more than the "
                f"{self.capacity} the move buffer holds (the moves of any position fit in "
                f"{MAX_MOVES}): is the design broken?")
        return Generation(self._moves[:n], self._cycles.value, len(writes))
