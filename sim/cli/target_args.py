"""``--target pysim|cxxrtl|verilator|board`` (with ``--port``/``--baud`` for a board; the older
spelling ``--sim`` a one-line error that names the new one) and ``--scheduler`` (with its TLS
options): where the gateware runs and where the jobs go, shared by perft, moves, compare,
search and uci."""

import argparse

from posdata.sim.drivers.targets import CHIP_DEFAULT, DEFAULT_BAUD, TARGETS

from .common import CliError, Renamed, int_in_range


def add_target_args(p: argparse.ArgumentParser, default: str = "cxxrtl",
                    names=TARGETS, chip: bool = False) -> None:
    """``chip``: the command also runs the perft chip, whose default is targets.chip_default's
    (target_from_args(..., chip=True) fills it in)."""
    # None until target_from_args: a --target (or --baud) given where no gateware runs is an
    # error there, which a filled-in default would hide
    chip_note = (f"; the perft chip of one engine: {CHIP_DEFAULT}, where it is installed"
                 if chip else "")
    p.add_argument("--target", dest="target", choices=names, default=None,
                   help=f"what runs the gateware: {', '.join(names)} (default: {default}"
                        f"{chip_note}); "
                        "cxxrtl the compiled model, pysim Amaranth's simulator (slow), "
                        "verilator the exported Verilog under Verilator, board the FPGA board "
                        "on --port")
    p.add_argument("--sim", action=Renamed, nargs="?", new="--target")
    p.add_argument("--port", metavar="DEV", default=None,
                   help="with --target board: the board's serial port (e.g. /dev/ttyUSB0)")
    p.add_argument("--baud", type=int_in_range(300, 12_000_000, "--baud"), default=None,
                   help=f"with --target board: the port's baud rate (default: {DEFAULT_BAUD})")
    p.set_defaults(target_default=default)


def add_scheduler_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scheduler", metavar="ADDR", default=None,
                   help="run the jobs on the Dask cluster whose scheduler is at ADDR "
                        "(tls://host:8786; default: $DASK_SCHEDULER_ADDRESS, else -j local "
                        "workers, which only this process can reach); the workers need only "
                        "`pip install` of posdata. The scheduler runs code on its workers and "
                        "its results are unpickled here: trust it as you would a shell")
    p.add_argument("--tls-ca-file", metavar="FILE", default=None,
                   help="with --scheduler: the CA certificate (PEM) that signed the "
                        "scheduler's; with --tls-cert and --tls-key, as `dask scheduler` and "
                        "`dask worker` take them (default: Dask's configuration, "
                        "distributed.comm.tls.*)")
    p.add_argument("--tls-cert", metavar="FILE", default=None,
                   help="with --scheduler: this client's certificate (PEM), signed by that CA")
    p.add_argument("--tls-key", metavar="FILE", default=None,
                   help="with --scheduler: this client's private key (PEM), unless it is in "
                        "the --tls-cert file")


def resolve_scheduler(args) -> None:
    """Check the TLS options and attach them to the scheduler's address (``args.scheduler``,
    else $DASK_SCHEDULER_ADDRESS); one line for a bad combination or an unusable file."""
    tls = [getattr(args, name, None) for name in ("tls_ca_file", "tls_cert", "tls_key")]
    if not hasattr(args, "scheduler"):
        return
    from posdata.sim.runs.pool import scheduler_address
    address = scheduler_address(args.scheduler)
    if not any(tls):
        if args.scheduler and args.scheduler.startswith("tls://"):
            from posdata.sim.runs.pool_tls import dask_tls_configured
            if not dask_tls_configured():
                raise CliError(f"{args.scheduler} is a TLS scheduler: give --tls-ca-file and "
                               "--tls-cert (or Dask's distributed.comm.tls configuration)")
        return
    from posdata.sim.runs.pool_tls import TlsError, secured_address
    if not address:
        raise CliError("--tls-ca-file, --tls-cert and --tls-key go with --scheduler")
    try:
        args.scheduler = secured_address(address, *tls)
    except TlsError as e:
        raise CliError(str(e)) from None


def target_from_args(args, jobs: int = 1, runs: str | None = None, chip: bool = False):
    """The sim.drivers.targets.Target the options name (``args.target`` filled in); one line
    for a bad combination. ``runs``: where the options apply, when no gateware runs this time
    (``"--backend gen, hw or both"``): then --target, --port or --baud is an error. ``chip``:
    the gateware is the perft chip (of ``args.engines`` engines), whose default simulator is
    targets.chip_default's."""
    from posdata.sim.drivers.targets import Target, chip_default
    if runs is not None:
        given = [name for name, value in (("--target", args.target), ("--port", args.port),
                                          ("--baud", args.baud)) if value is not None]
        if given:
            raise CliError(f"{given[0]} goes with {runs} (where the gateware runs)")
    if args.target is None:
        args.target = (chip_default(getattr(args, "engines", 1)) if chip
                       else args.target_default)
    if args.target != "board" and args.port:
        raise CliError("--port goes with --target board")
    if args.target != "board" and args.baud is not None:
        raise CliError("--baud goes with --target board")
    if args.target == "board":
        if not args.port:
            raise CliError("--target board needs --port (the board's serial port)")
        if jobs > 1 or getattr(args, "scheduler", None):
            raise CliError("--target board is one serial port: run it with -j 1 and no "
                           "--scheduler")
    resolve_scheduler(args)
    return Target(args.target, args.port, DEFAULT_BAUD if args.baud is None else args.baud)
