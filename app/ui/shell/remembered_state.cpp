#include "app/ui/shell/remembered_state.h"

#include <chrono>
#include <filesystem>
#include <tuple>
#include <utility>

#include "core/io/checked_write.h"
#include "core/io/file_read.h"

namespace pl::ui {

namespace {

constexpr const char* kSettingsFile = "settings.json";
constexpr const char* kSetupFile = "last-setup.json";
constexpr const char* kIniFile = "imgui.ini";

std::string text_of(const std::string& path) {  // "" when missing or unreadable: written afresh
  auto read = io::read_file(path, size_t{16} << 20);
  return read ? std::string(read->begin(), read->end()) : std::string();
}

}  // namespace

RememberedState::RememberedState(std::string dir) : dir_(std::move(dir)) {
  written_ = {text_of(dir_ + "/" + kSettingsFile), text_of(dir_ + "/" + kSetupFile), text_of(dir_ + "/" + kIniFile)};
  tried_ = written_;
}

RememberedState::~RememberedState() {
  if (in_flight_.valid()) in_flight_.wait();
}

RememberedState::Outcome RememberedState::write(const std::string& dir, const Texts& now, Texts written) {
  Outcome out;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    out.written = std::move(written);
    out.failure = "cannot create " + dir + ": " + ec.message();
    return out;
  }
  for (const auto& [name, text, on_disk] :
       {std::tuple{kSettingsFile, &now.settings, &written.settings}, std::tuple{kSetupFile, &now.setup, &written.setup},
        std::tuple{kIniFile, &now.ini, &written.ini}}) {
    if (*text == *on_disk || text->empty()) continue;  // (empty: nothing to remember yet)
    if (Status ok = io::write_file_atomic(dir + "/" + name, *text); !ok) {
      out.failure += (out.failure.empty() ? "" : "; ") + ok.error();
      continue;
    }
    *on_disk = *text;
  }
  out.written = std::move(written);
  return out;
}

bool RememberedState::saving() const {
  return in_flight_.valid() && in_flight_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

void RememberedState::collect() {
  if (!in_flight_.valid()) return;
  Outcome done = in_flight_.get();
  written_ = std::move(done.written);
  if (!done.failure.empty()) failure_ = std::move(done.failure);
}

bool RememberedState::save_changed(const Texts& now) {
  if (saving()) return false;
  collect();
  if (now.settings == tried_.settings && now.setup == tried_.setup && now.ini == tried_.ini) return false;
  tried_ = now;
  in_flight_ = std::async(std::launch::async, &RememberedState::write, dir_, now, written_);
  return true;
}

std::optional<std::string> RememberedState::take_failure() {
  if (!saving()) collect();
  return std::exchange(failure_, std::nullopt);
}

Status RememberedState::save_changed_now(const Texts& now) {
  if (in_flight_.valid()) in_flight_.wait();
  collect();
  failure_.reset();
  tried_ = now;
  Outcome done = write(dir_, now, written_);
  written_ = std::move(done.written);
  if (!done.failure.empty()) return Error{done.failure};
  return {};
}

}  // namespace pl::ui
