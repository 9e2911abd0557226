#include "images/ingest/seed_images.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "images/ingest/image_renderer.h"

namespace hotel::images {
namespace {

struct SeedOwner {
  ImageOwner owner;
  std::string name;
  int pictures = 0;
};

absl::StatusOr<std::vector<SeedOwner>> SeedOwners(db::ConnectionPool& pool) {
  std::vector<SeedOwner> owners;
  absl::Status status = pool.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    owners.clear();
    for (const auto& row : session.Exec(txn, {"SELECT id, name FROM room_types ORDER BY id", {}})) {
      owners.push_back({ImageOwner::RoomType(row["id"].c_str()), row["name"].c_str(), 2});
    }
    // Two rooms per property, so room galleries have something to show too.
    for (const auto& row :
         session.Exec(txn, {"SELECT property_id, number FROM (SELECT property_id, number, row_number() OVER"
                            " (PARTITION BY property_id ORDER BY floor, number) AS n FROM rooms) r WHERE n <= 2"
                            " ORDER BY property_id, number",
                            {}})) {
      const std::string number = row["number"].c_str();
      owners.push_back({ImageOwner::Room(row["property_id"].c_str(), number), absl::StrCat("Room ", number), 1});
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return owners;
}

}  // namespace

absl::Status SeedImages(db::ConnectionPool& pool, ImageIngestion& ingestion, std::ostream& log) {
  auto owners = SeedOwners(pool);
  if (!owners.ok()) return owners.status();
  int seed = 0;
  for (const SeedOwner& owner : *owners) {
    for (int i = 0; i < owner.pictures; ++i) {
      ++seed;
      // Alternate landscape JPEGs and portrait PNGs so both paths are exercised.
      const bool landscape = i % 2 == 0;
      auto picture = GeneratePicture(landscape ? 1600 : 900, landscape ? 1067 : 1200, seed, landscape ? "jpeg" : "png");
      if (!picture.ok()) return picture.status();
      IngestRequest request{owner.owner, std::move(*picture),
                            absl::StrCat(owner.name, ", picture ", i + 1, " of ", owner.pictures), i, ""};
      auto result = ingestion.Ingest(request);
      if (!result.ok()) return result.status();
      log << (result->created ? "added   " : "present ") << owner.owner.Describe() << " " << result->image.id() << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace hotel::images
