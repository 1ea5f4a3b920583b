// The panels' background run (app/ui/tasks/cancellable_run.h): the frame loop never waits for a run in
// flight. A run that cannot stop yet (a step without a cancel check, here one waiting for the
// test to let it go) is asked to stop, and start_when_idle() returns at once -- were it to wait,
// this test would hang until ctest's timeout fails it. Once that run has stopped, the next one
// starts; the outcome of the cancelled run does not take the place of the new run's.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "app/ui/tasks/background_task.h"
#include "app/ui/tasks/cancellable_run.h"

namespace pl::ui {
namespace {

using TextRun = CancellableRun<std::string>;
using Progress = std::function<void(double)>;

TEST(CancellableRun, StartWhenIdleAsksTheRunInFlightToStopWithoutWaiting) {
  TextRun run;
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  bool saw_cancel = false;
  run.start([&](const Progress&, const std::atomic<bool>* cancel) -> Expected<std::string> {
    entered.set_value();
    released.wait();  // a step that checks nothing until it ends
    saw_cancel = cancel->load();
    return Error{"cancelled"};
  });
  entered.get_future().wait();
  const TextRun::Work second = [](const Progress&, const std::atomic<bool>*) -> Expected<std::string> {
    return std::string("second");
  };
  EXPECT_FALSE(run.start_when_idle(second));  // returns while the first still runs
  EXPECT_TRUE(run.running());
  release.set_value();
  while (run.running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(saw_cancel);
  EXPECT_TRUE(run.start_when_idle(second));  // stopped: the next run starts
  std::unique_ptr<Expected<std::string>> outcome;
  while (!(outcome = run.take())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(outcome->ok()) << outcome->error();  // the new run's, not the cancelled one's
  EXPECT_EQ(outcome->value(), "second");
}

TEST(CancellableRun, AFinishedRunsOutcomeIsTakenOnce) {
  TextRun run;
  EXPECT_TRUE(run.start_when_idle([](const Progress& progress, const std::atomic<bool>*) -> Expected<std::string> {
    progress(1.0);
    return std::string("done");
  }));
  std::unique_ptr<Expected<std::string>> outcome;
  while (!(outcome = run.take())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(outcome->value(), "done");
  EXPECT_EQ(run.take(), nullptr);
  EXPECT_FALSE(run.running());
  EXPECT_EQ(run.progress(), 1.0);
}

// A finished run whose outcome is not taken is still pending: a panel whose outcome waits to be
// shown is not idle (a screenshot or a test's frames would stop before it is drawn).
TEST(CancellableRun, AnOutcomeNotYetTakenIsPending) {
  TextRun run;
  EXPECT_FALSE(run.pending());
  EXPECT_TRUE(run.start_when_idle(
      [](const Progress&, const std::atomic<bool>*) -> Expected<std::string> { return std::string("done"); }));
  while (run.running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(run.pending());
  ASSERT_NE(run.take(), nullptr);
  EXPECT_FALSE(run.pending());
}

}  // namespace
}  // namespace pl::ui

namespace pl::ui {
namespace {

// A run that throws (std::bad_alloc past the memory check) ends with its error: an exception that
// escaped the worker thread would reach std::terminate and close the window.
TEST(CancellableRun, ARunThatThrowsEndsWithItsError) {
  TextRun run;
  run.start([](const Progress&, const std::atomic<bool>*) -> Expected<std::string> { throw std::bad_alloc(); });
  std::unique_ptr<Expected<std::string>> outcome;
  while (!(outcome = run.take())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_FALSE(outcome->ok());
  EXPECT_EQ(outcome->error().rfind("out of memory: ", 0), 0u) << outcome->error();
  EXPECT_FALSE(run.running());
}

TEST(BackgroundTask, ATaskThatThrowsEndsWithItsError) {
  BackgroundTask task;
  ASSERT_TRUE(task.start([]() -> std::string { throw std::runtime_error("disk gone"); }));
  std::optional<std::string> line;
  while (!(line = task.take())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(*line, "error: unexpected error: disk gone");
  EXPECT_FALSE(task.running());
}

}  // namespace
}  // namespace pl::ui
