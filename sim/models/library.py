"""Loading a compiled model into the process, refusing in one line what would crash it or be read
wrongly: a library cut short of what its headers map (SIGBUS at the first touch), one the loader
rejects, one without the entry points the driver calls (another design's model, or no model at
all), one built for another hardware contract."""

import ctypes
import os

from posdata.hdl.common.regular_files import open_regular

from .elf import shortfall
from .entry_constants import check_contract
from .toolchain import ToolchainError

REBUILD = "delete it to have it rebuilt"
#: the simulators that build a design's model with the same C entry points, the same clocks
SIMULATORS = ("cxxrtl", "verilator")


def load_model(path: str, what: str, entry_points: tuple[str, ...],
               contract: bool = False) -> ctypes.CDLL:
    """The library at ``path``, which must be ``what`` (``"the compiled move generator"``)
    with ``entry_points``, and written against this host's hardware contract if ``contract``."""
    try:
        os.close(open_regular(path))  # a FIFO or device: refused, not waited on
        short = shortfall(path)
    except OSError as e:
        raise ToolchainError(f"cannot read {what} at {path}: {e.strerror or e}") from None
    if short:
        raise ToolchainError(f"{what} at {path} is cut short ({short}): {REBUILD}")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ToolchainError(f"cannot load {what} from {path}: {e} ({REBUILD})") from None
    missing = [name for name in entry_points if not hasattr(lib, name)]
    if missing:
        raise ToolchainError(f"{path} is not {what}: it has no {missing[0]} ({REBUILD})")
    if contract:
        check_contract(lib, what)
    return lib


def build_model(simulator: str, design: str, params: dict | None = None,
                verbose: bool = False) -> str:
    """Path of ``simulator``'s cached model of ``design`` (built first if need be): one driver
    loads either, since both entries have the same functions."""
    if simulator == "cxxrtl":
        from .cxxrtl import build_library
    elif simulator == "verilator":
        from .verilator import build_library
    else:
        raise ValueError(f"unknown simulator {simulator!r}: choose from {', '.join(SIMULATORS)}")
    return build_library(verbose=verbose, design=design, params=params)
