"""posdata moves: the pseudo-legal moves of a position, in generation order."""

from engine.defs import describe_move, move_uci
from engine.movegen import gen

from .common import add_json_arg, add_position_args, load_board, print_json


def register(sub) -> None:
    p = sub.add_parser(
        "moves", help="list the pseudo-legal moves in generation order",
        description="List the pseudo-legal moves of a position in the order the posdata "
                    "generator emits them (the order the hardware must reproduce). Moves that "
                    "leave the king in check are included: legality is makemove's business.")
    add_position_args(p)
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    board = load_board(args)
    moves = board.moves(gen)
    if args.json:
        print_json({"fen": board.fen(), "moves": [move_uci(m) for m in moves]})
        return 0
    print(f"fen    {board.fen()}")
    print(f"moves  {len(moves)} pseudo-legal, in generation order")
    for i, m in enumerate(moves):
        print(f"{i + 1:4d}  {describe_move(m)}")
    return 0
