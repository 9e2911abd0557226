#include "app/start_order.h"

namespace hotel::app {

absl::Status RunStartOrder(const StartSteps& steps) {
  if (absl::Status migrated = steps.migrate(); !migrated.ok()) return migrated;
  if (absl::Status feed = steps.start_change_feed(); !feed.ok()) return feed;
  if (absl::Status listening = steps.listen(); !listening.ok()) return listening;
  steps.start_workers();
  return absl::OkStatus();
}

}  // namespace hotel::app
