"""posdata moves: the pseudo-legal moves of a position, in generation order, from the reference
generator or from the simulated gateware."""

from posdata.engine.rules.movegen import bare_king_ended, gen
from posdata.engine.rules.san import san_of_moves

from .common import (
    CliError,
    add_json_arg,
    add_position_args,
    add_variant_arg,
    describe,
    load_board,
    print_json,
    require_gateware,
    require_san,
)
from .target_args import add_target_args, target_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "moves", help="list the pseudo-legal moves in generation order",
        description="List the pseudo-legal moves of a position in the order the posdata "
                    "generator emits them (the order the hardware must reproduce). Moves that "
                    "leave the king in check are included: legality is makemove's business.")
    add_position_args(p)
    add_variant_arg(p)
    p.add_argument("--backend", choices=("sw", "hw"), default="sw",
                   help="sw: the reference generator (default); hw: the gateware on --target "
                        "(adds the cycle count)")
    # pysim by default: one generation needs no compiled model (nor a compiler)
    add_target_args(p, default="pysim")
    p.add_argument("--san", action="store_true",
                   help="also each move in standard algebraic notation, '-' for one that "
                        "leaves the king in check (orthodox chess and Chess960; --json: san)")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    require_san(args)
    board = load_board(args)
    cycles = None
    ended = board.data.bare_king and bare_king_ended(board)
    target = target_from_args(args, runs="--backend hw" if args.backend == "sw" else None)
    if args.backend == "hw":
        require_gateware(args, target.name, chip=False)
        from posdata.sim.drivers.fpga_board import BoardError
        from posdata.sim.drivers.targets import make_driver
        try:
            driver = make_driver(target, variant=board.variant.name)
            try:
                result = driver.generate(board)
            finally:
                driver.close()
        except (RuntimeError, ValueError, OSError, BoardError) as e:  # no toolchain, no board
            raise CliError(str(e)) from None
        moves, cycles = result.moves, result.cycles
        if ended:  # the host's rule about the whole position, as the reference applies it
            moves = []
    else:
        moves = board.moves(gen)
    if args.json:
        out = {"fen": board.fen(), "moves": [board.uci(m) for m in moves]}
        if args.san:
            out["san"] = san_of_moves(board, moves)
        if cycles is not None:
            out["cycles"] = cycles
            out["target"] = str(target)
        if ended:
            out["ended"] = "bare king"
        print_json(out)
        return 0
    if board.variant.name != "chess":
        print(f"variant {board.variant.name}")
    print(f"fen    {board.fen()}")
    print(f"moves  {len(moves)} pseudo-legal, in generation order")
    if ended:
        print("ended  by the bare-king rule: the side to move has no moves")
    if cycles is not None:
        print(f"cycles {cycles} ({cycles / max(1, len(moves)):.2f} per move, on {target})")
    sans = san_of_moves(board, moves) if args.san else [None] * len(moves)
    for i, (m, text) in enumerate(zip(moves, sans)):
        san = f"{text or '-':<8} " if args.san else ""
        print(f"{i + 1:4d}  {san}{describe(board, m)}")
    return 0
