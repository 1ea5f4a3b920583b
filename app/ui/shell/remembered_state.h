// What the window remembers (settings.h's three files), written as it changes and not only at
// close: each file whose text differs from what was last written goes to disk atomically on a
// worker thread, and a failure is handed to the frame loop to show under the header -- a window
// started from a desktop has no terminal to print it on, and a save at close has no window left.
#pragma once

#include <future>
#include <optional>
#include <string>

#include "core/util/expected.h"

namespace pl::ui {

class RememberedState {
 public:
  struct Texts {  // the three files as they would be written now ("" for an ini: none yet)
    std::string settings, setup, ini;
  };

  // Remembers into `dir` (the config folder), whose files as they are now count as written: one
  // is written again when its text differs.
  explicit RememberedState(std::string dir);
  RememberedState(const RememberedState&) = delete;
  RememberedState& operator=(const RememberedState&) = delete;
  ~RememberedState();  // waits for a save in flight

  // Starts writing, off this thread, each file whose text differs from what was last tried (an
  // empty text is never written); false when none does or a save is still in flight.
  bool save_changed(const Texts& now);
  bool saving() const;
  // A finished save's failure ("cannot write .../settings.json: ..."), handed out once.
  std::optional<std::string> take_failure();
  // At close: waits for a save in flight, then writes here each file that differs from what was
  // last written (a failed one is tried again).
  Status save_changed_now(const Texts& now);

 private:
  struct Outcome {
    Texts written;  // the texts on disk afterwards, as far as this saver knows
    std::string failure;
  };
  static Outcome write(const std::string& dir, const Texts& now, Texts written);
  void collect();  // a finished save's outcome into written_ and failure_

  std::string dir_;
  Texts written_;  // on disk
  Texts tried_;    // last asked for: a file that failed is not tried again until it changes
  std::future<Outcome> in_flight_;
  std::optional<std::string> failure_;
};

}  // namespace pl::ui
