// Host-only helper of the CUDA backend, compiled as C++ (core's peak table is not device code).
#pragma once

#include "core/backend/backend.h"

namespace pl {

// Sets d.peak_part from the published peak table when the device's name and SM count match an
// entry, else d.peak_note with the reason.
void fill_peaks(DeviceInfo& d);

}  // namespace pl
