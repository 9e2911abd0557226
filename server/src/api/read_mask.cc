#include "api/read_mask.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/etag.h"
#include "common/errors.h"

namespace hotel::api {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr char kField[] = "read_mask";
constexpr size_t kMaxPathInError = 60;

// The one repeated message field of a list or batch response, null for a resource.
const FieldDescriptor* CollectionOf(const Descriptor& response) {
  if (!absl::EndsWith(response.name(), "Response")) return nullptr;
  const FieldDescriptor* found = nullptr;
  for (int i = 0; i < response.field_count(); ++i) {
    const FieldDescriptor* field = response.field(i);
    if (!field->is_repeated() || field->is_map() || field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (found != nullptr) return nullptr;  // two collections: no resource to mask
    found = field;
  }
  return found;
}

std::string Quoted(absl::string_view path) {
  return absl::StrCat("\"", ValidUtf8(path.substr(0, kMaxPathInError)), "\"");
}

void CollectPaths(const std::string& prefix, const auto& children, std::vector<std::string>& out) {
  for (const auto& [name, child] : children) {
    const std::string path = prefix.empty() ? name : absl::StrCat(prefix, ".", name);
    if (child.children.empty()) {
      out.push_back(path);
    } else {
      CollectPaths(path, child.children, out);
    }
  }
}

}  // namespace

absl::StatusOr<ReadMask> ReadMask::Of(const Message& request, const Descriptor& response) {
  std::vector<std::string> paths;
  const FieldDescriptor* field = request.GetDescriptor()->FindFieldByName(kField);
  if (field != nullptr && field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !field->is_repeated() &&
      request.GetReflection()->HasField(request, field)) {
    const Message& mask = request.GetReflection()->GetMessage(request, field);
    const FieldDescriptor* mask_paths = mask.GetDescriptor()->FindFieldByName("paths");
    if (mask_paths != nullptr && mask_paths->is_repeated() && mask_paths->type() == FieldDescriptor::TYPE_STRING) {
      const int count = mask.GetReflection()->FieldSize(mask, mask_paths);
      for (int i = 0; i < count; ++i) paths.push_back(mask.GetReflection()->GetRepeatedString(mask, mask_paths, i));
    }
  }
  return FromPaths(paths, response);
}

absl::StatusOr<ReadMask> ReadMask::FromPaths(const std::vector<std::string>& paths, const Descriptor& response) {
  ReadMask mask(response, CollectionOf(response));
  const Descriptor* resource = mask.collection_ != nullptr ? mask.collection_->message_type() : &response;
  FieldErrors errors;
  bool everything = paths.empty();
  for (const std::string& path : paths) {
    if (path == "*") {
      everything = true;
      continue;
    }
    Node* node = &mask.root_;
    const Descriptor* type = resource;
    bool whole_already = false;
    const std::vector<absl::string_view> names = absl::StrSplit(path, '.');
    for (size_t i = 0; i < names.size(); ++i) {
      const FieldDescriptor* field = type == nullptr ? nullptr : type->FindFieldByName(std::string(names[i]));
      if (field == nullptr) {
        errors.Add(kField, absl::StrCat(Quoted(path), " is not a field of ", resource->full_name()));
        break;
      }
      const bool last = i + 1 == names.size();
      const bool descends = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !field->is_map();
      type = descends ? field->message_type() : nullptr;
      if (whole_already) continue;  // still checked, already kept whole by a shorter path
      const bool known = node->children.contains(field->name());
      Node& child = node->children[field->name()];
      if (known && child.children.empty()) {
        whole_already = true;  // "images" was named before "images.id"
      } else if (last) {
        child.children.clear();  // "images.id" was named before "images"
      }
      node = &child;
    }
  }
  if (!errors.empty()) return errors.ToStatus();
  mask.all_ = everything;
  if (everything) mask.root_.children.clear();
  return mask;
}

void ReadMask::Trim(const Node& node, Message* message) {
  const google::protobuf::Reflection* reflection = message->GetReflection();
  const Descriptor* descriptor = message->GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    auto kept = node.children.find(field->name());
    if (kept == node.children.end()) {
      reflection->ClearField(message, field);
    } else if (!kept->second.children.empty()) {
      if (field->is_repeated()) {
        const int count = reflection->FieldSize(*message, field);
        for (int e = 0; e < count; ++e) Trim(kept->second, reflection->MutableRepeatedMessage(message, field, e));
      } else if (reflection->HasField(*message, field)) {
        Trim(kept->second, reflection->MutableMessage(message, field));
      }
    }
  }
}

void ReadMask::Apply(Message* response) const {
  if (all_) return;
  if (collection_ == nullptr) {
    Trim(root_, response);
    return;
  }
  const google::protobuf::Reflection* reflection = response->GetReflection();
  const int count = reflection->FieldSize(*response, collection_);
  for (int i = 0; i < count; ++i) Trim(root_, reflection->MutableRepeatedMessage(response, collection_, i));
}

std::string ReadMask::ResponsePaths() const {
  std::vector<std::string> paths;
  if (collection_ == nullptr) {
    CollectPaths("", root_.children, paths);
  } else {
    for (int i = 0; i < response_->field_count(); ++i) {
      const FieldDescriptor* field = response_->field(i);
      if (field == collection_) {
        CollectPaths(field->name(), root_.children, paths);
      } else {
        paths.push_back(field->name());
      }
    }
  }
  return absl::StrJoin(paths, ",");
}

RpcBody ReadMasked(grpc::ServerContextBase* context, const Message& request, Message* response, RpcBody body) {
  return [context, &request, response, body = std::move(body)]() mutable -> absl::Status {
    auto mask = ReadMask::Of(request, *response->GetDescriptor());
    if (!mask.ok()) return mask.status();
    absl::Status status = std::move(body)();
    if (!status.ok()) return status;
    if (context != nullptr && mask->collection() == nullptr) {
      const FieldDescriptor* etag = response->GetDescriptor()->FindFieldByName("etag");
      const std::string representation = RepresentationEtag(*response);
      if (!representation.empty() &&
          (representation != response->GetReflection()->GetString(*response, etag) || !mask->Keeps("etag"))) {
        context->AddInitialMetadata(kResourceEtagHeader, representation);
      }
    }
    if (mask->all()) return status;
    if (context != nullptr) context->AddInitialMetadata(kReadMaskHeader, mask->ResponsePaths());
    mask->Apply(response);
    return status;
  };
}

}  // namespace hotel::api
