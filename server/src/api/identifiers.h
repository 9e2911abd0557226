// Validators of the identifiers every area's requests carry. Each returns INVALID_ARGUMENT
// naming `field` (the request's own name for it), or OK.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hotel::api {

absl::Status ValidatePropertyId(absl::string_view field, absl::string_view id);
absl::Status ValidateRoomNumber(absl::string_view field, absl::string_view number);
absl::Status ValidateRoomTypeId(absl::string_view field, absl::string_view id);
// A room's address: property_id (reason PROPERTY_ID_REQUIRED when missing) and number.
absl::Status ValidateRoomAddress(absl::string_view property_id, absl::string_view number);
// Any case; callers store the lower-case form.
absl::Status ValidateUuid(absl::string_view field, absl::string_view id);
// ValidateUuid's check, answering the id in the lower-case form that is stored.
absl::StatusOr<std::string> ParseUuid(absl::string_view field, absl::string_view id);
bool IsUuid(absl::string_view text);

}  // namespace hotel::api
