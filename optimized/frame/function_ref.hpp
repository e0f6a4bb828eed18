// A non-owning reference to a callable: what the parallel-for takes, so handing work to the pool
// allocates nothing (graph-runtime.md section 4, allocation).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace onemodel::opt {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& f) noexcept  // NOLINT: implicit by design, like std::function_ref
      : object_(const_cast<void*>(static_cast<const void*>(&f))), call_(&invoke<std::remove_reference_t<F>>) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  template <typename F>
  static R invoke(void* object, Args... args) {
    return (*static_cast<F*>(object))(std::forward<Args>(args)...);
  }
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace onemodel::opt
