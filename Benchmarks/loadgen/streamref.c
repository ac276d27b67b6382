// The floor for scripts/stream-bench's latency: a plain C relay doing what btcpriced does on
// that path and nothing more. It reads the fake exchange's Binance stream over ws:// (one
// connection, server frames unmasked), takes "p" from each trade, and writes one line of the
// daemon's size carrying "price":"P" to every `watch` client on a Unix socket, in a write loop.
// streamlag measured against it gives what the loopback, the kernel and the reader cost; the
// daemon's figures minus these are what the daemon adds.
// Usage: streamref HOST PORT SOCKET   (runs until killed)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_WATCHERS 4096
static int watchers[MAX_WATCHERS], nwatchers;

static void broadcast(const char *price, size_t len) {
    // About the size of btcpriced's status line, so the kernel copies as much.
    static char line[1024];
    int n = snprintf(line, sizeof line, "{\"state\":\"fresh\",\"price\":\"%.*s\",\"currency\":\"USDT\",\"padding\":\"%0640d\"}\n",
                     (int)len, price, 0);
    for (int i = 0; i < nwatchers; i++)
        if (write(watchers[i], line, (size_t)n) < 0) { close(watchers[i]); watchers[i--] = watchers[--nwatchers]; }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: streamref HOST PORT SOCKET\n"); return 64; }
    struct rlimit lim; getrlimit(RLIMIT_NOFILE, &lim); lim.rlim_cur = lim.rlim_max; setrlimit(RLIMIT_NOFILE, &lim);
    int ws = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
    inet_pton(AF_INET, argv[1], &in.sin_addr);
    if (connect(ws, (struct sockaddr *)&in, sizeof in) != 0) { perror("connect"); return 1; }
    char request[512];
    int rn = snprintf(request, sizeof request,
                      "GET /stream?streams=btcusdt@aggTrade/btcusdt@miniTicker HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                      argv[1], argv[2]);
    if (write(ws, request, (size_t)rn) != rn) { perror("write"); return 1; }
    static unsigned char buf[1 << 20];
    size_t have = 0;
    for (;;) {  // the 101 response, up to its blank line
        ssize_t r = read(ws, buf + have, sizeof buf - have);
        if (r <= 0) { fprintf(stderr, "no upgrade\n"); return 1; }
        have += (size_t)r;
        unsigned char *end = memmem(buf, have, "\r\n\r\n", 4);
        if (end) { size_t head = (size_t)(end + 4 - buf); memmove(buf, buf + head, have - head); have -= head; break; }
    }
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_un un = { .sun_family = AF_UNIX };
    strncpy(un.sun_path, argv[3], sizeof un.sun_path - 1);
    unlink(argv[3]);
    if (bind(listener, (struct sockaddr *)&un, sizeof un) != 0 || listen(listener, 4096) != 0) { perror("bind"); return 1; }
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = listener };
    epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    ev.data.fd = ws;
    epoll_ctl(ep, EPOLL_CTL_ADD, ws, &ev);
    struct epoll_event events[64];
    for (;;) {
        int k = epoll_wait(ep, events, 64, -1);
        for (int e = 0; e < k; e++) {
            if (events[e].data.fd == listener) {
                int fd;
                while ((fd = accept(listener, NULL, NULL)) >= 0) {
                    char line[16];
                    (void)!read(fd, line, sizeof line);  // "watch\n"; the reader waits for the first line
                    if (nwatchers < MAX_WATCHERS) watchers[nwatchers++] = fd; else close(fd);
                    (void)!write(fd, "{\"state\":\"nodata\"}\n", 19);
                }
                continue;
            }
            ssize_t r = read(ws, buf + have, sizeof buf - have);
            if (r <= 0) return 0;
            have += (size_t)r;
            for (;;) {  // whole frames: FIN+opcode, 7/16/64-bit length, payload
                if (have < 2) break;
                size_t len = buf[1] & 0x7f, head = 2;
                if (len == 126) { if (have < 4) break; len = (size_t)buf[2] << 8 | buf[3]; head = 4; }
                else if (len == 127) { if (have < 10) break; len = 0; for (int i = 2; i < 10; i++) len = len << 8 | buf[i]; head = 10; }
                if (have < head + len) break;
                char *payload = (char *)buf + head;
                char *p = memmem(payload, len, "\"p\":\"", 5);
                if ((buf[0] & 0x0f) == 1 && p) {
                    char *q = memchr(p + 5, '"', len - (size_t)(p + 5 - payload));
                    if (q) broadcast(p + 5, (size_t)(q - p - 5));
                }
                memmove(buf, buf + head + len, have - head - len);
                have -= head + len;
            }
        }
    }
}
