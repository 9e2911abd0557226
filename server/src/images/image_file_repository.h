// The bookkeeping of the object store's garbage collection (image_files_released, migration
// 0015): which stored files may be deleted. A key is collectable once its latest release (an
// image removed, or an upload that reserved it) is older than the grace period and no image uses
// it; the store's delete happens under the key's lock, which uploads take to reserve it too.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "db/pool.h"

namespace hotel::images {

struct CollectionResult {
  int deleted = 0;    // objects removed from the store
  int forgotten = 0;  // releases of keys that images use again
};

class ImageFileRepository {
 public:
  explicit ImageFileRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // Records keys as released now (called before an upload writes them).
  absl::Status Reserve(const std::vector<std::string>& keys);

  // Deletes, through remove, up to limit collectable files; each key is forgotten once remove
  // succeeded, in the transaction that holds its lock.
  absl::StatusOr<CollectionResult> Collect(absl::Duration grace, int limit,
                                           const std::function<absl::Status(const std::string& key)>& remove);

 private:
  db::ConnectionPool& pool_;
};

}  // namespace hotel::images
