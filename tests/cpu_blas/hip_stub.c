/* Test-only stand-in for the CPU device's libamdhip64.so.7, used until the real runtime
 * (pyshim.build_cpu) is built: the BLAS libraries need only stream synchronisation, and
 * with no worker threads every stream is always idle. It counts synchronisations so tests
 * can check that each routine waits for its handle's stream. */
#include <stddef.h>

typedef int hipError_t;
typedef struct ihipStream_t *hipStream_t;

static long sync_count;
static hipStream_t last_stream;

__attribute__((visibility("default"))) hipError_t hipStreamSynchronize(hipStream_t s)
{
    sync_count++;
    last_stream = s;
    return 0;
}

__attribute__((visibility("default"))) hipError_t hipDeviceSynchronize(void)
{
    sync_count++;
    return 0;
}

__attribute__((visibility("default"))) long pyshim_test_hip_sync_count(void)
{
    return sync_count;
}

__attribute__((visibility("default"))) hipStream_t pyshim_test_hip_last_stream(void)
{
    return last_stream;
}
