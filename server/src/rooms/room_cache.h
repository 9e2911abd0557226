// Rooms as GetRoom last read them, so the hottest read costs no database round trip.
//
// Consistency: a trigger on every table a room is read from sends a NOTIFY on commit, and a
// db::ChangeListener turns it into InvalidateAll(). Writes made through this process also
// invalidate once committed (ConnectionPool's after-write hook), so a client always reads its
// own writes, even before the notification arrives. A fill that raced an invalidation is
// dropped: Put stores only if no invalidation happened since the caller took its generation.
// While the listener is not listening (starting, database lost) the cache is disabled: it
// could have missed a notification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "hotel/v1/rooms.pb.h"

namespace hotel::rooms {

struct RoomCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t invalidations = 0;
  int64_t entries = 0;
  bool enabled = false;
};

class RoomCache {
 public:
  explicit RoomCache(size_t max_entries) : max_entries_(max_entries) {}

  // Copies the cached room into out; false on a miss or while disabled.
  bool Get(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);
  // Take before reading from the database; hand to Put with what was read.
  uint64_t Generation() const;
  void Put(absl::string_view property_id, absl::string_view number, const hotel::v1::Room& room, uint64_t generation);
  void InvalidateAll();
  // Disabling empties the cache; enabling starts from empty, so nothing missed survives.
  void SetEnabled(bool enabled);
  RoomCacheStats Stats() const;

 private:
  static std::string Key(absl::string_view property_id, absl::string_view number);

  const size_t max_entries_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, hotel::v1::Room> rooms_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool enabled_ ABSL_GUARDED_BY(mu_) = false;
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t invalidations_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hotel::rooms
