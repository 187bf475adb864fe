#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""tls-reset.py CERT KEY PORTFILE - a TLS listener on 127.0.0.1 (a port
of the kernel's choice, written to PORTFILE) that completes every
handshake and then resets the connection (SO_LINGER 0) without a word:
what a client sees when a broker's alert is lost to its close, as a TLS
1.3 broker that wants a client certificate can do. Prints "reset" per
connection; runs until killed."""
import os
import socket
import ssl
import struct
import sys

ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(8)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
# renamed into place: a reader never sees half a number
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
while True:
    conn, _ = srv.accept()
    try:
        tls = ctx.wrap_socket(conn, server_side=True)
    except (ssl.SSLError, OSError) as e:
        print("handshake failed: %s" % e, flush=True)
        conn.close()
        continue
    tls.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    tls.close()
    print("reset", flush=True)
