// C entry points around the Verilator model of hdl.link.chip_frontend.UartFrontEnd (the board: the
// perft chip behind the UART protocol; the Verilog of sim/models/verilog_export.py), with exactly
// the interface of the CXXRTL board's (sim/models/cxxrtl_board_entry.cc), so that one Python
// driver (sim.drivers.fpga_board_sim.CompiledBoard) loads either. The hardware contract's
// constants and POSDATA_UART_DIVISOR come just before this file (sim/models/verilator.py).
//
// Clocking as in the CXXRTL board, to the clock: rx set, then one rising edge (clk = 1, eval;
// clk = 0, eval: the second eval only settles). The line model is the CXXRTL entry's: a PC's UART
// sending 8N1 frames of exactly DIVISOR clocks a bit, back to back, and sampling tx in the middle
// of each bit, checking the stop bit.
//
// The outputs (tx, busy, self_test) are read as they stood before the edge, as the CXXRTL board
// shows them: it is one flattened module, whose step ends once its registers are committed,
// before its combinational outputs (all three) are worked out again. None depends on rx but
// through registers, so the values before the edge are those of the clock just run.
//
// X-initialisation: built with `--x-initial unique`; POSDATA_X_SEED (0, or unset: all zeros)
// seeds random power-up values of whatever the Verilog gives no initial value.

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <vector>

#include "Vposdata_board.h"
#include "verilated.h"

namespace {

constexpr int D = POSDATA_UART_DIVISOR;
constexpr int FRAME_BITS = POSDATA_UART_FRAME_BITS;
constexpr int DATA_BITS = 8;
static_assert(FRAME_BITS == 1 + DATA_BITS + 1, "the line model is 8N1: start, a byte, stop");
constexpr uint32_t IDLE_FRAME = (1u << FRAME_BITS) - 1;  // the line held high
constexpr uint32_t STOP_BIT = 1u << (FRAME_BITS - 1);

struct Board {
  VerilatedContext context;
  Vposdata_board *top;
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

  // the outputs as the CXXRTL board shows them (see the top of this file)
  bool tx = true;
  uint32_t busy = 0, self_test = 0;
  void sample() {
    tx = top->tx;
    busy = top->busy;
    self_test = top->self_test;
  }

  explicit Board(uint32_t seed) {
    if (seed) {
      context.randReset(2);  // 2: randomise every X-initialised variable
      context.randSeed(static_cast<int>(seed));
    }
    top = new Vposdata_board(&context);
    top->clk = 0;
    top->rst = 0;
    top->rx = 1;  // the idle line
    top->eval();
    sample();
  }
  ~Board() {
    top->final();
    delete top;
  }

  void drive_rx() {
    if (bits_left == 0 && !to_board.empty()) {
      frame = STOP_BIT | uint32_t(to_board.front()) << 1;  // stop, data, start (LSB first)
      to_board.pop_front();
      bits_left = FRAME_BITS;
      bit_timer = D;
    }
    top->rx = bits_left ? (frame & 1) : 1;
  }

  void after_edge() {
    if (bits_left && --bit_timer == 0) {
      frame >>= 1;
      bit_timer = D;
      if (--bits_left == 0) last_activity = clocks;
    }
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
    sample();
    top->clk = 1;
    top->eval();
    top->clk = 0;
    top->eval();
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
  const char *seed = std::getenv("POSDATA_X_SEED");
  return new Board(seed ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : 0);
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
  *busy = b->busy;
  *self_test = b->self_test;
  *framing_errors = b->framing_errors;
}

}  // extern "C"
