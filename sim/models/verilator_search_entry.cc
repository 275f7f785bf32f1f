// C entry points around the Verilator model of hdl.search.search_thread.SearchThread (the Verilog of
// sim/models/verilog_export.py), with exactly the interface of the CXXRTL thread's
// (sim/models/cxxrtl_search_entry.cc), so that one Python driver (sim.drivers.search_cxxrtl's
// SearchModel) loads either. POSDATA_SEARCH_PHASES (the control's states) comes just before
// this file (sim/models/verilator.py).
//
// Clocking as in the CXXRTL thread, to the clock: inputs set, then one rising edge (clk = 1,
// eval; clk = 0, eval: the second eval only settles); outputs read as they stand after it.
//
// The phase account is the CXXRTL entry's: the CXXRTL thread is one flattened module, whose step
// ends once its registers are committed, before the combinational `phase` output is worked out
// again, so it reads the state of the clock just run. Each clock is counted in the state it ran
// in, from the start's own clock (Idle) to the one before the result's.
//
// Port names: Verilator writes `__` in a Verilog name as `___05F` (`load__en` is
// `load___05Fen`), and renames `abort`, a C library name, `__SYM__abort`.
//
// X-initialisation: built with `--x-initial unique`; POSDATA_X_SEED (0, or unset: all zeros)
// seeds random power-up values of whatever the Verilog gives no initial value.

#include <cstdint>
#include <cstdlib>

#include "Vposdata_search.h"
#include "verilated.h"

namespace {

struct Thread {
  VerilatedContext context;
  Vposdata_search *top;
  uint64_t phase_clocks[POSDATA_SEARCH_PHASES] = {};
  uint64_t ticks = 0;        // every clock the model has run
  uint64_t load_clocks = 0;  // the clocks of the last load and start: the job's cost to hand over
  uint32_t last_phase = 0;   // the state the last clock ran in

  explicit Thread(uint32_t seed) {
    if (seed) {
      context.randReset(2);  // 2: randomise every X-initialised variable
      context.randSeed(static_cast<int>(seed));
    }
    top = new Vposdata_search(&context);
    // a host drives every input (a random `start` would begin a job)
    top->clk = 0;
    top->rst = 0;
    top->load___05Fen = 0;
    top->load___05Fsq = 0;
    top->load___05Fcolor = 0;
    top->load___05Fpiece = 0;
    top->job = 0;
    top->past = 0;
    top->history = 0;
    top->start = 0;
    top->__SYM__abort = 0;
    top->eval();
  }
  ~Thread() {
    top->final();
    delete top;
  }
  void tick() {
    last_phase = top->phase;
    top->clk = 1;
    top->eval();
    top->clk = 0;
    top->eval();
    ticks++;
  }
};

}  // namespace

extern "C" {

void *posdata_search_create() {
  const char *seed = std::getenv("POSDATA_X_SEED");
  return new Thread(seed ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : 0);
}

void posdata_search_destroy(void *handle) { delete static_cast<Thread *>(handle); }

// The board, a1 first: per square its colour and piece (colour | piece << color_bits).
void posdata_search_load(void *handle, const uint8_t *squares, uint32_t color_bits) {
  Thread *t = static_cast<Thread *>(handle);
  auto *top = t->top;
  uint64_t before = t->ticks;
  for (uint32_t sq = 0; sq < 64; sq++) {
    top->load___05Fen = 1;
    top->load___05Fsq = sq;
    top->load___05Fcolor = squares[sq] & ((1u << color_bits) - 1);
    top->load___05Fpiece = squares[sq] >> color_bits;
    t->tick();
  }
  top->load___05Fen = 0;
  for (int i = 0; i < 3; i++) t->tick();  // the writes reach the planes
  t->load_clocks = t->ticks - before;
}

// The hashes of the job's earlier positions, oldest first, one a clock (hdl.search.records
// HistoryWrite: en | index << 1 | hash << 6), after the load: counted with its clocks.
void posdata_search_history(void *handle, const uint64_t *hashes, uint32_t count) {
  Thread *t = static_cast<Thread *>(handle);
  uint64_t before = t->ticks;
  for (uint32_t i = 0; i < count; i++) {
    t->top->history = 1 | uint64_t(i) << 1 | hashes[i] << 6;
    t->tick();
  }
  t->top->history = 0;
  t->load_clocks += t->ticks - before;
}

// Start the job: its packed Job word and its Past word (hdl.search.records).
void posdata_search_start(void *handle, uint64_t job, uint64_t past) {
  Thread *t = static_cast<Thread *>(handle);
  for (auto &n : t->phase_clocks) n = 0;
  uint64_t before = t->ticks;
  t->top->job = job;
  t->top->past = past;
  t->top->start = 1;
  t->tick();
  t->top->start = 0;
  t->load_clocks += t->ticks - before;
}

// Run up to `max_clocks` clocks; returns 1 once the result is out (out[]: score, best move,
// best valid, nodes, clocks, error), else 0.
int32_t posdata_search_run(void *handle, uint64_t max_clocks, uint64_t *out) {
  Thread *t = static_cast<Thread *>(handle);
  auto *top = t->top;
  // a refused job's `done` comes with the start's own clock
  int32_t done = top->done ? 1 : 0;
  for (uint64_t i = 0; i < max_clocks && !done; i++) {
    t->phase_clocks[t->last_phase % POSDATA_SEARCH_PHASES]++;
    t->tick();
    if (top->done) {
      done = 1;
      break;
    }
  }
  out[0] = top->score;
  out[1] = top->best;
  out[2] = top->best_valid;
  out[3] = top->nodes;
  out[4] = top->clocks;
  out[5] = top->error;
  return done;
}

// Abort the job under way: `abort` for a clock, then the clocks until the thread is idle (at
// most `max_clocks`). Returns the clocks taken, abort's own included.
uint64_t posdata_search_abort(void *handle, uint64_t max_clocks) {
  Thread *t = static_cast<Thread *>(handle);
  auto *top = t->top;
  uint64_t before = t->ticks;
  top->__SYM__abort = 1;
  t->tick();
  top->__SYM__abort = 0;
  while (top->busy && t->ticks - before < max_clocks) t->tick();
  return t->ticks - before;
}

// Clocks per phase since the last start (the start's own clock in Idle).
void posdata_search_phases(void *handle, uint64_t *out) {
  Thread *t = static_cast<Thread *>(handle);
  for (int i = 0; i < POSDATA_SEARCH_PHASES; i++) out[i] = t->phase_clocks[i];
}

// Clocks of the last job's load and start, counted as they ran (the thread's own `clocks` output
// counts from the start to the result).
uint64_t posdata_search_load_clocks(void *handle) {
  return static_cast<Thread *>(handle)->load_clocks;
}

}  // extern "C"
