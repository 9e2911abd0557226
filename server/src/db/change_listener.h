// Keeps one connection LISTENing on a PostgreSQL channel and calls on_change for every
// notification. Whenever it is not listening (connecting, or the connection was lost) it says so
// through on_listening(false), because notifications sent meanwhile are gone; once LISTEN is in
// place again it calls on_listening(true). Reconnects on its own, like the pool.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "absl/time/time.h"

namespace hotel::db {

class ChangeListener {
 public:
  ChangeListener(std::string url, std::string channel, std::function<void()> on_change,
                 std::function<void(bool listening)> on_listening, absl::Duration retry_interval = absl::Seconds(1));
  ChangeListener(const ChangeListener&) = delete;
  ChangeListener& operator=(const ChangeListener&) = delete;
  ~ChangeListener();  // stops listening; returns within about one poll interval

 private:
  void Loop();
  // Listens until the connection fails (throws) or the listener stops; sets *listened once LISTEN is in place.
  void ListenOnce(bool* listened);

  const std::string url_;
  const std::string channel_;
  const std::function<void()> on_change_;
  const std::function<void(bool)> on_listening_;
  const absl::Duration retry_interval_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;  // last: starts once everything above is set
};

}  // namespace hotel::db
