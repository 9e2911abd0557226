#include "rooms/admin/property_file.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/update_mask.h"
#include "common/errors.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "rooms/room_write_request.h"

namespace hotel::rooms {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

// Reads the keys of one YAML mapping, adding a violation (named prefix + key) for each bad one.
class MappingReader {
 public:
  MappingReader(const YAML::Node& node, std::string prefix, FieldErrors& errors)
      : node_(node), prefix_(std::move(prefix)), errors_(errors) {}

  // Violations for keys outside allowed; false when the node is no mapping at all.
  bool CheckKeys(const std::set<std::string>& allowed) {
    if (!node_.IsMap()) {
      errors_.Add(prefix_, "must be a mapping of keys to values");
      return false;
    }
    for (const auto& entry : node_) {
      const std::string key = entry.first.Scalar();
      if (!allowed.count(key)) errors_.Add(prefix_ + key, "unknown key");
    }
    return true;
  }

  bool Has(const char* key) const { return node_[key].IsDefined() && !node_[key].IsNull(); }

  template <typename T>
  T Get(const char* key, T fallback, const char* type_name) {
    if (!Has(key)) return fallback;
    try {
      return node_[key].as<T>();
    } catch (const YAML::Exception&) {
      errors_.Add(prefix_ + key, absl::StrCat("must be ", type_name));
      return fallback;
    }
  }
  std::string Text(const char* key) { return Get<std::string>(key, "", "text"); }

  void List(const char* key, google::protobuf::RepeatedPtrField<std::string>* out) {
    if (!Has(key)) return;
    if (!node_[key].IsSequence()) {
      errors_.Add(prefix_ + key, "must be a list");
      return;
    }
    for (const auto& item : node_[key]) {
      if (item.IsScalar()) {
        out->Add(item.as<std::string>());
      } else {
        errors_.Add(prefix_ + key, "must be a list of codes");
      }
    }
  }

  int Line() const { return node_.Mark().line + 1; }

 private:
  const YAML::Node node_;
  const std::string prefix_;
  FieldErrors& errors_;
};

RoomType::Category CategoryOf(const std::string& name) {
  if (name.empty()) return RoomType::CATEGORY_UNSPECIFIED;
  RoomType::Category category;
  // Not a category: a value outside the enum, which the field check reports as such.
  return RoomType::Category_Parse(name, &category) ? category : static_cast<RoomType::Category>(-1);
}

std::set<std::string> Without(const std::set<std::string>& fields, const std::set<std::string>& left_out) {
  std::set<std::string> out;
  for (const auto& f : fields) {
    if (!left_out.count(f)) out.insert(f);
  }
  return out;
}

void ParseRoomType(const YAML::Node& node, const std::string& position, const std::string& property_id,
                   PropertyFile& file, FieldErrors& errors) {
  MappingReader read(node, position + ".", errors);
  if (!read.CheckKeys(
          {"code", "name", "description", "category", "amenities", "size_sqm", "max_guests", "bed_type", "retired"})) {
    return;
  }
  RoomType t;
  t.set_property_id(property_id);
  t.set_code(read.Text("code"));
  t.set_id(absl::StrCat(property_id, "-", t.code()));
  t.set_name(read.Text("name"));
  t.set_description(read.Text("description"));
  t.set_category(CategoryOf(read.Text("category")));
  read.List("amenities", t.mutable_amenities());
  t.set_size_sqm(read.Get<double>("size_sqm", 0, "a number"));
  t.set_max_guests(read.Get<int>("max_guests", 0, "an integer"));
  t.set_bed_type(read.Text("bed_type"));
  t.set_retired(read.Get<bool>("retired", false, "true or false"));
  CheckRoomTypeFields(t, Without(RoomTypeFields(), {"id", "property_id"}), errors, position + ".");
  file.room_types.push_back(std::move(t));
  file.room_type_positions.push_back(position);
}

void ParseRoom(const YAML::Node& node, const std::string& position, const std::string& property_id, PropertyFile& file,
               FieldErrors& errors) {
  MappingReader read(node, position + ".", errors);
  if (!read.CheckKeys({"number", "floor", "room_type", "extra_amenities", "retired"})) return;
  Room r;
  r.set_property_id(property_id);
  r.set_number(read.Text("number"));
  r.set_floor(read.Get<int>("floor", -1, "an integer"));
  if (!read.Has("floor")) errors.Add(position + ".floor", "is required");
  r.set_room_type_id(absl::StrCat(property_id, "-", read.Text("room_type")));
  read.List("extra_amenities", r.mutable_extra_amenities());
  r.set_retired(read.Get<bool>("retired", false, "true or false"));
  CheckRoomFields(r, Without(RoomFields(), {"property_id"}), errors, position + ".");
  file.rooms.push_back(std::move(r));
  file.room_positions.push_back(position);
}

// Duplicates and references between the records of the file.
void CheckReferences(const PropertyFile& file, FieldErrors& errors) {
  std::map<std::string, const RoomType*> types;
  for (size_t i = 0; i < file.room_types.size(); ++i) {
    const RoomType& t = file.room_types[i];
    if (!types.emplace(t.id(), &t).second) {
      errors.Add(file.room_type_positions[i] + ".code", absl::StrCat("repeats room type ", t.code()));
    }
  }
  std::set<std::string> numbers;
  for (size_t i = 0; i < file.rooms.size(); ++i) {
    const Room& r = file.rooms[i];
    if (!numbers.insert(r.number()).second) {
      errors.Add(file.room_positions[i] + ".number", absl::StrCat("repeats room ", r.number()));
    }
    auto type = types.find(r.room_type_id());
    if (type == types.end()) {
      errors.Add(file.room_positions[i] + ".room_type", "names no room type of this file");
    } else if (type->second->retired() && !r.retired()) {
      errors.Add(file.room_positions[i] + ".room_type",
                 absl::StrCat("room type ", type->second->code(), " is retired; an active room needs another"));
    }
  }
}

std::string Position(const char* list, size_t index, const YAML::Node& node, const char* key) {
  std::string label = absl::StrCat(list, "[", index, "] (line ", node.Mark().line + 1);
  if (node.IsMap() && node[key].IsScalar()) absl::StrAppend(&label, ", ", key, " ", node[key].Scalar());
  return label + ")";
}

}  // namespace

