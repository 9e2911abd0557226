#include "blocks/block_request.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "api/identifiers.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "common/dates.h"
#include "common/page_token.h"

namespace hotel::blocks {

using hotel::v1::RoomBlock;

namespace {

// end after start, when both are valid dates (end empty: no end).
void CheckDateOrder(const std::string& end_field, absl::string_view start, absl::string_view end, FieldErrors& errors) {
  const auto start_day = ParseDate(start);
  const auto end_day = ParseDate(end);
  if (start_day && end_day && *end_day <= *start_day) {
    errors.Add(end_field, absl::StrCat("must be after start_date ", start, " (end_date is exclusive)"));
  }
}

}  // namespace

absl::StatusOr<NewRoomBlock> ValidateCreateRoomBlock(const hotel::v1::CreateRoomBlockRequest& request,
                                                     absl::string_view field_prefix) {
  FieldErrors errors;
  auto name = [&](absl::string_view field) { return absl::StrCat(field_prefix, field); };
  NewRoomBlock out;
  if (request.property_id().empty()) {
    errors.Add(name("property_id"), "is required: every block belongs to a room of a property");
  } else {
    api::CheckRoom(name("property_id"), request.property_id(), name("room_number"), request.room_number(), errors);
  }
  out.property_id = request.property_id();
  out.room_number = request.room_number();
  out.type = api::RequiredEnumField<RoomBlock::Type>(name("type"), request.type(), errors);
  out.start_date = api::RequiredDate(name("start_date"), request.start_date(), errors);
  out.end_date = api::OptionalDate(name("end_date"), request.end_date(), errors);
  CheckDateOrder(name("end_date"), out.start_date, out.end_date, errors);
  out.reason = api::Text(name("reason"), request.reason(), api::kMaxTextLength, false, errors);
  out.issue_id = api::OptionalUuid(name("issue_id"), request.issue_id(), errors);
  out.updated_by = api::Actor(request.updated_by(), errors, name("updated_by"));
  out.return_condition = api::EnumField<hotel::v1::RoomHousekeeping::Condition>(name("return_condition"),
                                                                                request.return_condition(), errors)
                             .value_or("DIRTY");
  out.allow_occupied = request.allow_occupied();
  if (!request.request_id().empty()) {
    FieldErrors request_id_errors;
    api::CheckRequestId(request.request_id(), request_id_errors);
    if (!request_id_errors.empty()) errors.Add(name("request_id"), "must be 1 to 100 of A-Z a-z 0-9 - _ . :");
  }
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = api::RequestFingerprint(request);
  return out;
}

bool DatesOverlap(absl::string_view start1, absl::string_view end1, absl::string_view start2, absl::string_view end2) {
  // YYYY-MM-DD compares as text; an empty end is no end.
  return (end2.empty() || start1 < end2) && (end1.empty() || start2 < end1);
}

absl::StatusOr<std::vector<NewRoomBlock>> ValidateBatchCreateRoomBlocks(
    const hotel::v1::BatchCreateRoomBlocksRequest& request) {
  const int n = request.requests_size();
  if (n == 0 || n > kMaxBatchSize) {
    return InvalidField("requests", absl::StrCat("must hold 1 to ", kMaxBatchSize, " blocks, not ", n));
  }
  FieldErrors errors;
  std::vector<NewRoomBlock> blocks;
  for (int i = 0; i < n; ++i) {
    const std::string prefix = absl::StrCat("requests[", i, "].");
    auto block = ValidateCreateRoomBlock(request.requests(i), prefix);
    if (!block.ok()) {
      for (auto& violation : FieldViolations(block.status())) errors.Add(violation.field, violation.description);
      continue;
    }
    for (int j = 0; j < static_cast<int>(blocks.size()); ++j) {
      const NewRoomBlock& other = blocks[j];
      if (block->type == "OUT_OF_ORDER" && other.type == "OUT_OF_ORDER" && other.property_id == block->property_id &&
          other.room_number == block->room_number &&
          DatesOverlap(block->start_date, block->end_date, other.start_date, other.end_date)) {
        errors.Add(absl::StrCat("requests[", i, "]"),
                   absl::StrCat("overlaps another OUT_OF_ORDER block of room ", block->room_number,
                                " in this batch (requests[", j, "])"));
      }
    }
    blocks.push_back(*std::move(block));
  }
  if (!errors.empty()) return errors.ToStatus();
  return blocks;
}

absl::StatusOr<RoomBlockListQuery> ParseListRoomBlocks(const hotel::v1::ListRoomBlocksRequest& request) {
  FieldErrors errors;
  RoomBlockListQuery query;
  if (auto s = api::ReadListScope(request, query, errors); !s.ok()) return s;
  query.type = api::EnumField<RoomBlock::Type>("type", request.type(), errors);
  query.from = api::OptionalDate("from_date", request.from_date(), errors);
  query.to = api::OptionalDate("to_date", request.to_date(), errors);
  if (!query.from.empty() && !query.to.empty() && query.to <= query.from) {
    errors.Add("to_date", "must be after from_date (to_date is exclusive)");
  }
  query.show_cancelled = request.show_cancelled();
  if (auto s = api::ApplyPaging(request, "room-blocks", {3, 1, 2}, Fingerprint(query), query, errors); !s.ok())
    return s;
  return query;
}

std::string Fingerprint(const RoomBlockListQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|room=", q.room_number,
                                        "|type=", api::OptionalText(q.type), "|from=", q.from, "|to=", q.to,
                                        "|cancelled=", q.show_cancelled ? "true" : "false"));
}

absl::StatusOr<AvailabilityQuery> ParseGetPropertyAvailability(
    const hotel::v1::GetPropertyAvailabilityRequest& request) {
  FieldErrors errors;
  AvailabilityQuery query;
  api::Collect(api::ValidatePropertyId("property_id", request.property_id()), errors);
  query.property_id = request.property_id();
  auto range = api::ReadDateRange("from_date", request.from_date(), "to_date", request.to_date(), true, errors);
  if (!errors.empty()) return errors.ToStatus();
  query.dates = *range;
  return query;
}

absl::StatusOr<RoomBlockUpdatePlan> PlanRoomBlockUpdate(const RoomBlock& current, const RoomBlock& patch,
                                                        const std::vector<std::string>& mask,
                                                        absl::string_view if_match) {
  auto plan = api::PlanUpdate(
      current, patch, mask, {"start_date", "end_date", "reason"},
      {"id", "property_id", "room_number", "type", "issue_id"}, if_match, "room block",
      [](RoomBlock& candidate, const std::set<std::string>& fields, FieldErrors& errors) {
        if (fields.count("start_date")) {
          api::RequiredDate("start_date", candidate.start_date(), errors);
        }
        if (fields.count("end_date")) api::OptionalDate("end_date", candidate.end_date(), errors);
        if (fields.count("reason")) {
          candidate.set_reason(api::Text("reason", candidate.reason(), api::kMaxTextLength, false, errors));
        }
      });
  if (!plan.ok()) return plan;
  if (current.cancelled()) {
    return FailedPreconditionError("ROOM_BLOCK_CANCELLED",
                                   absl::StrCat("room block ", current.id(), " is cancelled; it cannot be changed"));
  }
  FieldErrors errors;
  CheckDateOrder("end_date", plan->updated.start_date(), plan->updated.end_date(), errors);
  if (!errors.empty()) return errors.ToStatus();
  return plan;
}

}  // namespace hotel::blocks
