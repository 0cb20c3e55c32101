// The GDN descriptor check shared by the three gdn entry points (host only, unit-tested without a
// device): struct_size, sizes, inverse, compute, and the element counts' overflow.
#pragma once
#include <cstdint>

#include "gpuopt.h"

namespace gpuopt {

// The validated problem shape.
struct GdnShape {
  gpuopt_gdn_desc_t d{};
  std::int64_t pixels = 0;  // H * W
  std::int64_t total = 0;   // N * C * H * W
};

// Copies and validates *desc into out; on failure a status and a message naming fn and the
// field.
gpuopt_status_t gdn_read_desc(const char* fn, const gpuopt_gdn_desc_t* desc, GdnShape* out);

}  // namespace gpuopt
