// Server configuration from flags and environment variables (flags win), with safe local defaults.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace hotel {

struct Config {
  // Defaults and meanings: ConfigOptions().
  std::string listen;
  std::string database_url;
  std::string migration_database_url;  // empty: migrations (if any are due) use database_url
  // Reads from replicas (docs/consistency.md): off while database_read_url is empty.
  std::string database_read_url;
  absl::Duration read_max_lag;
  absl::Duration read_token_wait;
  int pool_size = 0;
  absl::Duration pool_acquire_timeout;
  absl::Duration connect_timeout;
  absl::Duration statement_timeout;
  absl::Duration health_interval;
  absl::Duration rollup_fold_interval;
  absl::Duration block_transition_interval;
  absl::Duration shutdown_delay;
  absl::Duration shutdown_grace;
  bool migrate_only = false;
  std::string cdn_base_url;
  int room_cache_size = 0;
  // The change feed (docs/changes.md).
  absl::Duration change_poll_interval;
  absl::Duration change_retention;
  absl::Duration change_prune_interval;
  absl::Duration change_heartbeat_interval;
  int change_max_watchers = 0;
  int change_max_watchers_per_client = 0;
  int change_watcher_buffer = 0;
  // Overload (docs/operations.md#overload): default deadlines and admission control.
  absl::Duration read_timeout;
  absl::Duration write_timeout;
  int max_in_flight = 0;    // 0: twice pool_size
  int admission_queue = 0;  // -1: four times max_in_flight
  int min_in_flight = 0;    // 0: half pool_size
  absl::Duration admission_max_wait = absl::Milliseconds(400);
  // Uploads (docs/images.md): their default deadline and the render pool's admission.
  absl::Duration upload_timeout;
  int image_render_limit = 0;  // 0: one per core
  int image_render_queue = 0;
  absl::Duration image_render_queue_timeout;
  int max_concurrent_streams = 0;  // per connection; 0: derived from the limits above
  // Connections (docs/operations.md, "Idle connections"): how long one without calls is kept, how
  // long any is kept (zero: no limit) and the grace its calls then get, the server's keepalive
  // pings, and how often a client may ping.
  absl::Duration max_connection_idle;
  absl::Duration max_connection_age;
  absl::Duration max_connection_age_grace;
  absl::Duration keepalive_time;
  absl::Duration keepalive_timeout;
  absl::Duration keepalive_min_ping_interval;
  // The RPC log line (docs/operations.md#log-volume): errors and slow calls always, one in
  // rpc_log_sample of the rest (1: every call, 0: none of them).
  int rpc_log_sample = 0;
  absl::Duration rpc_log_slow;
  // Webhooks (docs/webhooks.md).
  std::string webhook_allowed_hosts;  // checked by webhooks::AllowList::Parse in main.cc
  absl::Duration webhook_connect_timeout;
  absl::Duration webhook_timeout;
  double webhook_retry_scale = 1.0;
  int webhook_senders = 0;  // 0: this replica sends nothing
  absl::Duration webhook_lease;
  absl::Duration webhook_poll_interval;
  // Page tokens and change cursors (common/token_seal.h): comma-separated keys, the first seals.
  std::string page_token_keys;
};

// One entry per setting: flag name, environment variable, default, meaning. Drives --help,
// parsing and docs/operations.md.
struct ConfigOption {
  std::string flag;
  std::string env;
  std::string default_value;
  std::string help;
};
const std::vector<ConfigOption>& ConfigOptions();

// args excludes argv[0]. getenv is injected so tests need not touch the process environment.
absl::StatusOr<Config> ParseConfig(const std::vector<std::string>& args, const char* (*getenv)(const char*));
std::string ConfigUsage();

}  // namespace hotel
