// Connect/query/close load against a Unix socket: N client threads for a fixed time, one
// request per connection, as btcctl and shell prompts do. Prints throughput and p50/p99.
// Usage: loadgen SOCKET CLIENTS SECONDS [REQUEST]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *path, *request = "price\n";
static double seconds;
typedef struct { double *lat; size_t n, cap; size_t errors; } result_t;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static int query(void) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { if (fd >= 0) close(fd); return -1; }
    size_t len = strlen(request);
    if (write(fd, request, len) != (ssize_t)len) { close(fd); return -1; }
    char buf[1024]; ssize_t r, total = 0;
    while ((r = read(fd, buf, sizeof buf)) > 0) total += r;
    close(fd);
    return total > 0 ? 0 : -1;
}

static void *worker(void *arg) {
    result_t *res = arg;
    double end = now() + seconds;
    while (now() < end) {
        double t0 = now();
        if (query() != 0) { res->errors++; continue; }
        if (res->n == res->cap) { res->cap = res->cap ? res->cap * 2 : 4096; res->lat = realloc(res->lat, res->cap * sizeof(double)); }
        res->lat[res->n++] = now() - t0;
    }
    return NULL;
}

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: loadgen SOCKET CLIENTS SECONDS [REQUEST]\n"); return 2; }
    path = argv[1]; int clients = atoi(argv[2]); seconds = atof(argv[3]);
    if (argc > 4) request = argv[4];
    pthread_t threads[clients]; result_t results[clients];
    memset(results, 0, sizeof results);
    double start = now();
    for (int i = 0; i < clients; i++) pthread_create(&threads[i], NULL, worker, &results[i]);
    size_t total = 0, errors = 0;
    for (int i = 0; i < clients; i++) { pthread_join(threads[i], NULL); total += results[i].n; errors += results[i].errors; }
    double elapsed = now() - start;
    double *all = malloc((total ? total : 1) * sizeof(double)); size_t k = 0;
    for (int i = 0; i < clients; i++) { memcpy(all + k, results[i].lat, results[i].n * sizeof(double)); k += results[i].n; }
    qsort(all, total, sizeof(double), cmp);
    printf("clients=%d requests=%zu errors=%zu throughput=%.0f/s p50=%.1fus p99=%.1fus\n", clients, total, errors,
           total / elapsed, total ? all[total / 2] * 1e6 : 0, total ? all[(size_t)(total * 0.99)] * 1e6 : 0);
    return 0;
}
