// The order the server starts in, as steps, so that it needs no fallbacks and tests can hold it:
//   1. migrations finish (or fail the start) before anything is served;
//   2. the change feed reads the log's head, so every call finds a change cursor;
//   3. the port opens;
//   4. the background workers start.
// A step that fails stops the start there: nothing after it runs.
#pragma once

#include <functional>

#include "absl/status/status.h"

namespace hotel::app {

struct StartSteps {
  std::function<absl::Status()> migrate;
  std::function<absl::Status()> start_change_feed;
  std::function<absl::Status()> listen;
  std::function<void()> start_workers;
};

absl::Status RunStartOrder(const StartSteps& steps);

}  // namespace hotel::app
