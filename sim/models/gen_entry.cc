// C entry points around the compiled hdl.gen.movegen.MoveGenerator, under CXXRTL or Verilator,
// so that Python pays one ctypes call per generation instead of one per clock; one driver
// (sim/drivers/gen_cxxrtl.py) loads either. The model comes before this file, behind the `Sim`
// that sim.models.entry_prelude generates (a tick; an accessor per port).
//
// Clocking follows the Amaranth-simulator testbench (sim/drivers/gen_pysim.py): inputs are set,
// then one rising edge; the outputs read here (moves valid/payload, done, cycles) are all
// registers, read as each simulator shows them after a tick: CXXRTL's flattened model a clock
// late (sim.models.entry_prelude), so there a generation takes one more tick of this loop
// (posdata_clocks), with the same moves and cycles.

#include <cstdint>

extern "C" {

void *posdata_create() { return new Sim(); }

void posdata_destroy(void *handle) { delete static_cast<Sim *>(handle); }

uint64_t posdata_clocks(void *handle) { return static_cast<Sim *>(handle)->clocks; }

// Write `n` squares (`writes` holds n triples: square, colour, piece), start a generation and
// collect its moves. Returns the number of moves (at most `capacity` are stored), or -1 when the
// generation did not finish within `watchdog` clocks. `*cycles` receives the generator's count.
// `castling` is the generator's castling input (the castlings' squares, hdl.image.variant).
int32_t posdata_generate(void *handle, const uint8_t *writes, int32_t n, uint32_t side,
                         uint32_t castle, uint64_t castling, uint32_t ep_valid, uint32_t ep_sq,
                         uint32_t *moves, int32_t capacity, int32_t watchdog, uint32_t *cycles) {
  Sim &sim = *static_cast<Sim *>(handle);
  for (int32_t i = 0; i < n; i++) {
    sim.set_wr_en(1);
    sim.set_wr_sq(writes[3 * i]);
    sim.set_wr_color(writes[3 * i + 1]);
    sim.set_wr_piece(writes[3 * i + 2]);
    sim.tick();
  }
  sim.set_wr_en(0);
  sim.set_side(side);
  sim.set_castle(castle);
  sim.set_castling(castling);
  sim.set_ep_valid(ep_valid);
  sim.set_ep_sq(ep_sq);
  sim.set_start(1);
  sim.set_moves_ready(1);
  sim.tick();
  sim.set_start(0);
  int32_t count = 0;
  for (int32_t cycle = 1; cycle < watchdog; cycle++) {
    bool valid = sim.get_moves_valid();
    uint32_t word = sim.get_moves_payload();
    bool done = sim.get_done();
    sim.tick();
    if (valid) {
      if (count < capacity) moves[count] = word;
      count++;
    }
    if (done) {
      *cycles = sim.get_cycles();
      return count;
    }
  }
  return -1;
}

// Back-to-back generations of the loaded position (start and ready held high) for `clocks`
// clocks: the simulation speed of a busy generator. Returns the generations completed.
uint64_t posdata_spin(void *handle, uint64_t clocks) {
  Sim &sim = *static_cast<Sim *>(handle);
  sim.set_start(1);
  sim.set_moves_ready(1);
  uint64_t done = 0;
  for (uint64_t i = 0; i < clocks; i++) {
    sim.tick();
    done += sim.get_done();
  }
  sim.set_start(0);
  return done;
}

}  // extern "C"
