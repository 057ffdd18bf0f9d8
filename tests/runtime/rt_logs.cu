// cudaLogs*: the driver's error log as the runtime reads it. A refused driver call logs a
// line naming itself: the registered callback gets it, cudaLogsDumpToMemory from an
// iterator taken before gives exactly that line and moves the iterator past it, and
// cudaLogsDumpToFile of the whole log holds it; an unregistered callback is not called
// again; bad arguments are refused. Self-checking; runs unchanged against NVIDIA's
// libcudart (linked with -lcuda). argv[1]: a file to dump to.
#include <cuda.h>
#include <stdlib.h>
#include <string.h>

#include "../include/runtime_check.h"

__global__ void k() {}

static int calls = 0;
static char last[2048];

static void on_log(void *data, cudaLogLevel level, char *message, size_t length)
{
    (void)level;
    ++*(int *)data;
    size_t n = length < sizeof last - 1 ? length : sizeof last - 1;
    memcpy(last, message, n);
    last[n] = '\0';
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    cudaFunction_t f = NULL;
    OK("func", cudaGetFuncBySymbol(&f, (const void *)k));
    cudaLogsCallbackHandle h = NULL;
    OK("register", cudaLogsRegisterCallback(on_log, &calls, &h));
    cudaLogIterator it = 0;
    OK("current", cudaLogsCurrent(&it, 0));
    char buf[8192];
    size_t size = sizeof buf;
    OK("empty dump", cudaLogsDumpToMemory(&it, buf, &size, 0));
    CHECK("nothing logged since the iterator", size == 0);

    CUresult r = cuFuncSetBlockShape((CUfunction)f, -1, 1, 1); // refused, and logged
    printf("refused call: %d, callback calls: %d\n", (int)r, calls);
    CHECK("the driver refused the call", r == CUDA_ERROR_INVALID_VALUE);
    CHECK("the callback got a line naming it", calls == 1 && strstr(last, "cuFuncSetBlockShape"));
    size = sizeof buf;
    OK("dump", cudaLogsDumpToMemory(&it, buf, &size, 0));
    printf("dumped %zu bytes\n", size);
    CHECK("the dump holds that line, newline-terminated",
          size > 0 && strstr(buf, "cuFuncSetBlockShape") && buf[size - 1] == '\n');
    size = sizeof buf;
    OK("dump again", cudaLogsDumpToMemory(&it, buf, &size, 0));
    CHECK("the iterator moved past it", size == 0);

    OK("dump to file", cudaLogsDumpToFile(NULL, argv[1], 0));
    FILE *fp = fopen(argv[1], "r");
    size_t got = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp)
        fclose(fp);
    buf[got] = '\0';
    CHECK("the file holds the whole log", strstr(buf, "cuFuncSetBlockShape") != NULL);

    OK("unregister", cudaLogsUnregisterCallback(h));
    cuFuncSetBlockShape((CUfunction)f, -1, 1, 1);
    CHECK("an unregistered callback is not called", calls == 1);
    cudaError_t e = cudaLogsCurrent(NULL, 0);
    printf("current(NULL): %s\n", cudaGetErrorName(e));
    CHECK("no place for the iterator", e == cudaErrorInvalidValue);
    size = sizeof buf;
    e = cudaLogsDumpToMemory(&it, NULL, &size, 0);
    CHECK("no buffer", e == cudaErrorInvalidValue);
    cudaGetLastError();
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
