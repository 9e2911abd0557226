// Equipment and schedules against a real PostgreSQL: completion arithmetic, concurrent and
// repeated completion (one record), idempotent creates, the overdue filter.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/errors.h"
#include "equipment/equipment_repository.h"
#include "issues/issue_repository.h"
#include "rooms/room_repository.h"
#include "schedules/due_dates.h"
#include "schedules/schedule_repository.h"
#include "stats/stats_repository.h"
#include "test_database.h"

namespace hotel {
namespace {

// The maintenance areas these tests drive together.
using namespace hotel::equipment;
using namespace hotel::issues;
using namespace hotel::schedules;
using namespace hotel::stats;

using namespace hotel::v1;

std::string Scalar(const std::string& sql) {
  std::string value;
  auto status = testing::TestDatabase::Get().pool().Run(db::Access::kRead, [&](db::Session& s) {
    pqxx::nontransaction txn(s.connection());
    auto row = txn.exec1(sql);
    value = row[0].is_null() ? "" : row[0].c_str();
    return absl::OkStatus();
  });
  EXPECT_TRUE(status.ok()) << status;
  return value;
}

// Today in Berlin as PostgreSQL sees it.
std::string BerlinToday(int plus_days = 0) {
  return Scalar(
      absl::StrCat("SELECT to_char((now() AT TIME ZONE 'Europe/Berlin')::date + ", plus_days, ", 'YYYY-MM-DD')"));
}

// A request id unique to this call, so the tests can be repeated on one database.
std::string RunId(const std::string& prefix) { return absl::StrCat(prefix, "-", absl::ToUnixNanos(absl::Now())); }

class ScheduleRepositoryTest : public ::testing::Test {
 protected:
  ScheduleRepositoryTest()
      : schedules_(testing::TestDatabase::Get().pool()), equipment_(testing::TestDatabase::Get().pool()) {}

  Schedule CreateSchedule(const std::string& room, const std::string& starts_on, Schedule::IntervalUnit unit, int count,
                          Schedule::Basis basis = Schedule::SCHEDULED_DATE, const std::string& request_id = "") {
    CreateScheduleRequest request;
    request.set_property_id("BER1");
    request.set_room_number(room);
    request.set_task(absl::StrCat("Task in ", room));
    request.set_interval_unit(unit);
    request.set_interval_count(count);
    request.set_starts_on(starts_on);
    request.set_basis(basis);
    request.set_request_id(request_id);
    auto in = ValidateCreateSchedule(request);
    EXPECT_TRUE(in.ok()) << in.status();
    Schedule out;
    absl::Status status = schedules_.Create(*in, &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  absl::Status Complete(const Schedule& schedule, ApplyScheduleActionResponse* out,
                        const std::string& expected_due_on = "", const std::string& request_id = "",
                        const std::string& completed_at = "") {
    ApplyScheduleActionRequest request;
    request.set_id(schedule.id());
    request.set_action(ApplyScheduleActionRequest::COMPLETE);
    request.set_completed_by("it-test");
    request.set_expected_due_on(expected_due_on);
    request.set_request_id(request_id);
    if (!completed_at.empty()) {
      absl::Time t;
      std::string error;
      EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, completed_at, &t, &error)) << error;
      request.mutable_completed_at()->set_seconds(absl::ToUnixSeconds(t));
    }
    auto input = ValidateScheduleAction(request);
    EXPECT_TRUE(input.ok()) << input.status();
    return schedules_.Complete(schedule.id(), *input, out);
  }

