#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "images/ingest/object_store.h"

namespace hotel::images {
namespace {

absl::Status IoError(absl::string_view what, const std::string& path) {
  return absl::UnavailableError(absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

std::string LocalObjectStore::PathOf(absl::string_view key) const { return absl::StrCat(directory_, "/", key); }

absl::Status LocalObjectStore::Delete(absl::string_view key) {
  const std::string path = PathOf(key);
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return IoError("remove", path);
  return absl::OkStatus();
}

absl::StatusOr<bool> LocalObjectStore::Exists(absl::string_view key) {
  std::error_code error;
  bool exists = std::filesystem::exists(PathOf(key), error);
  if (error) return absl::UnavailableError(absl::StrCat("cannot look up ", PathOf(key), ": ", error.message()));
  return exists;
}

absl::Status LocalObjectStore::Put(absl::string_view key, absl::string_view data, absl::string_view) {
  // A key names its content: an existing file of the same size is already right.
  const std::string path = PathOf(key);
  std::error_code error;
  if (std::filesystem::file_size(path, error) == data.size() && !error) return absl::OkStatus();
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error)
    return absl::UnavailableError(absl::StrCat("cannot create the directory of ", path, ": ", error.message()));

  // A unique temporary name: concurrent ingestions may write the same key at once.
  std::string temporary = absl::StrCat(path, ".tmp.XXXXXX");
  int fd = mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) return IoError("create", temporary);
  fchmod(fd, 0644);
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto status = IoError("write", temporary);
      close(fd);
      unlink(temporary.c_str());
      return status;
    }
    written += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    auto status = IoError("flush", temporary);
    unlink(temporary.c_str());
    return status;
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    auto status = IoError("rename", temporary);
    unlink(temporary.c_str());
    return status;
  }
  return absl::OkStatus();
}

}  // namespace hotel::images
