// Timestamps between PostgreSQL and protobuf as int8 microseconds since the epoch: exact, and
// cheap to read from a row and to put in a keyset page token.
#pragma once

#include <cstdint>
#include <pqxx/pqxx>
#include <string>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "google/protobuf/timestamp.pb.h"

namespace hotel::db {

// SQL expression turning a bound int8 microsecond count back into a timestamptz.
std::string TimestampFromMicrosSql(SqlQuery& sql, int64_t micros);
int64_t ToMicros(const google::protobuf::Timestamp& ts);
void SetMicros(int64_t micros, google::protobuf::Timestamp* out);
// Sets out from an int8 microseconds column; leaves it unset for NULL.
void ReadTimestamp(const pqxx::field& field, google::protobuf::Timestamp* out);
// SQL expression turning a page token's microsecond key (text, bound) into a timestamptz.
std::string TimestampFromKey(SqlQuery& sql, const std::string& micros);

}  // namespace hotel::db
