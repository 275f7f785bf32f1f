"""Sandström's posdata tables: ``nextpos[ptype][from][to]`` and ``nextdir[ptype][from][to]``.

Ref: GNU Chess 4.0 doc/MOVE-GEN (H. E. Sandström, 1989) and init.c Initialize_moves.

Every move of every piece type from every square, ignoring other pieces, is chained through two
"next" pointers, so that a walk over the board needs no direction arithmetic at all:

* ``nextpos[p][f][u]``: where to go when square ``u`` was empty (the next square of the same
  ray, or the first square of the next ray when the ray ends);
* ``nextdir[p][f][u]``: where to go when ``u`` was occupied (the first square of the next ray).

Every entry defaults to the from-square ``f``, and reaching ``f`` again ends the walk. The walk
starts at ``nextpos[p][f][f]``. For knights and kings every ray is one square long, so the two
chains coincide.

Pawns (PAWN for white, BPAWN for black) keep two separate threads that both start at the
from-square: ``nextpos`` holds the pushes (one step; a second step only from the home rank)
and ``nextdir`` holds the diagonal capture squares. Pawns on their last rank get empty threads.

The tables are built once by a pure function; ``NEXTPOS``/``NEXTDIR`` are numpy uint8 arrays
(the ROM image of the gateware) and ``NEXTPOS_ROWS``/``NEXTDIR_ROWS`` the same data as plain
lists, ``ROWS[ptype * 64 + from][to]``, for the Python generator's hot loop.
"""

import numpy as np

from .defs import BPAWN, DIRECTIONS, HOME_RANK, MAX_STEPS, N_PTYPES, PAWN


def rays(pt: int, frm: int) -> list[list[int]]:
    """The rays of a piece of type ``pt`` on ``frm`` on an empty board, in generation order.
    Rays that leave the board at once are dropped. For pawns: [pushes, capture, capture]."""
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


def build_posdata() -> tuple[np.ndarray, np.ndarray]:
    """Return ``(nextpos, nextdir)``, each of shape (8, 64, 64), dtype uint8."""
    nextpos = np.empty((N_PTYPES, 64, 64), dtype=np.uint8)
    nextdir = np.empty((N_PTYPES, 64, 64), dtype=np.uint8)
    for frm in range(64):
        nextpos[:, frm, :] = frm
        nextdir[:, frm, :] = frm
    for pt in DIRECTIONS:
        for frm in range(64):
            ppos, pdir = nextpos[pt, frm], nextdir[pt, frm]
            if pt in (PAWN, BPAWN):
                pushes, *captures = rays(pt, frm)
                _chain(ppos, frm, pushes)
                _chain(pdir, frm, [ray[0] for ray in captures if ray])
            else:
                all_rays = rays(pt, frm)
                _chain(ppos, frm, [u for ray in all_rays for u in ray])
                starts = [ray[0] for ray in all_rays]
                for ray, next_start in zip(all_rays, starts[1:] + [frm]):
                    for u in ray:
                        pdir[u] = next_start
                pdir[frm] = starts[0] if starts else frm
    return nextpos, nextdir


def _chain(table: np.ndarray, frm: int, squares: list[int]) -> None:
    """Link ``frm -> squares[0] -> squares[1] -> ... -> frm`` through ``table``."""
    prev = frm
    for u in squares:
        table[prev] = u
        prev = u
    table[prev] = frm


NEXTPOS, NEXTDIR = build_posdata()
NEXTPOS.flags.writeable = False
NEXTDIR.flags.writeable = False
NEXTPOS_ROWS = [list(map(int, row)) for row in NEXTPOS.reshape(-1, 64)]
NEXTDIR_ROWS = [list(map(int, row)) for row in NEXTDIR.reshape(-1, 64)]


def walk(pt: int, frm: int, occupied=frozenset()) -> list[int]:
    """The squares a piece visits on a board where ``occupied`` squares block (for tests and
    documentation; the generator inlines this loop)."""
    ppos, pdir = NEXTPOS_ROWS[pt * 64 + frm], NEXTDIR_ROWS[pt * 64 + frm]
    seen, u = [], ppos[frm]
    while u != frm:
        seen.append(u)
        u = pdir[u] if u in occupied else ppos[u]
    return seen
