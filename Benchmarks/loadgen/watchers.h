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

// Returns the epoll descriptor; each event's data is (client index << 32) | descriptor. -1 on error.
static int open_watchers(const char *path, int n) {
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
