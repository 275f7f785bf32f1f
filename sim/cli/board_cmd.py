"""posdata board: the perft chip on an FPGA board over its USB serial port (or on the simulated
board): list a position's moves against the reference generator, count perft, read the status,
abort a count, ping."""

import time

from posdata.engine.defs import move_uci
from posdata.engine.movegen import gen
from posdata.engine.positions import STANDARD_POSITIONS
from posdata.hdl.common.contract import MAX_DEPTH, default_split, split_in_range
from posdata.hdl.link.protocol import DEFAULT_BAUD, SelfTest
from posdata.sim.drivers.fpga_board import BoardClient, BoardError, SerialTransport
from posdata.sim.views.difference import describe_difference

from .common import (
    CliError,
    Progress,
    add_json_arg,
    add_position_args,
    describe,
    float_in_range,
    int_in_range,
    load_board,
    print_json,
)

SIM_DIVISOR = 4
#: seconds: a reply takes milliseconds; a count may take days (a year is 3.2e7 s)
TIMEOUT_RANGE = (0.001, 600.0)
LIMIT_RANGE = (0.001, 1e8)
ACTIONS = ("moves", "legal", "perft", "status", "abort", "ping")
SELF_TEST_WORDS = {SelfTest.NONE: "none", SelfTest.RUNNING: "running",
                   SelfTest.PASSED: "passed", SelfTest.FAILED: "FAILED"}


def register(sub) -> None:
    p = sub.add_parser(
        "board", help="the perft chip on the FPGA board over its serial port",
        description="Talk to the perft chip on the board (protocol version 2). ACTION: 'moves' "
                    "(default) loads the position (after the first load only the squares that "
                    "changed), lists its pseudo-legal moves in generation order with the "
                    "generator's cycle count and compares them with the reference generator's, "
                    "move for move; 'legal' lists the legal moves and compares the set; 'perft' "
                    "counts perft(--depth) on the chip, showing progress, and compares the "
                    "leaves with the published count of a standard position; 'status' reads the "
                    "count in progress or the last result; 'abort' stops a count; 'ping' shows "
                    "the board's protocol version, engines, threads and power-up self-test. "
                    "Exit status 1 when a result differs from the reference. The bitstream must "
                    f"be built for the same baud rate (default {DEFAULT_BAUD}: the ULX3S's "
                    "FT231X at its maximum). --sim talks to the board's compiled model instead "
                    "(UART bits and all, power-up self-test first), --pysim to its gateware in "
                    "Amaranth's simulator (slow: about a thousand clocks a second).")
    p.add_argument("action", nargs="?", choices=ACTIONS, default="moves", metavar="ACTION",
                   help=f"one of {', '.join(ACTIONS)} (default: moves)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", metavar="DEV",
                       help="the board's serial port (e.g. /dev/ttyUSB0, COM3)")
    where.add_argument("--sim", action="store_true",
                       help=f"the board's compiled model (UART divisor {SIM_DIVISOR})")
    where.add_argument("--pysim", action="store_true",
                       help="the board's gateware in Amaranth's simulator (no self-test)")
    p.add_argument("--sim-board", choices=("ulx3s", "icebreaker"), default="ulx3s",
                   help="with --sim: which board's model: ulx3s (the perft chip, default) or "
                        "icebreaker (the generator alone: moves and ping only)")
    p.add_argument("--baud", type=int_in_range(300, 12_000_000, "--baud"), default=DEFAULT_BAUD,
                   help=f"baud rate of the port (default: {DEFAULT_BAUD}; must match the "
                        "bitstream)")
    p.add_argument("--timeout", type=float_in_range(*TIMEOUT_RANGE, "--timeout"), default=1.0,
                   metavar="SECONDS",
                   help="how long to wait for each reply from the board (default: 1)")
    add_position_args(p)
    p.add_argument("--depth", type=int_in_range(0, MAX_DEPTH, "--depth"), default=4,
                   help=f"perft: the depth, 0 to {MAX_DEPTH} (default: 4)")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--bulk", dest="bulk", action="store_true", default=True,
                      help="perft: count the last ply's legal moves without making them "
                           "(default)")
    kind.add_argument("--plain", dest="bulk", action="store_false",
                      help="perft: make, test and unmake every leaf (TSCP)")
    p.add_argument("--split", type=int_in_range(0, MAX_DEPTH - 1, "--split"), default=None,
                   help="perft: the ply whose nodes the threads share (default: 2, at most "
                        "depth - 1)")
    p.add_argument("--limit", type=float_in_range(*LIMIT_RANGE, "--limit"), default=None,
                   metavar="SECONDS",
                   help="perft: abort the count if it has not finished by then")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    split = args.split if args.split is not None else default_split(args.depth)
    if not split_in_range(args.depth, split):
        raise CliError(f"--split must be at most {max(0, args.depth - 1)} for --depth "
                       f"{args.depth}, not {split}")
    board = load_board(args)
    progress = Progress(args.quiet)
    try:
        transport, where, link = open_transport(args)
        with BoardClient(transport) as client:
            # a fresh board (the simulated one) may still be counting its self-test
            info = client.ping() if args.action in ("ping", "status") else \
                client.wait_self_test()
            result = ACTION_RUNNERS[args.action](client, board, args, split, progress)
    except BoardError as e:
        raise CliError(str(e)) from None
    finally:
        progress.done()
    if args.json:
        print_json({**result["json"], "port": where})
    else:
        print(f"board  {link}, protocol version {info.version}, {info.engines} engine(s) x "
              f"{info.threads} threads, self-test {SELF_TEST_WORDS[info.self_test]}")
        for line in result["text"]:
            print(line)
    return result["status"]


