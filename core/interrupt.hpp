#pragma once
// Stopping a long check from its caller (Ctrl-C in the Python package). While an InterruptPoll is
// alive on a thread, poll_interrupt() on that thread calls its function, which throws to stop the
// check; on other threads (the pool's workers), and with none alive, it does nothing. Long loops
// call it on the thread that started them between pieces of work of well under a second: batches
// of samples, blocks of Monte Carlo replicates.
#include <functional>
#include <utility>

namespace tev {

class InterruptPoll {
 public:
  explicit InterruptPoll(std::function<void()> poll)
      : poll_(std::move(poll)), previous_(current()) {
    current() = &poll_;
  }
  ~InterruptPoll() { current() = previous_; }
  InterruptPoll(const InterruptPoll&) = delete;
  InterruptPoll& operator=(const InterruptPoll&) = delete;

  // Calls this thread's innermost poll, if any.
  static void poll() {
    if (const std::function<void()>* p = current()) (*p)();
  }

 private:
  static const std::function<void()>*& current() {
    thread_local const std::function<void()>* installed = nullptr;
    return installed;
  }
  std::function<void()> poll_;
  const std::function<void()>* previous_;
};

inline void poll_interrupt() { InterruptPoll::poll(); }

}  // namespace tev
