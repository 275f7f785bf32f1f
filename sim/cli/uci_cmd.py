"""posdata uci: the UCI engine on stdin/stdout, for chess GUIs. ``python -m posdata.engine`` is
the same engine with only the software generator, and starts without importing amaranth."""


from .common import add_variant_arg
from .target_args import add_target_args, target_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "uci", help="run as a UCI engine on stdin/stdout (for chess GUIs)",
        description="Speak the Universal Chess Interface on stdin/stdout. Option Backend picks "
                    "the search: tscp (the TSCP-style search on the Python posdata walk), gen "
                    "(the same on the gateware generator on --target), sw (the host's search "
                    "over the chip's search as the Python reference runs it) or hw (the same "
                    "over the search thread's compiled model, built on first use); ChipDepth "
                    "the plies left at which sw and hw hand a node to the chip (0-8, default "
                    "2). MoveGen (sw|hw) is the older spelling of tscp and gen. Options "
                    "UCI_Variant and UCI_Chess960 pick the variant, as Fairy-Stockfish offers "
                    "them (the chip's search plays orthodox chess only).")
    add_variant_arg(p)
    add_target_args(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from posdata.engine.search.host_search import ReferenceLeaf
    from posdata.engine.uci.protocol import main  # only this command needs it

    from ..drivers.movegens import movegens_on

    target = target_from_args(args)

    def chip():
        if target.name == "board":  # a search board on --port
            from ..drivers.fpga_board import open_search_board
            return open_search_board(target.port, target.baud, target.timeout)
        from ..drivers.search_cxxrtl import SearchModel
        return SearchModel()

    return main(movegens=movegens_on(target), variant=args.variant,
                leaves={"sw": ReferenceLeaf, "hw": chip})
