// C entry points around the CXXRTL model of hdl.link.chip_frontend.UartFrontEnd (the board: the perft
// chip behind the UART protocol): the host's bytes go onto the design's rx line bit by bit, and
// its tx line is decoded into bytes, all in the native loop. The generated model, the hardware
// contract's constants (POSDATA_UART_FRAME_BITS: sim/models/entry_constants.py),
// POSDATA_UART_DIVISOR (clocks per bit; sim/models/cxxrtl.py) and the line model
// (sim/models/uart_line.h, shared with the Verilator board) come just before this file.
//
// Clocking as in sim/models/cxxrtl_gen_entry.cc: inputs set, then one rising edge per tick.

#include <cstdint>

namespace {

template <size_t N> uint64_t rd(const cxxrtl::value<N> &v) { return v.template get<uint64_t>(); }
template <size_t N> uint64_t rd(const cxxrtl::wire<N> &w) { return w.curr.template get<uint64_t>(); }

struct Board {
  cxxrtl_design::p_top top;
  posdata_line::UartLine line;

  void tick() {
    top.p_rx.set<bool>(line.rx());
    top.prev_p_clk = cxxrtl::value<1>{0u};
    top.p_clk.set<bool>(true);
    top.step();
    line.after_edge(rd(top.p_tx));
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

uint64_t posdata_board_clocks(void *handle) { return static_cast<Board *>(handle)->line.clocks; }

// Queue bytes for the board's rx line.
void posdata_board_send(void *handle, const uint8_t *data, uint32_t n) {
  static_cast<Board *>(handle)->line.send(data, n);
}

// Run until `want` bytes have been received (want 0: never), or the line has been quiet (nothing
// left to send, nothing arriving) for `quiet` clocks (quiet 0: never), or `max_clocks` clocks
// have passed. The bytes received (at most `capacity`; the rest stay for the next call) go to
// `out`; returns how many.
int32_t posdata_board_run(void *handle, uint64_t max_clocks, uint32_t want, uint64_t quiet,
                          uint8_t *out, uint32_t capacity) {
  Board *b = static_cast<Board *>(handle);
  return b->line.run([b] { b->tick(); }, max_clocks, want, quiet, out, capacity);
}

// The front end's outputs besides the line: busy, the self-test's verdict, and framing errors
// seen on tx so far.
void posdata_board_probe(void *handle, uint32_t *busy, uint32_t *self_test,
                         uint32_t *framing_errors) {
  Board *b = static_cast<Board *>(handle);
  *busy = uint32_t(rd(b->top.p_busy));
  *self_test = uint32_t(rd(b->top.p_self__test));
  *framing_errors = b->line.framing_errors;
}

}  // extern "C"
