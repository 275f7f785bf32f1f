"""posdata search: the TSCP-style search on a position, iteration by iteration."""

from posdata.engine.search import (
    MAX_DEPTH,
    Limits,
    MoveGenUnavailable,
    Searcher,
    is_mate_score,
    mate_in,
    pv_uci,
    uci_score,
)

from ..drivers.movegens import MOVEGENS, make_movegen
from .common import (
    CliError,
    add_json_arg,
    add_position_args,
    add_variant_arg,
    int_in_range,
    load_board,
    print_json,
    require_orthodox,
)
from .target_args import add_target_args, target_from_args

MAX_MOVETIME_MS = 24 * 3600 * 1000


def register(sub) -> None:
    p = sub.add_parser(
        "search", help="search a position to a depth or for a time and print the best move",
        description="Iterative-deepening alpha-beta search (TSCP style) over the chosen move "
                    "generator. Prints one line per completed depth, then the best move. At a "
                    "fixed depth the sw and hw generators walk the same tree.")
    add_position_args(p)
    add_variant_arg(p)
    limit = p.add_mutually_exclusive_group(required=True)
    limit.add_argument("--depth", type=int_in_range(1, MAX_DEPTH, "--depth"),
                       help="plies to search (iterative deepening up to it)")
    limit.add_argument("--movetime", type=int_in_range(1, MAX_MOVETIME_MS, "--movetime"),
                       metavar="MS", help="milliseconds to search")
    p.add_argument("--movegen", choices=tuple(MOVEGENS), default="sw",
                   help="move generator: sw, the Python posdata walk (default), or hw, the "
                        "gateware on --target")
    add_target_args(p)
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    if args.movegen != "sw":
        require_orthodox(args, f"the gateware (--movegen {args.movegen})")
    board = load_board(args)
    try:
        movegen = make_movegen(args.movegen, target_from_args(args))
    except MoveGenUnavailable as e:
        raise CliError(str(e)) from None
    fen = board.fen()
    limits = Limits(depth=args.depth, time_ms=args.movetime)
    searcher = Searcher(movegen)

    if args.json:
        result = searcher.think(board, limits)
        print_json({
            "fen": fen, "variant": board.variant.name, "movegen": args.movegen,
            "target": args.target if args.movegen == "hw" else None,
            "bestmove": board.uci(result.best_move) if result.best_move is not None else None,
            "score": _score_json(result.score), "depth": result.depth,
            "pv": [board.uci(m) for m in result.pv], "nodes": result.nodes,
            "seconds": round(result.seconds, 6), "stopped": result.stopped,
            "iterations": [{"depth": it.depth, "seldepth": it.seldepth,
                            "score": _score_json(it.score), "nodes": it.nodes,
                            "seconds": round(it.seconds, 6),
                            "pv": [board.uci(m) for m in it.pv]} for it in result.iterations],
        })
        return 0

    if board.variant.name != "chess":
        print(f"variant  {board.variant.name}")
    print(f"fen      {fen}")
    print(f"movegen  {args.movegen}" + (f" on {args.target}" if args.movegen == "hw" else ""))

    def show(it):
        if it.depth == 1:
            print(f"{'depth':>5} {'seldepth':>8} {'score':>10} {'nodes':>10} {'seconds':>8} "
                  f"{'nodes/s':>8}  pv")
        nps = it.nodes / it.seconds if it.seconds > 0 else 0
        print(f"{it.depth:>5} {it.seldepth:>8} {uci_score(it.score):>10} {it.nodes:>10} "
              f"{it.seconds:>8.2f} {nps:>8.0f}  {pv_uci(it.pv, board)}", flush=True)

    result = searcher.think(board, limits, show)
    if result.best_move is None:
        print("no legal move: " + ("checkmate" if board.in_check() else "stalemate"))
        print("bestmove (none)")
        return 0
    if result.stopped:
        print(f"(time up after {result.nodes} nodes, {result.seconds:.2f} s)")
    print(f"bestmove {board.uci(result.best_move)}")
    return 0


def _score_json(score: int) -> dict:
    if is_mate_score(score):
        return {"mate": mate_in(score)}
    return {"cp": score}
