#include "common/periodic_task.h"

#include "common/log.h"

namespace hotel {

void PeriodicTask::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void PeriodicTask::Stop() {
  if (!thread_.joinable()) return;
  if (!stop_.HasBeenNotified()) stop_.Notify();
  thread_.join();
}

void PeriodicTask::Loop() {
  bool failing = false;
  while (!stop_.WaitForNotificationWithTimeout(interval_)) {
    if (ready_ && !ready_()) continue;
    absl::Status status = run_();
    // The database being down is reported by the health monitor; one line here is enough.
    if (!status.ok() && !failing) LogWarning(failure_message_, {{"error", std::string(status.message())}});
    failing = !status.ok();
  }
}

}  // namespace hotel
