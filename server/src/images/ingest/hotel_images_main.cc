// hotel-images: the image tooling of the Hotel Data Service.
//   hotel-images ingest --file=PATH (--room-type=ID | --property-id=ID --room=NUMBER) --alt-text=TEXT [--sort-order=N]
//   hotel-images seed
//   hotel-images gc [--grace=24h] [--limit=N]
//   hotel-images generate --width=W --height=H --seed=N --out=PATH.jpg|.png
// Common flags (environment): --database-url (DATABASE_URL), --origin-dir (CDN_ORIGIN_DIR; or IMAGE_STORE=s3 ...),
// --cdn-base-url (CDN_BASE_URL). Exit codes: 0 done, 2 bad arguments or input, 1 other failure.
#include <google/protobuf/util/json_util.h>
#include <sys/resource.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/command_line.h"
#include "common/crash_report.h"
#include "common/errors.h"
#include "common/log.h"
#include "db/migrations.h"
#include "db/pool.h"
#include "images/ingest/image_ingestion.h"
#include "images/ingest/image_renderer.h"
#include "images/ingest/seed_images.h"

namespace {

using hotel::images::ImageOwner;

constexpr char kUsage[] =
    "usage:\n"
    "  hotel-images ingest --file=PATH (--room-type=ID | --property-id=ID --room=NUMBER) --alt-text=TEXT"
    " [--sort-order=N]\n"
    "  hotel-images seed\n"
    "  hotel-images gc [--grace=24h (IMAGE_GC_GRACE)] [--limit=10000]: delete the stored files of removed images\n"
    "                 and failed uploads released longer than the grace period ago that no image uses\n"
    "  hotel-images generate --width=W --height=H --seed=N --out=PATH.jpg|.png\n"
    "common flags (environment variable, default):\n"
    "  --database-url (DATABASE_URL, postgresql://hotel_runtime@127.0.0.1:54329/hotel)\n"
    "  (MIGRATION_DATABASE_URL: the schema owner's URL, needed only while the schema is behind)\n"
    "  --origin-dir   (CDN_ORIGIN_DIR, .local/cdn): the directory variant files are written to, unless\n"
    "                 IMAGE_STORE=s3 (IMAGE_S3_BUCKET, IMAGE_S3_PREFIX, IMAGE_S3_REGION, IMAGE_S3_ENDPOINT,\n"
    "                 AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY): then they go to that bucket\n"
    "  --cdn-base-url (CDN_BASE_URL, http://127.0.0.1:8080/cdn): prefix of the printed URLs\n"
    "  --version: print the release and exit\n"
    "flags are --name=value or --name value; the snake_case spellings of earlier releases are accepted with a "
    "warning\n";

// Every flag of every command: one that is not here is refused, not ignored.
const std::set<std::string> kImagesFlags = {"file",       "room-type", "property-id",  "room",       "alt-text",
                                            "sort-order", "grace",     "limit",        "width",      "height",
                                            "seed",       "out",       "database-url", "origin-dir", "cdn-base-url"};

using Flags = std::map<std::string, std::string>;

std::string FlagOr(const Flags& flags, const std::string& name, const char* env, const std::string& fallback) {
  if (auto it = flags.find(name); it != flags.end()) return it->second;
  if (const char* value = env ? std::getenv(env) : nullptr; value != nullptr && *value != '\0') return value;
  return fallback;
}

int Fail(const absl::Status& status) {
  std::cerr << "hotel-images: " << status.message();
  for (const auto& v : hotel::FieldViolations(status)) {
    if (!absl::StrContains(status.message(), v.description)) std::cerr << "; " << v.field << ": " << v.description;
  }
  std::cerr << "\n";
  return status.code() == absl::StatusCode::kInvalidArgument || status.code() == absl::StatusCode::kNotFound ? 2 : 1;
}

absl::StatusOr<int> IntFlag(const Flags& flags, const std::string& name) {
  int value = 0;
  auto it = flags.find(name);
  if (it == flags.end()) return hotel::InvalidField(name, "is required");
  if (!absl::SimpleAtoi(it->second, &value)) return hotel::InvalidField(name, "must be an integer");
  return value;
}

int Generate(const Flags& flags) {
  auto width = IntFlag(flags, "width");
  auto height = IntFlag(flags, "height");
  auto seed = IntFlag(flags, "seed");
  for (const auto* v : {&width, &height, &seed}) {
    if (!v->ok()) return Fail(v->status());
  }
  std::string out = FlagOr(flags, "out", nullptr, "");
  std::string format = absl::EndsWith(out, ".png") ? "png" : "jpeg";
  auto picture = hotel::images::GeneratePicture(*width, *height, *seed, format);
  if (!picture.ok()) return Fail(picture.status());
  std::ofstream file(out, std::ios::binary);
  file << *picture;
  if (!file.good() || out.empty()) return Fail(hotel::InvalidField("out", "cannot write the file"));
  return 0;
}

absl::StatusOr<hotel::images::IngestRequest> ParseIngest(const Flags& flags) {
  hotel::images::IngestRequest request;
  hotel::FieldErrors errors;
  std::string room_type = FlagOr(flags, "room-type", nullptr, "");
  std::string property = FlagOr(flags, "property-id", nullptr, "");
  std::string room = FlagOr(flags, "room", nullptr, "");
  if (!room_type.empty() && (!property.empty() || !room.empty())) {
    errors.Add("room-type", "give either --room-type or --property-id with --room, not both");
  } else if (!room_type.empty()) {
    request.owner = ImageOwner::RoomType(room_type);
  } else if (!property.empty() && !room.empty()) {
    request.owner = ImageOwner::Room(property, room);
  } else {
    errors.Add("room-type", "an owner is required: --room-type, or --property-id with --room");
  }
  std::string path = FlagOr(flags, "file", nullptr, "");
  std::ifstream file(path, std::ios::binary);
  if (path.empty() || !file) {
    errors.Add("file", path.empty() ? "is required" : absl::StrCat("cannot read ", path));
  } else {
    std::ostringstream bytes;
    bytes << file.rdbuf();
    request.original = bytes.str();
  }
  request.alt_text = FlagOr(flags, "alt-text", nullptr, "");
  if (flags.count("sort-order")) {
    auto sort_order = IntFlag(flags, "sort-order");
    if (!sort_order.ok()) errors.Add("sort-order", "must be an integer");
    if (sort_order.ok()) request.sort_order = *sort_order;
  }
  if (!errors.empty()) return errors.ToStatus();
  return request;
}

// gc: deletes the stored files of removed images and of failed uploads once their grace period
// has passed, unless an image uses the same content key (images/image_file_repository.h).
int CollectGarbage(const Flags& flags, hotel::images::ImageFileRepository& files, hotel::images::ObjectStore& store) {
  absl::Duration grace;
  if (!absl::ParseDuration(FlagOr(flags, "grace", "IMAGE_GC_GRACE", "24h"), &grace) || grace < absl::ZeroDuration()) {
    return Fail(hotel::InvalidField("grace", "must be a duration such as 24h or 0s"));
  }
  int limit = 10000;
  if (flags.count("limit")) {
    auto value = IntFlag(flags, "limit");
    if (!value.ok() || *value < 1) return Fail(hotel::InvalidField("limit", "must be a positive integer"));
    limit = *value;
  }
  auto result = files.Collect(grace, limit, [&store](const std::string& key) { return store.Delete(key); });
  if (!result.ok()) return Fail(result.status());
  std::cout << "{\"deleted\":" << result->deleted << ",\"forgotten\":" << result->forgotten << ",\"store\":\""
            << store.Describe() << "\"}" << std::endl;
  return 0;
}

void PrintResult(const hotel::images::IngestResult& result) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(result.image, &json, options);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::cout << "{\"created\":" << (result.created ? "true" : "false") << ",\"peak_rss_kb\":" << usage.ru_maxrss
            << ",\"image\":" << json << "}" << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  hotel::InstallCrashReport(argv[0]);
  hotel::SetLogServiceName("hotel-images");  // its log lines (the pool's, migrations') name the tool
  if (hotel::AsksForVersion(std::vector<std::string>(argv + 1, argv + argc))) {
    std::cout << hotel::VersionLine("hotel-images");
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  auto command_line = hotel::ParseCommandLine(std::vector<std::string>(argv + 2, argv + argc), kImagesFlags, {});
  if (!command_line.ok()) return Fail(command_line.status());
  hotel::WarnOfOldSpellings(*command_line);
  Flags& flags = command_line->flags;
  if (!hotel::images::InitImageLibrary(argv[0])) return Fail(absl::InternalError("libvips failed to start"));
  if (command == "generate") return Generate(flags);
  if (command != "ingest" && command != "seed" && command != "gc") {
    std::cerr << kUsage;
    return 2;
  }

  hotel::db::ConnectionPool pool(
      {FlagOr(flags, "database-url", "DATABASE_URL", "postgresql://hotel_runtime@127.0.0.1:54329/hotel"), 2,
       absl::Seconds(5), absl::Seconds(5), absl::Seconds(60)});
  // The tables may not exist yet if the server never ran against this database: then the schema
  // owner's URL (MIGRATION_DATABASE_URL) is needed, as for the server.
  std::optional<hotel::db::ConnectionPool> owner_pool;
  if (const char* owner_url = std::getenv("MIGRATION_DATABASE_URL"); owner_url != nullptr && *owner_url) {
    owner_pool.emplace(hotel::db::PoolOptions{owner_url, 1, absl::Seconds(5), absl::Seconds(5), absl::Minutes(10)});
  }
  if (auto version =
          hotel::db::PrepareSchema(pool, owner_pool ? &*owner_pool : nullptr, hotel::db::EmbeddedMigrations());
      !version.ok()) {
    return Fail(version.status());
  }
  hotel::images::ImageRepository repository(pool,
                                            FlagOr(flags, "cdn-base-url", "CDN_BASE_URL", "http://127.0.0.1:8080/cdn"));
  // --origin-dir names a directory store; without it the environment chooses (IMAGE_STORE).
  std::unique_ptr<hotel::images::ObjectStore> store;
  if (flags.count("origin-dir")) {
    store = std::make_unique<hotel::images::LocalObjectStore>(flags["origin-dir"]);
  } else {
    auto configured = hotel::images::ObjectStoreFromEnvironment(".local/cdn");
    if (!configured.ok()) return Fail(configured.status());
    store = std::move(*configured);
  }
  hotel::images::ImageFileRepository files(pool);
  hotel::images::ImageIngestion ingestion(repository, files, *store);

  if (command == "gc") return CollectGarbage(flags, files, *store);

  if (command == "seed") {
    if (auto s = hotel::images::SeedImages(pool, ingestion, std::cout); !s.ok()) return Fail(s);
    return 0;
  }
  auto request = ParseIngest(flags);
  if (!request.ok()) return Fail(request.status());
  auto result = ingestion.Ingest(*request);
  if (!result.ok()) return Fail(result.status());
  PrintResult(*result);
  return 0;
}
