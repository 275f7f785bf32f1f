"""posdata board: the moves of a position from the move generator on an FPGA board, over its USB
serial port (or from the simulated board), checked against the reference generator."""

from posdata.engine.defs import describe_move, move_uci
from posdata.engine.movegen import gen

from posdata.hdl.protocol import DEFAULT_BAUD
from posdata.sim.board_client import BoardClient, BoardError, SerialTransport, SimulatedTransport
from posdata.sim.compare import describe_difference

from .common import CliError, add_json_arg, add_position_args, int_in_range, load_board, print_json

SIM_DIVISOR = 4


def register(sub) -> None:
    p = sub.add_parser(
        "board", help="generate a position's moves on the FPGA board over its serial port",
        description="Ping the board, load the position (only the squares that changed), "
                    "generate, and print the moves in generation order with the generator's "
                    "cycle count and whether they equal the reference generator's, move for "
                    "move. Exit status 1 when they differ. The board's bitstream must be built "
                    f"for the same baud rate (default {DEFAULT_BAUD}: the ULX3S's FT231X at its "
                    "maximum). --sim talks to the board's gateware in Amaranth's simulator "
                    "instead, UART bits and all (slow: about a second per position).")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", metavar="DEV",
                       help="the board's serial port (e.g. /dev/ttyUSB0, COM3)")
    where.add_argument("--sim", action="store_true",
                       help=f"the simulated board (UART divisor {SIM_DIVISOR}) instead of a port")
    p.add_argument("--baud", type=int_in_range(300, 12_000_000, "--baud"), default=DEFAULT_BAUD,
                   help=f"baud rate of the port (default: {DEFAULT_BAUD}; must match the "
                        "bitstream)")
    p.add_argument("--timeout", type=float, default=1.0, metavar="SECONDS",
                   help="how long to wait for each reply from the board (default: 1)")
    add_position_args(p)
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    if not args.timeout > 0:
        raise CliError(f"--timeout must be positive, not {args.timeout}")
    board = load_board(args)
    try:
        if args.sim:
            transport = SimulatedTransport(SIM_DIVISOR)
            where = "sim"
            link = f"the simulated board (UART divisor {SIM_DIVISOR})"
        else:
            transport = SerialTransport(args.port, args.baud, timeout=args.timeout)
            where = args.port
            link = f"{args.port} at {args.baud} baud"
        with BoardClient(transport) as client:
            version = client.ping()
            result = client.generate(board)
    except BoardError as e:
        raise CliError(str(e)) from None

    expected = board.moves(gen)
    match = result.moves == expected
    if args.json:
        print_json({"fen": board.fen(), "moves": [move_uci(m) for m in result.moves],
                    "cycles": result.cycles, "match": match, "port": where})
        return 0 if match else 1
    moves, cycles = result.moves, result.cycles
    print(f"board  {link}, protocol version {version}")
    print(f"fen    {board.fen()}")
    print(f"moves  {len(moves)} pseudo-legal, in generation order")
    print(f"cycles {cycles} ({cycles / max(1, len(moves)):.2f} per move)")
    if match:
        print("match  yes: the reference generator's moves, in the same order")
    else:
        print("match  NO: " + describe_difference(board.fen(), moves, expected, "board",
                                                  "reference"))
    for i, m in enumerate(moves):
        print(f"{i + 1:4d}  {describe_move(m)}")
    return 0 if match else 1

