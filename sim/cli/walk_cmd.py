"""posdata walk: a piece's posdata walk drawn on the board, for checking a piece definition by
eye (sim.views.walk)."""

from posdata.engine.defs import parse_square

from ..views.walk import WalkError, piece_walk, render_svg, render_text
from .common import CliError, add_variant_arg
from .outputs import write_whole


def register(sub) -> None:
    p = sub.add_parser(
        "walk", help="draw a piece's posdata walk from a square",
        description="Draw the board with the squares of a piece's posdata walk (its table from "
                    "one square, on an empty board) numbered in table order: nextpos steps "
                    "along a ray and nextdir jumps to the next ray told apart. Text on stdout; "
                    "--svg FILE also writes an SVG for a browser.")
    add_variant_arg(p)
    p.add_argument("--piece", required=True, metavar="X",
                   help="the piece's FEN letter in the variant (upper case white, lower case "
                        "black: the pawns differ)")
    p.add_argument("--square", required=True, metavar="SQ", help="the from-square, e.g. d4")
    p.add_argument("--svg", metavar="FILE", help="also write the drawing as SVG to FILE")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        frm = parse_square(args.square)
    except ValueError:
        raise CliError(f"--square: not a square: {args.square!r} (a1 .. h8)") from None
    try:
        walk = piece_walk(args.variant, args.piece, frm)
    except WalkError as e:
        raise CliError(str(e)) from None
    if args.svg is not None:
        write_whole([(args.svg, "--svg", render_svg(walk))])
    print(render_text(walk), end="")
    return 0
