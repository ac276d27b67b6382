// Exchange-to-subscriber latency: N clients send "watch\n" to btcpriced, which streams trades
// from the fake exchange's `clock` behaviour, whose prices carry the moment each trade was
// sent (114000 + wall-clock microseconds mod 10^8, over 10^6). For every line after the first,
// lag = arrival - sent; prints count, p50, p99 and max in ms. Usage: streamlag SOCKET CLIENTS SECONDS
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

static long long wall_us(void) { struct timespec t; clock_gettime(CLOCK_REALTIME, &t); return t.tv_sec * 1000000LL + t.tv_nsec / 1000; }
static double mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

typedef struct { char buf[8192]; size_t len; int lines; } client_t;

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: streamlag SOCKET CLIENTS SECONDS\n"); return 64; }
    int n = atoi(argv[2]); double seconds = atof(argv[3]);
    int ep = open_watchers(argv[1], n);
    if (ep < 0) return 1;
    client_t *clients = calloc(n, sizeof *clients);
    size_t cap = 1 << 20, count = 0; double *lags = malloc(cap * sizeof *lags);
    double end = mono() + seconds; struct epoll_event events[256];
    while (mono() < end) {
        int k = epoll_wait(ep, events, 256, 100);
        for (int e = 0; e < k; e++) {
            int i = (int)(events[e].data.u64 >> 32), fd = (int)(uint32_t)events[e].data.u64;
            client_t *c = &clients[i];
            ssize_t r = read(fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
            long long arrived = wall_us() % 100000000LL;
            if (r <= 0) { epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL); close(fd); continue; }
            c->len += (size_t)r; c->buf[c->len] = 0;
            char *start = c->buf, *nl;
            while ((nl = strchr(start, '\n'))) {
                *nl = 0;
                char *p = strstr(start, "\"price\":\"");
                if (c->lines++ > 0 && p) {
                    long whole = 0, micros = 0; char digits[8] = "";
                    // The daemon prints exact decimals without trailing zeros: pad to 6 digits.
                    int got = sscanf(p + 9, "%ld.%6[0-9]", &whole, digits);
                    if (got >= 1 && whole >= 114000) {
                        for (int d = 0; d < 6; d++) micros = micros * 10 + (digits[d] ? digits[d] - '0' : 0);
                        if (got == 1) micros = 0;
                        long long sent = (long long)(whole - 114000) * 1000000LL + micros;
                        long long lag = (arrived - sent + 100000000LL) % 100000000LL;
                        if (count < cap) lags[count++] = lag / 1000.0;
                    }
                }
                start = nl + 1;
            }
            c->len = strlen(start); memmove(c->buf, start, c->len + 1);
        }
    }
    if (count == 0) { printf("no lines received\n"); return 1; }
    qsort(lags, count, sizeof *lags, cmp);
    printf("clients=%d lines=%zu p50=%.2fms p99=%.2fms max=%.2fms\n", n, count, lags[count / 2], lags[(size_t)(count * 0.99)], lags[count - 1]);
    return 0;
}
