// Seed images: every room type and the first rooms of each property get pictures generated on
// the spot (no downloaded files) and ingested like any upload. Deterministic pictures make a
// repeated seed a no-op.
#pragma once

#include <ostream>

#include "absl/status/status.h"
#include "db/pool.h"
#include "images/ingest/image_ingestion.h"

namespace hotel::images {

// Writes one line per image to log; returns the first error.
absl::Status SeedImages(db::ConnectionPool& pool, ImageIngestion& ingestion, std::ostream& log);

}  // namespace hotel::images
