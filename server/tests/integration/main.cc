#include <gtest/gtest.h>

#include "common/crash_report.h"
#include "test_database.h"

int main(int argc, char** argv) {
  hotel::InstallCrashReport(argv[0]);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
