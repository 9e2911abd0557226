#include "db/statement_names.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/synchronization/mutex.h"

namespace hotel::db {
namespace {

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::string> names ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;  // never destroyed: used until the process ends
  return *registry;
}

}  // namespace

bool RegisterStatementNames(std::initializer_list<std::pair<absl::string_view, absl::string_view>> statements) {
  Registry& registry = GetRegistry();
  absl::MutexLock lock(&registry.mu);
  for (const auto& [text, name] : statements) registry.names.emplace(text, name);
  return true;
}

std::string StatementName(absl::string_view text) {
  {
    Registry& registry = GetRegistry();
    absl::MutexLock lock(&registry.mu);
    if (auto it = registry.names.find(text); it != registry.names.end()) return it->second;
  }
  text = absl::StripLeadingAsciiWhitespace(text);
  size_t end = 0;
  while (end < text.size() && absl::ascii_isalpha(text[end])) ++end;
  return absl::AsciiStrToUpper(text.substr(0, end));
}

}  // namespace hotel::db