absl::StatusOr<PropertyFile> ParsePropertyFile(const std::string& yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return InvalidField("file", absl::StrCat("is not valid YAML: line ", e.mark.line + 1, ": ", e.msg));
  }
  FieldErrors errors;
  PropertyFile file;
  MappingReader top(root, "", errors);
  if (!top.CheckKeys({"property", "room_types", "rooms"})) return errors.ToStatus();
  MappingReader read(root["property"], "property.", errors);
  if (!root["property"].IsDefined()) {
    errors.Add("property", "is required");
  } else if (read.CheckKeys({"id", "name", "time_zone", "city", "country_code", "enabled"})) {
    Property& p = file.property;
    p.set_id(read.Text("id"));
    p.set_name(read.Text("name"));
    p.set_time_zone(read.Text("time_zone"));
    p.set_city(read.Text("city"));
    p.set_country_code(read.Text("country_code"));
    file.enabled_given = read.Has("enabled");
    p.set_enabled(read.Get<bool>("enabled", true, "true or false"));
    CheckPropertyFields(p, PropertyFields(), errors, "property.");
  }
  const std::string property_id = file.property.id();
  for (const char* list : {"room_types", "rooms"}) {
    if (root[list].IsDefined() && !root[list].IsNull() && !root[list].IsSequence()) errors.Add(list, "must be a list");
  }
  if (root["room_types"].IsSequence()) {
    size_t i = 0;
    for (const auto& node : root["room_types"]) {
      ParseRoomType(node, Position("room_types", i++, node, "code"), property_id, file, errors);
    }
  }
  if (root["rooms"].IsSequence()) {
    size_t i = 0;
    for (const auto& node : root["rooms"]) {
      ParseRoom(node, Position("rooms", i++, node, "number"), property_id, file, errors);
    }
  }
  CheckReferences(file, errors);
  if (!errors.empty()) return errors.ToStatus();
  return file;
}

std::string FormatPropertyFile(const PropertyFile& file) {
  YAML::Emitter out;
  const Property& p = file.property;
  out << YAML::BeginMap << YAML::Key << "property" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "id" << YAML::Value << p.id() << YAML::Key << "name" << YAML::Value << p.name();
  out << YAML::Key << "time_zone" << YAML::Value << p.time_zone() << YAML::Key << "city" << YAML::Value << p.city();
  out << YAML::Key << "country_code" << YAML::Value << p.country_code();
  out << YAML::Key << "enabled" << YAML::Value << p.enabled() << YAML::EndMap;
  auto codes = [&](const google::protobuf::RepeatedPtrField<std::string>& list) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& code : list) out << code;
    out << YAML::EndSeq;
  };
  out << YAML::Key << "room_types" << YAML::Value << YAML::BeginSeq;
  for (const RoomType& t : file.room_types) {
    out << YAML::BeginMap << YAML::Key << "code" << YAML::Value << t.code();
    out << YAML::Key << "name" << YAML::Value << t.name();
    out << YAML::Key << "description" << YAML::Value << t.description();
    out << YAML::Key << "category" << YAML::Value << RoomType::Category_Name(t.category());
    out << YAML::Key << "amenities" << YAML::Value;
    codes(t.amenities());
    out << YAML::Key << "size_sqm" << YAML::Value << absl::StrCat(t.size_sqm());
    out << YAML::Key << "max_guests" << YAML::Value << t.max_guests();
    out << YAML::Key << "bed_type" << YAML::Value << t.bed_type();
    out << YAML::Key << "retired" << YAML::Value << t.retired() << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::Key << "rooms" << YAML::Value << YAML::BeginSeq;
  const std::string type_prefix = absl::StrCat(p.id(), "-");
  for (const Room& r : file.rooms) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "number" << YAML::Value << YAML::DoubleQuoted << r.number();
    out << YAML::Key << "floor" << YAML::Value << r.floor();
    out << YAML::Key << "room_type" << YAML::Value << r.room_type_id().substr(type_prefix.size());
    out << YAML::Key << "extra_amenities" << YAML::Value;
    codes(r.extra_amenities());
    out << YAML::Key << "retired" << YAML::Value << r.retired() << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return absl::StrCat("# hotel-admin property file (docs/room-data.md#import-format)\n", out.c_str(), "\n");
}

