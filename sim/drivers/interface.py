"""What every gateware driver shares: incremental board loading, the result of one generation,
and the adapter that lets a driver stand in for engine.movegen (gen/gen_caps on the move stack).

A driver keeps a shadow of the board it last loaded into the gateware and writes only the
squares that differ (after the first full load, that is the few squares a make/takeback moved).
"""

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from posdata.engine.rules.defs import EMPTY, NO_PIECE
from posdata.engine.rules.movegen import keep_captures
from posdata.hdl.common.contract import SQUARES, castling_word, position_fields
from posdata.hdl.image.variant import hardware_name


class WatchdogError(RuntimeError):
    """A generation did not finish in time: a stuck design fails instead of hanging."""


class MoveOverflowError(RuntimeError):
    """A generation reported more moves than the move buffer holds: the design is broken (no
    position has that many), and a truncated list would pass for a wrong but plausible one."""


@dataclass
class Generation:
    moves: list[int]  #: engine move words, in the order the gateware emitted them
    cycles: int       #: clock cycles the generator was busy
    writes: int = 0   #: squares written before the generation
    #: when traced: a sim.views.accounts.Clock per busy cycle
    trace: list | None = None


@runtime_checkable
class GeneratorDriver(Protocol):
    """The one interface of everything that runs the move generator: Amaranth's simulator
    (sim.drivers.gen_pysim), the CXXRTL model (sim.drivers.gen_cxxrtl), the Verilator model
    (sim.drivers.gen_verilator) and the real board over serial (sim.drivers.fpga_board.BoardClient).
    sim.drivers.targets makes one from a ``--target`` name."""

    def generate(self, board) -> Generation:
        """Load ``board`` (the squares that changed) and return its pseudo-legal moves in
        generation order with the generator's clock cycles."""

    def close(self) -> None:
        """Release the simulator or the port."""


@runtime_checkable
class ChipDriver(Protocol):
    """The same for the perft chip, which counts whole trees: its compiled model
    (sim.drivers.chip_cxxrtl), Amaranth's simulator (sim.drivers.chip_pysim), the board
    (sim.drivers.targets.BoardChip)."""

    def perft(self, board, depth: int, bulk: bool = True, split: int | None = None,
              progress=None):
        """Count perft(``depth``) of ``board``: a sim.drivers.chip_cxxrtl.ChipCount."""

    def list_moves(self, board, legal: bool = True) -> Generation:
        """The root's legal (or pseudo-legal) moves as the chip lists them."""

    def close(self) -> None:
        """Release the simulator or the port."""


class ShadowBoard:
    """The board as the gateware holds it; ``diff`` lists the writes that bring it up to date."""

    def __init__(self):
        # After reset the gateware's colours are all EMPTY; piece memory is undefined (0).
        self.color = [EMPTY] * SQUARES
        self.piece = [NO_PIECE] * SQUARES

    def diff(self, board) -> list[tuple[int, int, int]]:
        color, piece = board.color, board.piece
        old_c, old_p = self.color, self.piece
        writes = [(sq, color[sq], piece[sq]) for sq in range(SQUARES)
                  if color[sq] != old_c[sq] or piece[sq] != old_p[sq]]
        for sq, c, p in writes:
            old_c[sq], old_p[sq] = c, p
        return writes

    def forget(self) -> None:
        """After a reset of unknown effect: force a full load next time."""
        self.color = [-1] * SQUARES
        self.piece = [-1] * SQUARES


def position_inputs(board) -> dict[str, int]:
    """The generator's position inputs for ``board``: the contract's fields of the root word."""
    return position_fields(board)


def castling_input(board) -> int:
    """The generator's ``castling`` input: the squares of the position's castlings."""
    return castling_word(board.castles)


class VariantCheck:
    """A gateware built for one variant's tables refuses a board of another (whose moves it
    would get wrong without a word)."""

    def __init__(self, variant):
        self.hardware = hardware_name(variant)
        self._seen = set()

    def __call__(self, board) -> None:
        variant = board.variant
        if variant in self._seen:
            return
        if hardware_name(variant) != self.hardware:
            raise ValueError(f"this gateware holds the tables of {self.hardware}, "
                             f"not {variant.name}")
        self._seen.add(variant)


@dataclass
class GatewareMoveGen:
    """engine.rules.movegen's interface (gen/gen_caps) over a gateware driver, with running
    totals."""

    driver: object
    calls: int = 0
    cycles: int = 0
    moves: int = 0

    def gen(self, board) -> None:
        result = self.driver.generate(board)
        self.calls += 1
        self.cycles += result.cycles
        self.moves += len(result.moves)
        start = board.first_move[board.ply]
        del board.gen_dat[start:]
        board.gen_dat.extend(result.moves)
        board.first_move[board.ply + 1] = len(board.gen_dat)

    def gen_caps(self, board) -> None:
        self.gen(board)
        keep_captures(board)
