"""The gateware held to the reference generator at every node: a move generator for perft that
runs both and stops at the first position where their move sequences differ (not just counts:
same moves, same order, same flags)."""

from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.movegen import gen as reference_gen

from ..drivers.interface import GatewareMoveGen
from ..views.difference import describe_difference


class GeneratorMismatch(Exception):
    """The first differing node: its FEN, the moves that lead there, and both move lists."""

    def __init__(self, fen: str, line: list[str], hw: list[int], sw: list[int], uci=move_uci):
        self.fen, self.line, self.hw, self.sw = fen, line, hw, sw
        path = " ".join(line) if line else "(root)"
        super().__init__(f"generators differ after {path}: "
                         + describe_difference(fen, hw, sw, uci=uci))


class CheckingMoveGen:
    """Runs the gateware and the reference generator at every node and insists they agree."""

    def __init__(self, hw: GatewareMoveGen, root_hist: int, prefix: list[str]):
        self.hw = hw
        self.root_hist = root_hist  # moves in board.hist before this subtree's root
        self.prefix = prefix        # the moves from the user's position to this subtree's root

    def gen(self, board) -> None:
        reference_gen(board)
        start, end = board.first_move[board.ply], board.first_move[board.ply + 1]
        sw = board.gen_dat[start:end]
        self.hw.gen(board)
        hw = board.gen_dat[start:board.first_move[board.ply + 1]]
        if hw != sw:
            line = self.prefix + [move_uci(h[0]) for h in board.hist[self.root_hist:]]
            raise GeneratorMismatch(board.fen(), line, hw, sw, board_uci(board))


def board_uci(board):
    """Moves in the board's notation (a variant's letters, Chess960 castling), and in plain
    UCI where a wrong generator's move makes no sense there."""
    def uci(m: int) -> str:
        try:
            return board.uci(m)
        except (KeyError, IndexError):
            return move_uci(m) if m >> 18 < 7 else move_uci(m & (1 << 18) - 1) + "?"
    return uci
