#include "common/blocking_executor.h"

namespace hotel {

BlockingExecutor::BlockingExecutor(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

BlockingExecutor::~BlockingExecutor() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (auto& thread : threads_) thread.join();
}

void BlockingExecutor::Submit(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  tasks_.push_back(std::move(task));
}

bool BlockingExecutor::HasWorkOrStopping() const { return stopping_ || !tasks_.empty(); }

void BlockingExecutor::Work() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &BlockingExecutor::HasWorkOrStopping));
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace hotel
