// A fixed set of threads for work that blocks (database calls) on behalf of callback-API
// handlers, which must not block the gRPC threads that run them.
#pragma once

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace hotel {

class BlockingExecutor {
 public:
  explicit BlockingExecutor(int threads);
  BlockingExecutor(const BlockingExecutor&) = delete;
  BlockingExecutor& operator=(const BlockingExecutor&) = delete;
  // Runs every task already submitted, then joins the threads.
  ~BlockingExecutor();

  void Submit(std::function<void()> task);

 private:
  void Work();
  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;  // last: started once the rest exists
};

}  // namespace hotel
