#include "api/paging.h"

namespace hotel::api {

absl::Status BadToken() {
  return InvalidField("page_token", "is not a token returned by this service", "INVALID_PAGE_TOKEN");
}

}  // namespace hotel::api