def open_transport(args):
    if args.sim:
        from posdata.sim.drivers.fpga_board_sim import CompiledBoard
        design = "icebreaker" if args.sim_board == "icebreaker" else "board"
        return (CompiledBoard(SIM_DIVISOR, design=design), "sim",
                f"the simulated {args.sim_board} board (compiled, UART divisor {SIM_DIVISOR})")
    if args.pysim:
        from posdata.sim.drivers.fpga_board_sim import SimulatedTransport
        return (SimulatedTransport(SIM_DIVISOR), "pysim",
                f"the simulated board (Amaranth's simulator, UART divisor {SIM_DIVISOR})")
    return (SerialTransport(args.port, args.baud, timeout=args.timeout), args.port,
            f"{args.port} at {args.baud} baud")


def run_moves(client, board, args, split, progress):
    result = client.generate(board)
    expected = board.moves(gen)
    match = result.moves == expected
    moves, cycles = result.moves, result.cycles
    text = [f"fen    {board.fen()}",
            f"moves  {len(moves)} pseudo-legal, in generation order",
            f"cycles {cycles} ({cycles / max(1, len(moves)):.2f} per move)"]
    if match:
        text.append("match  yes: the reference generator's moves, in the same order")
    else:
        text.append("match  NO: " + describe_difference(board.fen(), moves, expected, "board",
                                                        "reference"))
    text += [f"{i + 1:4d}  {describe(board, m)}" for i, m in enumerate(moves)]
    obj = {"fen": board.fen(), "moves": [move_uci(m) for m in moves], "cycles": cycles,
           "match": match}
    return _with_port(obj, text, 0 if match else 1)


def run_legal(client, board, args, split, progress):
    result = client.legal_moves(board)
    got = sorted(move_uci(m) for m in result.moves)
    want = sorted(move_uci(m) for m in board.legal_moves(gen))
    match = got == want
    text = [f"fen    {board.fen()}",
            f"moves  {len(result.moves)} legal (the chip's legality unit)",
            f"cycles {result.cycles} (the generator's)",
            "match  yes: the reference's legal moves" if match else
            f"match  NO: missing {' '.join(sorted(set(want) - set(got))) or '-'}, extra "
            f"{' '.join(sorted(set(got) - set(want))) or '-'}",
            " ".join(move_uci(m) for m in result.moves)]
    obj = {"fen": board.fen(), "moves": [move_uci(m) for m in result.moves],
           "cycles": result.cycles, "match": match}
    return _with_port(obj, text, 0 if match else 1)


def published_count(board, depth: int) -> int | None:
    """The published perft count of a standard position, when there is one."""
    fields = board.fen().split()[:4]
    for position in STANDARD_POSITIONS:
        if position.fen.split()[:4] == fields:
            if depth == 0:
                return 1
            if depth <= len(position.counts):
                return position.counts[depth - 1]
    return None


def run_perft(client, board, args, split, progress):
    start = time.monotonic()

    def show(leaves, clocks):
        progress.update(f"perft({args.depth}) on the board: {leaves:,} leaves, "
                        f"{clocks:,} clocks")

    try:
        count = client.perft(board, args.depth, args.bulk, split, progress=show,
                             limit=args.limit)
    except KeyboardInterrupt:
        client.abort()  # leave the board idle, not counting for nobody
        raise
    seconds = time.monotonic() - start
    expected = published_count(board, args.depth)
    match = None if expected is None else count.leaves == expected
    kind = "bulk" if args.bulk else "plain"
    per_leaf = count.clocks_per_leaf
    text = [f"fen    {board.fen()}",
            f"perft  depth {args.depth}, {kind}, split ply {split}",
            f"leaves {count.leaves:,}",
            f"clocks {count.clocks:,}" + (f" ({per_leaf:.3f} per leaf)" if per_leaf else ""),
            f"host   {seconds:.2f} s",
            "match  " + ("not checked (no published count)" if match is None else
                         "yes: the published count" if match else
                         f"NO: the published count is {expected:,}")]
    obj = {"fen": board.fen(), "depth": args.depth, "bulk": args.bulk, "split": split,
           "leaves": count.leaves, "clocks": count.clocks, "clocks_per_leaf": per_leaf,
           "expected": expected, "match": match, "seconds": round(seconds, 3)}
    return _with_port(obj, text, 1 if match is False else 0)


def run_status(client, board, args, split, progress):
    s = client.status()
    kind = "bulk" if s.bulk else "plain"
    what = (f"depth {s.depth}, {kind}, split ply {s.split}"
            + (" (the power-up self-test)" if s.self_test else ""))
    text = [f"state  {s.state.name.lower()}"]
    if s.state.name != "IDLE":
        text += [f"count  {what}", f"leaves {s.leaves:,}", f"clocks {s.clocks:,}"]
    obj = {"state": s.state.name.lower(), "depth": s.depth, "bulk": s.bulk, "split": s.split,
           "self_test": s.self_test, "leaves": s.leaves, "clocks": s.clocks}
    return _with_port(obj, text)


def run_abort(client, board, args, split, progress):
    client.abort()
    s = client.status()
    text = [f"state  {s.state.name.lower()}"]
    return _with_port({"state": s.state.name.lower(), "leaves": s.leaves, "clocks": s.clocks,
                       }, text)


def run_ping(client, board, args, split, progress):
    i = client.info
    obj = {"version": i.version, "engines": i.engines, "threads": i.threads,
           "variant": i.variant, "self_test": i.self_test.name.lower()}
    return _with_port(obj, [])


def _with_port(obj, text, status=0):
    return {"json": obj, "text": text, "status": status}


ACTION_RUNNERS = {"moves": run_moves, "legal": run_legal, "perft": run_perft,
                  "status": run_status, "abort": run_abort, "ping": run_ping}
