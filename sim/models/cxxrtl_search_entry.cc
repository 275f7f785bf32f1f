// C entry points around the CXXRTL model of hdl.search.search_thread.SearchThread: load a job's
// squares and history, start it with its packed Job and Past words (hdl.search.records), run the thread in the
// native loop, read the result. The generated model comes just before this file.
//
// Clocking: inputs set, then a falling and a rising step per tick (the model may be compiled
// unit by unit, each unit keeping its own `prev_p_clk`). POSDATA_SEARCH_PHASES (the control's
// states, hdl.search.search_thread.STATES) comes before this file (sim/models/cxxrtl.py).

#include <cstdint>

namespace {

template <size_t N> uint64_t rd(const cxxrtl::value<N> &v) { return v.template get<uint64_t>(); }
template <size_t N> uint64_t rd(const cxxrtl::wire<N> &w) { return w.curr.template get<uint64_t>(); }

struct Thread {
  cxxrtl_design::p_top top;
  uint64_t phase_clocks[POSDATA_SEARCH_PHASES] = {};
  uint64_t ticks = 0;        // every clock the model has run
  uint64_t load_clocks = 0;  // the clocks of the last load and start: the job's cost to hand over

  void tick() {
    top.p_clk.set<bool>(false);
    top.step();
    top.p_clk.set<bool>(true);
    top.step();
    ticks++;
  }
};

}  // namespace

extern "C" {

void *posdata_search_create() {
  Thread *t = new Thread();
  t->top.step();
  return t;
}

void posdata_search_destroy(void *handle) { delete static_cast<Thread *>(handle); }

// The board, a1 first: per square its colour and piece (colour | piece << color_bits).
void posdata_search_load(void *handle, const uint8_t *squares, uint32_t color_bits) {
  Thread *t = static_cast<Thread *>(handle);
  auto &top = t->top;
  uint64_t before = t->ticks;
  for (uint32_t sq = 0; sq < 64; sq++) {
    top.p_load____en.set<bool>(true);
    top.p_load____sq.set<uint32_t>(sq);
    top.p_load____color.set<uint32_t>(squares[sq] & ((1u << color_bits) - 1));
    top.p_load____piece.set<uint32_t>(squares[sq] >> color_bits);
    t->tick();
  }
  top.p_load____en.set<bool>(false);
  for (int i = 0; i < 3; i++) t->tick();  // the writes reach the planes
  t->load_clocks = t->ticks - before;
}

// The hashes of the job's earlier positions, oldest first, one a clock (hdl.search.records
// HistoryWrite: en | index << 1 | hash << 6), after the load: counted with its clocks.
void posdata_search_history(void *handle, const uint64_t *hashes, uint32_t count) {
  Thread *t = static_cast<Thread *>(handle);
  uint64_t before = t->ticks;
  for (uint32_t i = 0; i < count; i++) {
    t->top.p_history.set<uint64_t>(1 | uint64_t(i) << 1 | hashes[i] << 6);
    t->tick();
  }
  t->top.p_history.set<uint64_t>(0);
  t->load_clocks += t->ticks - before;
}

// Start the job: its packed Job word and its Past word (hdl.search.records).
void posdata_search_start(void *handle, uint64_t job, uint64_t past) {
  Thread *t = static_cast<Thread *>(handle);
  for (auto &n : t->phase_clocks) n = 0;
  uint64_t before = t->ticks;
  t->top.p_job.set<uint64_t>(job);
  t->top.p_past.set<uint64_t>(past);
  t->top.p_start.set<bool>(true);
  t->tick();
  t->top.p_start.set<bool>(false);
  t->load_clocks += t->ticks - before;
}

// Run up to `max_clocks` clocks; returns 1 once the result is out (out[]: score, best move,
// best valid, nodes, clocks, error), else 0.
int32_t posdata_search_run(void *handle, uint64_t max_clocks, uint64_t *out) {
  Thread *t = static_cast<Thread *>(handle);
  auto &top = t->top;
  // a refused job's `done` comes with the start's own clock
  int32_t done = rd(top.p_done) ? 1 : 0;
  for (uint64_t i = 0; i < max_clocks && !done; i++) {
    t->phase_clocks[rd(top.p_phase) % POSDATA_SEARCH_PHASES]++;
    t->tick();
    if (rd(top.p_done)) {
      done = 1;
      break;
    }
  }
  out[0] = rd(top.p_score);
  out[1] = rd(top.p_best);
  out[2] = rd(top.p_best__valid);
  out[3] = rd(top.p_nodes);
  out[4] = rd(top.p_clocks);
  out[5] = rd(top.p_error);
  return done;
}

// Abort the job under way: `abort` for a clock, then the clocks until the thread is idle (at
// most `max_clocks`). Returns the clocks taken, abort's own included.
uint64_t posdata_search_abort(void *handle, uint64_t max_clocks) {
  Thread *t = static_cast<Thread *>(handle);
  auto &top = t->top;
  uint64_t before = t->ticks;
  top.p_abort.set<bool>(true);
  t->tick();
  top.p_abort.set<bool>(false);
  while (rd(top.p_busy) && t->ticks - before < max_clocks) t->tick();
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
