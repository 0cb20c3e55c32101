/* The smallest gpuopt consumer: prints the library version and tries to create a context.
 * Exits 0 when the context was created or there is no device (GPUOPT_ERROR_NO_DEVICE), 1 for
 * anything else. */
#include <stdio.h>

#include "gpuopt.h"

int main(void) {
  gpuopt_context_t ctx = NULL;
  gpuopt_status_t st;
  char msg[512] = "";

  printf("gpuopt %s (library %d, header %d)\n", gpuopt_version_string(), gpuopt_version(),
         GPUOPT_VERSION);
  if (gpuopt_version() / 10000 != GPUOPT_VERSION_MAJOR) {
    printf("major version mismatch between header and library\n");
    return 1;
  }

  st = gpuopt_context_create(0, &ctx);
  if (st != GPUOPT_SUCCESS) gpuopt_last_error_message(msg, sizeof msg, NULL);
  printf("gpuopt_context_create: %s%s%s\n", gpuopt_status_name(st), msg[0] ? ": " : "", msg);
  if (st == GPUOPT_SUCCESS) return gpuopt_context_destroy(ctx) == GPUOPT_SUCCESS ? 0 : 1;
  return st == GPUOPT_ERROR_NO_DEVICE ? 0 : 1;
}
