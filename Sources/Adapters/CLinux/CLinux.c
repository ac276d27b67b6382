#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>
#include "CLinux.h"

int btcpriced_accept4(int listener, int flags) {
    return accept4(listener, NULL, NULL, flags);
}

long btcpriced_peer_uid(int socket) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return (long)credentials.uid;
}

#include <malloc.h>

int btcpriced_malloc_trim(void) { return malloc_trim(0); }
