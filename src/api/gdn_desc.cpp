// See gdn_desc.hpp.
#include "api/gdn_desc.hpp"

#include <cinttypes>
#include <cstddef>

#include "runtime/error.hpp"
#include "runtime/versioned_struct.hpp"

namespace gpuopt {

gpuopt_status_t gdn_read_desc(const char* fn, const gpuopt_gdn_desc_t* desc, GdnShape* out) {
  // Every field of the first version of the descriptor is needed.
  gpuopt_gdn_desc_t& d = out->d;
  d = gpuopt_gdn_desc_t{};
  GPUOPT_TRY(read_versioned(fn, "desc", "gpuopt_gdn_desc_t", desc, sizeof(gpuopt_gdn_desc_t), &d));
  struct Field {
    const char* name;
    std::int64_t value, min;
  };
  const Field fields[] = {{"desc->batch", d.batch, 0},
                          {"desc->channels", d.channels, 1},
                          {"desc->height", d.height, 0},
                          {"desc->width", d.width, 0}};
  for (const Field& f : fields)
    if (f.value < f.min)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is %" PRId64 "; expected >= %" PRId64,
                  f.name, f.value, f.min);
  if (d.inverse != 0 && d.inverse != 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc->inverse is %d; expected 0 or 1",
                d.inverse);
  if (d.compute != GPUOPT_COMPUTE_DEFAULT && d.compute != GPUOPT_COMPUTE_F32 &&
      d.compute != GPUOPT_COMPUTE_TF32)
    return fail(GPUOPT_ERROR_UNSUPPORTED, fn,
                "desc->compute is %d; GDN takes GPUOPT_COMPUTE_DEFAULT, _F32 or _TF32",
                static_cast<int>(d.compute));
  // N * C * H * W f32 elements, and gamma's C * C, must be addressable in bytes.
  const std::int64_t limit = INT64_MAX / static_cast<std::int64_t>(sizeof(float));
  std::int64_t total = d.channels;
  for (std::int64_t f : {d.height, d.width, d.batch}) {
    if (f != 0 && total > limit / f)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "the tensor of desc->batch %" PRId64 " x channels %" PRId64 " x height %" PRId64
                  " x width %" PRId64 " overflows the address space",
                  d.batch, d.channels, d.height, d.width);
    total *= f;
  }
  if (d.channels > limit / d.channels)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->channels is %" PRId64 "; gamma (channels^2) overflows the address space",
                d.channels);
  out->pixels = d.height * d.width;
  out->total = total;
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
