// C entry points around the Verilator model of hdl.chip.perft_chip.PerftChip (the chip's Verilog from
// sim/models/verilog_export.py), with exactly the interface of the CXXRTL chip's
// (sim/models/cxxrtl_chip_entry.cc), so that one Python driver (sim/drivers/chip_cxxrtl.py) loads
// either. The hardware contract's constants and the per-instance defines POSDATA_THREADS and
// POSDATA_READ_PHASES (sim/models/verilator.py) come just before this file.
//
// Clocking as in the CXXRTL entry, to the clock: inputs set, then one rising edge (clk = 1, eval;
// clk = 0, eval: the second eval only settles, no logic runs on a falling edge); outputs are read
// as they stand after the edge. Per clock the entry counts each thread's phase the same way.
//
// Port names: Verilator writes `__` in a Verilog name as `___05F`, so Amaranth's
// `load.write.en` (Verilog `load__write__en`) is `load___05Fwrite___05Fen` here.
//
// X-initialisation: built with `--x-initial unique`; POSDATA_X_SEED (0, or unset: all zeros)
// seeds random power-up values of whatever the Verilog gives no initial value.

#include <cstdlib>

#include "Vposdata_chip.h"
#include "verilated.h"

namespace {

struct Chip {
  VerilatedContext context;
  Vposdata_chip *top;
  uint64_t clocks = 0;
  uint64_t phase_clocks[POSDATA_THREADS][POSDATA_PHASES] = {};

