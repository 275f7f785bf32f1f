"""A piece's posdata walk drawn on the board: the squares of its table from one square, numbered
in table order, its nextpos steps and nextdir jumps told apart. Text for the terminal, SVG for a
browser; ``posdata walk`` prints them. Plain Python: the tables come from engine.rules.variants.

On an empty board a piece's walk follows nextpos through every square: along a ray square by
square (a *step*), and from a ray's end on to the next ray's first square. nextdir, the entry
taken when a square is occupied, *jumps* from any square of a ray to the first square of the
next ray (or back to the from-square, which ends the walk). A leaper's every target is a ray of
its own. A pawn's table holds two threads from its square: pushes (nextpos), then captures
(nextdir).
"""

from dataclasses import dataclass
from xml.sax.saxutils import escape

from posdata.engine.rules.defs import PAWN, SQUARE_NAMES, WHITE


@dataclass
class Walk:
    variant: str
    letter: str  #: as in the FEN (upper case: white)
    name: str
    moves: str  #: the piece's definition, or "pawn"
    table: int
    frm: int
    #: rays (pawns: the push thread, then each capture square), squares in table order
    rays: list[list[int]]
    pawn: bool
    #: per square: (nextpos, nextdir) as the table holds them
    entries: dict[int, tuple[int, int]]

    @property
    def squares(self) -> list[int]:
        return [u for ray in self.rays for u in ray]


class WalkError(ValueError):
    """A piece letter the variant does not have; one line."""


def piece_walk(variant, letter: str, frm: int) -> Walk:
    """The walk of the piece ``letter`` (FEN case: upper white, lower black) from ``frm``."""
    found = variant.fen_letters.get(letter)
    if found is None:
        letters = " ".join(variant.letter(WHITE, p.code) for p in variant.pieces)
        raise WalkError(f"variant {variant.name} has no piece {letter!r} (its pieces: {letters}, "
                        f"lower case for black)")
    color, code = found
    piece = variant.by_code[code]
    table = variant.table_index(color, code)
    nextpos, nextdir = variant.tables()
    pos, dirs = nextpos[table, frm], nextdir[table, frm]
    entries = {u: (int(pos[u]), int(dirs[u])) for u in range(64)}
    if code == PAWN:
        pushes = _chain(pos, frm)
        rays = [pushes] + [[u] for u in _chain(dirs, frm)]
    else:
        rays, ray = [], []
        for u in _chain(pos, frm):
            ray.append(u)
            if pos[u] == dirs[u]:  # the ray ends: nextpos goes where nextdir jumps
                rays.append(ray)
                ray = []
    return Walk(variant.name, letter, piece.name, piece.moves or "pawn", table, frm, rays,
                code == PAWN, entries)


def _chain(table, frm: int) -> list[int]:
    out, u = [], int(table[frm])
    while u != frm:
        out.append(u)
        u = int(table[u])
    return out


def _colour_name(letter: str) -> str:
    return "white" if letter.isupper() else "black"


def headline(w: Walk) -> str:
    return (f"{w.variant}: {_colour_name(w.letter)} {w.name} ({w.letter}, {w.moves}) on "
            f"{SQUARE_NAMES[w.frm]}, table {w.table}: {len(w.squares)} squares")


# --- text ------------------------------------------------------------------------------------

def board_lines(letter: str, frm: int, number: dict[int, int]) -> list[str]:
    """The board as text, rank 8 first: the piece's letter on its square, each numbered square
    its number, the rest dots; files underneath."""
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            sq = rank * 8 + file
            cells.append(letter if sq == frm else str(number[sq]) if sq in number else ".")
        lines.append(f"{rank + 1}  " + "".join(f"{c:>3}" for c in cells))
    lines.append("   " + "".join(f"{f:>3}" for f in "abcdefgh"))
    return lines


def render_text(w: Walk) -> str:
    number = {u: i + 1 for i, u in enumerate(w.squares)}
    lines = [headline(w), "", *board_lines(w.letter, w.frm, number)]
    lines.append("")
    lines.append("'->' a nextpos step along a ray; '=>' the nextdir jump taken when the square is "
                 "occupied (from any square of the ray)")
    name = SQUARE_NAMES
    if w.pawn:
        pushes, captures = w.rays[0], [r[0] for r in w.rays[1:]]
        lines.append("push thread (nextpos):    " + (" -> ".join(
            f"{name[u]}({number[u]})" for u in pushes) or "none") + f" -> {name[w.frm]} (end)")
        lines.append("capture thread (nextdir): " + (" => ".join(
            f"{name[u]}({number[u]})" for u in captures) or "none") + f" => {name[w.frm]} (end)")
        return "\n".join(lines) + "\n"
    for i, ray in enumerate(w.rays):
        jump = w.entries[ray[0]][1]
        target = f"{name[jump]}({number[jump]})" if jump != w.frm else f"{name[w.frm]} (end)"
        steps = " -> ".join(f"{name[u]}({number[u]})" for u in ray)
        lines.append(f"ray {i + 1:2d}: {steps}  => {target}")
    return "\n".join(lines) + "\n"


# --- SVG -------------------------------------------------------------------------------------

