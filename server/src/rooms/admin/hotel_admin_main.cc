// hotel-admin: bulk onboarding of room data (docs/operations.md#hotel-admin).
//   hotel-admin import FILE [--dry-run] [--actor=NAME]   validate a property file, print the diff, apply it
//   hotel-admin export PROPERTY [--out=FILE]              write the stored property as a property file
// Database: --database-url or DATABASE_URL (the runtime role suffices: only DML); MIGRATION_DATABASE_URL
// as for the server when the schema may be behind.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/command_line.h"
#include "common/crash_report.h"
#include "common/errors.h"
#include "common/log.h"
#include "db/migrations.h"
#include "db/pool.h"
#include "rooms/admin/property_file.h"
#include "rooms/admin/property_import.h"

namespace {

constexpr char kUsage[] =
    "usage:\n"
    "  hotel-admin import FILE [--dry-run] [--actor=NAME]\n"
    "      validates the whole property file (YAML: property, room_types, rooms), prints the diff and\n"
    "      applies it in one transaction; --dry-run checks and prints without writing\n"
    "  hotel-admin export PROPERTY [--out=FILE]\n"
    "      writes the stored property (retired records included) in the same format; stdout by default\n"
    "  --database-url (DATABASE_URL, postgresql://hotel_runtime@127.0.0.1:54329/hotel)\n"
    "  (MIGRATION_DATABASE_URL: the schema owner's URL, needed only while the schema is behind)\n"
    "  hotel-admin --version: print the release and exit\n"
    "flags are --name=value or --name value; the snake_case spellings of earlier releases are accepted with a "
    "warning\n";

int Fail(const absl::Status& status) {
  const auto violations = hotel::FieldViolations(status);
  if (violations.empty()) {
    std::cerr << "hotel-admin: " << status.message() << "\n";
  } else {
    std::cerr << "hotel-admin: " << violations.size() << " problem(s), nothing was written:\n";
    for (const auto& v : violations) std::cerr << "  " << v.field << ": " << v.description << "\n";
  }
  return status.code() == absl::StatusCode::kInvalidArgument || status.code() == absl::StatusCode::kNotFound ? 2 : 1;
}

std::string Env(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  hotel::InstallCrashReport(argv[0]);
  hotel::SetLogServiceName("hotel-admin");  // its log lines (the pool's, migrations') name the tool
  if (hotel::AsksForVersion(std::vector<std::string>(argv + 1, argv + argc))) {
    std::cout << hotel::VersionLine("hotel-admin");
    return 0;
  }
  if (argc < 3 || (std::string(argv[1]) != "import" && std::string(argv[1]) != "export")) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  const std::string target = argv[2];
  auto command_line = hotel::ParseCommandLine(std::vector<std::string>(argv + 3, argv + argc),
                                              {"dry-run", "actor", "out", "database-url"}, {"dry-run"});
  if (!command_line.ok()) return Fail(command_line.status());
  hotel::WarnOfOldSpellings(*command_line);
  std::map<std::string, std::string>& flags = command_line->flags;

  const std::string database_url = flags.count("database-url")
                                       ? flags["database-url"]
                                       : Env("DATABASE_URL", "postgresql://hotel_runtime@127.0.0.1:54329/hotel");

  std::optional<hotel::rooms::PropertyFile> file;
  if (command == "import") {
    std::ifstream in(target);
    if (!in) return Fail(hotel::InvalidField("FILE", absl::StrCat("cannot read ", target)));
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = hotel::rooms::ParsePropertyFile(text.str());
    if (!parsed.ok()) return Fail(parsed.status());
    file = std::move(*parsed);
  }

  hotel::db::ConnectionPool pool({database_url, 1, absl::Seconds(5), absl::Seconds(5), absl::Minutes(10)});
  std::optional<hotel::db::ConnectionPool> owner_pool;
  if (const std::string owner_url = Env("MIGRATION_DATABASE_URL", ""); !owner_url.empty()) {
    owner_pool.emplace(hotel::db::PoolOptions{owner_url, 1, absl::Seconds(5), absl::Seconds(5), absl::Minutes(10)});
  }
  if (auto version =
          hotel::db::PrepareSchema(pool, owner_pool ? &*owner_pool : nullptr, hotel::db::EmbeddedMigrations());
      !version.ok()) {
    return Fail(version.status());
  }

  if (command == "export") {
    auto stored = hotel::rooms::ExportPropertyFile(pool, target);
    if (!stored.ok()) return Fail(stored.status());
    const std::string text = hotel::rooms::FormatPropertyFile(*stored);
    if (!flags.count("out")) {
      std::cout << text;
      return 0;
    }
    std::ofstream out(flags["out"]);
    out << text;
    if (!out) return Fail(hotel::InvalidField("out", absl::StrCat("cannot write ", flags["out"])));
    return 0;
  }

  const bool dry_run = flags.count("dry-run") > 0 && flags["dry-run"] != "false";
  const auto started = std::chrono::steady_clock::now();
  auto plan =
      hotel::rooms::ImportPropertyFile(pool, *file, dry_run, flags.count("actor") ? flags["actor"] : "hotel-admin");
  if (!plan.ok()) return Fail(plan.status());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << hotel::rooms::FormatPlan(*plan);
  const size_t records = 1 + file->room_types.size() + file->rooms.size();
  std::cout << (dry_run ? "dry run: nothing written; " : "imported; ") << records << " records checked in "
            << static_cast<int>(seconds * 1000) << " ms (" << static_cast<int>(records / seconds) << " records/s)\n";
  return 0;
}
