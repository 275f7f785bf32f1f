"""Choosing what runs the gateware, by name: the one place that maps ``--target`` to a driver
(sim.drivers.interface's GeneratorDriver and ChipDriver protocols). Imports happen here, on demand,
so that software-only commands never import amaranth (or pyserial).

Targets: ``pysim`` (Amaranth's simulator: the golden reference, slow), ``cxxrtl`` (the
compiled model, the default; the perft chip's is CHIP_DEFAULT, the board design's and the
search thread's their designs' default_simulator, sim.models.designs), ``verilator`` (the
exported Verilog under Verilator: a second, independent compiled simulator, of the generator,
the perft chip, the board design and the search thread) and ``board`` (the real board over its
serial port, or anything that answers like it: the simulated board behind a pty in the tests).
"""

from dataclasses import dataclass

from posdata.hdl.link.protocol import DEFAULT_BAUD

TARGETS = ("cxxrtl", "pysim", "verilator", "board")
#: what runs the perft chip of up to CHIP_DEFAULT_ENGINES engines when no --target is given:
#: Verilator's model counts the same clocks four to six times as fast as CXXRTL's, for a first
#: compile of about 27 s of CPU against 14 with one engine; with more it grows faster than
#: CXXRTL's (two engines 39 s against 17, eight 127 s against 31: bench/chip_sim.py), so a
#: larger chip stays on CXXRTL unless --target verilator asks (worth it for long counts)
CHIP_DEFAULT = "verilator"
CHIP_DEFAULT_ENGINES = 1


@dataclass(frozen=True)
class Target:
    """Where the gateware runs. Plain data, so it can be sent to a worker process."""

    name: str = "cxxrtl"
    port: str | None = None    #: the board's serial port
    baud: int = DEFAULT_BAUD
    timeout: float = 1.0       #: seconds to wait for each reply from the board

    def __post_init__(self):
        if self.name not in TARGETS:
            raise ValueError(f"unknown target {self.name!r}: choose from {', '.join(TARGETS)}")
        if self.name == "board" and not self.port:
            raise ValueError("--target board needs --port (the board's serial port)")

    def __str__(self) -> str:
        return f"board on {self.port}" if self.name == "board" else self.name


def chip_default(engines: int = 1) -> str:
    """CHIP_DEFAULT for a chip of up to CHIP_DEFAULT_ENGINES engines where its toolchain is
    installed (Verilator also needs make and perl), else cxxrtl, which needs only the C++
    compiler."""
    if engines > CHIP_DEFAULT_ENGINES:
        return "cxxrtl"
    return CHIP_DEFAULT if CHIP_DEFAULT == "cxxrtl" or verilator_installed() else "cxxrtl"


def model_default(design: str) -> str:
    """The simulator of ``design``'s compiled model when none is named (the compiled board's,
    sim.drivers.fpga_board_sim, and the search thread's, sim.drivers.search_cxxrtl: Verilator,
    sim.models.designs says why) where its toolchain is installed, else cxxrtl (the same
    clocks)."""
    from ..models.designs import design as described
    chosen = described(design).default_simulator
    return chosen if chosen == "cxxrtl" or verilator_installed() else "cxxrtl"


def verilator_installed() -> bool:
    """Verilator and what it runs (make, perl, the C++ compiler) are there."""
    from ..models.toolchain import ToolchainError
    from ..models.verilator import find_verilator
    try:
        find_verilator()
    except ToolchainError:
        return False
    return True


def as_target(target) -> Target:
    """A Target from a Target or a bare name (``"cxxrtl"``)."""
    return target if isinstance(target, Target) else Target(target)


def open_board(target: Target):
    """A BoardClient on the target's port, in step with the board and past its self-test."""
    from .fpga_board import BoardClient, BoardError, SerialTransport
    client = BoardClient(SerialTransport(target.port, target.baud, timeout=target.timeout))
    try:
        client.wait_self_test()
    except BoardError:
        client.close()
        raise
    return client


def make_driver(target="cxxrtl", **options):
    """A GeneratorDriver (``generate(board) -> Generation``) on ``target``."""
    target = as_target(target)
    if target.name == "pysim":
        from .gen_pysim import PysimGenerator
        return PysimGenerator(**options)
    if target.name == "cxxrtl":
        from .gen_cxxrtl import CxxrtlGenerator
        return CxxrtlGenerator(**options)
    if target.name == "verilator":
        from .gen_verilator import VerilatorGenerator
        return VerilatorGenerator(**options)
    return open_board(target)


class BoardChip:
    """The board's perft chip as a ChipDriver: PERFT and LEGAL/GENERATE over serial."""

    def __init__(self, client):
        self.client = client

    def perft(self, board, depth: int, bulk: bool = True, split: int | None = None,
              progress=None):
        return self.client.perft(board, depth, bulk, split, progress)

    def list_moves(self, board, legal: bool = True):
        return (self.client.legal_moves if legal else self.client.generate)(board)

    def close(self) -> None:
        self.client.close()


def make_chip(target="cxxrtl", engines: int = 1, variant: str = "chess"):
    """A ChipDriver (``perft``, ``list_moves``) on ``target`` (a Target or its name), playing
    ``variant`` (an engine.rules.variants name): the perft chip of ``engines`` engines compiled
    (``cxxrtl``; ``verilator``, the same clocks), in Amaranth's simulator (``pysim``, the
    golden reference, slow), or the board's."""
    target = as_target(target)
    if target.name == "cxxrtl":
        from .chip_cxxrtl import ChipModel
        return ChipModel(engines, variant=variant)
    if target.name == "pysim":
        from .chip_pysim import ChipSimulation
        return ChipSimulation(engines, variant=variant)
    if target.name == "verilator":
        from .chip_verilator import VerilatorChip
        return VerilatorChip(engines, variant=variant)
    return BoardChip(open_board(target))