CELL = 60
MARGIN = 24
LIGHT, DARK = "#f0d9b5", "#b58863"


def _centre(sq: int) -> tuple[float, float]:
    return (MARGIN + (sq & 7) * CELL + CELL / 2, MARGIN + (7 - (sq >> 3)) * CELL + CELL / 2)


def _arrow(kind: str, a: int, b: int, shorten: float = 14) -> str:
    (x1, y1), (x2, y2) = _centre(a), _centre(b)
    dx, dy = x2 - x1, y2 - y1
    length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    x1, y1 = x1 + dx / length * shorten, y1 + dy / length * shorten
    x2, y2 = x2 - dx / length * shorten, y2 - dy / length * shorten
    return (f'<line class="{kind}" data-from="{SQUARE_NAMES[a]}" data-to="{SQUARE_NAMES[b]}" '
            f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'marker-end="url(#head-{kind})"/>')


def arrows(w: Walk) -> list[tuple[str, int, int]]:
    """(kind, from, to): nextpos steps along the rays, nextdir jumps from each ray's first
    square to the next ray's (the last back to the from-square); pawns: their two threads."""
    out = []
    if w.pawn:
        pushes, captures = w.rays[0], [r[0] for r in w.rays[1:]]
        for a, b in zip([w.frm] + pushes, pushes):
            out.append(("nextpos", a, b))
        for a, b in zip([w.frm] + captures, captures):
            out.append(("nextdir", a, b))
        return out
    if w.rays:
        out.append(("start", w.frm, w.rays[0][0]))
    for ray in w.rays:
        for a, b in zip(ray, ray[1:]):
            out.append(("nextpos", a, b))
        out.append(("nextdir", ray[0], w.entries[ray[0]][1]))
    return out


def render_svg(w: Walk) -> str:
    size = 2 * MARGIN + 8 * CELL
    number = {u: i + 1 for i, u in enumerate(w.squares)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size + 46}" '
           f'viewBox="0 0 {size} {size + 46}" font-family="sans-serif">',
           f"<title>{escape(headline(w))}</title>",
           "<defs>"]
    styles = {"nextpos": ("#1f4e9a", "none"), "nextdir": ("#c0392b", "6 4"),
              "start": ("#333333", "2 3")}
    for kind, (colour, _) in styles.items():
        out.append(f'<marker id="head-{kind}" viewBox="0 0 10 10" refX="9" refY="5" '
                   f'markerWidth="6" markerHeight="6" orient="auto-start-reverse">'
                   f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>')
    out.append("</defs>")
    out.append("<style>" + " ".join(
        f"line.{kind} {{ stroke: {colour}; stroke-width: 2.5; stroke-dasharray: {dash}; }}"
        for kind, (colour, dash) in styles.items()) + "</style>")
    for sq in range(64):
        x, y = MARGIN + (sq & 7) * CELL, MARGIN + (7 - (sq >> 3)) * CELL
        fill = LIGHT if ((sq & 7) + (sq >> 3)) % 2 else DARK
        out.append(f'<rect class="square" data-square="{SQUARE_NAMES[sq]}" x="{x}" y="{y}" '
                   f'width="{CELL}" height="{CELL}" fill="{fill}"/>')
    for i, f in enumerate("abcdefgh"):
        out.append(f'<text class="label" x="{MARGIN + i * CELL + CELL / 2}" y="{size - 6}" '
                   f'text-anchor="middle" font-size="14">{f}</text>')
        y = MARGIN + (7 - i) * CELL + CELL / 2 + 5
        out.append(f'<text class="label" x="{MARGIN / 2}" y="{y}" text-anchor="middle" '
                   f'font-size="14">{i + 1}</text>')
    for kind, a, b in arrows(w):
        out.append(_arrow(kind, a, b))
    for u, n in number.items():
        x, y = _centre(u)
        out.append(f'<circle class="walk" data-square="{SQUARE_NAMES[u]}" cx="{x}" cy="{y}" r="13" '
                   f'fill="white" stroke="#333" opacity="0.9"/>')
        out.append(f'<text class="number" data-square="{SQUARE_NAMES[u]}" x="{x}" y="{y + 5}" '
                   f'text-anchor="middle" font-size="14">{n}</text>')
    x, y = _centre(w.frm)
    colour = ("#ffffff", "#000000") if w.letter.isupper() else ("#000000", "#ffffff")
    out.append(f'<circle class="piece" cx="{x}" cy="{y}" r="20" fill="{colour[0]}" '
               f'stroke="{colour[1]}" stroke-width="2"/>')
    out.append(f'<text class="piece" data-square="{SQUARE_NAMES[w.frm]}" x="{x}" y="{y + 7}" '
               f'text-anchor="middle" font-size="20" font-weight="bold" '
               f'fill="{colour[1]}">{escape(w.letter)}</text>')
    out.append(f'<text class="caption" x="{MARGIN}" y="{size + 18}" font-size="13">'
               f'{escape(headline(w))}</text>')
    out.append(f'<text class="caption" x="{MARGIN}" y="{size + 36}" font-size="13">'
               f'blue: nextpos steps along a ray; red dashed: nextdir jumps to the next ray</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
