// C entry points around a compiled board behind the UART protocol, under CXXRTL or Verilator:
// hdl.link.chip_frontend.UartFrontEnd (the perft chip) or the iCEBreaker's
// hdl.link.gen_frontend.GeneratorFrontEnd (the generator). The host's bytes go onto the
// design's rx line bit by bit, and its tx line is decoded into bytes, all in the native loop;
// one driver (sim.drivers.fpga_board_sim.CompiledBoard) loads either simulator's. Before this
// file come the hardware contract's constants (POSDATA_UART_FRAME_BITS:
// sim/models/entry_constants.py), POSDATA_UART_DIVISOR (clocks per bit;
// sim.models.cxxrtl.entry_defines), the model behind the `Sim` that sim.models.entry_prelude
// generates (rx idle high from power-up) and the line model (sim/models/uart_line.h).
//
// Per clock rx is set, then one rising edge. The outputs (tx, busy, self_test) are those of the
// clock just run: CXXRTL's board is one flattened module, whose step ends before its
// combinational outputs are worked out again, and Verilator's reads them as they stood before
// the edge (designs.Design.late_outputs). None depends on rx but through registers.

#include <cstdint>

namespace {

struct Board : Sim {
  posdata_line::UartLine line;

  void clock() {
    set_rx(line.rx());
    tick();
    line.after_edge(get_tx());
  }
};

}  // namespace

extern "C" {

void *posdata_board_create() { return new Board(); }

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
  return b->line.run([b] { b->clock(); }, max_clocks, want, quiet, out, capacity);
}

// The front end's outputs besides the line: busy, the self-test's verdict, and framing errors
// seen on tx so far.
void posdata_board_probe(void *handle, uint32_t *busy, uint32_t *self_test,
                         uint32_t *framing_errors) {
  Board *b = static_cast<Board *>(handle);
  *busy = b->get_busy();
  *self_test = b->get_self_test();
  *framing_errors = b->line.framing_errors;
}

}  // extern "C"
