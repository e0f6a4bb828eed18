// Every binary32 bit pattern (2^32) through the exact element-wise functions built on the exact
// exponential (Exp, Sigmoid, SiLU, Tanh, the two GELU forms) on every instruction-set path this
// machine runs, compared bit for bit with the SSE path. The exponential's step 4 (two power-of-two
// scalings, spec/exact-transcendentals.md section 2) runs as one scalef on AVX-512
// (optimized/kernels/elementwise/lane_math.hpp says why the bits are the same); SSE keeps the two
// multiplications, so this sweep is the whole-space check of that claim and of exact mode's "the
// same bits on every path" for these functions. The unit tests cover boundaries and strided
// samples; this is too long for CI: run it by hand after touching lane_math.hpp.
// Usage: exact_paths_sweep [threads]. Exit status 0 when every pattern agrees, 1 otherwise.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace {

namespace ew = onemodel::opt::ew;
using onemodel::opt::Isa;

constexpr std::uint64_t kChunk = std::uint64_t{1} << 20;

struct Op {
  const char* name;
  ew::UnaryOp op;
};

// Mismatching patterns of `op` on `isa` against SSE over chunks [first, past) of the 2^32 patterns.
std::uint64_t sweep(const Op& op, Isa isa, std::uint64_t first, std::uint64_t past, std::uint32_t& example) {
  std::vector<float> x(kChunk), want(kChunk), got(kChunk);
  const ew::UnaryArgs args = ew::for_mode(ew::UnaryArgs{op.op}, true);
  std::uint64_t mismatches = 0;
  for (std::uint64_t chunk = first; chunk < past; ++chunk) {
    for (std::uint64_t i = 0; i < kChunk; ++i) {
      const auto bits = static_cast<std::uint32_t>(chunk * kChunk + i);
      std::memcpy(&x[i], &bits, sizeof bits);
    }
    ew::unary_f32_run(Isa::Sse, args, x.data(), want.data(), kChunk);
    ew::unary_f32_run(isa, args, x.data(), got.data(), kChunk);
    if (std::memcmp(want.data(), got.data(), kChunk * sizeof(float)) == 0) continue;
    for (std::uint64_t i = 0; i < kChunk; ++i) {
      if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0) {
        if (mismatches == 0) std::memcpy(&example, &x[i], sizeof example);
        ++mismatches;
      }
    }
  }
  return mismatches;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
  const Op ops[] = {{"Exp", ew::UnaryOp::Exp},          {"Sigmoid", ew::UnaryOp::Sigmoid},
                    {"Silu", ew::UnaryOp::Silu},        {"Tanh", ew::UnaryOp::Tanh},
                    {"GeluErf", ew::UnaryOp::GeluErf},  {"GeluTanh", ew::UnaryOp::GeluTanh}};
  bool ok = true;
  for (const Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512}) {
    if (!onemodel::opt::isa_available(isa)) {
      std::printf("%s: not run on this machine\n", std::string(onemodel::opt::isa_name(isa)).c_str());
      continue;
    }
    for (const Op& op : ops) {
      const std::uint64_t chunks = (std::uint64_t{1} << 32) / kChunk;
      std::vector<std::uint64_t> counts(static_cast<std::size_t>(threads));
      std::vector<std::uint32_t> examples(static_cast<std::size_t>(threads));
      std::vector<std::thread> workers;
      for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
          const std::uint64_t first = chunks * static_cast<std::uint64_t>(t) / static_cast<std::uint64_t>(threads);
          const std::uint64_t past = chunks * static_cast<std::uint64_t>(t + 1) / static_cast<std::uint64_t>(threads);
          counts[static_cast<std::size_t>(t)] = sweep(op, isa, first, past, examples[static_cast<std::size_t>(t)]);
        });
      }
      for (std::thread& w : workers) w.join();
      std::uint64_t total = 0;
      std::uint32_t example = 0;
      for (int t = 0; t < threads; ++t) {
        if (counts[static_cast<std::size_t>(t)] != 0 && total == 0) example = examples[static_cast<std::size_t>(t)];
        total += counts[static_cast<std::size_t>(t)];
      }
      std::printf("%s %s: %llu of 2^32 patterns differ from SSE", std::string(onemodel::opt::isa_name(isa)).c_str(),
                  op.name, static_cast<unsigned long long>(total));
      if (total != 0) std::printf(" (first 0x%08X)", example);
      std::printf("\n");
      std::fflush(stdout);
      ok = ok && total == 0;
    }
  }
  return ok ? 0 : 1;
}
