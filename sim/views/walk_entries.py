"""A walk with modes drawn on the board (Muller's legs: hoppers, lame leapers, move-only and
capture-only moves, pieces that move by colour): the walk's entries numbered in walk order, each
with its mode and where the walk goes on when its square is empty or occupied. ``posdata walk``
prints it for the pieces of a variant with modes; Sandström's walks keep their own drawing
(sim.views.walk) elsewhere. Plain Python: the walks are the image's (hdl.image.walks).

A square may appear more than once in such a walk: a grasshopper's screen search passes each
square of its line, and the square beyond a screen is its landing entry; a lame leap passes the
square that must be empty, then its target.
"""

from dataclasses import dataclass
from xml.sax.saxutils import escape

from posdata.engine.rules.defs import SQUARE_NAMES, WHITE
from posdata.engine.rules.pieces import CAPTURE, DOUBLE, EN_PASSANT, QUIET, parse_piece
from posdata.engine.rules.pieces import Walk as EntryList
from posdata.hdl.image.walks import piece_walk_rows

from .walk import CELL, DARK, LIGHT, MARGIN, WalkError, board_lines


@dataclass
class EntryWalk:
    variant: str
    letter: str
    name: str
    moves: str
    frm: int
    walk: EntryList


def entry_walk(variant, letter: str, frm: int) -> EntryWalk:
    found = variant.fen_letters.get(letter)
    if found is None:
        letters = " ".join(variant.letter(WHITE, p.code) for p in variant.pieces)
        raise WalkError(f"variant {variant.name} has no piece {letter!r} (its pieces: {letters}, "
                        f"lower case for black)")
    color, code = found
    piece = variant.by_code[code]
    walk = piece_walk_rows(variant, color, code)[frm]  # Sandström's pieces' too, as entries
    moves = piece.moves or variant.pawn or "orthodox pawn"
    return EntryWalk(variant.name, letter, piece.name, moves, frm, walk)


def definition_walk(definition: str, frm: int) -> EntryWalk:
    """The walk of a piece definition (engine.rules.pieces) as White's; PieceError if the notation
    refuses it."""
    moves = parse_piece(definition)
    return EntryWalk("definition", "X", "piece", definition, frm, moves.walk(frm))


def mode_name(mode: int) -> str:
    if not mode & (QUIET | CAPTURE | EN_PASSANT):
        return "pass"
    name = {QUIET: "quiet", CAPTURE: "capture", QUIET | CAPTURE: "both"}.get(
        mode & (QUIET | CAPTURE), "")
    if mode & DOUBLE:
        name += " double"
    if mode & EN_PASSANT:
        name += " e.p."
    return name.strip()


def headline(w: EntryWalk) -> str:
    colour = "white" if w.letter.isupper() else "black"
    squares = len(set(w.walk.squares))
    return (f"{w.variant}: {colour} {w.name} ({w.letter}, {w.moves}) on {SQUARE_NAMES[w.frm]}: "
            f"{len(w.walk)} entries on {squares} squares")


def _target(w: EntryWalk, i: int) -> str:
    return "end" if i >= len(w.walk) else f"{i + 1} ({SQUARE_NAMES[w.walk.squares[i]]})"


def render_text(w: EntryWalk) -> str:
    first = {}
    for i, u in enumerate(w.walk.squares):
        first.setdefault(u, i + 1)
    lines = [headline(w), "", *board_lines(w.letter, w.frm, first)]
    lines.append("(the number of the first entry on each square)")
    lines.append("")
    lines.append(f"{'entry':>5}  {'square':6}  {'mode':14}  {'empty ->':12}  occupied ->")
    walk = w.walk
    for i, u in enumerate(walk.squares):
        lines.append(f"{i + 1:>5}  {SQUARE_NAMES[u]:6}  {mode_name(walk.modes[i]):14}  "
                     f"{_target(w, walk.on_empty[i]):12}  {_target(w, walk.on_occupied[i])}")
    lines.append("")
    lines.append("mode: what the entry emits (quiet: on an empty square, capture: on an enemy, "
                 "both, pass: nothing, a screen or a lame leap's square); then the walk goes "
                 "on to the entry its square's state names")
    return "\n".join(lines) + "\n"


_MODE_COLOUR = {"pass": "#7f8c8d", "quiet": "#1f4e9a", "capture": "#c0392b", "both": "#6c3483"}


def render_svg(w: EntryWalk) -> str:
    """The board, each square listing its entries' numbers, coloured by mode."""
    size = 2 * MARGIN + 8 * CELL
    by_square = {}
    for i, u in enumerate(w.walk.squares):
        by_square.setdefault(u, []).append(i)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size + 46}" '
           f'viewBox="0 0 {size} {size + 46}" font-family="sans-serif">',
           f"<title>{escape(headline(w))}</title>"]
    for sq in range(64):
        x, y = MARGIN + (sq & 7) * CELL, MARGIN + (7 - (sq >> 3)) * CELL
        fill = LIGHT if ((sq & 7) + (sq >> 3)) % 2 else DARK
        out.append(f'<rect class="square" data-square="{SQUARE_NAMES[sq]}" x="{x}" y="{y}" '
                   f'width="{CELL}" height="{CELL}" fill="{fill}"/>')
        for k, i in enumerate(by_square.get(sq, [])):
            mode = mode_name(w.walk.modes[i]).split()[0]
            colour = _MODE_COLOUR.get(mode, "#333333")
            out.append(f'<text class="entry {mode}" data-square="{SQUARE_NAMES[sq]}" '
                       f'x="{x + 4 + (k % 3) * 19}" y="{y + 16 + (k // 3) * 17}" font-size="13" '
                       f'fill="{colour}" font-weight="bold">{i + 1}</text>')
    x, y = MARGIN + (w.frm & 7) * CELL + CELL / 2, MARGIN + (7 - (w.frm >> 3)) * CELL + CELL / 2
    colour = ("#ffffff", "#000000") if w.letter.isupper() else ("#000000", "#ffffff")
    out.append(f'<circle class="piece" cx="{x}" cy="{y}" r="20" fill="{colour[0]}" '
               f'stroke="{colour[1]}" stroke-width="2"/>')
    out.append(f'<text class="piece" x="{x}" y="{y + 7}" text-anchor="middle" font-size="20" '
               f'font-weight="bold" fill="{colour[1]}">{escape(w.letter)}</text>')
    out.append(f'<text class="caption" x="{MARGIN}" y="{size + 18}" font-size="13">'
               f'{escape(headline(w))}</text>')
    out.append(f'<text class="caption" x="{MARGIN}" y="{size + 36}" font-size="13">entries by '
               f'number: blue quiet, red capture, purple both, grey pass (a screen, a lame '
               f'leap\'s square)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
