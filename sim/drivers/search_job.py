"""A job as the search thread takes it (hdl.search.records): the Job word, the job's past (the
halfmove counter and how many earlier positions the host writes) and those positions' hashes,
from an engine board that carries its game's history.

The thread compares a full-width node with the positions of the last ``REPETITION_PLIES`` plies
since the last irreversible move (engine.search.leaf_search.repeats), so the host writes the hashes
of the last min(fifty, REPETITION_PLIES) positions before the job's root, oldest first (fewer when
the board's history is shorter), each cut to the HASH_BITS the thread keeps. """

from posdata.engine.search.leaf_search import HASH_MASK, REPETITION_PLIES
from posdata.hdl.search.records import FIFTY_BITS, Job, Past


def pack(layout, values: dict) -> int:
    word = 0
    for name, f in layout:
        word |= (values[name] & ((1 << f.width) - 1)) << f.offset
    return word


def job_values(board, alpha: int, beta: int, depth: int, ply: int, extensions: int) -> dict:
    return {"side": board.side, "castle": board.castle, "ep_valid": int(board.ep >= 0),
            "ep_sq": max(board.ep, 0), "alpha": alpha, "beta": beta, "depth": depth,
            "ply": ply, "ext": extensions}


def job_word(board, alpha: int, beta: int, depth: int, ply: int, extensions: int = 0) -> int:
    """The Job layout's bits for a job on ``board``."""
    return pack(Job, job_values(board, alpha, beta, depth, ply, extensions))


def history_length(board) -> int:
    """How many earlier positions the thread may compare with."""
    return min(board.fifty, REPETITION_PLIES, len(board.hist))


def history_hashes(board) -> list[int]:
    """The hashes of the positions the thread may compare with, oldest first."""
    n = len(board.hist)
    return [entry[5] & HASH_MASK for entry in board.hist[n - history_length(board):]]


def past_values(board) -> dict:
    return {"fifty": min(board.fifty, (1 << FIFTY_BITS) - 1),
            "length": history_length(board)}


def past_word(board) -> int:
    """The Past layout's bits: the halfmove counter (saturated) and the history's length."""
    return pack(Past, past_values(board))
