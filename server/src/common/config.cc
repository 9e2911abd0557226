#include "common/config.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/command_line.h"
#include "common/errors.h"

namespace hotel {
namespace {

absl::Status ParseDuration(const std::string& flag, const std::string& value, absl::Duration* out) {
  if (!absl::ParseDuration(value, out) || *out <= absl::ZeroDuration()) {
    return InvalidField(flag, absl::StrCat("'", value, "' is not a positive duration such as 2s or 500ms"));
  }
  return absl::OkStatus();
}

absl::Status ParseInt(const std::string& flag, const std::string& value, int min, int max, int* out) {
  if (!absl::SimpleAtoi(value, out) || *out < min || *out > max) {
    return InvalidField(flag, absl::StrCat("must be an integer from ", min, " to ", max));
  }
  return absl::OkStatus();
}

absl::Status Apply(Config& config, const std::string& flag, const std::string& value) {
  if (flag == "listen") {
    config.listen = value;
    return absl::OkStatus();
  }
  if (flag == "database-url") {
    config.database_url = value;
    return absl::OkStatus();
  }
  if (flag == "migration-database-url") {
    config.migration_database_url = value;
    return absl::OkStatus();
  }
  if (flag == "database-read-url") {
    config.database_read_url = value;
    return absl::OkStatus();
  }
  if (flag == "read-max-lag") return ParseDuration(flag, value, &config.read_max_lag);
  if (flag == "read-token-wait") return ParseDuration(flag, value, &config.read_token_wait);
  if (flag == "pool-size") {
    if (!absl::SimpleAtoi(value, &config.pool_size) || config.pool_size < 1 || config.pool_size > 256) {
      return InvalidField(flag, "must be an integer from 1 to 256");
    }
    return absl::OkStatus();
  }
  if (flag == "pool-acquire-timeout") return ParseDuration(flag, value, &config.pool_acquire_timeout);
  if (flag == "connect-timeout") return ParseDuration(flag, value, &config.connect_timeout);
  if (flag == "statement-timeout") return ParseDuration(flag, value, &config.statement_timeout);
  if (flag == "health-interval") return ParseDuration(flag, value, &config.health_interval);
  if (flag == "rollup-fold-interval") return ParseDuration(flag, value, &config.rollup_fold_interval);
  if (flag == "block-transition-interval") return ParseDuration(flag, value, &config.block_transition_interval);
  if (flag == "shutdown-delay") {
    // Zero is allowed: a server nobody balances traffic to (tests, a one-off) may stop at once.
    if (!absl::ParseDuration(value, &config.shutdown_delay) || config.shutdown_delay < absl::ZeroDuration()) {
      return InvalidField(flag, absl::StrCat("'", value, "' is not a duration such as 6s or 0s"));
    }
    return absl::OkStatus();
  }
  if (flag == "shutdown-grace") return ParseDuration(flag, value, &config.shutdown_grace);
  if (flag == "migrate-only") {
    if (value != "true" && value != "false") return InvalidField(flag, "must be true or false");
    config.migrate_only = value == "true";
    return absl::OkStatus();
  }
  if (flag == "cdn-base-url") {
    if (!absl::StartsWith(value, "http://") && !absl::StartsWith(value, "https://")) {
      return InvalidField(flag, "must be an http:// or https:// URL");
    }
    config.cdn_base_url = value;
    return absl::OkStatus();
  }
  if (flag == "room-cache-size") {
    if (!absl::SimpleAtoi(value, &config.room_cache_size) || config.room_cache_size < 0 ||
        config.room_cache_size > 10'000'000) {
      return InvalidField(flag, "must be an integer from 0 (no cache) to 10000000");
    }
    return absl::OkStatus();
  }
  if (flag == "change-poll-interval") return ParseDuration(flag, value, &config.change_poll_interval);
  if (flag == "change-retention") return ParseDuration(flag, value, &config.change_retention);
  if (flag == "change-prune-interval") return ParseDuration(flag, value, &config.change_prune_interval);
  if (flag == "change-heartbeat-interval") return ParseDuration(flag, value, &config.change_heartbeat_interval);
  if (flag == "change-max-watchers") return ParseInt(flag, value, 0, 100'000, &config.change_max_watchers);
  if (flag == "change-max-watchers-per-client") {
    return ParseInt(flag, value, 1, 100'000, &config.change_max_watchers_per_client);
  }
  if (flag == "change-watcher-buffer") return ParseInt(flag, value, 1, 1'000'000, &config.change_watcher_buffer);
  if (flag == "read-timeout") return ParseDuration(flag, value, &config.read_timeout);
  if (flag == "write-timeout") return ParseDuration(flag, value, &config.write_timeout);
  if (flag == "max-in-flight") return ParseInt(flag, value, 0, 10'000, &config.max_in_flight);
  if (flag == "admission-queue") return ParseInt(flag, value, -1, 10'000, &config.admission_queue);
  if (flag == "min-in-flight") return ParseInt(flag, value, 0, 10'000, &config.min_in_flight);
  if (flag == "admission-max-wait") return ParseDuration(flag, value, &config.admission_max_wait);
  if (flag == "upload-timeout") return ParseDuration(flag, value, &config.upload_timeout);
  if (flag == "image-render-limit") return ParseInt(flag, value, 0, 256, &config.image_render_limit);
  if (flag == "image-render-queue") return ParseInt(flag, value, 0, 1000, &config.image_render_queue);
  if (flag == "image-render-queue-timeout") return ParseDuration(flag, value, &config.image_render_queue_timeout);
  if (flag == "max-concurrent-streams") return ParseInt(flag, value, 0, 200'000, &config.max_concurrent_streams);
  if (flag == "max-connection-idle") return ParseDuration(flag, value, &config.max_connection_idle);
  if (flag == "max-connection-age") {
    // Zero is allowed: no age limit (the default; change-feed streams live as long as they like).
    if (!absl::ParseDuration(value, &config.max_connection_age) || config.max_connection_age < absl::ZeroDuration()) {
      return InvalidField(flag, absl::StrCat("'", value, "' is not a duration such as 1h or 0s"));
    }
    return absl::OkStatus();
  }
  if (flag == "max-connection-age-grace") return ParseDuration(flag, value, &config.max_connection_age_grace);
  if (flag == "keepalive-time") return ParseDuration(flag, value, &config.keepalive_time);
  if (flag == "keepalive-timeout") return ParseDuration(flag, value, &config.keepalive_timeout);
  if (flag == "keepalive-min-ping-interval") return ParseDuration(flag, value, &config.keepalive_min_ping_interval);
  if (flag == "rpc-log-sample") return ParseInt(flag, value, 0, 1'000'000, &config.rpc_log_sample);
  if (flag == "rpc-log-slow") return ParseDuration(flag, value, &config.rpc_log_slow);
  if (flag == "webhook-allowed-hosts") {
    config.webhook_allowed_hosts = value;
    return absl::OkStatus();
  }
  if (flag == "webhook-connect-timeout") return ParseDuration(flag, value, &config.webhook_connect_timeout);
  if (flag == "webhook-timeout") return ParseDuration(flag, value, &config.webhook_timeout);
  if (flag == "webhook-retry-scale") {
    if (!absl::SimpleAtod(value, &config.webhook_retry_scale) || !(config.webhook_retry_scale > 0) ||
        config.webhook_retry_scale > 1000) {
      return InvalidField(flag, "must be a number above 0 and at most 1000");
    }
    return absl::OkStatus();
  }
  if (flag == "webhook-senders") return ParseInt(flag, value, 0, 256, &config.webhook_senders);
  if (flag == "webhook-lease") return ParseDuration(flag, value, &config.webhook_lease);
  if (flag == "webhook-poll-interval") return ParseDuration(flag, value, &config.webhook_poll_interval);
  if (flag == "page-token-keys") {
    config.page_token_keys = value;
    return absl::OkStatus();
  }
  return InvalidField(flag, "unknown flag; see --help");
}

}  // namespace

const std::vector<ConfigOption>& ConfigOptions() {
  static const std::vector<ConfigOption> kOptions = {
      {"listen", "GRPC_LISTEN", "127.0.0.1:50051", "gRPC listen address (port 0: any free port)"},
      {"database-url", "DATABASE_URL", "postgresql://hotel_runtime@127.0.0.1:54329/hotel",
       "PostgreSQL URL of the runtime role the server serves requests as (scripts/postgres.sh url)"},
      {"migration-database-url", "MIGRATION_DATABASE_URL", "",
       "PostgreSQL URL of the schema owner: migrations run with it and grant DATABASE_URL's role its DML "
       "(unset: the schema must be current, or DATABASE_URL's role must own it)"},
      {"database-read-url", "DATABASE_READ_URL", "",
       "PostgreSQL URL of the replicas read calls may be served from (CloudNativePG's -ro Service, or a libpq "
       "multi-host URL: a pool per host; unset: every read on DATABASE_URL). docs/consistency.md"},
      {"read-max-lag", "READ_MAX_LAG", "1s",
       "reads without a consistency token are never older than this; a replica further behind serves none"},
      {"read-token-wait", "READ_TOKEN_WAIT", "100ms",
       "how long a read waits for a replica to replay the caller's consistency token before the primary serves it"},
      {"pool-size", "DB_POOL_SIZE", "8", "maximum open database connections"},
      {"pool-acquire-timeout", "DB_POOL_ACQUIRE_TIMEOUT", "2s", "wait for a free connection before UNAVAILABLE"},
      {"connect-timeout", "DB_CONNECT_TIMEOUT", "2s", "timeout of one database connection attempt"},
      {"statement-timeout", "DB_STATEMENT_TIMEOUT", "5s", "PostgreSQL statement_timeout of every session"},
      {"health-interval", "HEALTH_INTERVAL", "1s", "period of the database health check"},
      {"rollup-fold-interval", "ROLLUP_FOLD_INTERVAL", "250ms",
       "period of folding statistics deltas into their rollups (reads add what is not folded yet)"},
      {"block-transition-interval", "BLOCK_TRANSITION_INTERVAL", "30s",
       "period of looking whether a property's local date turned (room blocks start and end, and the "
       "housekeeping day turn is made, at most this long after local midnight)"},
      {"shutdown-delay", "SHUTDOWN_DELAY", "6s",
       "on SIGTERM, time the server keeps serving while it reports not ready (endpoint removal reaches "
       "every load balancer, and the gateway's own delay of 5s ends, first); a second signal cuts it short"},
      {"shutdown-grace", "SHUTDOWN_GRACE", "10s", "after the delay, time in-flight RPCs get to finish"},
      {"migrate-only", "MIGRATE_ONLY", "false", "apply migrations, then exit"},
      {"cdn-base-url", "CDN_BASE_URL", "http://127.0.0.1:8080/cdn",
       "base URL of the image CDN; image URLs are this plus a content-addressed key"},
      {"room-cache-size", "ROOM_CACHE_SIZE", "100000",
       "rooms GetRoom keeps in memory, invalidated by database notifications (0: no cache)"},
      {"change-poll-interval", "CHANGE_POLL_INTERVAL", "5ms",
       "period of sequencing and reading the change log while changes come (idle: up to 4 times longer)"},
      {"change-retention", "CHANGE_RETENTION", "168h",
       "how long the change log keeps changes; older cursors are refused with CURSOR_EXPIRED (410)"},
      {"change-prune-interval", "CHANGE_PRUNE_INTERVAL", "1m", "period of pruning changes past the retention"},
      {"change-heartbeat-interval", "CHANGE_HEARTBEAT_INTERVAL", "15s",
       "a watcher that received nothing for this long gets a heartbeat carrying the current cursor"},
      {"change-max-watchers", "CHANGE_MAX_WATCHERS", "10000",
       "concurrent WatchChanges calls per server; beyond it RESOURCE_EXHAUSTED (429)"},
      {"change-max-watchers-per-client", "CHANGE_MAX_WATCHERS_PER_CLIENT", "1000",
       "concurrent WatchChanges calls of one client (x-client-id, else its address) per server; beyond it "
       "RESOURCE_EXHAUSTED (429)"},
      {"change-watcher-buffer", "CHANGE_WATCHER_BUFFER", "1000",
       "changes queued for one watcher; a watcher further behind is cut off (RESOURCE_EXHAUSTED)"},
      {"read-timeout", "READ_TIMEOUT", "5s",
       "deadline of a read (a method with idempotency_level NO_SIDE_EFFECTS) whose caller sets none (gRPC "
       "deadline, REST Grpc-Timeout header)"},
      {"write-timeout", "WRITE_TIMEOUT", "10s", "deadline of a write whose caller sets none"},
      {"max-in-flight", "MAX_IN_FLIGHT", "0",
       "the most calls served at once, the ceiling of the adaptive limit; 0: twice pool-size"},
      {"min-in-flight", "MIN_IN_FLIGHT", "0",
       "the floor of the adaptive limit of calls served at once; 0: half pool-size"},
      {"admission-max-wait", "ADMISSION_MAX_WAIT", "400ms",
       "while the queue for a slot stands (it did not drain for 100 ms), the longest a call may wait in it; one that "
       "would wait longer is refused at arrival (UNAVAILABLE OVERLOADED, 503), deadline sent or not"},
      {"admission-queue", "ADMISSION_QUEUE", "-1",
       "calls that may wait for a free slot, each as long as its deadline can still be met (each holds a thread); "
       "beyond it, or when its deadline cannot be met, UNAVAILABLE OVERLOADED (503) at once; -1: four times "
       "--max-in-flight"},
      {"upload-timeout", "UPLOAD_TIMEOUT", "2m",
       "deadline of an image upload (UploadImage; REST POST .../images) whose caller sets none"},
      {"image-render-limit", "IMAGE_RENDER_LIMIT", "0",
       "uploaded images rendered at once (each decodes and encodes on one core); 0: one per core"},
      {"image-render-queue", "IMAGE_RENDER_QUEUE", "2",
       "received uploads that may wait for a render slot; beyond it UNAVAILABLE OVERLOADED (503) at once"},
      {"image-render-queue-timeout", "IMAGE_RENDER_QUEUE_TIMEOUT", "2s",
       "longest wait of a received upload for a render slot before UNAVAILABLE OVERLOADED (503)"},
      {"max-concurrent-streams", "MAX_CONCURRENT_STREAMS", "0",
       "backstop cap on streams per HTTP/2 connection; 0: --change-max-watchers (at most 1000) plus twice the "
       "admission limits plus 32"},
      {"max-connection-idle", "MAX_CONNECTION_IDLE", "5m",
       "a gRPC connection without calls for this long is closed (GOAWAY); its client reconnects when it calls again"},
      {"max-connection-age", "MAX_CONNECTION_AGE", "0s",
       "a gRPC connection older than this is closed after --max-connection-age-grace, ending its change-feed streams "
       "(clients resume after their cursor); 0s: no age limit"},
      {"max-connection-age-grace", "MAX_CONNECTION_AGE_GRACE", "1m",
       "time the calls of a connection closed for its age get to finish"},
      {"keepalive-time", "KEEPALIVE_TIME", "1m",
       "the server pings a connection silent for this long; one that does not answer in --keepalive-timeout is closed"},
      {"keepalive-timeout", "KEEPALIVE_TIMEOUT", "20s", "how long the server waits for the answer to its ping"},
      {"keepalive-min-ping-interval", "KEEPALIVE_MIN_PING_INTERVAL", "10s",
       "a client may ping at most this often (with or without calls); a connection that pings more often is "
       "closed (GOAWAY too_many_pings)"},
      {"rpc-log-sample", "RPC_LOG_SAMPLE", "100",
       "log one in this many successful RPCs (1: every RPC; 0: none); errors and slow calls are always logged, "
       "refusals (OVERLOADED) in one summary line a second"},
      {"rpc-log-slow", "RPC_LOG_SLOW", "100ms", "an RPC taking at least this long is always logged"},
      {"webhook-allowed-hosts", "WEBHOOK_ALLOWED_HOSTS", "localhost,127.0.0.0/8,::1",
       "hosts (name, *.domain) and networks (IP or CIDR) webhook URLs may point at; others are refused (400)"},
      {"webhook-connect-timeout", "WEBHOOK_CONNECT_TIMEOUT", "2s", "connect timeout of a webhook delivery or ping"},
      {"webhook-timeout", "WEBHOOK_TIMEOUT", "5s",
       "total timeout of a webhook delivery or ping; below --webhook-lease"},
      {"webhook-retry-scale", "WEBHOOK_RETRY_SCALE", "1",
       "factor on the webhook retry schedule (5s, 5m, 30m, 2h, 5h, 10h, 14h, 20h, 24h); tests shrink it"},
      {"webhook-senders", "WEBHOOK_SENDERS", "4",
       "threads delivering webhooks on this replica, each holding one subscription's lease at a time (0: none)"},
      {"webhook-lease", "WEBHOOK_LEASE", "10s",
       "how long a replica owns a subscription without renewing it; a killed replica's subscriptions move "
       "after it"},
      {"webhook-poll-interval", "WEBHOOK_POLL_INTERVAL", "20ms",
       "how often the idle webhook senders, taking turns, look for due subscriptions"},
      {"page-token-keys", "PAGE_TOKEN_KEYS", "",
       "comma-separated secrets (16 bytes or more each, the same on every replica) that seal page tokens and change "
       "cursors with an HMAC: the first seals, every one is accepted (rotation: docs/operations.md); unset: a checksum "
       "that catches damaged tokens but not forged ones"},
  };
  return kOptions;
}

absl::StatusOr<Config> ParseConfig(const std::vector<std::string>& args, const char* (*getenv)(const char*)) {
  Config config;
  for (const auto& option : ConfigOptions()) {
    if (auto status = Apply(config, option.flag, option.default_value); !status.ok()) return status;
    if (const char* value = getenv(option.env.c_str()); value != nullptr && *value != '\0') {
      if (auto status = Apply(config, option.flag, value); !status.ok()) {
        return InvalidField(option.env, std::string(FieldViolations(status).front().description));
      }
    }
  }
  std::set<std::string> flags;
  for (const auto& option : ConfigOptions()) flags.insert(option.flag);
  auto command_line = ParseCommandLine(args, flags, {"migrate-only"});
  if (!command_line.ok()) return command_line.status();
  WarnOfOldSpellings(*command_line);
  for (const auto& [flag, value] : command_line->flags) {
    if (auto status = Apply(config, flag, value); !status.ok()) return status;
  }
  return config;
}

std::string ConfigUsage() {
  std::string out =
      "usage: hotel-server [--flag=value ...] | --help | --version\n"
      "(--flag value works too; the snake_case spellings of earlier releases are accepted with a warning)\n\n";
  for (const auto& o : ConfigOptions()) {
    absl::StrAppend(&out,
                    absl::StrFormat("  --%-22s %-24s default %s\n      %s\n", o.flag, o.env, o.default_value, o.help));
  }
  return out;
}

}  // namespace hotel
