"""``go perft N`` for the UCI engine: Stockfish's divide, that a ``stop`` (or ``quit``) ends.

It runs on the engine's worker thread. The stop is looked at before every move generation, by
wrapping the generator (engine.rules.perft is untouched, and so is its speed): a count on the
reference generator notices it within a millisecond, one on the gateware within one generation.
"""

from ..rules.perft import perft


class PerftStopped(Exception):
    pass


def stoppable(gen, stopped):
    """``gen``, which first raises PerftStopped once ``stopped()`` is true."""
    def gen_or_stop(board):
        if stopped():
            raise PerftStopped
        gen(board)
    return gen_or_stop


def go_perft(board, depth: int, gen, stopped, send, info) -> None:
    """Print ``move: count`` per legal root move as each is counted (generation order), then as
    Stockfish does an empty line, ``Nodes searched: N`` and an empty line. Stopped: the moves
    counted so far, then ``info string perft stopped ...`` and no total (a partial total would
    read as the answer). ``send`` prints a line, ``info`` an info string. The board is left as it
    was given, whatever happens."""
    root = len(board.hist)
    counting = stoppable(gen, stopped)
    done = total = 0
    try:
        moves = board.legal_moves(counting)
        for m in moves:
            board.makemove(m)
            n = perft(board, depth - 1, counting, bulk=True)
            board.takeback()
            send(f"{board.uci(m)}: {n}")
            done += 1
            total += n
    except PerftStopped:
        _unwind(board, root)
        if done:
            info(f"perft stopped after {done} of {len(moves)} root moves")
        else:
            info("perft stopped")
        return
    except Exception as e:  # noqa: BLE001  (a generator that failed: say so, keep the engine)
        _unwind(board, root)
        info(f"perft failed: {type(e).__name__}: {e}")
        return
    send("")
    send(f"Nodes searched: {total}")
    send("")


def _unwind(board, root: int) -> None:
    while len(board.hist) > root:
        board.takeback()
