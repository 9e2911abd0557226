// What the request being served may still spend: its deadline, and whether its caller is still
// waiting. HandleRpc installs it for the thread that runs the handler (the server is synchronous:
// one thread runs a call from its handler to its last statement); the connection pool reads it
// before it waits for a connection, before each statement and before a commit, so no layer in
// between has to pass it along.
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace hotel {

struct RequestBudget {
  absl::Time deadline = absl::InfiniteFuture();
  // True once the caller has gone (cancelled, disconnected); may be empty.
  std::function<bool()> cancelled;
};

// Installs budget for this thread while in scope (nesting restores the outer one).
class ScopedRequestBudget {
 public:
  explicit ScopedRequestBudget(const RequestBudget* budget);
  ~ScopedRequestBudget();
  ScopedRequestBudget(const ScopedRequestBudget&) = delete;
  ScopedRequestBudget& operator=(const ScopedRequestBudget&) = delete;

 private:
  const RequestBudget* previous_;
};

// The budget of the request this thread serves, or nullptr (background work, tools).
const RequestBudget* CurrentRequestBudget();

// OK while the current request may go on; CANCELLED when its caller has gone, DEADLINE_EXCEEDED
// once its deadline has passed ("<step>: ..." in the message). OK without a current request.
absl::Status CheckRequestBudget(const char* step);

// Time left before the current request's deadline (InfiniteDuration without one).
absl::Duration RequestTimeLeft();

}  // namespace hotel
