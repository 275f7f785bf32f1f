// C entry points around the CXXRTL model of hdl.gen.movegen.MoveGenerator, so that Python pays one
// ctypes call per generation instead of one per clock. The generated model is included by
// the build (see sim/models/cxxrtl.py) just before this file.
//
// Clocking follows the Amaranth-simulator testbench (sim/drivers/gen_pysim.py) exactly: inputs are
// set, then one rising edge; outputs are sampled as they are just before an edge. Only the
// outputs read here (moves valid/payload, done, cycles) are sampled, and all are registers.
//
// There is no falling-edge step: nothing happens on it, and the rising edge's evaluation
// computes all combinational logic from the new inputs before the flip-flops take their values.
// CXXRTL sees a rising edge when `prev_p_clk` (the clock as of the last commit) is low and
// `p_clk` high, so a tick clears `prev_p_clk` and steps once: the same result as two steps,
// for less than half the work.

#include <cstdint>

namespace {

// Ports are `value`s or `wire`s depending on how the design drives them; read either.
template <size_t N> uint32_t rd(const cxxrtl::value<N> &v) { return v.template get<uint32_t>(); }
template <size_t N> uint32_t rd(const cxxrtl::wire<N> &w) { return w.curr.template get<uint32_t>(); }

struct Sim {
  cxxrtl_design::p_top top;
  uint64_t clocks = 0;

  void tick() {
    top.prev_p_clk = cxxrtl::value<1>{0u};
    top.p_clk.set<bool>(true);
    top.step();
    clocks++;
  }
};

}  // namespace

extern "C" {

void *posdata_create() {
  Sim *sim = new Sim();
  sim->top.step();
  return sim;
}

void posdata_destroy(void *handle) { delete static_cast<Sim *>(handle); }

uint64_t posdata_clocks(void *handle) { return static_cast<Sim *>(handle)->clocks; }

// Write `n` squares (`writes` holds n triples: square, colour, piece), start a generation and
// collect its moves. Returns the number of moves (at most `capacity` are stored), or -1 when the
// generation did not finish within `watchdog` clocks. `*cycles` receives the generator's count.
// `castling` is the generator's castling input (the castlings' squares, hdl.image.variant).
int32_t posdata_generate(void *handle, const uint8_t *writes, int32_t n, uint32_t side,
                         uint32_t castle, uint64_t castling, uint32_t ep_valid, uint32_t ep_sq,
                         uint32_t *moves, int32_t capacity, int32_t watchdog, uint32_t *cycles) {
  Sim *sim = static_cast<Sim *>(handle);
  auto &top = sim->top;
  for (int32_t i = 0; i < n; i++) {
    top.p_wr__en.set<bool>(true);
    top.p_wr__sq.set<uint32_t>(writes[3 * i]);
    top.p_wr__color.set<uint32_t>(writes[3 * i + 1]);
    top.p_wr__piece.set<uint32_t>(writes[3 * i + 2]);
    sim->tick();
  }
  top.p_wr__en.set<bool>(false);
  top.p_side.set<uint32_t>(side);
  top.p_castle.set<uint32_t>(castle);
  top.p_castling.set<uint64_t>(castling);
  top.p_ep__valid.set<uint32_t>(ep_valid);
  top.p_ep__sq.set<uint32_t>(ep_sq);
  top.p_start.set<bool>(true);
  top.p_moves____ready.set<bool>(true);
  sim->tick();
  top.p_start.set<bool>(false);
  int32_t count = 0;
  for (int32_t cycle = 1; cycle < watchdog; cycle++) {
    bool valid = rd(top.p_moves____valid);
    uint32_t word = rd(top.p_moves____payload);
    bool done = rd(top.p_done);
    sim->tick();
    if (valid) {
      if (count < capacity) moves[count] = word;
      count++;
    }
    if (done) {
      *cycles = rd(top.p_cycles);
      return count;
    }
  }
  return -1;
}

// Back-to-back generations of the loaded position (start and ready held high) for `clocks`
// clocks: the simulation speed of a busy generator. Returns the generations completed.
uint64_t posdata_spin(void *handle, uint64_t clocks) {
  Sim *sim = static_cast<Sim *>(handle);
  auto &top = sim->top;
  top.p_start.set<bool>(true);
  top.p_moves____ready.set<bool>(true);
  uint64_t done = 0;
  for (uint64_t i = 0; i < clocks; i++) {
    sim->tick();
    done += rd(top.p_done);
  }
  top.p_start.set<bool>(false);
  return done;
}

}  // extern "C"
