// C entry points around the Verilator model of the exported generator (sim/models/verilog_export.py:
// the Verilog that `posdata export --verilog` writes), with exactly the interface of the CXXRTL
// model's (sim/models/cxxrtl_gen_entry.cc), so that one Python driver (sim/drivers/gen_cxxrtl.py) loads either.
//
// Clocking follows the Amaranth-simulator testbench (sim/drivers/gen_pysim.py): inputs are set, then
// one rising edge; outputs are sampled as they are just before an edge. Verilator evaluates a
// rising edge when `clk` goes 0 -> 1 between two eval() calls, so a tick is clk = 1, eval,
// clk = 0, eval (the second eval does nothing but settle: no logic runs on the falling edge).
//
// Port names: Verilator writes `__` in a Verilog name as `___05F`, so Amaranth's `moves__valid`
// is `moves___05Fvalid` here.
//
// X-initialisation: built with `--x-initial unique`, every variable without an initial value
// starts random; POSDATA_X_SEED (0: Verilator's default, all zeros with `--x-initial fast`)
// seeds it, so a test can ask for several different power-up states.

#include <cstdint>
#include <cstdlib>

#include "Vposdata_movegen.h"
#include "verilated.h"

namespace {

struct Sim {
  VerilatedContext context;
  Vposdata_movegen *top;
  uint64_t clocks = 0;

  explicit Sim(uint32_t seed) {
    if (seed) {
      context.randReset(2);  // 2: randomise every X-initialised variable
      context.randSeed(static_cast<int>(seed));
    }
    top = new Vposdata_movegen(&context);
    // Inputs are variables too: with random X-initialisation they start random, and a random
    // `start` would begin a generation before the host's first load. A host drives its inputs.
    top->clk = 0;
    top->rst = 0;
    top->wr_en = 0;
    top->wr_sq = 0;
    top->wr_color = 0;
    top->wr_piece = 0;
    top->side = 0;
    top->castle = 0;
    top->castling = 0;
    top->ep_valid = 0;
    top->ep_sq = 0;
    top->start = 0;
    top->moves___05Fready = 0;
    top->eval();
  }
  ~Sim() {
    top->final();
    delete top;
  }
  void tick() {
    top->clk = 1;
    top->eval();
    top->clk = 0;
    top->eval();
    clocks++;
  }
};

}  // namespace

extern "C" {

void *posdata_create() {
  const char *seed = std::getenv("POSDATA_X_SEED");
  return new Sim(seed ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : 0);
}

void posdata_destroy(void *handle) { delete static_cast<Sim *>(handle); }

uint64_t posdata_clocks(void *handle) { return static_cast<Sim *>(handle)->clocks; }

// As in sim/models/cxxrtl_gen_entry.cc: write `n` squares (triples: square, colour, piece), start a
// generation with the position's state (`castling`: the castlings' squares,
// hdl.image.variant), collect its moves. Returns the number of moves (at most `capacity` stored), or -1
// when it did not finish within `watchdog` clocks; `*cycles` receives the generator's count.
int32_t posdata_generate(void *handle, const uint8_t *writes, int32_t n, uint32_t side,
                         uint32_t castle, uint64_t castling, uint32_t ep_valid, uint32_t ep_sq,
                         uint32_t *moves, int32_t capacity, int32_t watchdog, uint32_t *cycles) {
  Sim *sim = static_cast<Sim *>(handle);
  auto *top = sim->top;
  for (int32_t i = 0; i < n; i++) {
    top->wr_en = 1;
    top->wr_sq = writes[3 * i];
    top->wr_color = writes[3 * i + 1];
    top->wr_piece = writes[3 * i + 2];
    sim->tick();
  }
  top->wr_en = 0;
  top->side = side;
  top->castle = castle;
  top->castling = castling;
  top->ep_valid = ep_valid;
  top->ep_sq = ep_sq;
  top->start = 1;
  top->moves___05Fready = 1;
  sim->tick();
  top->start = 0;
  int32_t count = 0;
  for (int32_t cycle = 1; cycle < watchdog; cycle++) {
    bool valid = top->moves___05Fvalid;
    uint32_t word = top->moves___05Fpayload;
    bool done = top->done;
    sim->tick();
    if (valid) {
      if (count < capacity) moves[count] = word;
      count++;
    }
    if (done) {
      *cycles = top->cycles;
      return count;
    }
  }
  return -1;
}

// Back-to-back generations of the loaded position for `clocks` clocks (a speed measurement).
uint64_t posdata_spin(void *handle, uint64_t clocks) {
  Sim *sim = static_cast<Sim *>(handle);
  auto *top = sim->top;
  top->start = 1;
  top->moves___05Fready = 1;
  uint64_t done = 0;
  for (uint64_t i = 0; i < clocks; i++) {
    sim->tick();
    done += top->done;
  }
  top->start = 0;
  return done;
}

}  // extern "C"
