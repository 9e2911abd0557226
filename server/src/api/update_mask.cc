#include "api/update_mask.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "api/request_fields.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"

namespace hotel::api {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;

constexpr size_t kMaxPathInError = 60;

bool SameValue(const Message& a, const Message& b, const FieldDescriptor* field) {
  return MessageDifferencer().CompareWithFields(a, b, {field}, {field});
}

}  // namespace

std::set<std::string> ResolveUpdateMask(const Message& current, const Message& patch,
                                        const std::vector<std::string>& mask, const std::set<std::string>& updatable,
                                        const std::set<std::string>& immutable, FieldErrors& errors) {
  const auto* descriptor = patch.GetDescriptor();
  std::vector<std::string> paths = mask;
  if (paths.empty()) {
    std::vector<const FieldDescriptor*> set_fields;
    patch.GetReflection()->ListFields(patch, &set_fields);
    for (const auto* field : set_fields) paths.push_back(field->name());
  }
  std::set<std::string> named;
  for (const auto& path : paths) {
    const std::string top = path.substr(0, path.find('.'));
    const FieldDescriptor* field = descriptor->FindFieldByName(top);
    if (field == nullptr) {
      errors.Add("update_mask",
                 absl::StrCat("names an unknown field '", ValidUtf8(path.substr(0, kMaxPathInError)), "'"));
      continue;
    }
    if (immutable.count(top)) {
      if (!SameValue(current, patch, field)) errors.Add(top, "cannot be changed");
      continue;
    }
    if (updatable.count(top)) named.insert(top);
  }
  return named;
}

std::vector<std::string> MaskPaths(const google::protobuf::FieldMask& mask) {
  return {mask.paths().begin(), mask.paths().end()};
}

std::string Actor(absl::string_view updated_by, FieldErrors& errors, absl::string_view field) {
  std::string actor = Text(field, updated_by, kMaxNameLength, false, errors);
  return actor.empty() ? "api" : actor;
}

bool CopyFields(const Message& from, const std::set<std::string>& fields, Message* to) {
  const auto* descriptor = from.GetDescriptor();
  bool changed = false;
  for (const auto& name : fields) {
    const FieldDescriptor* field = descriptor->FindFieldByName(name);
    if (field == nullptr || SameValue(from, *to, field)) continue;
    changed = true;
    // Only this field of from, merged into a cleared field of to: also copies zero values.
    std::unique_ptr<Message> only(from.New());
    only->CopyFrom(from);
    std::vector<const FieldDescriptor*> set_fields;
    only->GetReflection()->ListFields(*only, &set_fields);
    for (const auto* other : set_fields) {
      if (other != field) only->GetReflection()->ClearField(only.get(), other);
    }
    to->GetReflection()->ClearField(to, field);
    to->MergeFrom(*only);
  }
  return changed;
}

}  // namespace hotel::api
