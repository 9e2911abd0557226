#include "rooms/room_write_request.h"

#include <cmath>
#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "api/identifiers.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "rooms/room_request.h"

namespace hotel::rooms {
namespace {

using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

constexpr size_t kMaxBedTypeLength = 40;

bool Matches(absl::string_view value, const std::regex& pattern) {
  return std::regex_match(value.begin(), value.end(), pattern);
}

// Reads one field when the set names it: check(field name with prefix).
class FieldChecker {
 public:
  FieldChecker(const std::set<std::string>& fields, absl::string_view prefix, FieldErrors& errors)
      : fields_(fields), prefix_(prefix), errors_(errors) {}
  bool Has(const char* field) const { return fields_.count(field) > 0; }
  std::string Name(const char* field) const { return absl::StrCat(prefix_, field); }
  void Add(const char* field, std::string description) const { errors_.Add(Name(field), std::move(description)); }
  void Collect(const absl::Status& status) const {
    for (auto& v : FieldViolations(status)) errors_.Add(absl::StrCat(prefix_, v.field), std::move(v.description));
  }
  std::string Text(const char* field, absl::string_view value, size_t max, bool required) const {
    return api::Text(Name(field), value, max, required, errors_);
  }
  FieldErrors& errors() const { return errors_; }

 private:
  const std::set<std::string>& fields_;
  const std::string prefix_;
  FieldErrors& errors_;
};

void SetAmenities(const std::vector<std::string>& codes, google::protobuf::RepeatedPtrField<std::string>* out) {
  out->Clear();
  for (const auto& code : codes) out->Add(std::string(code));
}

// The generic plan, with the room data's own fields still unset.
template <typename Resource>
absl::StatusOr<UpdatePlan<Resource>> RoomDataPlan(absl::StatusOr<api::UpdatePlan<Resource>> planned) {
  if (!planned.ok()) return planned.status();
  UpdatePlan<Resource> plan;
  static_cast<api::UpdatePlan<Resource>&>(plan) = *std::move(planned);
  return plan;
}

// The part every create shares: the actor, the request_id and the request's fingerprint.
template <typename Request, typename Resource>
absl::StatusOr<NewRecord<Resource>> Finish(const Request& request, NewRecord<Resource> out, FieldErrors& errors) {
  out.actor = api::Actor(request.updated_by(), errors);
  return api::WithRequestId(request, std::move(out), errors);
}

}  // namespace

const std::set<std::string>& PropertyFields() {
  static const std::set<std::string> kFields = {"id", "name", "time_zone", "city", "country_code", "enabled"};
  return kFields;
}

const std::set<std::string>& RoomTypeFields() {
  static const std::set<std::string> kFields = {"id",          "property_id", "code",      "name",
                                                "description", "category",    "amenities", "size_sqm",
                                                "max_guests",  "bed_type",    "retired"};
  return kFields;
}

const std::set<std::string>& RoomFields() {
  static const std::set<std::string> kFields = {"property_id",  "number",          "floor",
                                                "room_type_id", "extra_amenities", "retired"};
  return kFields;
}

void CheckPropertyFields(Property& p, const std::set<std::string>& fields, FieldErrors& errors,
                         absl::string_view field_prefix) {
  const FieldChecker f(fields, field_prefix, errors);
  if (f.Has("id")) f.Collect(api::ValidatePropertyId("id", p.id()));
  if (f.Has("name")) p.set_name(f.Text("name", p.name(), api::kMaxNameLength, true));
  if (f.Has("city")) p.set_city(f.Text("city", p.city(), api::kMaxNameLength, true));
  if (f.Has("time_zone")) {
    // An IANA name such as Europe/Berlin or UTC. LoadTimeZone alone would also take "localtime"
    // and file paths, which are no zone names.
    static const std::regex kZoneName("[A-Za-z][A-Za-z0-9_+-]{0,29}(/[A-Za-z0-9][A-Za-z0-9_+-]{0,29}){0,2}");
    absl::TimeZone zone;
    if (!Matches(p.time_zone(), kZoneName) || p.time_zone() == "localtime" ||
        !absl::LoadTimeZone(p.time_zone(), &zone)) {
      f.Add("time_zone", "must be an IANA time zone such as Europe/Berlin");
    }
  }
  if (f.Has("country_code")) {
    static const std::regex kCountry("[A-Z]{2}");
    if (!Matches(p.country_code(), kCountry)) f.Add("country_code", "must be an ISO 3166-1 alpha-2 code such as DE");
  }
}

void CheckRoomTypeFields(RoomType& t, const std::set<std::string>& fields, FieldErrors& errors,
                         absl::string_view field_prefix) {
  const FieldChecker f(fields, field_prefix, errors);
  if (f.Has("property_id")) f.Collect(api::ValidatePropertyId("property_id", t.property_id()));
  if (f.Has("code")) {
    static const std::regex kCode("[A-Z0-9]{1,10}");
    if (!Matches(t.code(), kCode)) f.Add("code", "must be 1 to 10 upper-case letters or digits, e.g. DLX");
  }
  if (f.Has("name")) t.set_name(f.Text("name", t.name(), api::kMaxNameLength, true));
  if (f.Has("description")) t.set_description(f.Text("description", t.description(), api::kMaxTextLength, false));
  if (f.Has("category")) api::RequiredEnumField<RoomType::Category>(f.Name("category"), t.category(), errors);
  if (f.Has("amenities"))
    SetAmenities(NormalizeAmenities(t.amenities(), f.Name("amenities"), errors), t.mutable_amenities());
  if (f.Has("size_sqm") && !(std::isfinite(t.size_sqm()) && t.size_sqm() > 0 && t.size_sqm() <= kMaxSizeSqm)) {
    f.Add("size_sqm", absl::StrCat("must be above 0 and at most ", kMaxSizeSqm));
  }
  if (f.Has("size_sqm")) t.set_size_sqm(std::round(t.size_sqm() * 10) / 10);  // stored to 0.1 m²
  if (f.Has("max_guests") && (t.max_guests() < 1 || t.max_guests() > kMaxGuests)) {
    f.Add("max_guests", absl::StrCat("must be from 1 to ", kMaxGuests));
  }
  if (f.Has("bed_type")) t.set_bed_type(f.Text("bed_type", t.bed_type(), kMaxBedTypeLength, true));
}

void CheckRoomFields(Room& r, const std::set<std::string>& fields, FieldErrors& errors,
                     absl::string_view field_prefix) {
  const FieldChecker f(fields, field_prefix, errors);
  if (f.Has("property_id")) f.Collect(api::ValidatePropertyId("property_id", r.property_id()));
  if (f.Has("number")) f.Collect(api::ValidateRoomNumber("number", r.number()));
  if (f.Has("floor") && (r.floor() < 0 || r.floor() > kMaxFloor)) {
    f.Add("floor", absl::StrCat("must be from 0 to ", kMaxFloor));
  }
  if (f.Has("room_type_id")) {
    if (auto s = api::ValidateRoomTypeId("room_type_id", r.room_type_id()); !s.ok()) {
      f.Collect(s);
    } else if (!absl::StartsWith(r.room_type_id(), absl::StrCat(r.property_id(), "-"))) {
      f.Add("room_type_id", absl::StrCat("must be a room type of property ", r.property_id()));
    }
  }
  if (f.Has("extra_amenities")) {
    SetAmenities(NormalizeAmenities(r.extra_amenities(), f.Name("extra_amenities"), errors),
                 r.mutable_extra_amenities());
  }
}

absl::StatusOr<NewRecord<Property>> ValidateCreateProperty(const hotel::v1::CreatePropertyRequest& request) {
  NewRecord<Property> out;
  FieldErrors errors;
  Property& p = out.record;
  p.set_id(request.id());
  p.set_name(request.name());
  p.set_time_zone(request.time_zone());
  p.set_city(request.city());
  p.set_country_code(request.country_code());
  p.set_enabled(!request.has_enabled() || request.enabled());
  CheckPropertyFields(p, PropertyFields(), errors);
  return Finish(request, std::move(out), errors);
}

absl::StatusOr<NewRecord<RoomType>> ValidateCreateRoomType(const hotel::v1::CreateRoomTypeRequest& request) {
  NewRecord<RoomType> out;
  FieldErrors errors;
  RoomType& t = out.record;
  t.set_property_id(request.property_id());
  t.set_code(request.code());
  t.set_name(request.name());
  t.set_description(request.description());
  t.set_category(request.category());
  *t.mutable_amenities() = request.amenities();
  t.set_size_sqm(request.size_sqm());
  t.set_max_guests(request.max_guests());
  t.set_bed_type(request.bed_type());
  std::set<std::string> fields = RoomTypeFields();
  fields.erase("id");
  CheckRoomTypeFields(t, fields, errors);
  t.set_id(absl::StrCat(t.property_id(), "-", t.code()));
  return Finish(request, std::move(out), errors);
}

absl::StatusOr<NewRecord<Room>> ValidateCreateRoom(const hotel::v1::CreateRoomRequest& request) {
  NewRecord<Room> out;
  FieldErrors errors;
  Room& r = out.record;
  r.set_property_id(request.property_id());
  r.set_number(request.number());
  r.set_floor(request.floor());
  r.set_room_type_id(request.room_type_id());
  *r.mutable_extra_amenities() = request.extra_amenities();
  CheckRoomFields(r, RoomFields(), errors);
  return Finish(request, std::move(out), errors);
}

absl::StatusOr<UpdatePlan<Property>> PlanPropertyUpdate(const Property& current, const Property& patch,
                                                        const std::vector<std::string>& mask,
                                                        absl::string_view if_match) {
  static const std::set<std::string> kUpdatable = {"name", "time_zone", "city", "country_code", "enabled"};
  return RoomDataPlan(api::PlanUpdate(current, patch, mask, kUpdatable, {"id"}, if_match, "property",
                                      [](Property& p, const std::set<std::string>& fields, FieldErrors& errors) {
                                        CheckPropertyFields(p, fields, errors);
                                      }));
}

absl::StatusOr<UpdatePlan<RoomType>> PlanRoomTypeUpdate(const RoomType& current, const RoomType& patch,
                                                        const std::vector<std::string>& mask,
                                                        absl::string_view if_match) {
  static const std::set<std::string> kUpdatable = {"name",     "description", "category", "amenities",
                                                   "size_sqm", "max_guests",  "bed_type", "retired"};
  auto plan = RoomDataPlan(api::PlanUpdate(current, patch, mask, kUpdatable, {"id", "property_id", "code"}, if_match,
                                           "room type",
                                           [](RoomType& t, const std::set<std::string>& fields, FieldErrors& errors) {
                                             CheckRoomTypeFields(t, fields, errors);
                                           }));
  if (plan.ok()) plan->retiring = plan->updated.retired() && !current.retired();
  return plan;
}

absl::StatusOr<UpdatePlan<Room>> PlanRoomUpdate(const Room& current, const Room& patch,
                                                const std::vector<std::string>& mask, absl::string_view if_match) {
  static const std::set<std::string> kUpdatable = {"floor", "room_type_id", "extra_amenities", "retired"};
  Room scoped = patch;
  // room_type_id is checked against the room's own property, whatever the patch says.
  scoped.set_property_id(patch.property_id().empty() ? current.property_id() : patch.property_id());
  auto plan =
      RoomDataPlan(api::PlanUpdate(current, scoped, mask, kUpdatable, {"property_id", "number"}, if_match, "room",
                                   [&](Room& r, const std::set<std::string>& fields, FieldErrors& errors) {
                                     r.set_property_id(current.property_id());
                                     CheckRoomFields(r, fields, errors);
                                   }));
  if (!plan.ok()) return plan;
  plan->retiring = plan->updated.retired() && !current.retired();
  plan->needs_room_type =
      !plan->updated.retired() && (plan->updated.room_type_id() != current.room_type_id() || current.retired());
  return plan;
}

}  // namespace hotel::rooms