namespace {

std::string FieldText(const Message& message, const FieldDescriptor* field) {
  const auto* reflection = message.GetReflection();
  if (field->is_repeated()) {
    std::vector<std::string> items;
    for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
      items.push_back(reflection->GetRepeatedString(message, field, i));
    }
    return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
  }
  std::string text;
  google::protobuf::TextFormat::PrintFieldValueToString(message, field, -1, &text);
  return text;
}

// "field: old -> new; ..." of the named fields that differ.
std::string Describe(const Message& from, const Message& to, const std::set<std::string>& fields) {
  std::vector<std::string> parts;
  for (const auto& name : fields) {
    const FieldDescriptor* field = from.GetDescriptor()->FindFieldByName(name);
    if (google::protobuf::util::MessageDifferencer().CompareWithFields(from, to, {field}, {field})) continue;
    parts.push_back(absl::StrCat(name, ": ", FieldText(from, field), " -> ", FieldText(to, field)));
  }
  return absl::StrJoin(parts, "; ");
}

// Adds the create or update of one record to plan, or counts it unchanged.
template <typename Resource>
bool PlanRecord(const Resource& desired, const Resource* current, const std::set<std::string>& fields, std::string what,
                std::string position, ImportPlan& plan, Resource* write) {
  PlannedChange change;
  change.what = std::move(what);
  change.position = std::move(position);
  if (current == nullptr) {
    *write = desired;
  } else {
    *write = *current;
    if (!api::CopyFields(desired, fields, write)) {
      ++plan.unchanged;
      return false;
    }
    change.kind = ChangeKind::kUpdate;
    change.description = Describe(*current, *write, fields);
  }
  plan.changes.push_back(std::move(change));
  return true;
}

}  // namespace

ImportPlan PlanImport(const PropertyFile& desired, const std::optional<PropertyFile>& current) {
  ImportPlan plan;
  std::set<std::string> property_fields = {"name", "time_zone", "city", "country_code"};
  if (desired.enabled_given || !current) property_fields.insert("enabled");
  Property property;
  if (PlanRecord(desired.property, current ? &current->property : nullptr, property_fields,
                 absl::StrCat("property ", desired.property.id()), "property", plan, &property)) {
    plan.property = property;
  }
  std::map<std::string, const RoomType*> stored_types;
  std::map<std::string, const Room*> stored_rooms;
  if (current) {
    for (const auto& t : current->room_types) stored_types[t.id()] = &t;
    for (const auto& r : current->rooms) stored_rooms[r.number()] = &r;
  }
  const std::set<std::string> type_fields = Without(RoomTypeFields(), {"id", "property_id", "code"});
  for (size_t i = 0; i < desired.room_types.size(); ++i) {
    const RoomType& t = desired.room_types[i];
    auto stored = stored_types.find(t.id());
    const RoomType* before = stored == stored_types.end() ? nullptr : stored->second;
    RoomType write;
    if (!PlanRecord(t, before, type_fields, absl::StrCat("room_type ", t.id()), desired.room_type_positions[i], plan,
                    &write)) {
      continue;
    }
    plan.changes.back().retiring = before != nullptr && write.retired() && !before->retired();
    plan.room_types.push_back(std::move(write));
  }
  const std::set<std::string> room_fields = Without(RoomFields(), {"property_id", "number"});
  for (size_t i = 0; i < desired.rooms.size(); ++i) {
    const Room& r = desired.rooms[i];
    auto stored = stored_rooms.find(r.number());
    const Room* before = stored == stored_rooms.end() ? nullptr : stored->second;
    Room write;
    if (!PlanRecord(r, before, room_fields, absl::StrCat("room ", r.property_id(), "/", r.number()),
                    desired.room_positions[i], plan, &write)) {
      continue;
    }
    PlannedChange& change = plan.changes.back();
    change.retiring = before != nullptr && write.retired() && !before->retired();
    change.needs_room_type =
        !write.retired() && (before == nullptr || before->retired() || before->room_type_id() != write.room_type_id());
    plan.rooms.push_back(std::move(write));
  }
  return plan;
}

std::string FormatPlan(const ImportPlan& plan) {
  std::string out;
  int created = 0;
  for (const auto& change : plan.changes) {
    if (change.kind == ChangeKind::kCreate) {
      ++created;
      absl::StrAppend(&out, "+ ", change.what, "\n");
    } else {
      absl::StrAppend(&out, "~ ", change.what, ": ", change.description, "\n");
    }
  }
  absl::StrAppend(&out, created, " to create, ", plan.changes.size() - created, " to update, ", plan.unchanged,
                  " unchanged\n");
  return out;
}

}  // namespace hotel::rooms
