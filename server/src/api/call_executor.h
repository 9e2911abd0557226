// The threads that run handler bodies. Every service is on gRPC's callback API, whose methods run
// on gRPC's own few polling threads (two on this gRPC, which has no background poller); a body
// that waits for PostgreSQL must not hold one of those, so HandleRpc hands it to this executor
// and finishes the call from here. The thread count bounds the calls that may be admitted or wait
// for admission at once: beyond it a call is refused on arrival, without a thread or a queue.
#pragma once

#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"

namespace hotel::api {

class CallExecutor {
 public:
  explicit CallExecutor(int threads);
  ~CallExecutor();  // runs what was scheduled, then joins
  CallExecutor(const CallExecutor&) = delete;
  CallExecutor& operator=(const CallExecutor&) = delete;

  // Runs task on one of the threads, unless every thread already has a task (running or waiting):
  // then false, and the caller refuses the call.
  bool TrySchedule(absl::AnyInvocable<void() &&> task);
  // Runs task whatever the load (probes, the catch-up of a change-feed watcher: bounded elsewhere).
  void Schedule(absl::AnyInvocable<void() &&> task);

  int threads() const { return static_cast<int>(threads_.size()); }
  // Tasks running or waiting for a thread.
  int pending() const;

 private:
  void Run();

  mutable absl::Mutex mu_;
  std::deque<absl::AnyInvocable<void() &&>> queue_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace hotel::api
