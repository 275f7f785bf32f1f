"""Sandström's posdata tables: ``nextpos[table][from][to]`` and ``nextdir[table][from][to]``.

Ref: GNU Chess 4.0 doc/MOVE-GEN (H. E. Sandström, 1989) and init.c Initialize_moves.

Every move of every piece type from every square, ignoring other pieces, is chained through two
"next" pointers, so that a walk over the board needs no direction arithmetic at all:

* ``nextpos[p][f][u]``: where to go when square ``u`` was empty (the next square of the same
  ray, or the first square of the next ray when the ray ends);
* ``nextdir[p][f][u]``: where to go when ``u`` was occupied (the first square of the next ray).

Every entry defaults to the from-square ``f``, and reaching ``f`` again ends the walk. The walk
starts at ``nextpos[p][f][f]``. For leapers (knights, kings) every ray is one square long, so the
two chains coincide.

Pawns (PAWN for white, BPAWN for black) keep two separate threads that both start at the
from-square: ``nextpos`` holds the pushes (one step; a second step only from the home rank)
and ``nextdir`` holds the diagonal capture squares. Pawns on their last rank get empty threads.

Any leaper or rider of ``engine.rules.pieces``' notation fills a table the same way; a *layout*
names what each of the 8 tables holds (``build_tables``), so a variant's pieces are a new ROM image.
Orthodox chess is the layout ``ORTHODOX_LAYOUT``, indexed by ptype (``engine.rules.defs``: GNU
Chess's, with the black pawn in table 0, the order the gateware's ROM holds them in): ``NEXTPOS`` /
``NEXTDIR`` are its numpy uint8 arrays (the gateware's ROM image) and ``NEXTPOS_ROWS`` /
``NEXTDIR_ROWS`` the same data as plain lists, ``ROWS[ptype * 64 + from][to]``, for the Python
generator's hot loop.

The tables are built as plain lists (``build_rows``) and numpy is imported only for the arrays:
a software perft needs no numpy, whose import is most of a short command's start-up.

**Walks with modes** (``engine.rules.pieces``: move-only and capture-only moves, hoppers, lame
leaps, asymmetric pieces, pawns defined in the notation): a (from, to) table cannot hold them, since
a square may appear more than once in a walk and an entry carries a mode. ``piece_walks`` builds
them as ``engine.rules.pieces.Walk`` lists, one per from-square, the dense layout's order (each
entry has its successor on an empty and on an occupied square, both ahead of it). ``sandstrom_walk``
reads a (from, to) table's walk in the same form: Sandström's rule is the walk whose every entry
emits both kinds of move (a pawn's: pushes quiet only, captures capture only), so one walker serves
both. """

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from .defs import BPAWN, DIRECTIONS, HOME_RANK, MAX_STEPS, N_TABLES, PAWN, WHITE
from .pieces import BOTH, CAPTURE, DOUBLE, EN_PASSANT, QUIET, Walk, parse_piece

if TYPE_CHECKING:  # the arrays' type, for the annotations alone
    import numpy as np

#: what each table of orthodox chess holds, by ptype: a pawn thread (BPAWN, PAWN), a piece
#: definition (engine.rules.pieces), or nothing (table 7: no orthodox piece has code 7)
ORTHODOX_LAYOUT = (BPAWN, PAWN, "N", "B", "R", "Q", "K", None)


def rays(pt: int, frm: int) -> list[list[int]]:
    """The rays of an orthodox piece of type ``pt`` on ``frm`` on an empty board, in generation
    order. Rays that leave the board at once are dropped. For pawns: [pushes, capture, capture]."""
    f0, r0 = frm & 7, frm >> 3
    result = []
    for i, (df, dr) in enumerate(DIRECTIONS[pt]):
        steps = MAX_STEPS[pt]
        if pt in (PAWN, BPAWN) and (i > 0 or r0 != HOME_RANK[pt]):
            steps = 1  # captures and pushes off the home rank are single steps
        ray = []
        f, r = f0, r0
        for _ in range(steps):
            f, r = f + df, r + dr
            if not (0 <= f < 8 and 0 <= r < 8):
                break
            ray.append(r * 8 + f)
        if ray or pt in (PAWN, BPAWN):
            result.append(ray)
    return result


@cache
def build_rows(layout: tuple) -> tuple[list[list[int]], list[list[int]]]:
    """``(nextpos, nextdir)`` of a layout as plain lists, ``rows[t * 64 + from][to]``: the
    tables every Board walks (shared: not to be changed). ``layout[t]`` is None (an empty
    table), PAWN or BPAWN (the pawn threads), or a piece definition in ``engine.rules.pieces``'
    notation. Pure: the same layout, the same tables."""
    assert len(layout) == N_TABLES, "8 tables"
    nextpos = [[frm] * 64 for _ in range(N_TABLES) for frm in range(64)]
    nextdir = [[frm] * 64 for _ in range(N_TABLES) for frm in range(64)]
    for t, what in enumerate(layout):
        if what is None:
            continue
        for frm in range(64):
            ppos, pdir = nextpos[t * 64 + frm], nextdir[t * 64 + frm]
            if what in (PAWN, BPAWN):
                pushes, *captures = rays(what, frm)
                _chain(ppos, frm, pushes)
                _chain(pdir, frm, [ray[0] for ray in captures if ray])
            else:
                moves = parse_piece(what)
                if not moves.plain:
                    raise ValueError(f"piece {what!r} has modes: a (from, to) table cannot "
                                     f"hold it (engine.rules.posdata.piece_walks)")
                _fill_piece(ppos, pdir, frm, moves.rays(frm))
    return nextpos, nextdir


