"""posdata walk: a piece's posdata walk drawn on the board, for checking a piece definition by
eye (sim.views.walk; a walk with modes, a hopper's or a lame leaper's: sim.views.walk_entries)."""

from posdata.engine.rules.defs import parse_square
from posdata.engine.rules.pieces import PieceError

from ..views import walk_entries
from ..views.walk import WalkError, piece_walk, render_svg, render_text
from .common import CliError, add_variant_arg
from .outputs import STDOUT, write_whole


def register(sub) -> None:
    p = sub.add_parser(
        "walk", help="draw a piece's posdata walk from a square",
        description="Draw the board with the squares of a piece's posdata walk (its table from "
                    "one square, on an empty board) numbered in table order: nextpos steps "
                    "along a ray and nextdir jumps to the next ray told apart. A walk with "
                    "modes (a hopper's, a lame leaper's, a piece that moves and captures "
                    "differently) is listed entry by entry: each entry's square, what it emits "
                    "and where the walk goes on when the square is empty or occupied. Text on "
                    "stdout; --svg FILE also writes an SVG for a browser.")
    add_variant_arg(p)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--piece", metavar="X",
                       help="the piece's FEN letter in the variant (upper case white, lower case "
                            "black: the pawns differ)")
    which.add_argument("--moves", metavar="DEF",
                       help="a piece definition instead, in engine.rules.pieces' notation "
                            "(Betza's: gQ, mRcpR, nN, FfW, R4, ...), walked as White's; one that "
                            "a walk cannot hold is refused in one line")
    p.add_argument("--square", required=True, metavar="SQ", help="the from-square, e.g. d4")
    p.add_argument("--svg", metavar="FILE", help="also write the drawing as SVG to FILE (- "
                   "writes it to standard output, instead of the text)")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        frm = parse_square(args.square)
    except ValueError:
        raise CliError(f"--square: not a square: {args.square!r} (a1 .. h8)") from None
    variant = args.variant
    if args.moves is not None:
        try:
            walk = walk_entries.definition_walk(args.moves, frm)
        except PieceError as e:
            raise CliError(str(e)) from None
        view = walk_entries
    else:
        # a variant with modes has no (from, to) tables: all its pieces are listed as walks
        view = walk_entries if variant.has_modes else None
        try:
            walk = (view.entry_walk if view else piece_walk)(variant, args.piece, frm)
        except WalkError as e:
            raise CliError(str(e)) from None
    svg, text = (view.render_svg, view.render_text) if view else (render_svg, render_text)
    if args.svg is not None:
        write_whole([(args.svg, "--svg", svg(walk))], stdout=True)
    if args.svg != STDOUT:  # the SVG alone on standard output, for a pipe
        print(text(walk), end="")
    return 0
