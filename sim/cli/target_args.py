"""``--target pysim|cxxrtl|verilator|board`` (with ``--port``/``--baud`` for a board; ``--sim``
the older spelling) and ``--scheduler``: where the gateware runs and where the jobs go, shared
by perft, moves, compare, search and uci."""

import argparse

from posdata.sim.drivers.targets import DEFAULT_BAUD, TARGETS

from .common import CliError, int_in_range


def add_target_args(p: argparse.ArgumentParser, default: str = "cxxrtl",
                    names=TARGETS) -> None:
    p.add_argument("--target", "--sim", dest="target", choices=names, default=default,
                   help=f"what runs the gateware: {', '.join(names)} (default: {default}); "
                        "cxxrtl the compiled model, pysim Amaranth's simulator (slow), "
                        "verilator the exported Verilog under Verilator, board the FPGA board "
                        "on --port (--sim is the older name of this option)")
    p.add_argument("--port", metavar="DEV", default=None,
                   help="with --target board: the board's serial port (e.g. /dev/ttyUSB0)")
    p.add_argument("--baud", type=int_in_range(300, 12_000_000, "--baud"), default=DEFAULT_BAUD,
                   help=f"with --target board: the port's baud rate (default: {DEFAULT_BAUD})")


def add_scheduler_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scheduler", metavar="ADDR", default=None,
                   help="run the jobs on the Dask cluster whose scheduler is at ADDR "
                        "(tcp://host:8786; default: $DASK_SCHEDULER_ADDRESS, else -j local "
                        "workers); the workers need only `pip install` of posdata")


def target_from_args(args, jobs: int = 1):
    """The sim.drivers.targets.Target the options name; one line for a bad combination."""
    from posdata.sim.drivers.targets import Target
    if args.target != "board" and args.port:
        raise CliError("--port goes with --target board")
    if args.target == "board":
        if not args.port:
            raise CliError("--target board needs --port (the board's serial port)")
        if jobs > 1 or getattr(args, "scheduler", None):
            raise CliError("--target board is one serial port: run it with -j 1 and no "
                           "--scheduler")
    return Target(args.target, args.port, args.baud)
