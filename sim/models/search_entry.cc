// C entry points around the compiled hdl.search.search_thread.SearchThread, under CXXRTL or
// Verilator: load a job's squares and history, start it with its packed Job and Past words
// (hdl.search.records), run the thread in the native loop, read the result; one driver
// (sim.drivers.search_cxxrtl's SearchModel) loads either. Before this file come
// POSDATA_SEARCH_PHASES (the control's states, hdl.search.search_thread.STATES:
// sim.models.cxxrtl.entry_defines) and the model behind the `Sim` that sim.models.entry_prelude
// generates (CXXRTL's ticked with a falling and a rising step).
//
// The phase account: CXXRTL's thread is one flattened module, whose step ends once its
// registers are committed, before the combinational `phase` output is worked out again, so it
// reads the state of the clock just run; Verilator's reads `phase` as it stood before the edge
// (designs.Design.late_outputs) to match. Each clock is counted in the state it ran in, from the
// start's own clock (Idle) to the one before the result's.

#include <cstdint>

namespace {

struct Thread : Sim {
  uint64_t phase_clocks[POSDATA_SEARCH_PHASES] = {};
  uint64_t load_clocks = 0;  // the clocks of the last load and start: the job's cost to hand over
};

}  // namespace

extern "C" {

void *posdata_search_create() { return new Thread(); }

void posdata_search_destroy(void *handle) { delete static_cast<Thread *>(handle); }

// The board, a1 first: per square its colour and piece (colour | piece << color_bits).
void posdata_search_load(void *handle, const uint8_t *squares, uint32_t color_bits) {
  Thread &t = *static_cast<Thread *>(handle);
  uint64_t before = t.clocks;
  for (uint32_t sq = 0; sq < 64; sq++) {
    t.set_load_en(1);
    t.set_load_sq(sq);
    t.set_load_color(squares[sq] & ((1u << color_bits) - 1));
    t.set_load_piece(squares[sq] >> color_bits);
    t.tick();
  }
  t.set_load_en(0);
  for (int i = 0; i < 3; i++) t.tick();  // the writes reach the planes
  t.load_clocks = t.clocks - before;
}

// The hashes of the job's earlier positions, oldest first, one a clock (hdl.search.records
// HistoryWrite: en | index << 1 | hash << 6), after the load: counted with its clocks.
void posdata_search_history(void *handle, const uint64_t *hashes, uint32_t count) {
  Thread &t = *static_cast<Thread *>(handle);
  uint64_t before = t.clocks;
  for (uint32_t i = 0; i < count; i++) {
    t.set_history(1 | uint64_t(i) << 1 | hashes[i] << 6);
    t.tick();
  }
  t.set_history(0);
  t.load_clocks += t.clocks - before;
}

// Start the job: its packed Job word and its Past word (hdl.search.records).
void posdata_search_start(void *handle, uint64_t job, uint64_t past) {
  Thread &t = *static_cast<Thread *>(handle);
  for (auto &n : t.phase_clocks) n = 0;
  uint64_t before = t.clocks;
  t.set_job(job);
  t.set_past(past);
  t.set_start(1);
  t.tick();
  t.set_start(0);
  t.load_clocks += t.clocks - before;
}

// Run up to `max_clocks` clocks; returns 1 once the result is out (out[]: score, best move,
// best valid, nodes, clocks, error), else 0.
int32_t posdata_search_run(void *handle, uint64_t max_clocks, uint64_t *out) {
  Thread &t = *static_cast<Thread *>(handle);
  // a refused job's `done` comes with the start's own clock
  int32_t done = t.get_done() ? 1 : 0;
  for (uint64_t i = 0; i < max_clocks && !done; i++) {
    t.phase_clocks[t.get_phase() % POSDATA_SEARCH_PHASES]++;
    t.tick();
    if (t.get_done()) {
      done = 1;
      break;
    }
  }
  out[0] = t.get_score();
  out[1] = t.get_best();
  out[2] = t.get_best_valid();
  out[3] = t.get_nodes();
  out[4] = t.get_clocks();
  out[5] = t.get_error();
  return done;
}

// Abort the job under way: `abort` for a clock, then the clocks until the thread is idle (at
// most `max_clocks`). Returns the clocks taken, abort's own included.
uint64_t posdata_search_abort(void *handle, uint64_t max_clocks) {
  Thread &t = *static_cast<Thread *>(handle);
  uint64_t before = t.clocks;
  t.set_abort(1);
  t.tick();
  t.set_abort(0);
  while (t.get_busy() && t.clocks - before < max_clocks) t.tick();
  return t.clocks - before;
}

// Clocks per phase since the last start (the start's own clock in Idle).
void posdata_search_phases(void *handle, uint64_t *out) {
  Thread &t = *static_cast<Thread *>(handle);
  for (int i = 0; i < POSDATA_SEARCH_PHASES; i++) out[i] = t.phase_clocks[i];
}

// Clocks of the last job's load and start, counted as they ran (the thread's own `clocks` output
// counts from the start to the result).
uint64_t posdata_search_load_clocks(void *handle) {
  return static_cast<Thread *>(handle)->load_clocks;
}

}  // extern "C"
