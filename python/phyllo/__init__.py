# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""phyllo: Phyllo serial links from Python, over libphyllo (ctypes).

Contract:
  * ``phyllo.open(path)`` takes /dev/phylloN (the kernel line discipline
    runs the protocol) or a tty such as /dev/ttyACM0 (libphyllo runs it in
    this process); anything else raises PhylloError(ENOTTY).
  * Documents are Python values, sent as MessagePack (python3-msgpack):
    ``link.publish("servo", 90)`` sends the integer 90, ``21.5`` a float.
  * Messages come back as ``Message`` objects, from ``link.receive()``, by
    iterating over a subscription (``for m in link.subscribe("sensors/")``)
    or through callbacks run by ``link.loop()``.
  * A session reset (the board restarted) raises SessionReset once from a
    receive; iteration skips it unless asked otherwise. A hung-up or
    detached link raises HungUp. Other failures raise PhylloError, an
    OSError with the errno libphyllo returned.
  * A Link is used by one thread at a time, like the C handle under it.

The shared library is found as $PHYLLO_LIBRARY, else by the linker's
search (libphyllo.so.0), else in a source tree's build/host/.
"""

import ctypes
import ctypes.util
import errno as _errno
import os
import select
import time

import msgpack

__all__ = ["open", "Link", "Message", "PhylloError", "SessionReset", "HungUp",
           "MINIMAL", "REDUCED", "STANDARD"]

MINIMAL, REDUCED, STANDARD = 0, 1, 2
_PRESETS = {"minimal": MINIMAL, "reduced": REDUCED, "standard": STANDARD}
_TRANSPORTS = {"auto": 0, "kernel": 1, "tty": 2}
_OPEN_NONBLOCK = 0x1
_OPEN_NO_HANDSHAKE = 0x2
_MSG_UNRELIABLE = 0x1
TYPE_BUFFER = 0x10
TYPE_PUBSUB = 0x60
FORMAT_MSGPACK = 0x11


class PhylloError(OSError):
    """A libphyllo call failed; .errno is the errno value."""


class SessionReset(PhylloError):
    """The far end restarted or the link was lost: reliable messages in
    flight may have been lost. The link goes on with a new session."""


class HungUp(PhylloError):
    """The tty hung up (a board unplugged) or the link was detached."""


class _Options(ctypes.Structure):
    _fields_ = [("transport", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("baud", ctypes.c_ulong), ("preset", ctypes.c_int),
                ("window", ctypes.c_uint), ("queue", ctypes.c_uint),
                ("reserved", ctypes.c_uint * 8)]


class _Message(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint8), ("is_pubsub", ctypes.c_uint8),
                ("is_document", ctypes.c_uint8), ("payload_type", ctypes.c_uint8),
                ("format", ctypes.c_uint8), ("schema", ctypes.c_uint8),
                ("topic_len", ctypes.c_uint8), ("topic", ctypes.c_char * 16),
                ("data", ctypes.POINTER(ctypes.c_uint8)), ("len", ctypes.c_size_t),
                ("unit", ctypes.POINTER(ctypes.c_uint8)), ("unit_len", ctypes.c_size_t)]


class _Status(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in
                ("transport", "state", "session", "resets", "preset", "mtu",
                 "tx_in_flight", "queued")] + [("reserved", ctypes.c_uint32 * 8)]


def _find_library():
    path = os.environ.get("PHYLLO_LIBRARY")
    if path:
        return path
    found = ctypes.util.find_library("phyllo")
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, "..", "..", "build", "host", "libphyllo.so.0")
    return tree if os.path.exists(tree) else "libphyllo.so.0"


def _load():
    lib = ctypes.CDLL(_find_library())
    h = ctypes.c_void_p
    proto = {
        "phyllo_version": (ctypes.c_char_p, []),
        "phyllo_strerror": (ctypes.c_char_p, [ctypes.c_int]),
        "phyllo_options_init": (None, [ctypes.POINTER(_Options)]),
        "phyllo_open": (ctypes.c_int, [ctypes.POINTER(h), ctypes.c_char_p,
                                       ctypes.POINTER(_Options)]),
        "phyllo_open_fd": (ctypes.c_int, [ctypes.POINTER(h), ctypes.c_int,
                                          ctypes.POINTER(_Options)]),
        "phyllo_close": (None, [h]),
        "phyllo_fd": (ctypes.c_int, [h]),
        "phyllo_mtu": (ctypes.c_int, [h]),
        "phyllo_dispatch": (ctypes.c_int, [h]),
        "phyllo_wait_up": (ctypes.c_int, [h, ctypes.c_int]),
        "phyllo_publish_doc": (ctypes.c_int, [h, ctypes.c_char_p, ctypes.c_uint8,
                                              ctypes.c_uint8, ctypes.c_char_p,
                                              ctypes.c_size_t, ctypes.c_uint]),
        "phyllo_send": (ctypes.c_int, [h, ctypes.c_uint8, ctypes.c_char_p, ctypes.c_size_t,
                                       ctypes.c_uint]),
        "phyllo_flush": (ctypes.c_int, [h, ctypes.c_int]),
        "phyllo_subscribe": (ctypes.c_int, [h, ctypes.c_char_p]),
        "phyllo_subscribe_type": (ctypes.c_int, [h, ctypes.c_uint8]),
        "phyllo_unsubscribe_all": (ctypes.c_int, [h]),
        "phyllo_recv": (ctypes.c_int, [h, ctypes.POINTER(_Message), ctypes.c_int]),
        "phyllo_request": (ctypes.c_int, [h, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.POINTER(_Message), ctypes.c_int]),
        "phyllo_status": (ctypes.c_int, [h, ctypes.POINTER(_Status)]),
        "phyllo_stats": (ctypes.c_int, [h, ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint]),
        "phyllo_stat_name": (ctypes.c_char_p, [ctypes.c_uint]),
    }
    for name, (res, args) in proto.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


_lib = _load()


def version():
    """The libphyllo release this module runs on."""
    return _lib.phyllo_version().decode()


def _check(ret, what=""):
    """Raise for a negative errno value; return ret otherwise."""
    if ret >= 0:
        return ret
    err = -ret
    text = _lib.phyllo_strerror(ret).decode()
    if what:
        text = f"{what}: {text}"
    if err == _errno.ECONNRESET:
        raise SessionReset(err, text)
    if err == _errno.EPIPE:
        raise HungUp(err, text)
    if err == _errno.ETIMEDOUT:
        raise TimeoutError(err, text)
    raise PhylloError(err, text)


def _ms(timeout):
    """seconds (None: for ever) as libphyllo's milliseconds."""
    return -1 if timeout is None else max(0, int(timeout * 1000))


