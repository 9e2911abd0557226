// A fixed set of threads that run tasks. Every service is on gRPC's callback API, whose methods
// run on gRPC's own few polling threads (two on this gRPC, which has no background poller); a
// body that waits for PostgreSQL must not hold one of those, so admission (api/admission.h) runs
// it on one of these. TryReserve bounds the tasks to the threads: beyond them a call is refused on
// arrival, without a thread or a queue.
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

  // A place for one task, unless every thread already has a task (running, waiting or reserved):
  // then false, and the caller refuses the call. ScheduleReserved fills the place.
  bool TryReserve();
  void ScheduleReserved(absl::AnyInvocable<void() &&> task);
  // Runs task whatever the load (probes, the catch-up of a change-feed watcher: bounded elsewhere).
  void Schedule(absl::AnyInvocable<void() &&> task);

  int threads() const { return static_cast<int>(threads_.size()); }
  // Tasks running, waiting for a thread or reserved.
  int pending() const;

 private:
  void Run();

  mutable absl::Mutex mu_;
  std::deque<absl::AnyInvocable<void() &&>> queue_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int reserved_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace hotel::api