  ScheduleRepository schedules_;
  EquipmentRepository equipment_;
};

TEST_F(ScheduleRepositoryTest, CompletingAdvancesByTheBasis) {
  const std::string today = BerlinToday();
  Schedule fixed = CreateSchedule("201", today, Schedule::MONTH, 1);
  EXPECT_EQ(fixed.next_due_on(), today);
  EXPECT_TRUE(fixed.active());
  EXPECT_FALSE(fixed.overdue());
  EXPECT_FALSE(fixed.has_last_completed_at());

  ApplyScheduleActionResponse done;
  ASSERT_TRUE(Complete(fixed, &done, today).ok());
  const auto day = *ParseDate(today);
  EXPECT_EQ(done.completion().due_on(), today);
  EXPECT_EQ(done.completion().completed_on(), today);
  EXPECT_FALSE(done.completion().late());
  EXPECT_EQ(done.schedule().next_due_on(), FormatDate(AddInterval(day, Schedule::MONTH, 1)));
  EXPECT_EQ(done.completion().next_due_on(), done.schedule().next_due_on());
  EXPECT_TRUE(done.schedule().has_last_completed_at());

  // Floating schedule, 10 days overdue: late by 10, next due a week after today.
  Schedule floating = CreateSchedule("201", BerlinToday(-10), Schedule::WEEK, 1, Schedule::COMPLETED_DATE);
  EXPECT_TRUE(floating.overdue());
  ApplyScheduleActionResponse late;
  ASSERT_TRUE(Complete(floating, &late).ok());
  EXPECT_TRUE(late.completion().late());
  EXPECT_EQ(late.completion().days_late(), 10);
  EXPECT_EQ(late.schedule().next_due_on(), BerlinToday(7));
  EXPECT_FALSE(late.schedule().overdue());
}

TEST_F(ScheduleRepositoryTest, MonthEndClampingInTheDatabase) {
  Schedule schedule = CreateSchedule("202", "2024-01-31", Schedule::MONTH, 1);
  ApplyScheduleActionResponse done;
  ASSERT_TRUE(Complete(schedule, &done, "2024-01-31", "", "2024-01-31T09:00:00Z").ok());
  EXPECT_EQ(done.schedule().next_due_on(), "2024-02-29");
  ASSERT_TRUE(Complete(schedule, &done, "2024-02-29", "", "2024-02-29T09:00:00Z").ok());
  EXPECT_EQ(done.schedule().next_due_on(), "2024-03-31");
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM schedule_completions WHERE schedule_id = '", schedule.id(), "'")),
            "2");
}

TEST_F(ScheduleRepositoryTest, ConcurrentCompletionsOfOneOccurrenceMakeOneRecord) {
  for (bool with_expected_due_on : {false, true}) {
    Schedule schedule = CreateSchedule("203", BerlinToday(-3), Schedule::DAY, 2);
    constexpr int kClients = 8;
    std::vector<absl::Status> results(kClients);
    std::vector<std::thread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&, i] {
        ApplyScheduleActionResponse out;
        results[i] = Complete(schedule, &out, with_expected_due_on ? schedule.next_due_on() : "");
      });
    }
    for (auto& t : clients) t.join();
    int ok = 0, already = 0;
    for (const auto& r : results) {
      if (r.ok()) ++ok;
      if (r.code() == absl::StatusCode::kAborted && ErrorReason(r) == "ALREADY_COMPLETED") ++already;
    }
    EXPECT_EQ(ok, 1) << with_expected_due_on;
    EXPECT_EQ(already, kClients - 1) << with_expected_due_on;
    EXPECT_EQ(
        Scalar(absl::StrCat("SELECT count(*) FROM schedule_completions WHERE schedule_id = '", schedule.id(), "'")),
        "1");
  }
}

TEST_F(ScheduleRepositoryTest, RetriedCompletionsWithARequestIdReturnTheFirstOne) {
  Schedule schedule = CreateSchedule("204", BerlinToday(-1), Schedule::WEEK, 1);
  const std::string retried = RunId("it-completion");
  const std::string concurrent = RunId("it-completion-concurrent");
  ApplyScheduleActionResponse first, retry;
  ASSERT_TRUE(Complete(schedule, &first, "", retried).ok());
  ASSERT_TRUE(Complete(schedule, &retry, "", retried).ok());
  EXPECT_EQ(retry.completion().id(), first.completion().id());
  EXPECT_EQ(retry.schedule().next_due_on(), first.schedule().next_due_on());

  // Concurrent duplicates of one request: every client gets the same completion.
  Schedule other = CreateSchedule("204", BerlinToday(-1), Schedule::WEEK, 1);
  constexpr int kClients = 8;
  std::vector<std::string> ids(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      ApplyScheduleActionResponse out;
      absl::Status status = Complete(other, &out, "", concurrent);
      EXPECT_TRUE(status.ok()) << status;
      ids[i] = out.completion().id();
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 1u);
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM schedule_completions WHERE request_id = '", concurrent, "'")),
            "1");
  // The same request_id for another schedule is another request.
  ApplyScheduleActionResponse reused;
  EXPECT_EQ(ErrorReason(Complete(schedule, &reused, "", concurrent)), "REQUEST_ID_REUSED");
}

