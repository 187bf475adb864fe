# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""qmp.py SOCKET COMMAND [KEY=VALUE...] - one QMP command to a qemu
monitor socket (-qmp unix:SOCKET,server=on,wait=off); the arguments are
strings. For device_del it also waits for qemu's DEVICE_DELETED event for
that id, so a device_add of the same id may follow at once. Prints the
command and qemu's answer; exits 0 on success, 1 on an error or after 60 s
without an answer. Used by hotplug/test-hotplug.sh to unplug and plug a device."""
import json
import socket
import sys


def main():
    path, command = sys.argv[1], sys.argv[2]
    args = dict(a.split("=", 1) for a in sys.argv[3:])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    sock.connect(path)
    stream = sock.makefile("rw")

    def send(cmd, arguments=None):
        msg = {"execute": cmd}
        if arguments:
            msg["arguments"] = arguments
        stream.write(json.dumps(msg) + "\n")
        stream.flush()

    def read():
        line = stream.readline()
        if not line:
            raise EOFError("qemu closed the monitor")
        return json.loads(line)

    read()  # the greeting
    send("qmp_capabilities")
    while "return" not in read():
        pass
    send(command, args)
    # A USB device goes at once: its event may come before the answer.
    answered = False
    deleted = command != "device_del"
    while not (answered and deleted):
        msg = read()
        if "error" in msg:
            print("qmp: %s %s: %s" % (command, args, msg["error"].get("desc")))
            return 1
        answered = answered or "return" in msg
        deleted = deleted or (msg.get("event") == "DEVICE_DELETED" and
                              msg.get("data", {}).get("device") == args.get("id"))
    print("qmp: %s %s: done" % (command, " ".join(sys.argv[3:])))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, EOFError, ValueError) as e:
        print("qmp: %s: %s" % (" ".join(sys.argv[2:]), e))
        sys.exit(1)
