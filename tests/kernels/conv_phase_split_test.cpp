// Strided convolutions through phase planes (optimized/kernels/conv/conv_phase_split.hpp).
//
// 1. Every strip filled from the phase planes holds the floats of the strided fill from the image
//    (im2col_strip_f32, the filler the product used before): bit for bit, NaN payloads and signed
//    zeros included, for strides 2 to 4, kernels 1x1 to 7x7 (and non-square), dilations 1 and 2,
//    pads on every side, odd and even maps, strips of 8, 16 and 32 (the AVX2 filler takes 16 on
//    the AVX2 path), whole strips and ragged last ones, and row ranges starting mid-channel. The
//    planes' unread positions are poisoned with a NaN payload no input has, so a read of one
//    shows.
// 2. Whole convolutions with packed weights give the same bits with the planes (a workspace) and
//    without (the strided fill), exact and fast, one and two threads, every path this machine runs,
//    a 1x1 kernel read in place included.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/conv_phase_split.hpp"
#include "optimized/kernels/conv/im2col.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"

namespace onemodel::opt {
namespace {

using conv_test::Window;

constexpr std::uint32_t kPoisonBits = 0x7FA5A5A5u;  // a quiet NaN no random input is

std::string describe(const Window& w) {
  return "in " + std::to_string(w.in_h) + "x" + std::to_string(w.in_w) + " k " + std::to_string(w.kh) + "x" +
         std::to_string(w.kw) + " s " + std::to_string(w.sh) + "x" + std::to_string(w.sw) + " d " + std::to_string(w.dh) + " pads " +
         std::to_string(w.pt) + "," + std::to_string(w.pl) + "," + std::to_string(w.pb) + "," + std::to_string(w.pr);
}

// A square k x k window at stride s on an h x w map, or on a one-row map (h = 1) a 1 x k window at
// strides 1 x s; pads (begin, end) on both axes of a map, on the columns only of one row.
Window square_window(std::size_t h, std::size_t w, std::size_t k, std::size_t stride, std::size_t pad_begin = 0,
                     std::size_t pad_end = 0) {
  const bool one_row = h == 1;
  Window win;
  win.in_h = h;
  win.in_w = w;
  win.kh = one_row ? 1 : k;
  win.kw = k;
  win.sh = one_row ? 1 : stride;
  win.sw = stride;
  win.pt = one_row ? 0 : pad_begin;
  win.pb = one_row ? 0 : pad_end;
  win.pl = pad_begin;
  win.pr = pad_end;
  return win;
}

std::vector<Window> strided_windows() {
  std::vector<Window> windows;
  struct Kernel {
    std::size_t kh, kw;
  };
  struct Strides {
    std::size_t sh, sw;
  };
  for (const Strides st : {Strides{2, 2}, Strides{3, 3}, Strides{4, 4}, Strides{1, 2}, Strides{2, 3}, Strides{3, 2}}) {
    for (const Kernel k : {Kernel{1, 1}, Kernel{2, 2}, Kernel{3, 3}, Kernel{5, 5}, Kernel{7, 7}, Kernel{3, 1}, Kernel{1, 3}}) {
      for (const std::size_t dilation : {1u, 2u}) {
        for (const std::size_t size : {1u, 5u, 8u, 13u, 16u, 23u, 28u}) {
          for (const std::size_t pad : {0u, 1u, 3u}) {
            Window w;
            w.in_h = size;
            w.in_w = size + 3;  // non-square maps: rows and columns must not be swapped
            w.kh = k.kh;
            w.kw = k.kw;
            w.sh = st.sh;
            w.sw = st.sw;
            w.dh = w.dw = dilation;
            w.pt = pad;
            w.pl = pad / 2;
            w.pb = pad == 3 ? 1 : pad;  // end pads differ from the leading ones
            w.pr = pad;
            if (w.conv_valid()) windows.push_back(w);
          }
        }
      }
    }
  }
  // One-dimensional convolutions lifted to maps one row high (wav2vec 2.0's front end: 3 taps at
  // stride 2, 2 at stride 2, 10 at stride 5).
  for (const Kernel k : {Kernel{1, 3}, Kernel{1, 2}, Kernel{1, 10}, Kernel{1, 1}}) {
    for (const std::size_t sw : {2u, 5u}) {
      for (const std::size_t size : {9u, 40u, 101u}) {
        for (const std::size_t pad : {0u, 1u}) {
          Window w;
          w.in_h = 1;
          w.in_w = size;
          w.kh = k.kh;
          w.kw = k.kw;
          w.sh = 1;
          w.sw = sw;
          w.pl = w.pr = pad;
          if (w.conv_valid()) windows.push_back(w);
        }
      }
    }
  }
  return windows;
}

TEST(ConvPhaseSplit, StripsEqualTheStridedFill) {
  std::uint32_t seed = 900;
  std::size_t compared = 0;
  for (const Window& w : strided_windows()) {
    const std::size_t channels = 3;
    const Conv2dShape s = w.conv_shape(1, channels, 4, 1);
    if (!conv_reads_phase_planes(Isa::Scalar, s)) continue;
    const conv_test::Data d = conv_test::random_data(channels * s.in_plane(), 0, 0, seed++, true, 5);
    std::vector<float> split(conv_phase_split_floats(s), std::bit_cast<float>(kPoisonBits));
    conv_phase_split_channels(s, d.x.data(), 0, channels, split.data());
    const std::size_t k = channels * s.taps(), n = s.out_plane();
    struct Rows {
      std::size_t p0, kc;
    };
    for (const Isa isa : available_isas()) {
      const ConvPhaseSource source{&s, d.x.data(), split.data(), isa};
      for (const std::size_t nr : {8u, 16u, 32u}) {
        for (const Rows rows : {Rows{0, k}, Rows{k / 3, k - k / 3}, Rows{k - 1, 1}}) {
          for (std::size_t col = 0; col < n; col += nr) {
            const std::size_t valid = std::min(nr, n - col);
            std::vector<float> want(rows.kc * nr, 333.0f), got(rows.kc * nr, 444.0f);
            im2col_strip_f32(s, d.x.data(), rows.p0, rows.kc, col, valid, nr, want.data());
            fill_conv_phase_strip(&source, rows.p0, rows.kc, col, valid, nr, got.data());
            ASSERT_EQ(conv_test::first_bit_difference(got, want), "")
                << describe(w) << " isa " << isa_name(isa) << " nr " << nr << " col " << col << " rows " << rows.p0
                << "+" << rows.kc;
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 10000u);  // the loops above really ran
}

// The split writes each read phase position once, the input's value: checked against the
// definition (input (iy, ix) at phase (iy % s, ix % s), row iy / s, column ix / s).
TEST(ConvPhaseSplit, PlanesHoldTheInputs) {
  Window w;
  w.in_h = 9;
  w.in_w = 14;
  w.kh = w.kw = 3;
  w.sh = w.sw = 2;
  w.pt = w.pl = w.pb = w.pr = 1;
  const Conv2dShape s = w.conv_shape(1, 2, 1, 1);
  const conv_test::Data d = conv_test::random_data(2 * s.in_plane(), 0, 0, 7, true, 4);
  std::vector<float> split(conv_phase_split_floats(s), std::bit_cast<float>(kPoisonBits));
  conv_phase_split_channels(s, d.x.data(), 0, 2, split.data());
  const ConvPhaseLayout layout = conv_phase_layout(s);
  ASSERT_EQ(layout.rows, 5u);
  ASSERT_EQ(layout.cols, 7u);
  for (std::size_t c = 0; c < 2; ++c) {
    for (std::size_t iy = 0; iy < w.in_h; ++iy) {
      for (std::size_t ix = 0; ix < w.in_w; ++ix) {
        const std::size_t at = c * 4 * 35 + ((iy % 2) * 2 + ix % 2) * 35 + (iy / 2) * 7 + ix / 2;
        EXPECT_EQ(std::bit_cast<std::uint32_t>(split[at]), std::bit_cast<std::uint32_t>(d.x[c * s.in_plane() + iy * 14 + ix]))
            << "c " << c << " iy " << iy << " ix " << ix;
      }
    }
  }
  // Phase (1, 1)'s row 4 would be input row 9: past the map, never written.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(split[3 * 35 + 4 * 7]), kPoisonBits);
}

// Where the split is read in place, its rows are the im2col matrix's (im2col_rows_f32), whole.
TEST(ConvPhaseSplit, MatrixInPlaceIsTheIm2colMatrix) {
  struct Case {
    std::size_t h, w, k, stride;
  };
  std::size_t checked = 0;
  for (const Case c : {Case{14, 14, 1, 2}, Case{13, 9, 1, 2}, Case{15, 15, 1, 3}, Case{16, 16, 4, 4}, Case{14, 10, 2, 2},
                       Case{32, 48, 16, 16}, Case{12, 12, 3, 3}, Case{1, 40, 2, 2}, Case{1, 41, 1, 2}}) {
    const Window w = square_window(c.h, c.w, c.k, c.stride);
    const Conv2dShape s = w.conv_shape(1, 3, 1, 1);
    ASSERT_TRUE(conv_phase_matrix_in_place(s)) << describe(w);
    const conv_test::Data d = conv_test::random_data(3 * s.in_plane(), 0, 0, 31, true, 6);
    std::vector<float> split(conv_phase_split_floats(s), std::bit_cast<float>(kPoisonBits));
    conv_phase_split_channels(s, d.x.data(), 0, 3, split.data());
    const std::size_t k = 3 * s.taps(), n = s.out_plane(), stride = conv_phase_matrix_row_stride(s);
    std::vector<float> want(k * n);
    im2col_rows_f32(s, d.x.data(), 0, k, want.data());
    for (std::size_t r = 0; r < k; ++r) {
      const std::vector<float> row(want.begin() + static_cast<std::ptrdiff_t>(r * n),
                                   want.begin() + static_cast<std::ptrdiff_t>((r + 1) * n));
      const std::vector<float> got(split.begin() + static_cast<std::ptrdiff_t>(r * stride),
                                   split.begin() + static_cast<std::ptrdiff_t>(r * stride + n));
      ASSERT_EQ(conv_test::first_bit_difference(got, row), "") << describe(w) << " row " << r;
      ++checked;
    }
  }
  EXPECT_GT(checked, 800u);
  // Not in place: a pad, an end pad, inputs past the last window, overlapping windows.
  Window w;
  w.in_h = w.in_w = 14;
  w.sh = w.sw = 2;
  w.pt = 1;
  EXPECT_FALSE(conv_phase_matrix_in_place(w.conv_shape(1, 1, 1, 1)));
  w.pt = 0;
  w.pb = 1;
  EXPECT_FALSE(conv_phase_matrix_in_place(w.conv_shape(1, 1, 1, 1)));
  w.pb = 0;
  w.in_h = w.in_w = 18;
  w.kh = w.kw = w.sh = w.sw = 4;
  EXPECT_FALSE(conv_phase_matrix_in_place(w.conv_shape(1, 1, 1, 1)));
  w.in_h = w.in_w = 16;
  w.kh = w.kw = 3;
  w.sh = w.sw = 2;
  EXPECT_FALSE(conv_phase_matrix_in_place(w.conv_shape(1, 1, 1, 1)));
  // Patches whose last window reaches into an end pad (SAME_UPPER), as many outputs as phase
  // columns: phase 1 is a column short.
  for (const Window& padded : {square_window(15, 15, 2, 2, 0, 1), square_window(1, 5, 2, 2, 0, 1)}) {
    ASSERT_TRUE(padded.conv_valid());
    EXPECT_FALSE(conv_phase_matrix_in_place(padded.conv_shape(1, 1, 1, 1))) << describe(padded);
  }
}

TEST(ConvPhaseSplit, ConvolutionsKeepTheirBits) {
  const two_threads::RequireSharedCalls shared_calls("ConvPhaseSplit.ConvolutionsKeepTheirBits");
  struct Case {
    std::size_t batch, cin, cout, groups, h, w, k, stride, pad_begin, pad_end;
  };
  const Case cases[] = {
      {1, 16, 24, 1, 14, 14, 3, 2, 1, 1},  // ResNet's stride-2 3x3
      {2, 9, 20, 1, 15, 11, 3, 2, 1, 1},   // odd maps, two images
      {1, 24, 40, 1, 14, 14, 1, 2, 0, 0},  // a downsample 1x1, read in place
      {1, 10, 12, 1, 13, 9, 1, 2, 0, 0},   // odd 1x1, read in place
      {1, 8, 8, 1, 12, 12, 1, 2, 0, 1},    // 1x1 with an end pad: strips, not in place
      {1, 6, 17, 1, 17, 17, 5, 2, 2, 2},   // 5x5/2
      {1, 12, 16, 1, 16, 16, 3, 3, 1, 1},  // stride 3
      {1, 8, 16, 2, 14, 14, 3, 2, 1, 1},   // two groups, one after the other
      {1, 3, 16, 1, 16, 16, 4, 4, 0, 0},   // a patch embedding, read in place
      {2, 5, 12, 1, 14, 14, 2, 2, 0, 0},   // 2x2/2 patches, two images
      {1, 3, 8, 1, 32, 48, 16, 16, 0, 0},  // ViT's 16x16/16: 256 taps, past the piece table
      {1, 4, 8, 1, 18, 18, 4, 4, 0, 0},    // patches with inputs past the last window: strips
      {1, 16, 24, 1, 1, 99, 3, 2, 0, 0},   // one-dimensional, 3 taps at stride 2
      {1, 16, 24, 1, 1, 98, 2, 2, 0, 0},   // one-dimensional 2/2, read in place
      {1, 2, 1, 1, 1, 5, 2, 2, 0, 1},      // 2/2 patches reaching an end pad (SAME_UPPER): strips
      {1, 3, 8, 1, 15, 15, 2, 2, 0, 1},    // the same on a map
  };
  std::uint32_t seed = 1200;
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (const Case& c : cases) {
    const Window w = square_window(c.h, c.w, c.k, c.stride, c.pad_begin, c.pad_end);
    ASSERT_TRUE(w.conv_valid());
    const Conv2dShape s = w.conv_shape(c.batch, c.cin, c.cout, c.groups);
    const conv_test::Data d = conv_test::random_data(c.batch * c.cin * s.in_plane(),
                                                     c.cout * (c.cin / c.groups) * s.taps(), c.cout, seed++, true, 9);
    for (const Isa isa : available_isas()) {
      const std::vector<PackedA> weights = conv2d_pack_weights(isa, s, d.w.data());
      const std::size_t floats = conv2d_workspace_floats(s, true, isa);
      EXPECT_EQ(floats, conv_reads_phase_planes(isa, s) ? conv_phase_split_floats(s) : 0u) << isa_name(isa);
      for (const bool exact : {true, false}) {
        std::vector<float> want(c.batch * c.cout * s.out_plane(), 777.0f);
        conv2d_f32(KernelContext{isa, exact, &one}, s, d.x.data(), nullptr, d.b.data(), want.data(), nullptr, nullptr,
                   weights.data());
        for (ThreadPool* pool : {&one, &two}) {
          std::vector<float> work(floats + 1, std::bit_cast<float>(kPoisonBits));
          std::vector<float> got(want.size(), 888.0f);
          conv2d_f32(KernelContext{isa, exact, pool}, s, d.x.data(), nullptr, d.b.data(), got.data(), work.data(),
                     nullptr, weights.data());
          EXPECT_EQ(conv_test::first_bit_difference(got, want), "")
              << describe(w) << " groups " << c.groups << " isa " << isa_name(isa) << " threads " << pool->threads()
              << (exact ? " exact" : " fast");
        }
      }
    }
  }
}

}  // namespace
}  // namespace onemodel::opt
