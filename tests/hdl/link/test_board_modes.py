"""An ECP5 board's perft chip with modes (hdl.link.chip_frontend.UartFrontEnd around the real
chip, pawnsideways) in Amaranth's simulator, through protocol 3: the counts equal the software's,
a root with an en passant square among them. The protocol carries no en passant victim; the front
end derives it (hdl.link.position_writer), and a wrong one changes the count with en passant
(its capture leaves the pawn that passed on the board). The compiled board model is built for
chess alone, so the simulator runs it: small positions, small depths."""

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.variants import get_variant
from posdata.hdl.link.chip_frontend import UartFrontEnd
from posdata.hdl.link.protocol import UART_FRAME_BITS
from posdata.sim.drivers.fpga_board import BoardClient
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport

DIVISOR = 4

#: Black to move may take d4 en passant (the victim beyond d3); the same without the square
COUNTS = (("4k3/8/8/8/2pP4/8/8/4K3 b - d3 0 1", 2), ("4k3/8/8/8/2pP4/8/8/4K3 b - - 0 1", 2))


def test_counts_with_and_without_en_passant_equal_the_software_s():
    variant = get_variant("pawnsideways")
    front_end = UartFrontEnd(DIVISOR, self_test_depth=None, variant=variant,
                             frame_timeout=64 * UART_FRAME_BITS * DIVISOR)
    client = BoardClient(SimulatedTransport(DIVISOR, front_end=front_end))
    client.ping()
    for fen, depth in COUNTS:
        board = Board(fen, variant)
        want = perft(board, depth, bulk=True)
        got = client.perft(board, depth).leaves
        assert got == want, f"{variant.name} {fen} perft({depth}): board {got}, software {want}"
