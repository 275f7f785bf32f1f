"""An ECP5 board's perft chip with modes (hdl.link.chip_frontend.UartFrontEnd around the real
chip) in Amaranth's simulator, through the protocol: the counts equal the software's, a root
with an en passant square among them. The host sends en passant's victim with the state bytes
(protocol version 4); a wrong one changes the count with en passant (its capture leaves the
pawn that passed on the board). Berolina's victim stands beside the square passed, where no
rule on the en passant square finds it, so its board runs by default; pawnsideways' (the same
RTL, memory contents apart; its victim straight beyond the square) with the slow tests. The
compiled board model is built for chess alone, so the simulator runs it: small positions, small
depths, every UART byte simulated."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.variants import get_variant
from posdata.hdl.link.chip_frontend import UartFrontEnd
from posdata.hdl.link.protocol import UART_FRAME_BITS
from posdata.sim.drivers.fpga_board import BoardClient
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport

DIVISOR = 4

#: per variant: a root with an en passant square whose capture takes the pawn that passed, and
#: the same without the square
COUNTS = {
    # Black to move may take c3 en passant from c4: the victim on b4 (from d2), not c4 beyond c3
    "berolina": (("4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1", 2),
                 ("4k3/8/8/8/1Pp5/8/8/4K3 b - - 0 1", 2)),
    # Black to move may take d4 en passant (the victim beyond d3)
    "pawnsideways": (("4k3/8/8/8/2pP4/8/8/4K3 b - d3 0 1", 2),
                     ("4k3/8/8/8/2pP4/8/8/4K3 b - - 0 1", 2)),
}


@pytest.mark.parametrize("name", ["berolina", pytest.param("pawnsideways",
                                                           marks=pytest.mark.slow)])
def test_counts_with_and_without_en_passant_equal_the_software_s(name):
    variant = get_variant(name)
    front_end = UartFrontEnd(DIVISOR, self_test_depth=None, variant=variant,
                             frame_timeout=64 * UART_FRAME_BITS * DIVISOR)
    client = BoardClient(SimulatedTransport(DIVISOR, front_end=front_end))
    client.ping()
    counts = []
    for fen, depth in COUNTS[name]:
        board = Board(fen, variant)
        want = perft(board, depth, bulk=True)
        got = client.perft(board, depth).leaves
        assert got == want, f"{variant.name} {fen} perft({depth}): board {got}, software {want}"
        counts.append(got)
    assert counts[0] != counts[1]  # the en passant capture counted
