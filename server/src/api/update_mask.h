// Update masks of PATCH requests: which fields of a resource an update names, and applying them.
// Over REST the gateway derives the mask from the keys of the JSON body; a gRPC client without a
// mask names every field it set.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/etag.h"
#include "common/errors.h"
#include "google/protobuf/field_mask.pb.h"
#include "google/protobuf/message.h"

namespace hotel::api {

// The updatable fields the update names: mask (top-level names; empty: every field set in patch)
// minus the fields outside updatable and immutable, which are output-only or preconditions
// (etag, updated_by) and are ignored. A path that is no field of the message names update_mask;
// an immutable field whose value in patch differs from current names itself ("cannot be
// changed"). Immutable fields are not returned.
std::set<std::string> ResolveUpdateMask(const google::protobuf::Message& current,
                                        const google::protobuf::Message& patch, const std::vector<std::string>& mask,
                                        const std::set<std::string>& updatable, const std::set<std::string>& immutable,
                                        FieldErrors& errors);

// Sets the named fields of to (same type as from) to their values in from; true when any of them
// had another value.
bool CopyFields(const google::protobuf::Message& from, const std::set<std::string>& fields,
                google::protobuf::Message* to);

// The paths of a request's update_mask, as the plans take them.
std::vector<std::string> MaskPaths(const google::protobuf::FieldMask& mask);

// The actor of a write: updated_by trimmed, "api" when empty; too long a name is a violation
// naming field.
std::string Actor(absl::string_view updated_by, FieldErrors& errors, absl::string_view field = "updated_by");

// A planned update of a resource whose updatable fields are plain values: the record with the
// named fields changed, and who changed it.
template <typename Resource>
struct UpdatePlan {
  Resource updated;
  std::string actor;
  bool changed = false;  // false: nothing to write (no version bump)
};

// What every such plan does: resolves the mask (ResolveUpdateMask), lets check(candidate, fields,
// errors) check and normalise the named values, checks the etags (the body's and if_match,
// against current's; what names the resource in the error) and applies the fields.
// Errors: INVALID_ARGUMENT naming each bad field, then ABORTED ETAG_MISMATCH.
template <typename Resource, typename Check>
absl::StatusOr<UpdatePlan<Resource>> PlanUpdate(const Resource& current, const Resource& patch,
                                                const std::vector<std::string>& mask,
                                                const std::set<std::string>& updatable,
                                                const std::set<std::string>& immutable, absl::string_view if_match,
                                                absl::string_view what, Check check) {
  FieldErrors errors;
  const std::set<std::string> fields = ResolveUpdateMask(current, patch, mask, updatable, immutable, errors);
  Resource candidate = patch;
  check(candidate, fields, errors);
  UpdatePlan<Resource> plan;
  plan.actor = Actor(patch.updated_by(), errors);
  if (!errors.empty()) return errors.ToStatus();
  if (auto s = CheckEtags(patch.etag(), if_match, current.etag(), what); !s.ok()) return s;
  plan.updated = current;
  plan.changed = CopyFields(candidate, fields, &plan.updated);
  return plan;
}

}  // namespace hotel::api
