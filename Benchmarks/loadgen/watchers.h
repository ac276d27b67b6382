// Shared by the watch benchmarks: N clients on one epoll set, each having sent "watch\n".
#ifndef WATCHERS_H
#define WATCHERS_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdlib.h>

// `http://HOST:PORT/PATH`: N clients on one epoll set, each having sent `GET /PATH` (the
// daemon's event stream). Same return as open_watchers.
static int open_http_watchers(const char *url, int n) {
    char host[64] = {0}, path[256] = "/"; int port = 80;
    if (sscanf(url, "http://%63[^:/]:%d%255s", host, &port, path) < 2) { fprintf(stderr, "bad url %s\n", url); return -1; }
    char request[512];
    int length = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host);
    struct rlimit lim; getrlimit(RLIMIT_NOFILE, &lim); lim.rlim_cur = lim.rlim_max; setrlimit(RLIMIT_NOFILE, &lim);
    int ep = epoll_create1(0);
    for (int i = 0; i < n; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
        inet_pton(AF_INET, host, &a.sin_addr);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 || write(fd, request, length) != length) { perror("connect"); return -1; }
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ((uint64_t)i << 32) | (uint32_t)fd };
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    return ep;
}

// Returns the epoll descriptor; each event's data is (client index << 32) | descriptor. -1 on error.
static int open_watchers(const char *path, int n) {
    if (strncmp(path, "http://", 7) == 0) return open_http_watchers(path, n);
    struct rlimit lim; getrlimit(RLIMIT_NOFILE, &lim); lim.rlim_cur = lim.rlim_max; setrlimit(RLIMIT_NOFILE, &lim);
    int ep = epoll_create1(0);
    for (int i = 0; i < n; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        strncpy(a.sun_path, path, sizeof a.sun_path - 1);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 || write(fd, "watch\n", 6) != 6) { perror("connect"); return -1; }
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ((uint64_t)i << 32) | (uint32_t)fd };
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    return ep;
}
#endif
