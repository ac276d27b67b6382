// Watch fan-out latency: N clients send "watch\n" and read every line; for each line (told
// apart by its text) it records when each client got it, then prints the p50/p99/max of
// "how long after the first client did each client get the line". The line every client gets
// first (the current status) is skipped. Usage: fanout SOCKET CLIENTS SECONDS
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "watchers.h"

#define MAX_LINES 4096
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

typedef struct { char buf[8192]; size_t len; int lines; } client_t;
static char *texts[MAX_LINES]; static double first[MAX_LINES]; static int ntexts;
static double *lags; static size_t nlags, caplags;

static int line_index(const char *text) {
    for (int i = ntexts - 1; i >= 0 && i >= ntexts - 64; i--) if (strcmp(texts[i], text) == 0) return i;
    if (ntexts == MAX_LINES) return -1;
    texts[ntexts] = strdup(text); first[ntexts] = now();
    return ntexts++;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: fanout SOCKET CLIENTS SECONDS\n"); return 64; }
    int n = atoi(argv[2]); double seconds = atof(argv[3]);
    int ep = open_watchers(argv[1], n);
    int http = strncmp(argv[1], "http://", 7) == 0;
    if (ep < 0) return 1;
    client_t *clients = calloc(n, sizeof *clients);
    double end = now() + seconds; struct epoll_event events[256]; size_t closed = 0;
    while (now() < end) {
        int k = epoll_wait(ep, events, 256, 100);
        for (int e = 0; e < k; e++) {
            int i = (int)(events[e].data.u64 >> 32), fd = (int)(uint32_t)events[e].data.u64;
            client_t *c = &clients[i];
            ssize_t r = read(fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
            if (r <= 0) { epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL); close(fd); closed++; continue; }
            c->len += (size_t)r; c->buf[c->len] = 0;
            char *start = c->buf, *nl;
            while ((nl = strchr(start, '\n'))) {
                *nl = 0;
                if (http && strncmp(start, "data: ", 6) != 0) { start = nl + 1; continue; }
                if (c->lines++ > 0) {
                    int idx = line_index(start);
                    if (idx >= 0) {
                        if (nlags == caplags) { caplags = caplags ? caplags * 2 : 65536; lags = realloc(lags, caplags * sizeof *lags); }
                        lags[nlags++] = now() - first[idx];
                    }
                }
                start = nl + 1;
            }
            c->len = strlen(start); memmove(c->buf, start, c->len);
        }
    }
    qsort(lags, nlags, sizeof *lags, cmp);
    double p = nlags ? 1e3 : 0;
    printf("fanout: %d watchers, %d lines, %zu deliveries, %zu streams closed; lag behind the first watcher to get a line: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
           n, ntexts, nlags, closed, nlags ? lags[nlags / 2] * p : 0, nlags ? lags[(size_t)(nlags * 0.99)] * p : 0, nlags ? lags[nlags - 1] * p : 0);
    return 0;
}
