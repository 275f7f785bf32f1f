"""C++ that entries share, written in front of each (after its defines and prelude) by both
builders (sim.models.cxxrtl, sim.models.verilator): the UART line model (uart_line.h) of the
board's entry, which the iCEBreaker's board shares."""

from importlib import resources

from .designs import design as described


def shared_files(design: str) -> tuple[str, ...]:
    """The shared files ``design``'s entry is written after, in order (designs.Design.shared)."""
    return described(design).shared


def shared_cxx(design: str) -> str:
    """The shared text in front of ``design``'s entry ("" for none)."""
    folder = resources.files("posdata.sim.models")
    return "".join(folder.joinpath(name).read_text() + "\n" for name in shared_files(design))