class Message:
    """One received unit.

    topic     the pub-sub topic (str), or None for a raw unit
    value     the document decoded from MessagePack (or None)
    type      the unit's type byte (0x60 pub-sub, 0x10 buffer, ...)
    format, schema   the document's (or None)
    payload   the document body, pub-sub payload or unit payload (bytes)
    raw       the whole unit, type byte first (bytes)
    """

    __slots__ = ("topic", "value", "type", "format", "schema", "payload", "raw")

    def __init__(self, m):
        self.type = m.type
        self.payload = ctypes.string_at(m.data, m.len) if m.len else b""
        self.raw = ctypes.string_at(m.unit, m.unit_len)
        self.topic = m.topic[:m.topic_len].decode("utf-8", "replace") if m.is_pubsub else None
        self.format = m.format if m.is_document else None
        self.schema = m.schema if m.is_document else None
        self.value = None
        if m.is_document and m.format == FORMAT_MSGPACK:
            self.value = msgpack.unpackb(self.payload, raw=False, strict_map_key=False)

    def __repr__(self):
        if self.topic is not None:
            return f"Message(topic={self.topic!r}, value={self.value!r})"
        return f"Message(type=0x{self.type:02x}, payload={self.payload!r})"


class Link:
    """A Phyllo link: /dev/phylloN, or a tty with the protocol in-process.

    Link(path, baud=0, preset="standard", window=0, transport="auto",
         queue=0, handshake=True, fd=None)

    With fd (an open stream descriptor, e.g. a socket) the protocol runs
    over it and the Link owns it; path is then only its name.
    """

    def __init__(self, path="/dev/phyllo0", baud=0, preset="standard", window=0,
                 transport="auto", queue=0, handshake=True, fd=None):
        opts = _Options()
        _lib.phyllo_options_init(ctypes.byref(opts))
        opts.transport = _TRANSPORTS[transport]
        opts.baud = baud
        opts.preset = _PRESETS[preset] if isinstance(preset, str) else preset
        opts.window = window
        opts.queue = queue
        opts.flags = 0 if handshake else _OPEN_NO_HANDSHAKE
        self.path = path
        self._h = ctypes.c_void_p()
        self._callbacks = []
        if fd is not None:
            ret = _lib.phyllo_open_fd(ctypes.byref(self._h), fd, ctypes.byref(opts))
        else:
            ret = _lib.phyllo_open(ctypes.byref(self._h), os.fsencode(path),
                                   ctypes.byref(opts))
        _check(ret, path)

    # -- life --
    def close(self):
        """Wait up to a second for reliable messages in flight, then close."""
        if self._h:
            _lib.phyllo_close(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _handle(self):
        if not self._h:
            raise ValueError("the link is closed")
        return self._h

    def fileno(self):
        """A descriptor for select/poll/epoll: readable when a message waits
        or the link needs service (then call receive(timeout=0))."""
        return _lib.phyllo_fd(self._handle())

    @property
    def mtu(self):
        """Largest payload of one unit: 252, 247 or 243 bytes."""
        return _check(_lib.phyllo_mtu(self._handle()))

    def wait_up(self, timeout=None):
        """Wait for a session with the far end; TimeoutError if none."""
        _check(_lib.phyllo_wait_up(self._handle(), _ms(timeout)), self.path)

    def dispatch(self):
        """Service the link without blocking; returns messages waiting."""
        return _check(_lib.phyllo_dispatch(self._handle()), self.path)

    # -- sending --
    def publish(self, topic, doc, *, schema=0, reliable=True):
        """Publish doc (any MessagePack-able value) on topic (<= 15 bytes)."""
        t = topic.encode()
        if len(t) > 15:
            raise ValueError(f"topic {topic!r} is longer than 15 bytes")
        body = msgpack.packb(doc, use_bin_type=True)
        _check(_lib.phyllo_publish_doc(self._handle(), t, FORMAT_MSGPACK, schema, body,
                                       len(body), 0 if reliable else _MSG_UNRELIABLE),
               self.path)

    def send(self, type, payload=b"", *, reliable=True):
        """Send a raw unit: type (>= 0x10) and payload bytes."""
        payload = bytes(payload)
        _check(_lib.phyllo_send(self._handle(), type, payload, len(payload),
                                0 if reliable else _MSG_UNRELIABLE), self.path)

    def flush(self, timeout=5.0):
        """Wait until every reliable message sent is acknowledged."""
        _check(_lib.phyllo_flush(self._handle(), _ms(timeout)), self.path)

    def request(self, topic, doc, timeout=5.0):
        """Publish doc on topic and return the next Message on that topic (as
        a board answers); other messages meanwhile stay queued."""
        t = topic.encode()
        if len(t) > 15:
            raise ValueError(f"topic {topic!r} is longer than 15 bytes")
        body = msgpack.packb(doc, use_bin_type=True)
        m = _Message()
        _check(_lib.phyllo_request(self._handle(), t, body, len(body), ctypes.byref(m),
                                   _ms(timeout)), self.path)
        return Message(m)

    # -- receiving --
    def subscribe(self, prefix="", callback=None):
        """Receive pub-sub messages whose topic starts with prefix ("" for
        all). With callback(message), loop() calls it for each; either way
        the Link iterates over what it receives."""
        p = prefix.encode()
        if len(p) > 15:
            raise ValueError(f"topic prefix {prefix!r} is longer than 15 bytes")
        _check(_lib.phyllo_subscribe(self._handle(), p), self.path)
        if callback is not None:
            self._callbacks.append((prefix, callback))
        return self

    def subscribe_type(self, type, callback=None):
        """Receive raw units of this type too."""
        _check(_lib.phyllo_subscribe_type(self._handle(), type), self.path)
        if callback is not None:
            self._callbacks.append((type, callback))
        return self

    def unsubscribe_all(self):
        _check(_lib.phyllo_unsubscribe_all(self._handle()), self.path)
        self._callbacks.clear()

    def receive(self, timeout=None):
        """The next Message, or None when timeout (seconds) passes first.
        Raises SessionReset (once per reset) and HungUp."""
        m = _Message()
        ret = _lib.phyllo_recv(self._handle(), ctypes.byref(m), _ms(timeout))
        if ret in (-_errno.EAGAIN, -_errno.ETIMEDOUT):
            return None
        _check(ret, self.path)
        return Message(m)

    def messages(self, timeout=None, resets=False):
        """Iterate over received messages; stops when timeout (seconds)
        passes with nothing, or when the link hangs up. Session resets are
        skipped unless resets=True (then SessionReset is raised)."""
        while True:
            try:
                m = self.receive(timeout)
            except SessionReset:
                if resets:
                    raise
                continue
            except HungUp:
                return
            if m is None:
                return
            yield m

    def __iter__(self):
        return self.messages()

    def loop(self, timeout=None, count=None):
        """Run the callbacks for the messages that arrive, until timeout
        seconds pass in all, count messages were handled, or the link
        hangs up. Returns the number handled."""
        end = None if timeout is None else time.monotonic() + timeout
        handled = 0
        while count is None or handled < count:
            left = None if end is None else max(0.0, end - time.monotonic())
            try:
                m = self.receive(left)
            except SessionReset:
                continue
            except HungUp:
                break
            if m is None:
                break
            for key, cb in self._callbacks:
                if (m.topic is not None and isinstance(key, str) and m.topic.startswith(key)) \
                        or (m.topic is None and key == m.type):
                    cb(m)
            handled += 1
        return handled

    def wait_readable(self, timeout=None):
        """select() on fileno(): True when there is something to do."""
        r, _, _ = select.select([self.fileno()], [], [], timeout)
        return bool(r)

    # -- state --
    def stats(self):
        """The link's counters as a dict, in libphyllo's order."""
        v = (ctypes.c_uint32 * 64)()
        n = _check(_lib.phyllo_stats(self._handle(), v, 64), self.path)
        return {_lib.phyllo_stat_name(i).decode(): v[i] for i in range(n)}

    def status(self):
        """transport, state (connecting, up, hung-up), session, resets,
        preset, mtu, tx_in_flight, queued."""
        s = _Status()
        _check(_lib.phyllo_status(self._handle(), ctypes.byref(s)), self.path)
        out = {name: getattr(s, name) for name, _ in _Status._fields_ if name != "reserved"}
        out["transport"] = {1: "kernel", 2: "tty"}.get(s.transport, "?")
        out["state"] = {0: "connecting", 1: "up", 2: "hung-up"}.get(s.state, "?")
        out["preset"] = {v: k for k, v in _PRESETS.items()}.get(s.preset, "?")
        return out


def open(path="/dev/phyllo0", **kw):  # noqa: A001 - the module's verb
    """Open a link: see Link."""
    return Link(path, **kw)
