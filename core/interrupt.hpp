#pragma once
// Reaching a long check's caller from deep inside it, on the caller's own thread:
// - InterruptPoll: stopping the check (Ctrl-C in the Python package). While one is alive on a
//   thread, poll_interrupt() on that thread calls its function, which throws to stop the check.
//   Long loops call it between pieces of work of well under a second: batches of samples, blocks
//   of Monte Carlo replicates.
// - LongStepNotices: telling the caller how far a long step has come (the replicates a simulated
//   p-value has drawn), so that a progress line can show it. note_long_step(step, 0, most) opens a
//   step; later calls give what is done so far, at most `most`.
// On other threads (the pool's workers), and with none alive, both do nothing. Hooks nest: the
// innermost alive on a thread is the one called; it may pass the call on to the one it hides
// (call_outer), to observe a step without silencing the caller's progress line.
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>

namespace tev {

// One thread-local slot per Tag, holding the innermost installed function.
template <class Tag, class... Args>
class ThreadHook {
 public:
  explicit ThreadHook(std::function<void(Args...)> hook)
      : hook_(std::move(hook)), previous_(current()) {
    current() = &hook_;
  }
  ~ThreadHook() { current() = previous_; }
  ThreadHook(const ThreadHook&) = delete;
  ThreadHook& operator=(const ThreadHook&) = delete;

  // Calls this thread's innermost hook, if any.
  static void call(Args... args) {
    if (const std::function<void(Args...)>* h = current()) (*h)(args...);
  }
  // Calls the hook this one hides, if any.
  void call_outer(Args... args) const {
    if (previous_) (*previous_)(args...);
  }

 private:
  static const std::function<void(Args...)>*& current() {
    thread_local const std::function<void(Args...)>* installed = nullptr;
    return installed;
  }
  std::function<void(Args...)> hook_;
  const std::function<void(Args...)>* previous_;
};

struct InterruptTag;
using InterruptPoll = ThreadHook<InterruptTag>;
inline void poll_interrupt() { InterruptPoll::call(); }

struct LongStepTag;
// (step, done, most): what the step is, how much of it is done, the most it can take.
using LongStepNotices = ThreadHook<LongStepTag, std::string_view, std::uint64_t, std::uint64_t>;
inline void note_long_step(std::string_view step, std::uint64_t done, std::uint64_t most) {
  LongStepNotices::call(step, done, most);
}

}  // namespace tev
