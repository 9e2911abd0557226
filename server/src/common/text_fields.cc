#include "common/text_fields.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/errors.h"

namespace hotel {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

void Check(const Message& message, const std::string& prefix, FieldErrors& errors) {
  const auto* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // only the fields that are set: cheap on small requests
  for (const FieldDescriptor* field : fields) {
    const std::string path = prefix.empty() ? field->name() : absl::StrCat(prefix, ".", field->name());
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      bool has_nul = false;
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          has_nul |= reflection->GetRepeatedString(message, field, i).find('\0') != std::string::npos;
        }
      } else {
        has_nul = reflection->GetString(message, field).find('\0') != std::string::npos;
      }
      if (has_nul) errors.Add(path, "must not contain NUL (\\u0000) characters");
    } else if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          Check(reflection->GetRepeatedMessage(message, field, i), path, errors);
        }
      } else {
        Check(reflection->GetMessage(message, field), path, errors);
      }
    }
  }
}

}  // namespace

absl::Status RejectNulCharacters(const google::protobuf::Message& request) {
  FieldErrors errors;
  Check(request, "", errors);
  return errors.ToStatus();
}

size_t CodePoints(absl::string_view utf8) {
  size_t count = 0;
  for (unsigned char c : utf8) count += (c & 0xC0) != 0x80;  // every byte but continuation bytes
  return count;
}

}  // namespace hotel
