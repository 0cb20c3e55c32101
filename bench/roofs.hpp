// Hardware roofs measured in the same run as the rows they judge.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "results.hpp"
#include "timer.hpp"

namespace bench {

// Device-to-device cudaMemcpyAsync between two buffers of `bytes` (2 GiB by default, halved
// while device memory is short), counting bytes read plus bytes written; median of repeats.
// Never throws: a failure is reported in Roofs::copy_error.
void measure_copy_roof(cudaStream_t s, const TimerConfig& cfg, Roofs* roofs,
                       std::size_t bytes = std::size_t{2} << 30);

}  // namespace bench
