// The host's end of the board's UART line, for the compiled boards' C entry points
// (sim/models/board_entry.cc, under either simulator), in front of which it is written;
// the hardware contract's POSDATA_UART_FRAME_BITS and the board's POSDATA_UART_DIVISOR (clocks
// per bit) come before it. A PC's UART: it sends 8N1 frames of exactly DIVISOR clocks per bit,
// back to back, and samples tx in the middle of each bit, checking the stop bit.

#include <cstdint>
#include <deque>
#include <vector>

namespace posdata_line {

constexpr int D = POSDATA_UART_DIVISOR;
constexpr int FRAME_BITS = POSDATA_UART_FRAME_BITS;
constexpr int DATA_BITS = 8;
static_assert(FRAME_BITS == 1 + DATA_BITS + 1, "the line model is 8N1: start, a byte, stop");
constexpr uint32_t IDLE_FRAME = (1u << FRAME_BITS) - 1;  // the line held high
constexpr uint32_t STOP_BIT = 1u << (FRAME_BITS - 1);

struct UartLine {
  uint64_t clocks = 0;         // clock edges so far
  uint64_t last_activity = 0;  // the clock of the last bit sent or byte received

  // host -> board: the frame on rx, shifted out of bit 0
  std::deque<uint8_t> to_board;
  uint32_t frame = IDLE_FRAME;
  int bits_left = 0;
  int bit_timer = 0;

  // board -> host: clocks since the falling edge of the start bit (-1: idle)
  int phase = -1;
  uint32_t byte = 0;
  std::vector<uint8_t> from_board;
  uint32_t framing_errors = 0;

  // The level of rx for the coming edge (a queued byte's frame starts when the last has ended).
  bool rx() {
    if (bits_left == 0 && !to_board.empty()) {
      frame = STOP_BIT | uint32_t(to_board.front()) << 1;  // stop, data, start (LSB first)
      to_board.pop_front();
      bits_left = FRAME_BITS;
      bit_timer = D;
    }
    return bits_left ? (frame & 1) : true;
  }

  // After an edge: count it, move rx on, and sample tx (as the model shows it).
  void after_edge(bool tx) {
    clocks++;
    if (bits_left && --bit_timer == 0) {
      frame >>= 1;
      bit_timer = D;
      if (--bits_left == 0) last_activity = clocks;
    }
    if (phase < 0) {
      if (!tx) phase = 0;
      return;
    }
    phase++;
    if (phase < D / 2 || (phase - D / 2) % D) return;
    int bit = (phase - D / 2) / D;  // 0 start, 1..DATA_BITS data, then stop
    if (bit == 0) {
      if (tx) phase = -1;  // a glitch, not a start bit (the gateware never makes one)
    } else if (bit <= DATA_BITS) {
      byte = byte >> 1 | uint32_t(tx) << (DATA_BITS - 1);
    } else {
      if (tx) from_board.push_back(uint8_t(byte));
      else framing_errors++;
      last_activity = clocks;
      phase = -1;
    }
  }

  bool quiet(uint64_t clocks_quiet) const {
    return to_board.empty() && bits_left == 0 && phase < 0 && clocks - last_activity >= clocks_quiet;
  }

  void send(const uint8_t *data, uint32_t n) { to_board.insert(to_board.end(), data, data + n); }

  // Run `tick` (one clock of the board) until `want` bytes have been received (want 0: never),
  // or the line has been quiet for `quiet` clocks (quiet 0: never), or `max_clocks` clocks have
  // passed; then move the bytes received (at most `capacity`) to `out`. Returns how many.
  template <typename Tick>
  int32_t run(Tick tick, uint64_t max_clocks, uint32_t want, uint64_t quiet, uint8_t *out,
              uint32_t capacity) {
    for (uint64_t i = 0; i < max_clocks; i++) {
      if (want && from_board.size() >= want) break;
      if (quiet && this->quiet(quiet)) break;
      tick();
    }
    uint32_t n = from_board.size() < capacity ? from_board.size() : capacity;
    for (uint32_t i = 0; i < n; i++) out[i] = from_board[i];
    from_board.erase(from_board.begin(), from_board.begin() + n);
    return int32_t(n);
  }
};

}  // namespace posdata_line
