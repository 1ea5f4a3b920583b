#include "kernels/device_peaks.h"

#include "core/backend/peak_rates.h"

namespace pl {

void fill_peaks(DeviceInfo& d) {
  if (auto part = peak::part_for_device(d.name, d.cores)) d.peak_part = std::string((*part)->name);
  else d.peak_note = part.error();
}

}  // namespace pl
