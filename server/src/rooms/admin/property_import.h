// hotel-admin's database side: the stored property as a property file (export, and the "before"
// of an import), and the import itself: plan, check and write in one transaction.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "db/pool.h"
#include "rooms/admin/property_file.h"

namespace hotel::rooms {

// NOT_FOUND PROPERTY_NOT_FOUND when the property does not exist.
absl::StatusOr<PropertyFile> ExportPropertyFile(db::ConnectionPool& pool, const std::string& property_id);

// Plans the import of file over the stored property and, unless dry_run, writes it in one
// transaction (the property's rows locked first, so two imports of one property run one after
// the other). Writes nothing when any record is refused: FAILED_PRECONDITION naming every refused
// record (a room held out of order by an open issue, a room type still in use, ...).
absl::StatusOr<ImportPlan> ImportPropertyFile(db::ConnectionPool& pool, const PropertyFile& file, bool dry_run,
                                              const std::string& actor);

}  // namespace hotel::rooms
