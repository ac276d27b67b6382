// Start-up cost of query clients: runs each command RUNS times, interleaved so they share the
// machine's noise, with stdin from INPUT and stdout to /dev/null; prints the median wall time
// from fork to exit and the ratio to the first command (the reference).
// Usage: spawnbench RUNS INPUT -- CMD ARGS... -- CMD ARGS... [-- ...]
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: spawnbench RUNS INPUT -- CMD... [-- CMD...]\n"); return 2; }
    int runs = atoi(argv[1]); const char *input = argv[2];
    char **cmds[16]; int ncmd = 0;
    for (int i = 3; i < argc; i++) if (strcmp(argv[i], "--") == 0 && i + 1 < argc && ncmd < 16) { argv[i] = NULL; cmds[ncmd++] = &argv[i + 1]; }
    double *t = calloc((size_t)runs * ncmd, sizeof(double)); int failures[16] = {0};
    for (int r = 0; r < runs; r++) {
        for (int c = 0; c < ncmd; c++) {
            double t0 = now();
            pid_t pid = fork();
            if (pid == 0) {
                int in = open(input, O_RDONLY), out = open("/dev/null", O_WRONLY);
                dup2(in, 0); dup2(out, 1);
                execvp(cmds[c][0], cmds[c]); _exit(127);
            }
            int status; waitpid(pid, &status, 0);
            t[c * runs + r] = now() - t0;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failures[c]++;
        }
    }
    double reference = 0;
    for (int c = 0; c < ncmd; c++) {
        qsort(t + c * runs, runs, sizeof(double), cmp);
        double median = t[c * runs + runs / 2], p90 = t[c * runs + runs * 9 / 10], p99 = t[c * runs + runs * 99 / 100];
        if (c == 0) reference = median;
        printf("%-40s median %6.3f ms  p90 %6.3f ms  p99 %6.3f ms  ratio %.2f  failures %d\n", cmds[c][0], median * 1e3, p90 * 1e3, p99 * 1e3, median / reference, failures[c]);
    }
    return 0;
}
