#include "optimized/frame/stop_scope.hpp"

namespace onemodel::opt {
namespace {
// One per thread: runs on different threads have their own; a worker of the pool has none and
// polls the stop test of the job it helps with (ThreadPool::job_stop_).
thread_local const FunctionRef<bool()>* t_current = nullptr;
}  // namespace

StopScope::StopScope(const FunctionRef<bool()>& stop) noexcept : previous_(t_current) { t_current = &stop; }

StopScope::~StopScope() { t_current = previous_; }

const FunctionRef<bool()>* StopScope::current() noexcept { return t_current; }

}  // namespace onemodel::opt
