#!/usr/bin/env python3
"""A TCP proxy that adds a fixed round-trip time between a client and a server, for the
delayed-link regime of bench.py.

    delay_proxy.py --listen 127.0.0.1:18632 --target 127.0.0.1:18631 --delay-ms 20

Why a proxy: the kernel of this VM is built without `sch_netem` (and without `fq`, which a BPF
earliest-departure-time delay needs), so `tc qdisc ... netem delay` on a veth pair in a network
namespace is not available. This proxy gives the same first-order effect: every byte takes
half the round-trip time to cross in each direction, and a new connection costs one extra round
trip before its first byte arrives (the TCP handshake a real link would pay). It does not model
slow start, loss, or a bandwidth limit; the bytes in flight per direction of a connection are
capped at WINDOW (a receive window: at 10 ms one way, 4 MB is 400 MB/s per connection).

Order is kept per direction: each chunk read is queued with its delivery time (read time plus
the one-way delay, or later) and a single timer per direction writes whatever is due.
Half-closes (EOF) and closes travel through the same queue, so they arrive after the data
that preceded them. `--workers N` forks N processes sharing the listening port (SO_REUSEPORT).
"""
import argparse
import asyncio
import collections
import os
import signal
import socket

WINDOW = 4 << 20
EOF, CLOSE = object(), object()


class Direction:
    """One direction of one connection: chunks waiting for their delivery time."""

    def __init__(self, loop, delay, not_before, source):
        self.loop = loop
        self.delay = delay
        self.not_before = not_before
        self.source = source  # the transport read from (paused when too much is in flight)
        self.dest = None  # the transport written to, once connected
        self.queue = collections.deque()
        self.queued = 0
        self.timer = None
        self.paused = False

    def push(self, item):
        self.queue.append((max(self.loop.time() + self.delay, self.not_before), item))
        if item is not EOF and item is not CLOSE:
            self.queued += len(item)
            if self.queued > WINDOW and not self.paused and self.source is not None:
                self.paused = True
                self.source.pause_reading()
        self.schedule()

    def connect(self, dest):
        self.dest = dest
        self.schedule()

    def schedule(self):
        if self.timer is None and self.dest is not None and self.queue:
            self.timer = self.loop.call_at(self.queue[0][0], self.flush)

    def flush(self):
        self.timer = None
        now = self.loop.time()
        while self.queue and self.queue[0][0] <= now:
            _, item = self.queue.popleft()
            if item is EOF:
                if self.dest.can_write_eof() and not self.dest.is_closing():
                    try:
                        self.dest.write_eof()
                    except OSError:  # the peer is already gone: its close follows
                        self.dest.close()
            elif item is CLOSE:
                self.dest.close()
            else:
                self.queued -= len(item)
                if not self.dest.is_closing():
                    self.dest.write(item)
        if self.paused and self.queued < WINDOW // 4:
            self.paused = False
            if not self.source.is_closing():
                self.source.resume_reading()
        self.schedule()


class Side(asyncio.Protocol):
    """One end of a proxied connection: what it reads goes into `outbound`."""

    def __init__(self, outbound):
        self.outbound = outbound

    def data_received(self, data):
        self.outbound.push(data)

    def eof_received(self):
        self.outbound.push(EOF)
        return True  # keep the other direction open (half-close)

    def connection_lost(self, exc):
        self.outbound.push(CLOSE)


class ClientSide(Side):
    def __init__(self, target, delay):
        self.target = target
        self.delay = delay
        super().__init__(None)

    def connection_made(self, transport):
        loop = asyncio.get_running_loop()
        accepted = loop.time()
        # The client's first byte would arrive after the handshake (one round trip) and the
        # crossing (half of one): accepted + 3 × one-way delay.
        self.outbound = Direction(loop, self.delay, accepted + 3 * self.delay, transport)
        self.inbound = Direction(loop, self.delay, 0.0, None)
        self.inbound.connect(transport)
        loop.create_task(self.open(loop, transport))

    async def open(self, loop, client):
        host, port = self.target
        try:
            server, _ = await loop.create_connection(lambda: Side(self.inbound), host, port)
        except OSError:
            client.close()
            return
        self.inbound.source = server
        self.outbound.connect(server)


def serve(listen, target, delay, workers):
    host, port = listen
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(4096)
    children = []
    for _ in range(workers - 1):
        pid = os.fork()
        if pid == 0:
            children = []
            break
        children.append(pid)

    async def run():
        loop = asyncio.get_running_loop()
        stop = loop.create_future()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, lambda: stop.done() or stop.set_result(None))
        server = await loop.create_server(lambda: ClientSide(target, delay), sock=sock)
        async with server:
            await stop
        for pid in children:
            os.kill(pid, signal.SIGTERM)

    asyncio.run(run())


def address(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=address, required=True, help="HOST:PORT to accept on")
    parser.add_argument("--target", type=address, required=True, help="HOST:PORT to forward to")
    parser.add_argument("--delay-ms", type=float, required=True, help="added round-trip time, ms")
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the port")
    args = parser.parse_args()
    serve(args.listen, args.target, args.delay_ms / 2000.0, args.workers)
