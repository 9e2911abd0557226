#include "db/timestamps.h"

#include "absl/strings/str_cat.h"

namespace hotel::db {

std::string TimestampFromMicrosSql(SqlQuery& sql, int64_t micros) {
  return TimestampFromKey(sql, absl::StrCat(micros));
}

int64_t ToMicros(const google::protobuf::Timestamp& ts) { return ts.seconds() * 1000000 + ts.nanos() / 1000; }

void SetMicros(int64_t micros, google::protobuf::Timestamp* out) {
  int64_t seconds = micros / 1000000;
  int64_t rest = micros % 1000000;
  if (rest < 0) {
    rest += 1000000;
    --seconds;
  }
  out->set_seconds(seconds);
  out->set_nanos(static_cast<int32_t>(rest) * 1000);
}

void ReadTimestamp(const pqxx::field& field, google::protobuf::Timestamp* out) {
  if (!field.is_null()) SetMicros(field.as<int64_t>(), out);
}

std::string TimestampFromKey(SqlQuery& sql, const std::string& micros) {
  return absl::StrCat("('epoch'::timestamptz + ", sql.Bind(micros), "::int8 * interval '1 microsecond')");
}

}  // namespace hotel::db
