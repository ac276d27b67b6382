#ifndef BTCPRICED_CLINUX_H
#define BTCPRICED_CLINUX_H
// The Linux calls the socket server's front door (and the daemon's memory release) use that
// Swift's Glibc module leaves out.
#include <sys/epoll.h>
#include <sys/eventfd.h>

// accept4(2) without the peer's address; declared by glibc only under _GNU_SOURCE.
int btcpriced_accept4(int listener, int flags);

// The connecting process's user (SO_PEERCRED, taken at connect); -1 with errno on failure.
long btcpriced_peer_uid(int socket);

// malloc_trim(3): gives the heap's free pages back to the system; 1 if any were.
int btcpriced_malloc_trim(void);
#endif
