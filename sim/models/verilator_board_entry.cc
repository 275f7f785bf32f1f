// C entry points around the Verilator model of hdl.link.chip_frontend.UartFrontEnd (the board: the
// perft chip behind the UART protocol; the Verilog of sim/models/verilog_export.py), with exactly
// the interface of the CXXRTL board's (sim/models/cxxrtl_board_entry.cc), so that one Python
// driver (sim.drivers.fpga_board_sim.CompiledBoard) loads either. The hardware contract's
// constants, POSDATA_UART_DIVISOR and the line model (sim/models/uart_line.h, the CXXRTL
// board's) come just before this file (sim/models/verilator.py).
//
// Clocking as in the CXXRTL board, to the clock: rx set, then one rising edge (clk = 1, eval;
// clk = 0, eval: the second eval only settles).
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

#include "Vposdata_board.h"
#include "verilated.h"

namespace {

struct Board {
  VerilatedContext context;
  Vposdata_board *top;
  posdata_line::UartLine line;

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

  void tick() {
    top->rx = line.rx();
    sample();
    top->clk = 1;
    top->eval();
    top->clk = 0;
    top->eval();
    line.after_edge(tx);
  }
};

}  // namespace

extern "C" {

void *posdata_board_create() {
  const char *seed = std::getenv("POSDATA_X_SEED");
  return new Board(seed ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : 0);
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
  *busy = b->busy;
  *self_test = b->self_test;
  *framing_errors = b->line.framing_errors;
}

}  // extern "C"
