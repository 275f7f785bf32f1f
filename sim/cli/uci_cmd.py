"""posdata uci: the UCI engine on stdin/stdout, for chess GUIs. ``python -m posdata.engine`` is
the same engine with only the software generator, and starts without importing amaranth."""


from .common import add_variant_arg
from .target_args import add_target_args, target_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "uci", help="run as a UCI engine on stdin/stdout (for chess GUIs)",
        description="Speak the Universal Chess Interface on stdin/stdout. Option MoveGen (sw|hw) "
                    "picks the move generator: the Python posdata walk or the gateware on "
                    "--target. Options UCI_Variant and UCI_Chess960 pick the variant, as "
                    "Fairy-Stockfish offers them.")
    add_variant_arg(p)
    add_target_args(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from posdata.engine.uci import main  # only this command needs it

    from ..drivers.movegens import movegens_on
    return main(movegens=movegens_on(target_from_args(args)), variant=args.variant)
