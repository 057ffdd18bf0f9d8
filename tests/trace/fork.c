/*
 * A traced process that forks: the child's trace lines carry the child's own thread id
 * (not the parent's cached one) and its calls are still traced. Prints "child <pid>".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda.h>

int main(void)
{
    int v = 0;
    cuDriverGetVersion(&v);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        cuDriverGetVersion(&v);
        _exit(v == 13000 ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("child %d\n", (int)child);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
