// Force-included into the kernel tests of the WebAssembly build only (cmake/cross_kernel_tests.cmake).
// emscripten 3.1.6's libc++ lacks std::bit_cast (DESIGN.md section 4) and two kernel tests use it;
// the library itself uses __builtin_bit_cast instead. Tests are not rewritten for one toolchain:
// this fills the gap with the same builtin, and steps aside once the library has its own
// (__cpp_lib_bit_cast from <version>).
#pragma once

#include <version>

#if !defined(__cpp_lib_bit_cast)
namespace std {
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif
