// The reference for the fan-out benchmark: accepts `watch` clients on a Unix socket and every
// INTERVAL_MS writes one numbered ~730-byte line to each, in a plain loop. fanout.c measured
// against it shows the floor of the measurement itself (one reader thread, 1,000 sockets).
// With `idle-thread`, a second thread that only sleeps: the process is then multi-threaded,
// so every write takes the kernel's file reference count (fdget), as in any NIO server.
// With `tcp:PORT` for SOCKET it listens on 127.0.0.1:PORT and frames each line as an event
// (`data: LINE` and a blank line), for the event fan-out's floor over TCP (fanout.c reads it
// as it reads the daemon's /api/v1/events).
// With `on-input`, each round starts when a byte arrives on standard input instead of on its own
// timer: woken by another process, as the daemon is woken by the venue's stream.
// Usage: refbroadcast SOCKET INTERVAL_MS SECONDS [idle-thread] [on-input]
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

static void *sleep_forever(void *unused) {
    (void)unused;
    for (;;) pause();
    return NULL;
}

int main(int argc, char **argv) {
    int idle_thread = 0, on_input = 0;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "idle-thread") == 0) idle_thread = 1;
        else if (strcmp(argv[i], "on-input") == 0) on_input = 1;
        else argc = 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: refbroadcast SOCKET INTERVAL_MS SECONDS [idle-thread] [on-input]\n"); return 64;
    }
    pthread_t idle;
    if (idle_thread && pthread_create(&idle, NULL, sleep_forever, NULL) != 0) { perror("pthread_create"); return 1; }
    int tcp = strncmp(argv[1], "tcp:", 4) == 0, listener;
    if (tcp) {
        listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        int one = 1; setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[1] + 4)) };
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        if (bind(listener, (struct sockaddr *)&a, sizeof a) != 0 || listen(listener, 1024) != 0) { perror("bind"); return 1; }
    } else {
        listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
        unlink(argv[1]);
        if (bind(listener, (struct sockaddr *)&a, sizeof a) != 0 || listen(listener, 1024) != 0) { perror("bind"); return 1; }
    }
    int clients[4096], n = 0, interval = atoi(argv[2]), rounds = atoi(argv[3]) * 1000 / interval;
    char line[1024], pad[700]; memset(pad, 'x', sizeof pad - 1); pad[sizeof pad - 1] = 0;
    // A line every INTERVAL_MS on the clock, not INTERVAL_MS after the last round's writes: the
    // same rate as the daemon's broadcasts, so CPU per line compares like with like.
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int r = 0; r < rounds; r++) {
        int c;
        while (n < 4096 && (c = accept4(listener, NULL, NULL, 0)) >= 0) clients[n++] = c;
        int len = snprintf(line, sizeof line, tcp ? "data: {\"serial\":%d,\"pad\":\"%s\"}\n\n" : "{\"serial\":%d,\"pad\":\"%s\"}\n", r, pad);
        // A reader that left (the measuring client exits before the loop's last rounds) is
        // closed and dropped, as the daemon drops a watcher that hung up.
        for (int i = 0; i < n; i++) if (write(clients[i], line, (size_t)len) < 0) { close(clients[i]); clients[i--] = clients[--n]; }
        next.tv_nsec += (interval % 1000) * 1000000L;
        next.tv_sec += interval / 1000 + next.tv_nsec / 1000000000L;
        next.tv_nsec %= 1000000000L;
        if (on_input) {
            char tick;
            if (read(0, &tick, 1) != 1) break;
        } else {
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {}
        }
    }
    return 0;
}
