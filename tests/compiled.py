"""The compiled (CXXRTL) model of the move generator as the tests' second simulator: a test in
Amaranth's simulator (or through the UART front end) holds its cycle counts to the compiled
model's, which runs the same RTL in another simulator."""

from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator

_generator = None


def compiled_cycles(board) -> int:
    """Clock cycles the generator takes on ``board`` (moves.ready held high)."""
    global _generator
    if _generator is None:
        _generator = CxxrtlGenerator()
    return _generator.generate(board).cycles
