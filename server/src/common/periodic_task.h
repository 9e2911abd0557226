// A background thread that runs one task every interval until stopped (the rollup fold, the room
// blocks' daily pass): skipped while ready() says no, one log line when it starts failing.
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace hotel {

class PeriodicTask {
 public:
  // failure_message is the log line when run starts failing; ready may be null (always ready).
  PeriodicTask(std::string failure_message, absl::Duration interval, std::function<bool()> ready,
               std::function<absl::Status()> run)
      : failure_message_(std::move(failure_message)),
        interval_(interval),
        ready_(std::move(ready)),
        run_(std::move(run)) {}
  ~PeriodicTask() { Stop(); }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  void Start();
  void Stop();

 private:
  void Loop();

  const std::string failure_message_;
  const absl::Duration interval_;
  const std::function<bool()> ready_;
  const std::function<absl::Status()> run_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace hotel