TEST_F(ScheduleRepositoryTest, StaleExpectedDueDatesAndUnknownSchedules) {
  Schedule schedule = CreateSchedule("205", BerlinToday(), Schedule::DAY, 1);
  ApplyScheduleActionResponse out;
  EXPECT_EQ(ErrorReason(Complete(schedule, &out, "2001-01-01")), "DUE_DATE_MISMATCH");
  Schedule missing = schedule;
  missing.set_id("00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(ErrorReason(Complete(missing, &out)), "SCHEDULE_NOT_FOUND");
}

TEST_F(ScheduleRepositoryTest, OverdueFilterAndIdempotentCreate) {
  const std::string request_id = RunId("it-schedule");
  Schedule overdue = CreateSchedule("206", BerlinToday(-2), Schedule::MONTH, 1, Schedule::SCHEDULED_DATE, request_id);
  Schedule again = CreateSchedule("206", BerlinToday(-2), Schedule::MONTH, 1, Schedule::SCHEDULED_DATE, request_id);
  EXPECT_EQ(again.id(), overdue.id());
  Schedule upcoming = CreateSchedule("206", BerlinToday(5), Schedule::MONTH, 1);
  ListSchedulesRequest request;
  request.set_property_id("BER1");
  request.set_room_number("206");
  request.set_overdue(true);
  ListSchedulesResponse response;
  ASSERT_TRUE(schedules_.List(*ParseListSchedules(request), &response).ok());
  std::set<std::string> ids;
  for (const auto& s : response.data()) {
    EXPECT_TRUE(s.overdue());
    ids.insert(s.id());
  }
  EXPECT_TRUE(ids.count(overdue.id()));
  EXPECT_FALSE(ids.count(upcoming.id()));
  request.set_overdue(false);
  ListSchedulesResponse not_overdue;
  ASSERT_TRUE(schedules_.List(*ParseListSchedules(request), &not_overdue).ok());
  for (const auto& s : not_overdue.data()) EXPECT_FALSE(s.overdue());
}

TEST_F(ScheduleRepositoryTest, SchedulesPageThroughEveryRow) {
  ListSchedulesRequest request;
  request.set_page_size(37);
  std::set<std::string> seen;
  int rows = 0;
  for (int pages = 0; pages < 100; ++pages) {
    ListSchedulesResponse page;
    auto query = ParseListSchedules(request);
    ASSERT_TRUE(query.ok()) << query.status();
    ASSERT_TRUE(schedules_.List(*query, &page).ok());
    for (const auto& s : page.data()) seen.insert(s.id());
    rows += page.data_size();
    if (page.next_page_token().empty()) break;
    request.set_page_token(page.next_page_token());
  }
  EXPECT_EQ(static_cast<size_t>(rows), seen.size());
  EXPECT_EQ(std::to_string(rows), Scalar("SELECT count(*) FROM maintenance_schedules"));
}

TEST_F(ScheduleRepositoryTest, EquipmentIsListedCountedAndCreatedOnce) {
  CreateEquipmentRequest request;
  request.set_property_id("BER1");
  request.set_number("207");
  request.set_name("Safe");
  request.set_type("safe");
  request.set_installed_on("2024-01-01");
  request.set_request_id(RunId("it-equipment-1"));
  constexpr int kClients = 6;
  std::vector<std::string> ids(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      Equipment out;
      absl::Status status = equipment_.Create(*ValidateCreateEquipment(request), &out);
      EXPECT_TRUE(status.ok()) << status;
      ids[i] = out.id();
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 1u);

  ListEquipmentRequest list;
  list.set_property_id("BER1");
  list.set_number("207");
  ListEquipmentResponse response;
  ASSERT_TRUE(equipment_.List(*ParseListEquipment(list), &response).ok());
  ASSERT_GE(response.data_size(), 1);
  EXPECT_EQ(response.data(response.data_size() - 1).id(), ids[0]);
  EXPECT_EQ(response.data(response.data_size() - 1).status(), Equipment::OPERATIONAL);
  EXPECT_EQ(response.data(response.data_size() - 1).installed_on(), "2024-01-01");

  rooms::RoomRepository rooms(testing::TestDatabase::Get().pool());
  Room room;
  ASSERT_TRUE(rooms.GetRoom("BER1", "207", &room).ok());
  EXPECT_EQ(room.equipment_count(), response.data_size());

  list.set_number("999");
  ListEquipmentResponse none;
  EXPECT_EQ(ErrorReason(equipment_.List(*ParseListEquipment(list), &none)), "ROOM_NOT_FOUND");
}

}  // namespace
}  // namespace hotel