@cache
def build_tables(layout: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(nextpos, nextdir)`` of a layout (``build_rows``), each of shape (8, 64, 64), dtype
    uint8, read-only."""
    import numpy as np
    tables = []
    for rows in build_rows(layout):
        table = np.array(rows, dtype=np.uint8).reshape(N_TABLES, 64, 64)
        table.flags.writeable = False
        tables.append(table)
    return tables[0], tables[1]


def build_posdata() -> tuple[np.ndarray, np.ndarray]:
    """Return ``(nextpos, nextdir)`` of orthodox chess, each of shape (8, 64, 64), dtype uint8."""
    return build_tables(ORTHODOX_LAYOUT)


def _fill_piece(ppos: list, pdir: list, frm: int, all_rays: list[list[int]]) -> None:
    """nextpos runs through every ray in turn; nextdir jumps from any square of a ray to the
    first square of the next one."""
    _chain(ppos, frm, [u for ray in all_rays for u in ray])
    starts = [ray[0] for ray in all_rays]
    for ray, next_start in zip(all_rays, starts[1:] + [frm]):
        for u in ray:
            pdir[u] = next_start
    pdir[frm] = starts[0] if starts else frm


def _chain(table: list, frm: int, squares: list[int]) -> None:
    """Link ``frm -> squares[0] -> squares[1] -> ... -> frm`` through ``table``."""
    prev = frm
    for u in squares:
        table[prev] = u
        prev = u
    table[prev] = frm


def table_rows(table: np.ndarray) -> list[list[int]]:
    """A (tables, 64, 64) array as plain lists, ``rows[t * 64 + from][to]``."""
    return [list(map(int, row)) for row in table.reshape(-1, 64)]


NEXTPOS_ROWS, NEXTDIR_ROWS = build_rows(ORTHODOX_LAYOUT)


def __getattr__(name: str):
    """``NEXTPOS`` and ``NEXTDIR``, the arrays, built (and numpy imported) on first use."""
    if name in ("NEXTPOS", "NEXTDIR"):
        return build_posdata()[name == "NEXTDIR"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def walk(pt: int, frm: int, occupied=frozenset(), nextpos_rows=None, nextdir_rows=None
         ) -> list[int]:
    """The squares a piece visits on a board where ``occupied`` squares block (for tests and
    documentation; the generator inlines this loop). Orthodox tables unless rows are given."""
    pos_rows = NEXTPOS_ROWS if nextpos_rows is None else nextpos_rows
    dir_rows = NEXTDIR_ROWS if nextdir_rows is None else nextdir_rows
    ppos, pdir = pos_rows[pt * 64 + frm], dir_rows[pt * 64 + frm]
    seen, u = [], ppos[frm]
    while u != frm:
        seen.append(u)
        u = pdir[u] if u in occupied else ppos[u]
    return seen


# --- walks with modes ------------------------------------------------------------------------

@cache
def piece_walks(definition: str, color: int = WHITE, pawn: bool = False) -> tuple[Walk, ...]:
    """Per from-square, the walk of a piece of ``definition`` (``engine.rules.pieces``) of
    ``color``; ``pawn``: a pawn's definition, whose ``i`` moves start on its home rank."""
    moves = parse_piece(definition, pawn)
    home = HOME_RANK[PAWN if color == WHITE else BPAWN]
    return tuple(moves.walk(frm, color, pawn and frm >> 3 == home) for frm in range(64))


def sandstrom_walk(ppos: list, pdir: list, frm: int, pawn: bool = False) -> Walk:
    """The walk of one (from, to) row pair as entries: every entry of a piece emits both kinds
    of move, nextpos is its successor on an empty square and nextdir on an occupied one. A
    pawn's pushes (quiet only, the second a double step) come first, then its captures
    (capture or en passant only)."""
    if pawn:
        pushes, captures = _thread(ppos, frm), _thread(pdir, frm)
        n = len(pushes) + len(captures)
        squares = pushes + captures
        modes = [QUIET | (DOUBLE if i else 0) for i in range(len(pushes))] + \
            [CAPTURE | EN_PASSANT] * len(captures)
        on_empty = [i + 1 for i in range(n)]
        on_occupied = [len(pushes)] * len(pushes) + [i + 1 for i in range(len(pushes), n)]
        return Walk(tuple(squares), tuple(modes), tuple(on_empty), tuple(on_occupied))
    squares = _thread(ppos, frm)
    index = {u: i for i, u in enumerate(squares)}
    index[frm] = len(squares)
    return Walk(tuple(squares), (BOTH,) * len(squares),
                tuple(index[ppos[u]] for u in squares), tuple(index[pdir[u]] for u in squares))


def _thread(row: list, frm: int) -> list[int]:
    out, u = [], row[frm]
    while u != frm:
        out.append(u)
        u = row[u]
    return out


def follow(walk: Walk, occupied) -> list[tuple[int, int]]:
    """The entries a walk visits on a board where ``occupied`` squares block, as
    (square, mode) pairs (for tests and documentation; the generator inlines this loop)."""
    seen, i = [], 0
    while i < len(walk.squares):
        u = walk.squares[i]
        seen.append((u, walk.modes[i]))
        i = walk.on_occupied[i] if u in occupied else walk.on_empty[i]
    return seen


#: the orthodox pawn in the notation: the same moves, in the same order, as its threads
ORTHODOX_PAWN = "fmWifmnDfceF"
