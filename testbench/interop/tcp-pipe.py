#!/usr/bin/env python3
"""Copy bytes between stdin/stdout and a TCP connection to HOST PORT, both directions, until both close.

QEMU's user-net `guestfwd=tcp:10.0.2.100:GPORT-cmd:tcp-pipe.py 127.0.0.1 HOSTPORT` starts this once for
every connection the guest opens to 10.0.2.100:GPORT; its stdin/stdout are that connection. Stdlib only.
"""
import os
import select
import socket
import sys
import time


def main() -> int:
    host, port = sys.argv[1], int(sys.argv[2])
    deadline = time.monotonic() + 10.0
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=2.0)
            break
        except OSError:
            if time.monotonic() > deadline:
                return 1
            time.sleep(0.2)
    sock.settimeout(None)
    fin, fout = sys.stdin.fileno(), sys.stdout.fileno()
    open_in, open_sock = True, True
    while open_in or open_sock:
        rl = ([fin] if open_in else []) + ([sock] if open_sock else [])
        ready, _, _ = select.select(rl, [], [], 600.0)
        if not ready:
            return 1  # ten idle minutes: give up
        if fin in ready:
            data = os.read(fin, 65536)
            if data:
                sock.sendall(data)
            else:
                open_in = False
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
        if sock in ready:
            data = sock.recv(65536)
            if data:
                view = memoryview(data)
                while view:
                    n = os.write(fout, view)
                    view = view[n:]
            else:
                open_sock = False
                os.close(fout)
                # the guest side is told with the close; nothing more will come from the host
                if not open_in:
                    break
                open_in = False
    return 0


if __name__ == "__main__":
    sys.exit(main())
