#include "db/change_listener.h"

#include <memory>
#include <pqxx/pqxx>

#include "common/log.h"
#include "db/pool.h"

namespace hotel::db {
namespace {

// How long one wait for a notification lasts: bounds how late a stop is noticed.
constexpr long kPollMicros = 200'000;

class Receiver : public pqxx::notification_receiver {
 public:
  Receiver(pqxx::connection_base& connection, const std::string& channel, const std::function<void()>& on_change)
      : pqxx::notification_receiver(connection, channel), on_change_(on_change) {}
  void operator()(const std::string&, int) override { on_change_(); }

 private:
  const std::function<void()>& on_change_;
};

}  // namespace

ChangeListener::ChangeListener(std::string url, std::string channel, std::function<void()> on_change,
                               std::function<void(bool)> on_listening, absl::Duration retry_interval)
    : url_(WithConnectionDefaults(url, absl::Seconds(2))),
      channel_(std::move(channel)),
      on_change_(std::move(on_change)),
      on_listening_(std::move(on_listening)),
      retry_interval_(retry_interval),
      thread_([this] { Loop(); }) {}

ChangeListener::~ChangeListener() {
  stopping_ = true;
  thread_.join();
}

void ChangeListener::Loop() {
  bool listened = true;  // so that the first failure to connect is logged too
  while (!stopping_) {
    try {
      ListenOnce(&listened);
    } catch (const std::exception& e) {
      on_listening_(false);
      // Logged once per outage, not once per retry.
      if (listened) LogWarning("change listener is not listening", {{"channel", channel_}, {"error", e.what()}});
      listened = false;
    }
    for (absl::Time until = absl::Now() + retry_interval_; !stopping_ && absl::Now() < until;) {
      absl::SleepFor(absl::Milliseconds(50));
    }
  }
}

void ChangeListener::ListenOnce(bool* listened) {
  pqxx::connection connection(url_);
  Receiver receiver(connection, channel_, on_change_);
  // LISTEN is in place once the receiver exists: from here on no change goes unnoticed.
  on_listening_(true);
  if (!*listened) LogInfo("change listener is listening again", {{"channel", channel_}});
  *listened = true;
  while (!stopping_) connection.await_notification(0, kPollMicros);
}

}  // namespace hotel::db
