// One small class per panel (after ImHex's views): a name and drawContent().
// Panels read results from core; they never own arithmetic.
#pragma once

namespace pl::ui {

class Panel {
 public:
  virtual ~Panel() = default;
  virtual const char* name() const = 0;  // tab label, also the --panel name (lower case)
  virtual void draw_content() = 0;
  // Work still running off the UI thread (a screenshot waits for it).
  virtual bool busy() const { return false; }
  // Called on frames the panel's tab is not showing (a live panel pauses its work).
  virtual void hidden() {}
  // The window is closing: asks every cancellable run off the UI thread to stop, without
  // waiting, so that each panel's destructor, which joins its runs, waits only for the one step
  // under way rather than in turn (a cancel is seen at a run's next check). Exports and the
  // accumulation probe, which have no cancel, are waited for whole.
  virtual void stop_work() {}
};

}  // namespace pl::ui
