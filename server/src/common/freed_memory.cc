#include "common/freed_memory.h"

#include <malloc.h>

#include <algorithm>

namespace hotel {

FreedMemoryReturner::FreedMemoryReturner(absl::Duration interval, size_t slack)
    : slack_(slack), task_("returning freed memory failed", interval, nullptr, [this] {
        const size_t free_now = mallinfo2().fordblks;
        if (free_now < free_after_last_ + slack_) {
          free_after_last_ = std::min(free_after_last_, free_now);  // reused since: the baseline drops
          return absl::OkStatus();
        }
        malloc_trim(0);
        free_after_last_ = mallinfo2().fordblks;
        return absl::OkStatus();
      }) {}

}  // namespace hotel
