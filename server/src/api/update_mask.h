// Update masks of PATCH requests: which fields of a resource an update names, and applying them.
// Over REST the gateway derives the mask from the keys of the JSON body; a gRPC client without a
// mask names every field it set.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/errors.h"
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

}  // namespace hotel::api
