/* Linked against libnvrtc.so.13 (DT_NEEDED, found through its RUNPATH): prints NVRTC's
 * version and which libnvrtc files the process mapped. */
#include <stdio.h>
#include <string.h>

int nvrtcVersion(int *major, int *minor);

int main(void)
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != 0)
        return 1;
    printf("version %d %d\nmaps", major, minor);
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char *path = strchr(line, '/');
        if (path != NULL && strstr(path, "libnvrtc") != NULL) {
            path[strcspn(path, "\n")] = '\0';
            printf(" %s", path);
        }
    }
    printf("\n");
    return 0;
}
