// Issues in PostgreSQL: creates (idempotent by request_id), lists, detail with timeline, and
// updates that write the issue, its timeline entries and its room's out-of-order state in one
// transaction under a row lock.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "db/existence.h"
#include "db/pool.h"
#include "hotel/v1/maintenance.pb.h"
#include "issues/issue_request.h"
#include "issues/issue_state_machine.h"  // IsOpenStatus, for the areas that count open issues

namespace hotel::issues {

class IssueRepository {
 public:
  explicit IssueRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND / EQUIPMENT_NOT_FOUND for unknown references.
  absl::Status Create(const NewIssue& issue, hotel::v1::Issue* out);
  absl::Status List(const IssueListQuery& query, hotel::v1::ListIssuesResponse* out);
  // NOT_FOUND ISSUE_NOT_FOUND.
  absl::Status Get(absl::string_view id, hotel::v1::Issue* out);
  // The issues of ids in their order, as lists show them (no timeline), in one statement;
  // NOT_FOUND ISSUE_NOT_FOUND naming every id that does not exist.
  absl::Status BatchGet(const std::vector<std::string>& ids, hotel::v1::BatchGetIssuesResponse* out);
  // See PlanIssueUpdate for the errors; if_match is the If-Match header ("" when absent).
  absl::Status Update(absl::string_view id, const hotel::v1::Issue& patch, const std::vector<std::string>& mask,
                      absl::string_view if_match, hotel::v1::Issue* out);

 private:
  db::ConnectionPool& pool_;
};

// Loads one issue (without timeline); NOT_FOUND ISSUE_NOT_FOUND. for_update locks the row.
absl::Status LoadIssue(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, bool for_update,
                       hotel::v1::Issue* out);
void LoadTimeline(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, hotel::v1::Issue* out);

// One room's open issues (newest first) or, with open false, its closed ones (latest update
// first), at most limit.
void ReadRoomIssues(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                    absl::string_view number, bool open, int limit,
                    google::protobuf::RepeatedPtrField<hotel::v1::Issue>* out);

}  // namespace hotel::issues
