// C entry points around the CXXRTL model of hdl.chip.perft_chip.PerftChip: load a root, start a count,
// and run the chip in the native loop, many clocks per ctypes call. The generated model, the
// hardware contract's constants (POSDATA_SQUARES, POSDATA_COLOR_BITS, POSDATA_PHASES,
// POSDATA_EVERY_ENGINE: sim/models/entry_constants.py) and the per-instance defines
// POSDATA_THREADS and POSDATA_READ_PHASES (sim/models/cxxrtl.py) come just before this file.
//
// Clocking: inputs set, then a falling and a rising step per tick. (sim/models/cxxrtl_gen_entry.cc clears
// `prev_p_clk` and steps once; but the chip's model is compiled unit by unit, and every unit keeps
// its own `prev_p_clk`.) Per clock the entry also counts each thread's phase
// (hdl.common.contract.Phase): where the clocks go, measured on the gateware.

#include <cstdint>

namespace {

template <size_t N> uint64_t rd(const cxxrtl::value<N> &v) { return v.template get<uint64_t>(); }
template <size_t N> uint64_t rd(const cxxrtl::wire<N> &w) { return w.curr.template get<uint64_t>(); }

struct Chip {
  cxxrtl_design::p_top top;
  uint64_t clocks = 0;
  uint64_t phase_clocks[POSDATA_THREADS][POSDATA_PHASES] = {};

  void tick() {
    top.p_clk.set<bool>(false);
    top.step();
    top.p_clk.set<bool>(true);
    top.step();
    clocks++;
  }
};

}  // namespace

extern "C" {

void *posdata_chip_create() {
  Chip *chip = new Chip();
  chip->top.step();
  return chip;
}

void posdata_chip_destroy(void *handle) { delete static_cast<Chip *>(handle); }

uint32_t posdata_chip_threads() { return POSDATA_THREADS; }

// The whole board (a square code per square, a1 first: colour | piece << POSDATA_COLOR_BITS), then
// the root's side, castling rights and en passant square (hdl.common.contract.position_word).
void posdata_chip_load(void *handle, const uint8_t *squares, uint32_t root) {
  Chip *chip = static_cast<Chip *>(handle);
  auto &top = chip->top;
  for (uint32_t sq = 0; sq < POSDATA_SQUARES; sq++) {
    top.p_load____write____en.set<bool>(true);
    top.p_load____write____sq.set<uint32_t>(sq);
    top.p_load____write____color.set<uint32_t>(squares[sq] & ((1u << POSDATA_COLOR_BITS) - 1));
    top.p_load____write____piece.set<uint32_t>(squares[sq] >> POSDATA_COLOR_BITS);
    chip->tick();
  }
  top.p_load____write____en.set<bool>(false);
  top.p_load____position____root.set<uint32_t>(root);
}

// Chess960's chip: the root's castling squares (hdl.common.contract castling_word and
// castle_rooks_word), held through the counts; other chips have no such inputs.
void posdata_chip_castling(void *handle, uint64_t castling, uint32_t rooks) {
#ifdef POSDATA_CHESS960
  auto &top = static_cast<Chip *>(handle)->top;
  top.p_load____position____castling.set<uint64_t>(castling);
  top.p_load____position____rooks.set<uint32_t>(rooks);
#else
  (void)handle, (void)castling, (void)rooks;
#endif
}

// Start perft(depth) on every engine (`solo` POSDATA_EVERY_ENGINE), or on engine `solo` alone;
// clears the phase counts.
void posdata_chip_start(void *handle, uint32_t depth, uint32_t bulk, uint32_t split,
                        uint32_t solo) {
  Chip *chip = static_cast<Chip *>(handle);
  auto &top = chip->top;
  for (auto &row : chip->phase_clocks)
    for (auto &n : row) n = 0;
  top.p_count____depth.set<uint32_t>(depth);
  top.p_count____bulk.set<bool>(bulk != 0);
  top.p_count____split.set<uint32_t>(split);
  top.p_solo.set<bool>(solo < POSDATA_EVERY_ENGINE);
  top.p_solo__engine.set<uint32_t>(solo < POSDATA_EVERY_ENGINE ? solo : 0);
  top.p_count____start.set<bool>(true);
  chip->tick();
  top.p_count____start.set<bool>(false);
}

// Run up to `max_clocks` clocks of a count; returns 1 once it is done (busy fell), else 0.
// `*leaves`, `*clocks`, `*overflow` receive the chip's outputs as they stand.
int32_t posdata_chip_run(void *handle, uint64_t max_clocks, uint64_t *leaves, uint64_t *clocks,
                         uint32_t *overflow) {
  Chip *chip = static_cast<Chip *>(handle);
  auto &top = chip->top;
  uint32_t phase[POSDATA_THREADS];
  int32_t done = 0;
  for (uint64_t i = 0; i < max_clocks; i++) {
    POSDATA_READ_PHASES(top, phase);
    for (int t = 0; t < POSDATA_THREADS; t++)
      if (phase[t] < POSDATA_PHASES) chip->phase_clocks[t][phase[t]]++;
    chip->tick();
    if (!rd(top.p_busy)) {
      done = 1;
      break;
    }
  }
  *leaves = rd(top.p_leaves);
  *clocks = rd(top.p_clocks);
  *overflow = (uint32_t)rd(top.p_overflow);
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
  auto &top = chip->top;
  top.p_listing____start.set<bool>(true);
  top.p_listing____legal.set<bool>(legal != 0);
  top.p_listing____moves____ready.set<bool>(true);
  chip->tick();
  top.p_listing____start.set<bool>(false);
  int32_t count = 0;
  for (uint64_t clock = 1; clock < watchdog; clock++) {
    bool valid = rd(top.p_listing____moves____valid);
    uint32_t word = (uint32_t)rd(top.p_listing____moves____payload);
    chip->tick();
    if (valid) {
      if (count < capacity) moves[count] = word;
      count++;
    }
    if (!rd(top.p_busy)) {
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
  chip->top.p_count____abort.set<bool>(true);
  chip->tick();
  chip->top.p_count____abort.set<bool>(false);
  chip->tick();
}

}  // extern "C"
