// The reference for the socket server benchmark: a minimal single-threaded epoll server on a
// Unix socket that reads one request line and answers a fixed reply, then closes. No limits,
// no framing beyond "first LF": the ceiling btcpriced's server is compared against.
// With REFSERVER_PEERCRED=1 it also asks the kernel who connected (SO_PEERCRED), once per
// connection, as btcpriced does for each user's fair share: the same floor with that cost.
// Usage: refserver SOCKET REPLY
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: refserver SOCKET REPLY\n"); return 64; }
    const char *reply = argv[2];
    size_t reply_len = strlen(reply);
    const char *peercred = getenv("REFSERVER_PEERCRED");
    int ask_who = peercred != NULL && strcmp(peercred, "1") == 0;
    unsigned long asked = 0;
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    unlink(argv[1]);
    if (bind(listener, (struct sockaddr *)&a, sizeof a) != 0 || listen(listener, 512) != 0) { perror("bind"); return 1; }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = listener }, events[64];
    epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    for (;;) {
        int n = epoll_wait(ep, events, 64, -1);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                int client;
                while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    if (ask_who) {
                        struct ucred who;
                        socklen_t size = sizeof who;
                        if (getsockopt(client, SOL_SOCKET, SO_PEERCRED, &who, &size) == 0) asked += (unsigned long)who.uid + 1;
                    }
                    struct epoll_event cev = { .events = EPOLLIN | EPOLLRDHUP, .data.fd = client };
                    epoll_ctl(ep, EPOLL_CTL_ADD, client, &cev);
                }
                continue;
            }
            char buf[512];
            ssize_t r = read(fd, buf, sizeof buf);
            if (r > 0 && memchr(buf, '\n', (size_t)r) == NULL) continue;
            if (r > 0 && write(fd, reply, reply_len) < 0) perror("write");
            close(fd);
        }
        if (asked == 0xffffffffUL) fputs("", stderr);  // keeps the SO_PEERCRED result used
    }
}
