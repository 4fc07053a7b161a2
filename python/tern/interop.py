"""The real host's end of an interop flow: the kernel's TCP sending or checking Tern's stream.

In an emulation, a TCP flow between a Tern node and a real node (`real = true`) has Tern's
TCP speak to the kernel's in real bytes. Whatever either side sends is the stream pattern:
the byte at stream offset `i` (0 = the first data byte) is `i mod 251` (crates/tern-sim/src/
emu/wire.rs, `pattern`); Tern checks what it receives against it and counts mismatched bytes
in `summary["emulation"]["interop"][flow]`, and this program does the same on the real host:

    python -m tern.interop serve [--port 5001]                 # the kernel's TCP receives
    python -m tern.interop send HOST --bytes N [--port 5001]   # the kernel's TCP sends

Run as a real node's command (e.g. `serve` on the real node a Tern client's flow goes to, or
`send {tern_node} --bytes 10000000` on the real node a flow comes from, to the Tern server's
port 5001). Each prints one JSON line: bytes moved, mismatched bytes, seconds; the exit
code is 1 if any byte differed.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time

#: The pattern's period (a prime: a byte at a wrong offset shows unless 251k bytes away).
PERIOD = 251
#: Bytes per socket call.
CHUNK = 1 << 16
#: The Tern server's port (crates/tern-sim/src/transport/tcp.rs).
PORT = 5001
# One period after the longest chunk, so that any offset's chunk is one slice.
_BLOCK = bytes(range(PERIOD)) * (CHUNK // PERIOD + 2)


def pattern(offset: int, n: int) -> bytes:
    """The `n` stream bytes from `offset` (n ≤ CHUNK)."""
    start = offset % PERIOD
    return _BLOCK[start : start + n]


def mismatches(data: bytes, offset: int) -> int:
    """How many bytes of `data`, found at stream offset `offset`, differ from the pattern."""
    want = pattern(offset, len(data))
    if data == want:
        return 0
    return sum(a != b for a, b in zip(data, want, strict=True))


def serve(port: int) -> dict[str, object]:
    """Accepts one connection, reads it to its end, checking every byte."""
    with socket.create_server(("0.0.0.0", port)) as listener:
        conn, peer = listener.accept()
    start = time.monotonic()
    received = bad = 0
    with conn:
        while chunk := conn.recv(CHUNK):
            bad += mismatches(chunk, received)
            received += len(chunk)
    return {
        "role": "server",
        "peer": peer[0],
        "bytes": received,
        "mismatched": bad,
        "seconds": time.monotonic() - start,
    }


def send(host: str, port: int, total: int, timeout_s: float) -> dict[str, object]:
    """Connects, sends `total` stream bytes, closes its side and waits for the peer's."""
    start = time.monotonic()
    with socket.create_connection((host, port), timeout=timeout_s) as conn:
        sent = 0
        while sent < total:
            sent += conn.send(pattern(sent, min(CHUNK, total - sent)))
        conn.shutdown(socket.SHUT_WR)
        # The peer sends nothing but its FIN: anything else is counted as mismatched.
        extra = 0
        while chunk := conn.recv(CHUNK):
            extra += len(chunk)
    return {
        "role": "client",
        "bytes": sent,
        "mismatched": extra,
        "seconds": time.monotonic() - start,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tern.interop", description=__doc__)
    sub = parser.add_subparsers(dest="role", required=True)
    s = sub.add_parser("serve", help="accept one connection and check what it carries")
    s.add_argument("--port", type=int, default=PORT)
    c = sub.add_parser("send", help="connect and send the stream pattern")
    c.add_argument("host")
    c.add_argument("--port", type=int, default=PORT)
    c.add_argument("--bytes", type=int, required=True)
    c.add_argument("--timeout", type=float, default=60.0, help="seconds per socket call")
    args = parser.parse_args(argv)
    if args.role == "serve":
        result = serve(args.port)
    else:
        result = send(args.host, args.port, args.bytes, args.timeout)
    print(json.dumps(result), flush=True)
    return 0 if result["mismatched"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
