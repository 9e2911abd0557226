#include "rooms/room_cache.h"

#include "absl/strings/str_cat.h"

namespace hotel::rooms {

std::string RoomCache::Key(absl::string_view property_id, absl::string_view number) {
  // The unit separator cannot occur in validated ids or numbers, so keys never collide.
  return absl::StrCat(property_id, "\x1f", number);
}

bool RoomCache::Get(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out) {
  const std::string key = Key(property_id, number);
  absl::MutexLock lock(&mu_);
  auto it = enabled_ ? rooms_.find(key) : rooms_.end();
  if (it == rooms_.end()) {
    ++misses_;
    return false;
  }
  ++hits_;
  *out = it->second;
  return true;
}

uint64_t RoomCache::Generation() const {
  absl::MutexLock lock(&mu_);
  return generation_;
}

void RoomCache::Put(absl::string_view property_id, absl::string_view number, const hotel::v1::Room& room,
                    uint64_t generation) {
  std::string key = Key(property_id, number);
  absl::MutexLock lock(&mu_);
  if (!enabled_ || generation != generation_) return;
  if (rooms_.size() >= max_entries_ && !rooms_.contains(key)) return;
  rooms_.insert_or_assign(std::move(key), room);
}

void RoomCache::InvalidateAll() {
  absl::MutexLock lock(&mu_);
  ++generation_;
  ++invalidations_;
  rooms_.clear();
}

void RoomCache::SetEnabled(bool enabled) {
  absl::MutexLock lock(&mu_);
  ++generation_;
  rooms_.clear();
  enabled_ = enabled;
}

RoomCacheStats RoomCache::Stats() const {
  absl::MutexLock lock(&mu_);
  return {hits_, misses_, invalidations_, static_cast<int64_t>(rooms_.size()), enabled_};
}

}  // namespace hotel::rooms
