"""Jobs held to the reference, and on a difference the first differing node: the job's children
re-run as jobs with the windows the reference gave them, down to the deepest job that differs
while its children agree (a quiescence root is as deep as jobs go: depth 0)."""

from posdata.engine.board import Board
from posdata.engine.defs import move_uci
from posdata.engine.leaf_search import LeafSearch, leaf_search


class _Recording(LeafSearch):
    """The reference, noting the root's children: (move, child window, child depth)."""

    def run(self, alpha, beta, depth, ply=0):
        self.children = []
        return super().run(alpha, beta, depth, ply)

    def child(self, m, alpha, beta, depth):
        if self.board.ply == self.root and depth >= 0:
            self.children.append((m, -beta, -alpha, depth))
        return super().child(m, alpha, beta, depth)


def same(a, b) -> bool:
    return (a.score, a.best_move, a.nodes) == (b.score, b.best_move, b.nodes)


def describe(fen, alpha, beta, depth, ply, got, want) -> str:
    return (f"{fen} window ({alpha}, {beta}) depth {depth} ply {ply}: chip score {got.score} "
            f"best {got.best_move} nodes {got.nodes}; reference {want.score} {want.best_move} "
            f"{want.nodes}")


def first_difference(search, fen, alpha, beta, depth, ply=0) -> str | None:
    """None if ``search`` (a job runner: (fen, alpha, beta, depth, ply) -> LeafResult) agrees
    with the reference on the job, else a line naming the job's first differing node."""
    got, want = search(fen, alpha, beta, depth, ply), leaf_search(Board(fen), alpha, beta,
                                                                  depth, ply)
    if same(got, want):
        return None
    line = describe(fen, alpha, beta, depth, ply, got, want)
    if depth == 0:
        return line
    rec = _Recording(Board(fen))
    rec.run(alpha, beta, depth, ply)
    for m, a, b, d in rec.children:
        board = Board(fen)
        board.makemove(m)
        deeper = first_difference(search, board.fen(), a, b, d, ply + 1)
        if deeper:
            return f"{deeper}\n  below {move_uci(m)} of {line}"
    return line
