"""The perft chip (hdl.chip.perft_chip) as a compiled model: load a root, count perft on the
simulated gateware by itself, read the leaves, the clocks, and where each thread's clocks went.

The library is built and cached like the move generator's (sim.models.cxxrtl, design ``chip``),
once per RTL change and number of engines; the Verilator chip (sim.drivers.chip_verilator) has
the same entry points and runs through this driver too. What the host and the entry exchange
(square codes, the root's word, the phases, "every engine") is the hardware contract's
(hdl.common.contract).
"""

import ctypes
from dataclasses import dataclass, field

from posdata.engine.rules.defs import MAX_MOVES
from posdata.engine.rules.variants import get_variant
from posdata.hdl.common.contract import (
    DEFAULT_LAYOUT,
    EVERY_ENGINE,
    PHASE_NAMES,
    SQUARES,
    castle_rooks_word,
    castling_word,
    default_split,
    root_word,
    square_codes,
)

from ..models.cxxrtl import build_library
from .compiled_model import CompiledModel, i32, pointer, u32, u64, vp
from .interface import Generation, MoveOverflowError, WatchdogError

CHUNK = 1 << 20  #: clocks per call into the native loop (progress is reported between calls)


def check_engine(engine: int | None, engines: int) -> None:
    if engine is not None and not 0 <= engine < engines:
        raise ValueError(f"engine {engine} does not exist: the chip has {engines} "
                         f"(0 to {engines - 1})")


def pack_castling(board) -> tuple[int, int]:
    """The root's castling squares and rook files (Chess960's chip reads them)."""
    return castling_word(board.castles), castle_rooks_word(board.castles)


@dataclass
class ChipCount:
    leaves: int
    clocks: int            #: from start until the last thread was done (the makespan)
    overflow: bool         #: a move stack overflowed: ``leaves`` is not to be trusted
    depth: int
    bulk: bool
    split: int
    #: per thread, clocks per phase (by hdl.common.contract.PHASE_NAMES)
    phases: list[dict[str, int]] = field(default_factory=list)

    @property
    def clocks_per_leaf(self) -> float | None:
        return self.clocks / self.leaves if self.leaves else None


def chip_params(engines: int = 1, layout: str | None = None, variant: str = "chess") -> dict:
    """The compiled chip's constructor parameters (one model per engines, layout, variant;
    variants that differ only in memory contents share its library, sim.models.memory_images):
    the defaults are left out, so that every way of asking for the same chip finds one model."""
    params = {"engines": engines}
    if layout not in (None, DEFAULT_LAYOUT):
        params["layout"] = layout
    name = variant if isinstance(variant, str) else variant.name
    if name != "chess":
        params["variant"] = name
    return params


class ChipModel(CompiledModel):
    """``perft(board, depth)`` on the compiled chip. ``engines`` as in hdl.chip.perft_chip;
    ``variant`` (an engine.rules.variants name) what it plays. The model is CXXRTL's; a subclass
    (sim.drivers.chip_verilator) loads another simulator's library with the same entry points."""

    MODEL = "the compiled perft chip"
    PREFIX = "posdata_chip_"
    SIGNATURES = {
        "posdata_chip_threads": ([], u32),
        "posdata_chip_load": ([vp, ctypes.c_char_p, u32], None),
        "posdata_chip_start": ([vp, u32, u32, u32, u32], None),
        "posdata_chip_run": ([vp, u64, pointer(u64), pointer(u64), pointer(u32)], i32),
        "posdata_chip_phases": ([vp, pointer(u64)], None),
        "posdata_chip_abort": ([vp], None),
        "posdata_chip_castling": ([vp, u64, u32], None),
        "posdata_chip_list": ([vp, u32, pointer(u32), i32, u64, pointer(u64)], i32),
    }
    CONTRACT = True

    @staticmethod
    def build(verbose: bool, params: dict) -> str:
        """The model library's path, built (and cached) on first use."""
        return build_library(verbose=verbose, design="chip", params=params)

    def __init__(self, engines: int = 1, library: str | None = None, verbose: bool = True,
                 layout: str | None = None, variant: str = "chess"):
        self.engines = engines
        self.variant = variant if isinstance(variant, str) else variant.name
        self._modes = get_variant(self.variant).has_modes  # its root carries the ep victim
        params = chip_params(engines, layout, self.variant)
        super().__init__(library or self.build(verbose, params))
        self._moves = (u32 * MAX_MOVES)()
        self.threads = self.lib.posdata_chip_threads()

    def _load(self, board) -> None:
        self.lib.posdata_chip_load(self.handle, square_codes(board),
                                   root_word(board, self._modes))
        self.lib.posdata_chip_castling(self.handle, *pack_castling(board))

    def perft(self, board, depth: int, bulk: bool = True, split: int | None = None,
              progress=None, watchdog: int | None = None, engine: int | None = None
              ) -> ChipCount:
        """Count perft(``depth``) of ``board`` on the chip (on every engine, or on ``engine``
        alone). ``progress(leaves, clocks)`` is called between native runs; ``watchdog`` bounds
        the clocks (a stuck design fails)."""
        if split is None:
            split = default_split(depth)
        check_engine(engine, self.engines)
        lib, h = self.lib, self.handle
        self._load(board)
        solo = EVERY_ENGINE if engine is None else engine
        lib.posdata_chip_start(h, depth, int(bulk), split, solo)
        leaves, clocks, overflow = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint32()
        while not lib.posdata_chip_run(h, CHUNK, ctypes.byref(leaves), ctypes.byref(clocks),
                                       ctypes.byref(overflow)):
            if progress:
                progress(leaves.value, clocks.value)
            if watchdog is not None and clocks.value > watchdog:
                lib.posdata_chip_abort(h)
                raise WatchdogError(f"the perft chip did not finish within {watchdog} clocks")
        n = len(PHASE_NAMES)
        counts = (ctypes.c_uint64 * (self.threads * n))()
        lib.posdata_chip_phases(h, counts)
        phases = [{name: counts[t * n + i] for i, name in enumerate(PHASE_NAMES)}
                  for t in range(self.threads)]
        return ChipCount(leaves.value, clocks.value, bool(overflow.value), depth, bulk, split,
                         phases)

    def list_moves(self, board, legal: bool = True, watchdog: int = 100_000) -> Generation:
        """The root's moves as the chip lists them: legal (from its legality unit; from, to and
        promoted piece only), or pseudo-legal in generation order (the generator core)."""
        lib, h = self.lib, self.handle
        self._load(board)
        cycles = ctypes.c_uint64()
        n = lib.posdata_chip_list(h, int(legal), self._moves, MAX_MOVES, watchdog,
                                  ctypes.byref(cycles))
        if n < 0:
            raise WatchdogError(f"the perft chip did not list its moves within {watchdog} clocks")
        if n > MAX_MOVES:
            raise MoveOverflowError(f"the chip listed {n} moves, more than the {MAX_MOVES} the "
                                    f"host holds")
        return Generation(self._moves[:n], cycles.value, SQUARES)
