// Hands memory that glibc keeps after it was freed back to the system: what closed connections,
// ended streams or a refused flood of calls held stays in malloc's arenas otherwise, counted in
// the process's resident set for as long as it runs.
#pragma once

#include <cstddef>

#include "absl/time/time.h"
#include "common/periodic_task.h"

namespace hotel {

class FreedMemoryReturner {
 public:
  // Every interval, when the arenas hold at least slack bytes more free memory than after the
  // last return, malloc_trim releases their free pages. Idle, a check costs one mallinfo2.
  FreedMemoryReturner(absl::Duration interval, size_t slack);

  void Start() { task_.Start(); }
  void Stop() { task_.Stop(); }

 private:
  const size_t slack_;
  size_t free_after_last_ = 0;  // the baseline; the task's thread only
  PeriodicTask task_;
};

}  // namespace hotel
