// The change log in PostgreSQL (migration 0011): pages of changes, the sequencer and the pruner.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "changes/change_request.h"
#include "changes/change_sql.h"
#include "db/pool.h"
#include "hotel/v1/changes.pb.h"

namespace hotel::changes {

// Changes read in one snapshot, with the log's bounds at that moment.
struct ChangePage {
  std::vector<ChangeRecord> changes;
  int64_t head = 0;            // newest position handed out; everything up to it is committed
  int64_t pruned_through = 0;  // every position up to it was pruned
  bool after_known = true;     // the log could have handed out `after` (list_changes.sql)
  uint64_t wal_position = 0;   // at or past the commit of every change up to head (list_changes.sql)
};

// One sequencer run (sequence_changes.sql).
struct SequencerRun {
  int64_t moved = 0;          // changes it moved into the log; -1: another server holds the sequencer
  int64_t head = 0;           // the log's head before it ran
  uint64_t wal_position = 0;  // the primary's WAL position, at or past every change up to head
};

class ChangeRepository {
 public:
  explicit ChangeRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // Up to limit changes with after < seq <= min(upto, head) that match filter, oldest first, with
  // what view needs (ToChangeProto).
  absl::StatusOr<ChangePage> Read(int64_t after, int64_t upto, const ChangeFilter& filter, int limit,
                                  hotel::v1::ChangeView view);
  // The newest position handed out (everything up to it has committed).
  absl::StatusOr<int64_t> Head();
  // ListChanges: CURSOR_EXPIRED for a pruned or unknown cursor; next_cursor also on an empty page.
  absl::Status List(const ChangeQuery& query, hotel::v1::ListChangesResponse* out);
  // One sequencer run, of at most a batch of changes.
  absl::StatusOr<SequencerRun> Sequence();
  // Deletes up to batch changes older than retention; how many.
  absl::StatusOr<int64_t> Prune(absl::Duration retention, int batch);

 private:
  db::ConnectionPool& pool_;
};

}  // namespace hotel::changes
