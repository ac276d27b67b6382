"""A SOCKS5 proxy for the tests (RFC 1928, RFC 1929) that records each connection's user name,
as Tor's IsolateSOCKSAuth would see it. It offers to authenticate whenever the client allows
it, as Tor does, accepts any credentials, and relays CONNECTs to domain names or IPv4
addresses. --block-first N answers the first N authenticated CONNECTs per user name with a
403 page, as a venue answers a blocked Tor exit.

With Tor's latency: --connect-delay S waits S seconds before answering each CONNECT (a
circuit being built), --chunk-delay S holds every relayed chunk S seconds each way (so a
round trip costs 2S), --silent accepts connections and never answers (a proxy that hangs),
and --reply N answers every CONNECT with SOCKS reply code N (4: host unreachable, 6: TTL
expired, as Tor does). Usage: recording_socks5.py PORT LOGFILE [options]."""
import asyncio, sys


def option(name, default, kind=float):
    return kind(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


port, log_path = int(sys.argv[1]), sys.argv[2]
block_first = option("--block-first", 0, int)
connect_delay = option("--connect-delay", 0.0)
chunk_delay = option("--chunk-delay", 0.0)
reply_code = option("--reply", 0, int)
silent = "--silent" in sys.argv
blocked = {}
BLOCK_BODY = b"<!DOCTYPE html><html><body>Access denied</body></html>"
BLOCK_PAGE = (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
              % len(BLOCK_BODY)) + BLOCK_BODY


def record(user, password):
    with open(log_path, "a") as log:
        log.write(f"{user} {password}\n")


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            if chunk_delay:
                await asyncio.sleep(chunk_delay)
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def serve(reader, writer):
    try:
        if silent:
            await reader.read()  # until the client gives up
            writer.close()
            return
        version, count = await reader.readexactly(2)
        methods = await reader.readexactly(count)
        user, password = "-", "-"
        if 2 in methods:
            writer.write(b"\x05\x02")
            await writer.drain()
            _, length = await reader.readexactly(2)
            user = (await reader.readexactly(length)).decode()
            (length,) = await reader.readexactly(1)
            password = (await reader.readexactly(length)).decode()
            writer.write(b"\x01\x00")
        else:
            writer.write(b"\x05\x00")
        await writer.drain()
        _, command, _, kind = await reader.readexactly(4)
        if kind == 3:
            (length,) = await reader.readexactly(1)
            host = (await reader.readexactly(length)).decode()
        elif kind == 1:
            host = ".".join(str(b) for b in await reader.readexactly(4))
        else:
            writer.close()
            return
        target_port = int.from_bytes(await reader.readexactly(2), "big")
        record(user, password)
        if connect_delay:
            await asyncio.sleep(connect_delay)
        if reply_code:
            writer.write(bytes([5, reply_code, 0, 1, 0, 0, 0, 0, 0, 0]))
            await writer.drain()
            writer.close()
            return
        writer.write(b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")
        await writer.drain()
        if user != "-" and blocked.get(user, 0) < block_first:
            blocked[user] = blocked.get(user, 0) + 1
            await reader.read(65536)
            writer.write(BLOCK_PAGE)
            await writer.drain()
            writer.close()
            return
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1" if host == "localhost" else host, target_port)
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        writer.close()


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", port)
    print("listening", flush=True)
    async with server:
        await server.serve_forever()

asyncio.run(main())
