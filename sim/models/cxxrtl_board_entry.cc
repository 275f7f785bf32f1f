// C entry points around the CXXRTL model of hdl.link.chip_frontend.UartFrontEnd (the board: the perft
// chip behind the UART protocol): the host's bytes go onto the design's rx line bit by bit, and
// its tx line is decoded into bytes, all in the native loop. The generated model, the hardware
// contract's constants (POSDATA_UART_FRAME_BITS: sim/models/entry_constants.py) and
// POSDATA_UART_DIVISOR (clocks per bit; sim/models/cxxrtl.py) come just before this file.
//
// Clocking as in sim/models/cxxrtl_gen_entry.cc: inputs set, then one rising edge per tick. The line model
// is a PC's UART: it sends 8N1 frames of exactly DIVISOR clocks per bit, back to back, and
// samples tx in the middle of each bit, checking the stop bit.

#include <cstdint>
#include <deque>
#include <vector>

namespace {

template <size_t N> uint64_t rd(const cxxrtl::value<N> &v) { return v.template get<uint64_t>(); }
template <size_t N> uint64_t rd(const cxxrtl::wire<N> &w) { return w.curr.template get<uint64_t>(); }

constexpr int D = POSDATA_UART_DIVISOR;
constexpr int FRAME_BITS = POSDATA_UART_FRAME_BITS;
constexpr int DATA_BITS = 8;
static_assert(FRAME_BITS == 1 + DATA_BITS + 1, "the line model is 8N1: start, a byte, stop");
constexpr uint32_t IDLE_FRAME = (1u << FRAME_BITS) - 1;  // the line held high
constexpr uint32_t STOP_BIT = 1u << (FRAME_BITS - 1);

struct Board {
  cxxrtl_design::p_top top;
  uint64_t clocks = 0;
  uint64_t last_activity = 0;  // the clock of the last bit sent or byte received

  // host -> board: the frame on rx, shifted out of bit 0
  std::deque<uint8_t> to_board;
  uint32_t frame = IDLE_FRAME;
  int bits_left = 0;
  int bit_timer = 0;

  // board -> host: clocks since the falling edge of the start bit (-1: idle)
  int phase = -1;
  uint32_t byte = 0;
  std::vector<uint8_t> from_board;
  uint32_t framing_errors = 0;

  void drive_rx() {
    if (bits_left == 0 && !to_board.empty()) {
      frame = STOP_BIT | uint32_t(to_board.front()) << 1;  // stop, data, start (LSB first)
      to_board.pop_front();
      bits_left = FRAME_BITS;
      bit_timer = D;
    }
    top.p_rx.set<bool>(bits_left ? (frame & 1) : true);
  }

  void after_edge() {
    if (bits_left && --bit_timer == 0) {
      frame >>= 1;
      bit_timer = D;
      if (--bits_left == 0) last_activity = clocks;
    }
    bool tx = rd(top.p_tx);
    if (phase < 0) {
      if (!tx) phase = 0;
      return;
    }
    phase++;
    if (phase < D / 2 || (phase - D / 2) % D) return;
    int bit = (phase - D / 2) / D;  // 0 start, 1..DATA_BITS data, then stop
    if (bit == 0) {
      if (tx) phase = -1;  // a glitch, not a start bit (the gateware never makes one)
    } else if (bit <= DATA_BITS) {
      byte = byte >> 1 | uint32_t(tx) << (DATA_BITS - 1);
    } else {
      if (tx) from_board.push_back(uint8_t(byte));
      else framing_errors++;
      last_activity = clocks;
      phase = -1;
    }
  }

  void tick() {
    drive_rx();
    top.prev_p_clk = cxxrtl::value<1>{0u};
    top.p_clk.set<bool>(true);
    top.step();
    clocks++;
    after_edge();
  }

  bool quiet(uint64_t clocks_quiet) const {
    return to_board.empty() && bits_left == 0 && phase < 0 && clocks - last_activity >= clocks_quiet;
  }
};

}  // namespace

extern "C" {

void *posdata_board_create() {
  Board *b = new Board();
  b->top.p_rx.set<bool>(true);
  b->top.step();
  return b;
}

void posdata_board_destroy(void *handle) { delete static_cast<Board *>(handle); }

uint64_t posdata_board_clocks(void *handle) { return static_cast<Board *>(handle)->clocks; }

// Queue bytes for the board's rx line.
void posdata_board_send(void *handle, const uint8_t *data, uint32_t n) {
  Board *b = static_cast<Board *>(handle);
  b->to_board.insert(b->to_board.end(), data, data + n);
}

// Run until `want` bytes have been received (want 0: never), or the line has been quiet (nothing
// left to send, nothing arriving) for `quiet` clocks (quiet 0: never), or `max_clocks` clocks
// have passed. The bytes received (at most `capacity`; the rest stay for the next call) go to
// `out`; returns how many.
int32_t posdata_board_run(void *handle, uint64_t max_clocks, uint32_t want, uint64_t quiet,
                          uint8_t *out, uint32_t capacity) {
  Board *b = static_cast<Board *>(handle);
  for (uint64_t i = 0; i < max_clocks; i++) {
    if (want && b->from_board.size() >= want) break;
    if (quiet && b->quiet(quiet)) break;
    b->tick();
  }
  uint32_t n = b->from_board.size() < capacity ? b->from_board.size() : capacity;
  for (uint32_t i = 0; i < n; i++) out[i] = b->from_board[i];
  b->from_board.erase(b->from_board.begin(), b->from_board.begin() + n);
  return int32_t(n);
}

// The front end's outputs besides the line: busy, the self-test's verdict, and framing errors
// seen on tx so far.
void posdata_board_probe(void *handle, uint32_t *busy, uint32_t *self_test,
                         uint32_t *framing_errors) {
  Board *b = static_cast<Board *>(handle);
  *busy = uint32_t(rd(b->top.p_busy));
  *self_test = uint32_t(rd(b->top.p_self__test));
  *framing_errors = b->framing_errors;
}

}  // extern "C"
