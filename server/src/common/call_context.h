// What one call carries from its arrival to its last statement: the server's span of its trace
// and its budget (deadline, and whether its caller still waits). The call runner
// (api/call_runner.h) builds it when the call arrives and installs it, with ScopedCallContext,
// for the thread that runs the call's body; the log reads it from there, and the connection pool
// once per unit of work, handing it to its session (db/pool.h, Session::Serve), so no area passes
// it along (docs/decisions.md, "The call path"). Nothing else installs one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/trace_context.h"

namespace hotel {

struct RequestBudget {
  absl::Time deadline = absl::InfiniteFuture();
  // True once the caller has gone (cancelled, disconnected); may be empty.
  std::function<bool()> cancelled;
};

// Read-your-writes across replicas (db/read_replicas.h, docs/consistency.md); WAL positions, 0 for none.
struct Consistency {
  bool replica_reads = false;  // a read call (no side effects): its reads may be served by a replica
  uint64_t read_after = 0;     // the caller's consistency token: a replica must have replayed this far
  // Its answer carries a change cursor: a replica must hold every change up to the feed's position.
  bool up_to_change_cursor = false;
};

struct CallContext {
  std::optional<RequestSpan> span;  // none for work that no call started
  RequestBudget budget;
  Consistency consistency;
};

// What a call's work leaves for its answer, apart from the context it runs under: the call runner
// owns it, installs it beside the call and reads it once the body is done.
struct CallWrites {
  // The WAL position of the newest commit of the call's writes (0: none), answered as its
  // consistency token; the connection pool reports each commit (db/pool.h).
  uint64_t committed = 0;
  void Committed(uint64_t position) { committed = std::max(committed, position); }
};

// Installs call, and where its writes are reported (nullptr: nowhere), for this thread while in
// scope (nesting restores the outer ones).
class ScopedCallContext {
 public:
  explicit ScopedCallContext(const CallContext* call, CallWrites* writes = nullptr);
  ~ScopedCallContext();
  ScopedCallContext(const ScopedCallContext&) = delete;
  ScopedCallContext& operator=(const ScopedCallContext&) = delete;

 private:
  const CallContext* previous_;
  CallWrites* previous_writes_;
};

// The call whose body this thread runs, or nullptr (start-up, background work, tools).
const CallContext* CurrentCall();
// Where its writes are reported, or nullptr.
CallWrites* CurrentCallWrites();
// Its span, or nullptr.
const RequestSpan* CurrentRequestSpan();

// OK while call may go on; CANCELLED when its caller has gone, DEADLINE_EXCEEDED once its
// deadline has passed ("<step>: ..." in the message). OK for no call (nullptr).
absl::Status CheckRequestBudget(const CallContext* call, const char* step);
// The same for the current call.
absl::Status CheckRequestBudget(const char* step);

// Time left before call's deadline (InfiniteDuration without one, or for no call).
absl::Duration RequestTimeLeft(const CallContext* call);
// The same for the current call.
absl::Duration RequestTimeLeft();

}  // namespace hotel
