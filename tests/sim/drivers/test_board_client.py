"""The host side of the protocol (sim.drivers.fpga_board) against small fake boards in Python: what
it sends, how it reads, and that every way a reply can go wrong (silence, a garbled byte anywhere, a
wrong magic or version, an error code) is a one-line BoardError, after which the client gets back in
step by itself."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import A1, E1, E4, H8, MAX_MOVES
from posdata.hdl.common.contract import square_code
from posdata.hdl.link.protocol import (
    LOAD_BYTES,
    PROTOCOL_VERSION,
    Cmd,
    Err,
    SelfTest,
    State,
    command_frame,
    listing_payload,
    load_payload,
    perft_payload,
    ping_payload,
    reply_frame,
    state_bytes,
    status_payload,
    update_payload,
)
from posdata.sim.drivers.fpga_board import (
    BoardClient,
    BoardError,
    BoardRefused,
    BoardTimeout,
    ProtocolError,
)

MOVE = E1 | E4 << 6


class FakeBoard:
    """A transport whose board answers each command frame from a script: ``replies`` maps a
    command to a reply frame (bytes) or to a function of the frame's payload returning one;
    unscripted commands get nothing (a dead or stuck board). Like a simulated board it starts
    fresh (``just_reset``)."""

    name = "the fake board"
    limit = "no time"
    just_reset = True
    frame_timeout_s = 0.25
    poll_interval = 0.5

    def __init__(self, replies):
        self.replies = replies
        self.pending = bytearray()
        self.sent = bytearray()
        self.slept = []
        self.frames = []

    def write(self, data):
        self.sent += data
        data = bytes(data)
        while data:
            length = data[3]
            frame, data = data[:5 + length], data[5 + length:]
            cmd, payload = frame[1], frame[4:-1]
            self.frames.append((Cmd(cmd), payload))
            reply = self.replies.get(cmd, b"")
            self.pending += reply(payload) if callable(reply) else reply

    def read(self, n):
        data, self.pending[:] = bytes(self.pending[:n]), self.pending[n:]
        return data

    def discard_input(self):
        self.pending.clear()

    def sleep(self, seconds):
        self.slept.append(seconds)

    def close(self):
        pass


def ok(cmd, payload=b""):
    return reply_frame(Err.OK, cmd, payload)


PING_OK = ok(Cmd.PING, ping_payload(1, 2, SelfTest.PASSED))


def healthy(more=None):
    """Replies of a board that does what it is told (an empty position, no moves)."""
    return {Cmd.PING: PING_OK, Cmd.LOAD: ok(Cmd.LOAD), Cmd.UPDATE: ok(Cmd.UPDATE),
            Cmd.GENERATE: ok(Cmd.GENERATE, listing_payload(17, [MOVE])),
            Cmd.LEGAL: ok(Cmd.LEGAL, listing_payload(19, [])),
            Cmd.PERFT: ok(Cmd.PERFT), Cmd.ABORT: ok(Cmd.ABORT),
            Cmd.STATUS: ok(Cmd.STATUS, status_payload(State.DONE, 1, 2, 1, 400, 822)),
            **(more or {})}


def test_ping_reads_what_the_board_is():
    info = BoardClient(FakeBoard(healthy())).ping()
    assert (info.version, info.engines, info.threads, info.variant, info.self_test) == (
        PROTOCOL_VERSION, 1, 2, 0, SelfTest.PASSED)


def test_requests_load_then_update_then_nothing():
    fake = FakeBoard(healthy())
    client = BoardClient(fake)
    board = Board("7k/8/8/8/8/8/8/K7 w - - 0 1")
    result = client.generate(board)
    assert (result.moves, result.cycles, result.writes) == ([MOVE], 17, 64)
    codes = bytes(square_code(c, p) for c, p in zip(board.color, board.piece))
    assert fake.frames == [(Cmd.LOAD, load_payload(codes, state_bytes(0, 0, 0, 0))),
                           (Cmd.GENERATE, b"")]
    assert fake.sent == (command_frame(Cmd.LOAD, load_payload(codes, bytes(3)))
                         + command_frame(Cmd.GENERATE))
    fake.frames.clear()
    board.push_uci("a1b1")
    assert client.generate(board).writes == 2
    b1 = A1 + 1
    assert fake.frames[0] == (Cmd.UPDATE, update_payload(
        state_bytes(1, 0, 0, 0), [(A1, 2), (b1, square_code(0, 6))]))
    fake.frames.clear()
    assert client.legal_moves(board).writes == 0
    assert fake.frames == [(Cmd.UPDATE, state_bytes(1, 0, 0, 0)), (Cmd.LEGAL, b"")]
    assert len(fake.frames[0][1]) < LOAD_BYTES


def test_the_state_carries_en_passant_s_victim():
    """Berolina's pawn that passed c3 from d2 stands on b4: the state bytes name it (no rule on
    the en passant square and the side to move does)."""
    from posdata.engine.rules.variants import get_variant
    fake = FakeBoard(healthy())
    board = Board("4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1", get_variant("berolina"))
    BoardClient(fake).generate(board)
    assert fake.frames[0][0] == Cmd.LOAD and fake.frames[0][1][64:] == bytes([1, 0x80 | 18, 25])


def test_perft_polls_status_until_done_with_progress():
    polls = iter([status_payload(State.RUNNING, 1, 3, 2, 10, 100),
                  status_payload(State.RUNNING, 1, 3, 2, 5000, 9000),
                  status_payload(State.DONE, 1, 3, 2, 8902, 17285)])
    fake = FakeBoard(healthy({Cmd.STATUS: lambda _: ok(Cmd.STATUS, next(polls))}))
    seen = []
    count = BoardClient(fake).perft(Board(), 3, progress=lambda *p: seen.append(p))
    assert (count.leaves, count.clocks, count.depth, count.bulk, count.split) == (
        8902, 17285, 3, True, 2)
    assert seen == [(10, 100), (5000, 9000)] and fake.slept == [0.5, 0.5]
    assert (Cmd.PERFT, perft_payload(3, True, 2)) in fake.frames


def test_perft_overflow_is_an_error_not_a_number():
    fake = FakeBoard(healthy({Cmd.STATUS: reply_frame(Err.OVERFLOW, Cmd.STATUS)}))
    with pytest.raises(BoardError, match=r"^perft\(5\) on the fake board overflowed a move "
                                         r"stack: the chip gives no count for it$"):
        BoardClient(fake).perft(Board(), 5)


def test_perft_limit_aborts_the_count():
    fake = FakeBoard(healthy({Cmd.STATUS: ok(Cmd.STATUS, status_payload(
        State.RUNNING, 1, 6, 2, 10, 100))}))
    with pytest.raises(BoardTimeout, match=r"perft\(6\) did not finish within 0 s.*aborted"):
        BoardClient(fake).perft(Board(), 6, limit=0)
    assert fake.frames[-1] == (Cmd.ABORT, b"")


def test_perft_aborted_by_someone_else():
    fake = FakeBoard(healthy({Cmd.STATUS: ok(Cmd.STATUS, status_payload(
        State.ABORTED, 1, 4, 2, 10, 100))}))
    with pytest.raises(BoardError, match=r"perft\(4\) on the fake board was aborted"):
        BoardClient(fake).perft(Board(), 4)


@pytest.mark.parametrize("depth, split", [(13, 2), (-1, 0), (3, 3), (1, 1)])
def test_perft_arguments_are_checked_before_sending(depth, split):
    fake = FakeBoard(healthy())
    with pytest.raises(ValueError):
        BoardClient(fake).perft(Board(), depth, split=split)
    assert fake.sent == b""


def test_a_refusal_names_the_command_and_the_code():
    fake = FakeBoard(healthy({Cmd.PERFT: reply_frame(Err.BUSY, Cmd.PERFT)}))
    with pytest.raises(BoardRefused, match=r"^the board on the fake board refused PERFT: BUSY "
                                           r"\(a count is running.*\)$") as e:
        BoardClient(fake).perft(Board(), 2)
    assert e.value.code == Err.BUSY and e.value.cmd == Cmd.PERFT


def test_a_refused_load_is_reported_and_the_listing_behind_it_read():
    fake = FakeBoard(healthy({Cmd.LOAD: reply_frame(Err.BUSY, Cmd.LOAD),
                                Cmd.GENERATE: reply_frame(Err.BUSY, Cmd.GENERATE)}))
    client = BoardClient(fake)
    with pytest.raises(BoardRefused, match="refused LOAD: BUSY"):
        client.generate(Board())
    assert fake.pending == b""  # both replies read: in step
    assert client.shadow.color[H8] == -1  # the next load is a whole one


# --- Every garbled reply is a one-line error, then the client gets back in step -------------

GOOD_STATUS = ok(Cmd.STATUS, status_payload(State.DONE, 1, 2, 1, 400, 822))


@pytest.mark.parametrize("where", range(len(GOOD_STATUS)))
def test_a_corrupted_reply_byte_is_a_one_line_board_error(where):
    bad = bytearray(GOOD_STATUS)
    bad[where] ^= 0x20
    fake = FakeBoard(healthy({Cmd.STATUS: bytes(bad)}))
    client = BoardClient(fake)
    with pytest.raises(BoardError) as e:
        client.status()
    message = str(e.value)
    assert len(message.splitlines()) == 1 and "fake board" in message
    # back in step by itself: silence beyond the frame time-out, the line drained, a PING
    fake.replies[Cmd.STATUS] = GOOD_STATUS
    fake.frames.clear()
    assert client.status().leaves == 400
    assert fake.slept[-1] >= 2 * fake.frame_timeout_s
    assert [cmd for cmd, _ in fake.frames] == [Cmd.PING, Cmd.STATUS]


@pytest.mark.parametrize("reply, match", [
    (b"", "the STATUS reply did not arrive from the fake board within no time"),
    (GOOD_STATUS[:10], r"the 20-byte STATUS reply's payload and CRC did not arrive .* 6 of 21"),
    (reply_frame(Err.OK, Cmd.PING, bytes(20)), "garbled reply header"),
    (reply_frame(9, Cmd.STATUS), "garbled reply header"),
    (reply_frame(Err.BUSY, Cmd.STATUS, b"x"), "garbled reply header"),
    (reply_frame(Err.OK, Cmd.STATUS, bytes(21)), "21-byte reply to STATUS, more than it can"),
    (reply_frame(Err.OK, Cmd.STATUS, bytes(19)), "sent 19 bytes for STATUS, not 20"),
    (ok(Cmd.STATUS, status_payload(7, 1, 2, 1, 0, 0)), "state 7"),
    (ok(Cmd.STATUS, status_payload(0, 0x80, 2, 1, 0, 0)), "flags 0x80"),
])
def test_bad_status_replies(reply, match):
    fake = FakeBoard(healthy({Cmd.STATUS: reply}))
    with pytest.raises(BoardError, match=match):
        BoardClient(fake).status()


@pytest.mark.parametrize("reply, match", [
    (ok(Cmd.GENERATE, listing_payload(0, [1 << 21])), "move word 0x200000 wider than 21 bits"),
    (ok(Cmd.GENERATE, listing_payload(0, [MOVE])[:-1]), "sent 8 bytes for GENERATE, not 9"),
])
def test_bad_listings(reply, match):
    client = BoardClient(FakeBoard(healthy({Cmd.GENERATE: reply})))
    with pytest.raises(ProtocolError, match=match):
        client.generate(Board())
    assert client.shadow.color[A1] == -1


def test_dead_board_times_out_naming_the_reply():
    with pytest.raises(BoardTimeout, match="the PING reply did not arrive from the fake board"):
        BoardClient(FakeBoard({})).ping()


def test_wrong_magic_wrong_version_and_a_version_1_board():
    with pytest.raises(ProtocolError, match="not a posdata board"):
        BoardClient(FakeBoard({Cmd.PING: ok(Cmd.PING, b"ABCD\x02\x01\x02\x00")})).ping()
    with pytest.raises(ProtocolError, match="protocol version 5.*rebuild the bitstream"):
        BoardClient(FakeBoard({Cmd.PING: ok(Cmd.PING, b"POS\x05\x01\x02\x00\x00")})).ping()
    # version 3's state bytes carry no en passant victim
    with pytest.raises(ProtocolError, match="protocol version 3, this host version 4"):
        BoardClient(FakeBoard({Cmd.PING: ok(Cmd.PING, b"POS\x03\x01\x02\x00\x00")})).ping()
    # version 2's search board holds one command ahead, not a batch
    with pytest.raises(ProtocolError, match="protocol version 2, this host version 4"):
        BoardClient(FakeBoard({Cmd.PING: ok(Cmd.PING, b"POS\x02\x00\x02\x00\x00")})).ping()
    # a version 1 board ignores SYNC and answers the PING byte with its own reply
    with pytest.raises(ProtocolError, match="speaks protocol version 1.*rebuild the bitstream"):
        BoardClient(FakeBoard({Cmd.PING: b"POS\x01"})).ping()
    with pytest.raises(ProtocolError, match="self-test state 9"):
        BoardClient(FakeBoard({Cmd.PING: ok(Cmd.PING, b"POS\x04\x01\x02\x00\x09")})).ping()


def test_link_refusals_resync_other_refusals_do_not():
    fake = FakeBoard(healthy({Cmd.ABORT: reply_frame(Err.BAD_CRC, Cmd.ABORT)}))
    client = BoardClient(fake)
    with pytest.raises(BoardRefused, match="BAD_CRC"):
        client.abort()
    client.status()
    assert fake.slept and [c for c, _ in fake.frames][-2:] == [Cmd.PING, Cmd.STATUS]
    fake.replies[Cmd.ABORT] = reply_frame(Err.BUSY, Cmd.ABORT)
    fake.slept.clear()
    with pytest.raises(BoardRefused, match="BUSY"):
        client.abort()
    client.status()
    assert not fake.slept  # in step: no resync


def test_a_listing_up_to_the_buffer_size_is_taken_one_more_refused():
    full = BoardClient(FakeBoard(healthy({Cmd.GENERATE: ok(Cmd.GENERATE, listing_payload(
        5, [MOVE] * MAX_MOVES))})))
    assert len(full.generate(Board()).moves) == MAX_MOVES
    over = BoardClient(FakeBoard(healthy({Cmd.GENERATE: ok(Cmd.GENERATE, listing_payload(
        5, [MOVE] * (MAX_MOVES + 1)))})))
    with pytest.raises(ProtocolError, match="reply to GENERATE, more than it can have"):
        over.generate(Board())