  explicit Chip(uint32_t seed) {
    if (seed) {
      context.randReset(2);  // 2: randomise every X-initialised variable
      context.randSeed(static_cast<int>(seed));
    }
    top = new Vposdata_chip(&context);
    // inputs are variables too: a host drives every one of them (a random `start` would count)
    top->clk = 0;
    top->rst = 0;
    top->load___05Fwrite___05Fen = 0;
    top->load___05Fwrite___05Fsq = 0;
    top->load___05Fwrite___05Fcolor = 0;
    top->load___05Fwrite___05Fpiece = 0;
    top->load___05Fposition___05Froot = 0;
#ifdef POSDATA_CHESS960
    top->load___05Fposition___05Fcastling = 0;
    top->load___05Fposition___05Frooks = 0;
#endif
    top->count___05Fstart = 0;
    top->count___05Fdepth = 0;
    top->count___05Fbulk = 0;
    top->count___05Fsplit = 0;
    top->count___05Fabort = 0;
    top->solo = 0;
    top->solo_engine = 0;
    top->listing___05Fstart = 0;
    top->listing___05Flegal = 0;
    top->listing___05Fmoves___05Fready = 0;
    top->eval();
  }
  ~Chip() {
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

void *posdata_chip_create() {
  const char *seed = std::getenv("POSDATA_X_SEED");
  return new Chip(seed ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : 0);
}

void posdata_chip_destroy(void *handle) { delete static_cast<Chip *>(handle); }

uint32_t posdata_chip_threads() { return POSDATA_THREADS; }

// The whole board (a square code per square, a1 first: colour | piece << POSDATA_COLOR_BITS), then
// the root's side, castling rights and en passant square (hdl.common.contract.position_word).
void posdata_chip_load(void *handle, const uint8_t *squares, uint32_t root) {
  Chip *chip = static_cast<Chip *>(handle);
  auto *top = chip->top;
  for (uint32_t sq = 0; sq < POSDATA_SQUARES; sq++) {
    top->load___05Fwrite___05Fen = 1;
    top->load___05Fwrite___05Fsq = sq;
    top->load___05Fwrite___05Fcolor = squares[sq] & ((1u << POSDATA_COLOR_BITS) - 1);
    top->load___05Fwrite___05Fpiece = squares[sq] >> POSDATA_COLOR_BITS;
    chip->tick();
  }
  top->load___05Fwrite___05Fen = 0;
  top->load___05Fposition___05Froot = root;
}

// Chess960's chip: the root's castling squares (hdl.common.contract castling_word and
// castle_rooks_word), held through the counts; other chips have no such inputs.
void posdata_chip_castling(void *handle, uint64_t castling, uint32_t rooks) {
#ifdef POSDATA_CHESS960
  auto *top = static_cast<Chip *>(handle)->top;
  top->load___05Fposition___05Fcastling = castling;
  top->load___05Fposition___05Frooks = rooks;
#else
  (void)handle, (void)castling, (void)rooks;
#endif
}

// Start perft(depth) on every engine (`solo` POSDATA_EVERY_ENGINE), or on engine `solo` alone;
// clears the phase counts.
void posdata_chip_start(void *handle, uint32_t depth, uint32_t bulk, uint32_t split,
                        uint32_t solo) {
  Chip *chip = static_cast<Chip *>(handle);
  auto *top = chip->top;
  for (auto &row : chip->phase_clocks)
    for (auto &n : row) n = 0;
  top->count___05Fdepth = depth;
  top->count___05Fbulk = bulk != 0;
  top->count___05Fsplit = split;
  top->solo = solo < POSDATA_EVERY_ENGINE;
  top->solo_engine = solo < POSDATA_EVERY_ENGINE ? solo : 0;
  top->count___05Fstart = 1;
  chip->tick();
  top->count___05Fstart = 0;
}

// Run up to `max_clocks` clocks of a count; returns 1 once it is done (busy fell), else 0.
// `*leaves`, `*clocks`, `*overflow` receive the chip's outputs as they stand.
int32_t posdata_chip_run(void *handle, uint64_t max_clocks, uint64_t *leaves, uint64_t *clocks,
                         uint32_t *overflow) {
  Chip *chip = static_cast<Chip *>(handle);
  auto *top = chip->top;
  uint32_t phase[POSDATA_THREADS];
  int32_t done = 0;
  for (uint64_t i = 0; i < max_clocks; i++) {
    POSDATA_READ_PHASES(top, phase);
    for (int t = 0; t < POSDATA_THREADS; t++)
      if (phase[t] < POSDATA_PHASES) chip->phase_clocks[t][phase[t]]++;
    chip->tick();
    if (!top->busy) {
      done = 1;
      break;
    }
  }
  *leaves = top->leaves;
  *clocks = top->clocks;
  *overflow = top->overflow;
  return done;
}

// Clocks per thread and phase since the last start: out[thread * POSDATA_PHASES + phase].
void posdata_chip_phases(void *handle, uint64_t *out) {
  Chip *chip = static_cast<Chip *>(handle);
  for (int t = 0; t < POSDATA_THREADS; t++)
    for (uint32_t p = 0; p < POSDATA_PHASES; p++)
      out[t * POSDATA_PHASES + p] = chip->phase_clocks[t][p];
}

// List the loaded root's moves: pseudo-legal in generation order, or (legal != 0) the legal ones.
// Returns the number of moves (at most `capacity` stored), or -1 when the listing did not end
// within `watchdog` clocks; `*cycles` receives the clocks it took.
int32_t posdata_chip_list(void *handle, uint32_t legal, uint32_t *moves, int32_t capacity,
                          uint64_t watchdog, uint64_t *cycles) {
  Chip *chip = static_cast<Chip *>(handle);
  auto *top = chip->top;
  top->listing___05Fstart = 1;
  top->listing___05Flegal = legal != 0;
  top->listing___05Fmoves___05Fready = 1;
  chip->tick();
  top->listing___05Fstart = 0;
  int32_t count = 0;
  for (uint64_t clock = 1; clock < watchdog; clock++) {
    bool valid = top->listing___05Fmoves___05Fvalid;
    uint32_t word = top->listing___05Fmoves___05Fpayload;
    chip->tick();
    if (valid) {
      if (count < capacity) moves[count] = word;
      count++;
    }
    if (!top->busy) {
      *cycles = clock;
      return count;
    }
  }
  return -1;
}

// Abort a count: ABORT for a clock, and a clock for the chip to take it (its control and
// threads take ABORT from registers).
void posdata_chip_abort(void *handle) {
  Chip *chip = static_cast<Chip *>(handle);
  chip->top->count___05Fabort = 1;
  chip->tick();
  chip->top->count___05Fabort = 0;
  chip->tick();
}

}  // extern "C"
