#include "api/call_executor.h"

#include <utility>

namespace hotel::api {

CallExecutor::CallExecutor(int threads) {
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

CallExecutor::~CallExecutor() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (auto& thread : threads_) thread.join();
}

bool CallExecutor::TryReserve() {
  absl::MutexLock lock(&mu_);
  if (running_ + reserved_ + static_cast<int>(queue_.size()) >= threads()) return false;
  ++reserved_;
  return true;
}

void CallExecutor::ScheduleReserved(absl::AnyInvocable<void() &&> task) {
  absl::MutexLock lock(&mu_);
  --reserved_;
  queue_.push_back(std::move(task));
}

void CallExecutor::Schedule(absl::AnyInvocable<void() &&> task) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(task));
}

int CallExecutor::pending() const {
  absl::MutexLock lock(&mu_);
  return running_ + reserved_ + static_cast<int>(queue_.size());
}

void CallExecutor::Run() {
  auto has_work = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return !queue_.empty() || stopping_; };
  absl::MutexLock lock(&mu_);
  while (true) {
    mu_.Await(absl::Condition(&has_work));
    if (queue_.empty()) return;  // stopping, nothing left
    auto task = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    mu_.Unlock();
    std::move(task)();
    mu_.Lock();
    --running_;
  }
}

}  // namespace hotel::api
