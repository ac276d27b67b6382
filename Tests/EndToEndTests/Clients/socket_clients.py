#!/usr/bin/env python3
"""Clients that press on btcpriced's socket, for the fairness and backlog tests.

  socket_clients.py SOCKET watch COUNT SECONDS   hold up to COUNT reading `watch` streams
  socket_clients.py SOCKET idle COUNT SECONDS    hold up to COUNT connections that never ask,
                                                 reopening each one the daemon closes
  socket_clients.py SOCKET burst COUNT SECONDS   COUNT non-blocking connects at once, no retry,
                                                 then `ping` on each

Prints one `ready ...` line once the first round is done, then keeps holding until SECONDS pass
(bounded, so a broken test never leaves it running). Runs as whichever user starts it.
"""
import errno, os, resource, select, socket, sys, time

path, mode, count, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
deadline = time.monotonic() + seconds
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 64)), hard))


def report(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def first_line(sock, timeout=5.0):
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data.split(b"\n", 1)[0].decode("utf-8", "replace")


def connect(blocking=True):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(blocking)
    sock.connect(path)
    return sock


if mode == "burst":
    socks, failed = [], 0
    for _ in range(count):
        try:
            socks.append(connect(blocking=False))
        except BlockingIOError:
            failed += 1
        except OSError as error:
            failed += 1
            report("connect error: %s" % error)
    # Every request first, then every reply, so no admitted connection waits for its turn.
    for sock in socks:
        sock.setblocking(True)
        try:
            sock.sendall(b"ping\n")
        except OSError:
            pass  # turned away: its explanation is already waiting to be read
    answered = refused = silent = 0
    for sock in socks:
        line = first_line(sock)
        if line == "pong":
            answered += 1
        elif line.startswith('{"error":'):
            refused += 1
        else:
            silent += 1
        sock.close()
    report("ready connect_failed=%d pong=%d refused=%d silent=%d" % (failed, answered, refused, silent))
    sys.exit(0)

held, refused = [], 0
if mode == "watch":
    for _ in range(count):
        try:
            sock = connect()
            sock.sendall(b"watch\n")
        except OSError:
            refused += 1
            continue
        line = first_line(sock)
        if line.startswith("{") and '"error"' not in line:
            sock.setblocking(False)
            held.append(sock)
        else:
            refused += 1
            sock.close()
    report("ready held=%d refused=%d" % (len(held), refused))
    # Read every line promptly, as a well-behaved status bar does.
    while held and time.monotonic() < deadline:
        readable, _, _ = select.select(held, [], [], 0.5)
        for sock in readable:
            try:
                if not sock.recv(65536):
                    held.remove(sock)
            except BlockingIOError:
                pass
            except OSError:
                held.remove(sock)
elif mode == "idle":
    def fill():
        global refused
        fresh = []
        while len(held) + len(fresh) < count:
            try:
                fresh.append(connect())
            except OSError:
                refused += 1
                break
        # A connection turned away is told so at once; an admitted one hears nothing.
        told, waiting, settled = set(), list(fresh), time.monotonic() + 0.5
        while waiting and time.monotonic() < settled:
            readable, _, _ = select.select(waiting, [], [], max(0, settled - time.monotonic()))
            told.update(readable)
            waiting = [sock for sock in waiting if sock not in told]
        for sock in fresh:
            if sock in told:
                refused += 1
                sock.close()
            else:
                held.append(sock)
    fill()
    report("ready held=%d refused=%d" % (len(held), refused))
    while time.monotonic() < deadline:
        closed, _, _ = select.select(held, [], [], 0.2) if held else ([], [], [])
        for sock in closed:
            held.remove(sock)
            sock.close()
        fill()
else:
    sys.exit("unknown mode " + mode)
