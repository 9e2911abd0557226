// The CDN origin directory: where delivered files are written, under their storage keys.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hotel::images {

class CdnOrigin {
 public:
  explicit CdnOrigin(std::string directory) : directory_(std::move(directory)) {}

  // Writes data under key: to a temporary file, flushed to disk, then renamed into place, so a
  // reader (or a crash) never sees half a file. A key names its content, so an existing file of
  // the same size is already right and is left alone.
  absl::Status Put(absl::string_view key, absl::string_view data) const;
  std::string PathOf(absl::string_view key) const;

 private:
  const std::string directory_;
};

}  // namespace hotel::images
