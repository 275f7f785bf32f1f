// C entry points around the compiled hdl.chip.perft_chip.PerftChip, under CXXRTL or Verilator:
// load a root, start a count, and run the chip in the native loop, many clocks per ctypes call;
// one driver (sim/drivers/chip_cxxrtl.py) loads either. Before this file come the hardware
// contract's constants (POSDATA_SQUARES, POSDATA_COLOR_BITS, POSDATA_PHASES,
// POSDATA_EVERY_ENGINE: sim/models/entry_constants.py), the per-instance POSDATA_THREADS and
// POSDATA_CHESS960 (sim.models.cxxrtl.entry_defines), and the model behind the `Sim` that
// sim.models.entry_prelude generates (CXXRTL's compiled unit by unit, so ticked with a falling
// and a rising step).
//
// Inputs are set, then one rising edge; outputs are read as they stand after it. Per clock
// the entry also counts each thread's phase (hdl.common.contract.Phase): where the clocks go,
// measured on the gateware.

#include <cstdint>

namespace {

struct Chip : Sim {
  uint64_t phase_clocks[POSDATA_THREADS][POSDATA_PHASES] = {};
};

static_assert(Sim::phases_count == POSDATA_THREADS, "a phase output per thread");

}  // namespace

extern "C" {

void *posdata_chip_create() { return new Chip(); }

void posdata_chip_destroy(void *handle) { delete static_cast<Chip *>(handle); }

uint32_t posdata_chip_threads() { return POSDATA_THREADS; }

// The whole board (a square code per square, a1 first: colour | piece << POSDATA_COLOR_BITS), then
// the root's side, castling rights and en passant square (hdl.common.contract.root_word; a chip
// with modes also takes en passant's victim in it).
void posdata_chip_load(void *handle, const uint8_t *squares, uint32_t root) {
  Chip &chip = *static_cast<Chip *>(handle);
  for (uint32_t sq = 0; sq < POSDATA_SQUARES; sq++) {
    chip.set_load_write_en(1);
    chip.set_load_write_sq(sq);
    chip.set_load_write_color(squares[sq] & ((1u << POSDATA_COLOR_BITS) - 1));
    chip.set_load_write_piece(squares[sq] >> POSDATA_COLOR_BITS);
    chip.tick();
  }
  chip.set_load_write_en(0);
  chip.set_load_position_root(root);
}

// Chess960's chip: the root's castling squares (hdl.common.contract castling_word and
// castle_rooks_word), held through the counts; other chips have no such inputs.
void posdata_chip_castling(void *handle, uint64_t castling, uint32_t rooks) {
#ifdef POSDATA_CHESS960
  Chip &chip = *static_cast<Chip *>(handle);
  chip.set_load_position_castling(castling);
  chip.set_load_position_rooks(rooks);
#else
  (void)handle, (void)castling, (void)rooks;
#endif
}

// Start perft(depth) on every engine (`solo` POSDATA_EVERY_ENGINE), or on engine `solo` alone;
// clears the phase counts.
void posdata_chip_start(void *handle, uint32_t depth, uint32_t bulk, uint32_t split,
                        uint32_t solo) {
  Chip &chip = *static_cast<Chip *>(handle);
  for (auto &row : chip.phase_clocks)
    for (auto &n : row) n = 0;
  chip.set_count_depth(depth);
  chip.set_count_bulk(bulk != 0);
  chip.set_count_split(split);
  chip.set_solo(solo < POSDATA_EVERY_ENGINE);
  chip.set_solo_engine(solo < POSDATA_EVERY_ENGINE ? solo : 0);
  chip.set_count_start(1);
  chip.tick();
  chip.set_count_start(0);
}

// Run up to `max_clocks` clocks of a count; returns 1 once it is done (busy fell), else 0.
// `*leaves`, `*clocks`, `*overflow` receive the chip's outputs as they stand.
int32_t posdata_chip_run(void *handle, uint64_t max_clocks, uint64_t *leaves, uint64_t *clocks,
                         uint32_t *overflow) {
  Chip &chip = *static_cast<Chip *>(handle);
  uint32_t phase[POSDATA_THREADS];
  int32_t done = 0;
  for (uint64_t i = 0; i < max_clocks; i++) {
    chip.get_phases(phase);
    for (int t = 0; t < POSDATA_THREADS; t++)
      if (phase[t] < POSDATA_PHASES) chip.phase_clocks[t][phase[t]]++;
    chip.tick();
    if (!chip.get_busy()) {
      done = 1;
      break;
    }
  }
  *leaves = chip.get_leaves();
  *clocks = chip.get_clocks();
  *overflow = chip.get_overflow();
  return done;
}

// Clocks per thread and phase since the last start: out[thread * POSDATA_PHASES + phase].
void posdata_chip_phases(void *handle, uint64_t *out) {
  Chip &chip = *static_cast<Chip *>(handle);
  for (int t = 0; t < POSDATA_THREADS; t++)
    for (uint32_t p = 0; p < POSDATA_PHASES; p++)
      out[t * POSDATA_PHASES + p] = chip.phase_clocks[t][p];
}

// List the loaded root's moves: pseudo-legal in generation order, or (legal != 0) the legal ones.
// Returns the number of moves (at most `capacity` stored), or -1 when the listing did not end
// within `watchdog` clocks; `*cycles` receives the clocks it took.
int32_t posdata_chip_list(void *handle, uint32_t legal, uint32_t *moves, int32_t capacity,
                          uint64_t watchdog, uint64_t *cycles) {
  Chip &chip = *static_cast<Chip *>(handle);
  chip.set_listing_start(1);
  chip.set_listing_legal(legal != 0);
  chip.set_listing_moves_ready(1);
  chip.tick();
  chip.set_listing_start(0);
  int32_t count = 0;
  for (uint64_t clock = 1; clock < watchdog; clock++) {
    bool valid = chip.get_listing_moves_valid();
    uint32_t word = chip.get_listing_moves_payload();
    chip.tick();
    if (valid) {
      if (count < capacity) moves[count] = word;
      count++;
    }
    if (!chip.get_busy()) {
      *cycles = clock;
      return count;
    }
  }
  return -1;
}

// Abort a count: ABORT for a clock, and a clock for the chip to take it (its control and
// threads take ABORT from registers).
void posdata_chip_abort(void *handle) {
  Chip &chip = *static_cast<Chip *>(handle);
  chip.set_count_abort(1);
  chip.tick();
  chip.set_count_abort(0);
  chip.tick();
}

}  // extern "C"
