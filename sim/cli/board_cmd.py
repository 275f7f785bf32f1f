"""posdata board: the perft chip on an FPGA board over its USB serial port (or on the simulated
board): list a position's moves against the reference generator, count perft, read the status,
abort a count, ping."""

import time

from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.movegen import gen
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.common.contract import MAX_DEPTH, default_split, split_in_range
from posdata.hdl.link.protocol import DEFAULT_BAUD
from posdata.sim.drivers.fpga_board import BoardClient, BoardError, SerialTransport
from posdata.sim.views.difference import describe_difference

from .board_status import board_line, status_report
from .common import (
    DEFAULT_DEPTH,
    CliError,
    Progress,
    Renamed,
    add_count_args,
    add_json_arg,
    add_position_args,
    count_mode,
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
BOARD_TARGETS = ("board", "cxxrtl", "verilator", "pysim")
#: --board NAME -> the compiled model's design (sim.models.cxxrtl.build_library)
SIM_BOARDS = {"ulx3s-25f": "board", "icebreaker": "icebreaker"}
#: the options each action reads beyond where it runs: another action refuses them
POSITION_OPTIONS = {"fen": "--fen", "moves": "--moves"}
PERFT_OPTIONS = {"depth": "--depth", "bulk": "--bulk/--plain", "split": "--split",
                 "limit": "--limit"}
READS = {"moves": POSITION_OPTIONS, "legal": POSITION_OPTIONS,
         "perft": {**POSITION_OPTIONS, **PERFT_OPTIONS}}


def register(sub) -> None:
    p = sub.add_parser(
        "board", help="the perft chip on the FPGA board over its serial port",
        description="Talk to the perft chip on the board (protocol version 4). ACTION: 'moves' "
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
                    "FT231X at its maximum). --target verilator or cxxrtl talks to the board's "
                    "compiled model instead (UART bits and all, power-up self-test first; the "
                    "same clocks under either simulator), --target pysim "
                    "to its gateware in Amaranth's simulator (slow: about a thousand clocks a "
                    "second); --board picks which board's design they run.")
    p.add_argument("action", nargs="?", choices=ACTIONS, default="moves", metavar="ACTION",
                   help=f"one of {', '.join(ACTIONS)} (default: moves)")
    # None until run(): an option given where it does not apply is refused, not ignored
    p.add_argument("--target", choices=BOARD_TARGETS, default=None,
                   help="what runs the board's design: board (default), the FPGA board on "
                        "--port; cxxrtl its compiled model (UART divisor "
                        f"{SIM_DIVISOR}); verilator the same under Verilator (the same clocks, "
                        "faster); pysim its gateware in Amaranth's simulator (no self-test)")
    p.add_argument("--port", metavar="DEV", default=None,
                   help="with --target board: the board's serial port (e.g. /dev/ttyUSB0, COM3)")
    p.add_argument("--baud", type=int_in_range(300, 12_000_000, "--baud"), default=None,
                   help=f"with --target board: baud rate of the port (default: {DEFAULT_BAUD}; "
                        "must match the bitstream)")
    p.add_argument("--timeout", type=float_in_range(*TIMEOUT_RANGE, "--timeout"), default=None,
                   metavar="SECONDS",
                   help="with --target board: how long to wait for each reply (default: 1)")
    p.add_argument("--board", choices=tuple(SIM_BOARDS), default=None,
                   help="with --target cxxrtl or pysim: which board's design: ulx3s-25f (the "
                        "perft chip, default) or icebreaker (the generator alone: moves and "
                        "ping only)")
    # the older spellings: one line naming the new one
    p.add_argument("--sim", action=Renamed, new="--target cxxrtl")
    p.add_argument("--pysim", action=Renamed, new="--target pysim")
    p.add_argument("--sim-board", action=Renamed, nargs="?", new="--board")
    add_position_args(p)
    p.add_argument("--depth", type=int_in_range(0, MAX_DEPTH, "--depth"), default=None,
                   help=f"perft: the depth, 0 to {MAX_DEPTH} (default: {DEFAULT_DEPTH})")
    add_count_args(p, bulk_help=" (perft)")
    p.add_argument("--split", type=int_in_range(0, MAX_DEPTH - 1, "--split"), default=None,
                   help="perft: the ply whose nodes the threads share (default: 2, at most "
                        "depth - 1)")
    p.add_argument("--limit", type=float_in_range(*LIMIT_RANGE, "--limit"), default=None,
                   metavar="SECONDS",
                   help="perft: abort the count if it has not finished by then")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_json_arg(p)
    p.set_defaults(run=run)


def check_options(args) -> None:
    """Fill in --target, --depth and the counting mode, refusing an option the action or the
    target does not read (``board moves --plain`` says nothing it would do)."""
    reads = READS.get(args.action, {})
    for dest, name in {**POSITION_OPTIONS, **PERFT_OPTIONS}.items():
        if dest not in reads and getattr(args, dest) not in (None, []):
            if dest == "bulk":
                name = "--bulk" if args.bulk else "--plain"
            actions = " or ".join(action for action in READS if dest in READS[action])
            raise CliError(f"{name} goes with board {actions}, not {args.action}")
    if args.target is None:
        args.target = "board"
    if args.target == "board":
        if args.board is not None:
            raise CliError("--board goes with --target cxxrtl or pysim (a real board says what "
                           "it is: `posdata board ping`)")
        if not args.port:
            raise CliError("board needs --port DEV (the board's serial port), or --target "
                           "cxxrtl or pysim for its simulated design")
    else:
        for name, value in (("--port", args.port), ("--baud", args.baud),
                            ("--timeout", args.timeout)):
            if value is not None:
                raise CliError(f"{name} goes with --target board, not {args.target}")
    if args.depth is None:
        args.depth = DEFAULT_DEPTH
    count_mode(args)


def run(args) -> int:
    check_options(args)
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
        print(board_line(link, info))
        for line in result["text"]:
            print(line)
    return result["status"]


def open_transport(args):
    """(transport, what the JSON's ``port`` says, what the text says) for ``args.target``; a
    simulated board runs ``--board``'s design, on either simulator."""
    name = args.board or "ulx3s-25f"
    design = SIM_BOARDS[name]
    if args.target in ("cxxrtl", "verilator"):
        from posdata.sim.drivers.fpga_board_sim import CompiledBoard
        if design == "icebreaker" and args.target == "verilator":
            raise CliError("--board icebreaker has a CXXRTL model only: --target cxxrtl or pysim")
        return (CompiledBoard(SIM_DIVISOR, design=design, simulator=args.target), args.target,
                f"the simulated {name} board ({args.target}, UART divisor {SIM_DIVISOR})")
    if args.target == "pysim":
        from posdata.sim.drivers.fpga_board_sim import SimulatedTransport
        front_end = None  # SimulatedTransport's own: the ULX3S's perft chip
        if design == "icebreaker":
            from posdata.hdl.link.gen_frontend import GeneratorFrontEnd
            front_end = GeneratorFrontEnd(SIM_DIVISOR)
        return (SimulatedTransport(SIM_DIVISOR, front_end=front_end), "pysim",
                f"the simulated {name} board (Amaranth's simulator, UART divisor "
                f"{SIM_DIVISOR})")
    baud = DEFAULT_BAUD if args.baud is None else args.baud
    timeout = 1.0 if args.timeout is None else args.timeout
    return (SerialTransport(args.port, baud, timeout=timeout), args.port,
            f"{args.port} at {baud} baud")


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
    obj, text = status_report(client.status())
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
