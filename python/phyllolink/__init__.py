# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""phyllolink: Phyllo serial links from Python, over libphyllo (ctypes).

Contract:
  * ``phyllolink.open(path)`` takes /dev/phylloN (the kernel line
    discipline runs the protocol) or a tty such as /dev/ttyACM0 (libphyllo
    runs it in this process); anything else raises PhylloError(ENOTTY). A
    preset, transport or speed it does not know is a ValueError that lists
    the ones it knows.
  * Documents are Python values, sent as MessagePack (python3-msgpack):
    ``link.publish("servo", 90)`` sends the integer 90, ``21.5`` a float.
    A publish or send on a link with no session waits up to
    ``connect_timeout`` seconds for one, then raises NoPeer (nothing answered
    at the far end) instead of queueing into the void.
  * Messages come back as ``Message`` objects: from ``link.receive()``, by
    iterating over what ``link.subscribe(prefix, count=, timeout=)`` returns
    (only that subscription's messages; the iteration ends after count
    messages or timeout quiet seconds), or through callbacks run by
    ``link.loop()``. A subscription gets what arrives after it is made
    (subscribe, then publish what is answered). A message received while
    waiting for another subscription's is kept (up to ``pending_max``) for
    the one it matches.
  * A session reset (the board restarted) raises SessionReset once from a
    receive; iteration skips it. A named link (/dev/phyllo/NAME, ``phyllo
    attach --name``) whose board goes away raises LinkDown once, after
    the messages received before; the Link stays open and usable, the
    next receive waits for the board, and the first receive after it is
    back raises LinkUp (a SessionReset: the new session). Iteration and
    loop() skip both. A publish or send while the link is down waits for
    it to come back, then goes out. An unnamed link that hangs up or is
    detached raises HungUp (an iteration just ends). A document that does not decode (malformed
    MessagePack, a string that is not UTF-8) raises MalformedDocument, a
    PhylloError (EBADMSG) holding the Message, from the receive or the
    iteration it belongs to; the iteration goes on with the next message
    when next() is called again, and Link.malformed counts such units.
    Other failures raise PhylloError, an OSError with the errno libphyllo
    returned. Numbers passed on to libphyllo are range-checked (a timeout
    over 2,147,483 s is a ValueError, not "for ever").
  * Leaving a ``with`` block waits for the far end to acknowledge what was
    published and raises NoPeer if it does not within ``linger`` seconds.
  * A Link is used by one thread at a time, like the C handle under it.

The shared library is $PHYLLO_LIBRARY if set, else a source tree's
build/host/libphyllo.so.0 (``make libphyllo``; PYTHONPATH=python), else
libphyllo.so.0 where the dynamic linker looks (``make install``, the
libphyllo0 package).

Migration: this package was first imported as ``phyllo``. That name
belongs to an unrelated library on PyPI, so it is ``phyllolink`` now:
replace ``import phyllo`` by ``import phyllolink`` (or ``import phyllolink
as phyllo``); the names inside did not change.
"""

import collections
import ctypes
import errno as _errno
import os
import select
import time

try:
    import msgpack
except ImportError as _e:
    raise ImportError(
        "phyllolink: documents need the msgpack module, which this python3 ("
        + __import__("sys").executable + ") cannot import (" + str(_e) + "). On Debian: "
        "apt install python3-msgpack (`make` installs it) and run Debian's /usr/bin/python3; "
        "in a venv: python3 -m venv --system-site-packages, or pip install msgpack.") from _e

__version__ = "0.1.0"     # the release, as in debian/changelog
__all__ = ["open", "Link", "Message", "Subscription", "PhylloError", "SessionReset",
           "LinkDown", "LinkUp", "HungUp", "NoPeer", "MalformedDocument", "speeds", "version", "MINIMAL", "REDUCED", "STANDARD"]

MINIMAL, REDUCED, STANDARD = 0, 1, 2
PRESETS = {"minimal": MINIMAL, "reduced": REDUCED, "standard": STANDARD}
TRANSPORTS = {"auto": 0, "kernel": 1, "tty": 2}
_OPEN_NONBLOCK = 0x1
_OPEN_NO_HANDSHAKE = 0x2
_MSG_UNRELIABLE = 0x1
_STATE_UP, _STATE_HUNGUP, _STATE_DOWN = 1, 2, 3
_STATE_NAMES = {0: "connecting", 1: "up", 2: "hung-up", 3: "down"}
TYPE_BUFFER = 0x10
TYPE_PUBSUB = 0x60
FORMAT_MSGPACK = 0x11
# The termios speeds Linux names; speeds() keeps those libphyllo takes.
_TERMIOS_SPEEDS = (50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600,
                   19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600,
                   1000000, 1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000)
_LIBNAME = "libphyllo.so.0"


class PhylloError(OSError):
    """A libphyllo call failed; .errno is the errno value."""


class SessionReset(PhylloError):
    """The far end restarted or the link was lost: reliable messages in
    flight may have been lost. The link goes on with a new session."""


class LinkDown(PhylloError):
    """A named link's board went away (unplugged, reset into its
    bootloader): raised once by a receive, after what was received before.
    Not an end: the Link stays open; carry on, and receive waits for the
    board to come back (then LinkUp). errno ENOLINK."""


class LinkUp(SessionReset):
    """A named link is up again after LinkDown, with a new session: raised
    once by a receive, then its messages follow. A SessionReset, so code
    that handles resets handles it too. errno ECONNRESET."""


class HungUp(PhylloError):
    """The tty hung up (a board unplugged) or the link was detached."""


class NoPeer(PhylloError, TimeoutError):
    """Nothing at the far end answered in time: no session came up, or what
    was published was not acknowledged. Also a TimeoutError."""


class MalformedDocument(PhylloError):
    """A unit whose document did not decode: .message is the Message
    (value None, payload the bytes as received, error the reason)."""

    def __init__(self, err, text, message):
        super().__init__(err, text)
        self.message = message


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


def _library_paths():
    """Where to look for libphyllo, in order."""
    env = os.environ.get("PHYLLO_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.normpath(os.path.join(here, "..", "..", "build", "host", _LIBNAME))
    return ([tree] if os.path.exists(tree) else []) + [_LIBNAME]


def _open_library():
    errors = []
    for path in _library_paths():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError(
        "phyllolink: cannot load libphyllo (" + "; ".join(errors) + "). In a source tree, "
        "`make libphyllo` (or `make`) builds build/host/libphyllo.so.0, which "
        "PYTHONPATH=python finds; or install it (`make install`, or apt install "
        "./libphyllo0_*.deb); or set PHYLLO_LIBRARY to the library's path.")


def _load():
    lib = _open_library()
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
        "phyllo_stats64": (ctypes.c_int, [h, ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint]),
        "phyllo_stat_name": (ctypes.c_char_p, [ctypes.c_uint]),
        "phyllo_baud_valid": (ctypes.c_int, [ctypes.c_ulong]),
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


def speeds():
    """The line speeds (baud) libphyllo can set on a tty, ascending."""
    return [b for b in _TERMIOS_SPEEDS if _lib.phyllo_baud_valid(b)]


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
    if err == _errno.ENOLINK:
        raise LinkDown(err, text)
    if err == _errno.EPIPE:
        raise HungUp(err, text)
    if err == _errno.ETIMEDOUT:
        raise TimeoutError(err, text)
    raise PhylloError(err, text)


_INT_MAX = 2**31 - 1


def _ms(timeout):
    """seconds (None: for ever) as libphyllo's milliseconds, an int: a
    timeout it cannot hold is refused, never wrapped to "for ever"."""
    if timeout is None:
        return -1
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or timeout != timeout or timeout * 1000 > _INT_MAX:
        raise ValueError(f"timeout {timeout!r}: seconds from 0 to {_INT_MAX // 1000}, "
                         "or None to wait for ever")
    return max(0, int(timeout * 1000))


def _uint(what, value, top):
    """An unsigned C argument: refused out of 0..top, never wrapped."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise ValueError(f"{what} {value!r}: a whole number from 0 to {top}")
    return value


def _choice(what, value, table):
    """table[value] for a name, value itself for one of table's numbers."""
    if isinstance(value, str) and value in table:
        return table[value]
    if isinstance(value, int) and not isinstance(value, bool) and value in table.values():
        return value
    raise ValueError(f"{what} {value!r}: not one of {', '.join(table)}")


def _baud(baud):
    if baud is None:
        return None
    if isinstance(baud, bool) or not isinstance(baud, int) or baud < 0 \
            or (baud and not _lib.phyllo_baud_valid(baud)):
        raise ValueError(f"baud {baud!r}: not a supported speed; the supported speeds are "
                         + ", ".join(str(b) for b in speeds()))
    return baud


def _topic(what, topic):
    t = topic.encode()
    if len(t) > 15:
        raise ValueError(f"{what} {topic!r} is longer than 15 bytes")
    return t


class Message:
    """One received unit.

    topic     the pub-sub topic (str), or None for a raw unit
    value     the document decoded from MessagePack (or None)
    type      the unit's type byte (0x60 pub-sub, 0x10 buffer, ...)
    format, schema   the document's (or None)
    payload   the document body, pub-sub payload or unit payload (bytes)
    raw       the whole unit, type byte first (bytes)
    error     why the document did not decode (str), or None
    """

    __slots__ = ("topic", "value", "type", "format", "schema", "payload", "raw", "error")

    def __init__(self, m):
        self.type = m.type
        self.payload = ctypes.string_at(m.data, m.len) if m.len else b""
        self.raw = ctypes.string_at(m.unit, m.unit_len)
        self.topic = m.topic[:m.topic_len].decode("utf-8", "replace") if m.is_pubsub else None
        self.format = m.format if m.is_document else None
        self.schema = m.schema if m.is_document else None
        self.value = None
        self.error = None
        if m.is_document and m.format == FORMAT_MSGPACK:
            try:
                self.value = msgpack.unpackb(self.payload, raw=False, strict_map_key=False)
            except Exception as e:  # noqa: BLE001 - every way a document can be bad
                self.error = f"{type(e).__name__}: {e}"

    def __repr__(self):
        if self.topic is not None:
            return f"Message(topic={self.topic!r}, value={self.value!r})"
        return f"Message(type=0x{self.type:02x}, payload={self.payload!r})"


class Subscription:
    """What Link.subscribe() and subscribe_type() return. Iterating yields
    the messages this subscription matches (a topic prefix, or a raw unit
    type), never another subscription's, and ends after count messages,
    after timeout seconds with none (None: no limit), or when the link
    hangs up. Session resets are skipped."""

    def __init__(self, link, key, callback=None, count=None, timeout=None):
        self.link, self.key, self.callback = link, key, callback
        self.count, self.timeout = count, timeout

    def matches(self, m):
        if isinstance(self.key, str):
            return m.topic is not None and m.topic.startswith(self.key)
        return m.topic is None and m.type == self.key

    def messages(self, count=None, timeout=None):
        """Iterate with other limits than the subscription's own."""
        return _Messages(self.link, self.matches, count, timeout, resets=False)

    def __iter__(self):
        return self.messages(self.count, self.timeout)

    def __repr__(self):
        return f"Subscription({self.key!r}, count={self.count}, timeout={self.timeout})"


class _Messages:
    """An iteration over a link's messages (want(m) true), count at most
    (None: no limit), ending after timeout quiet seconds or at a hang-up.
    An iterator, not a generator, so that it goes on after raising
    MalformedDocument (a malformed unit counts as one of count). Session
    resets are skipped unless resets (then SessionReset is raised)."""

    def __init__(self, link, want, count, timeout, resets):
        self.link, self.want, self.count, self.timeout = link, want, count, timeout
        self.resets, self.got = resets, 0

    def __iter__(self):
        return self

    def __next__(self):
        while self.count is None or self.got < self.count:
            try:
                m = self.link._next(self.want, self.timeout, resets=True)
            except (SessionReset, LinkDown):
                if self.resets:
                    raise
                continue
            except HungUp:
                break
            except MalformedDocument:
                self.got += 1
                raise
            if m is None:
                break
            self.got += 1
            return m
        raise StopIteration


class Link:
    """A Phyllo link: /dev/phylloN, or a tty with the protocol in-process.

    Link(path, baud=None, preset="standard", window=0, transport="auto",
         queue=0, handshake=True, fd=None, connect_timeout=5.0, linger=2.0,
         pending_max=1024)

    baud None keeps libphyllo's default speed; presets are minimal,
    reduced and standard; transports auto, kernel and tty. With fd (an open
    stream descriptor, e.g. a socket) the protocol runs over it and the Link
    owns it; path is then only its name.
    """

    def __init__(self, path="/dev/phyllo0", baud=None, preset="standard", window=0,
                 transport="auto", queue=0, handshake=True, fd=None, connect_timeout=5.0,
                 linger=2.0, pending_max=1024):
        opts = _Options()
        _lib.phyllo_options_init(ctypes.byref(opts))
        opts.transport = _choice("transport", transport, TRANSPORTS)
        speed = _baud(baud)
        if speed is not None:
            opts.baud = speed
        opts.preset = _choice("preset", preset, PRESETS)
        opts.window = _uint("window", window, 1000)
        opts.queue = _uint("queue", queue, 2**32 - 1)
        opts.flags = 0 if handshake else _OPEN_NO_HANDSHAKE
        self.path = path
        self.connect_timeout, self.linger = connect_timeout, linger
        self.dropped = 0          # kept messages pushed out of a full pending queue
        self.malformed = 0        # units whose document did not decode
        self._pending = collections.deque()
        self._pending_max = pending_max
        self._down = False        # a receive raised LinkDown, none LinkUp yet
        self._subs = []
        self._h = ctypes.c_void_p()
        if fd is not None:
            ret = _lib.phyllo_open_fd(ctypes.byref(self._h), fd, ctypes.byref(opts))
        else:
            ret = _lib.phyllo_open(ctypes.byref(self._h), os.fsencode(path),
                                   ctypes.byref(opts))
        _check(ret, path)

    # -- life --
    def close(self, check=False):
        """Close the link. Reliable messages still in flight get up to
        linger seconds to be acknowledged; with check=True, those that are
        not raise NoPeer (after the link is closed)."""
        if not self._h:
            return
        left = 0
        try:
            if self._status().tx_in_flight:
                ret = _lib.phyllo_flush(self._h, _ms(self.linger))
                if ret == -_errno.ETIMEDOUT:
                    left = self._status().tx_in_flight
        finally:
            _lib.phyllo_close(self._h)
            self._h = ctypes.c_void_p()
        if check and left:
            raise NoPeer(_errno.ETIMEDOUT,
                         f"{self.path}: {left} reliable message(s) not acknowledged by the "
                         f"far end within {self.linger:g} s")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        self.close(check=exc_type is None)

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
        """Wait for a session with the far end; NoPeer if none comes."""
        ret = _lib.phyllo_wait_up(self._handle(), _ms(timeout))
        if ret == -_errno.ETIMEDOUT:
            raise NoPeer(_errno.ETIMEDOUT, self._no_peer_text(timeout))
        _check(ret, self.path)

    def _no_peer_text(self, timeout):
        return (f"{self.path}: no session with the far end within {timeout:g} s: nothing "
                "answered the handshake (is the board running and on this port, at the same "
                "speed and preset?)")

    def _ensure_up(self):
        """A session, or NoPeer after connect_timeout, or HungUp. A named
        link that is down is not waited for here: the send waits for it."""
        state = self._status().state
        if state in (_STATE_UP, _STATE_DOWN):
            return
        if state == _STATE_HUNGUP:
            raise HungUp(_errno.EPIPE, f"{self.path}: the link hung up")
        self.wait_up(self.connect_timeout)

    def dispatch(self):
        """Service the link without blocking; returns messages waiting."""
        return _check(_lib.phyllo_dispatch(self._handle()), self.path) + len(self._pending)

    # -- sending --
    def publish(self, topic, doc, *, schema=0, reliable=True):
        """Publish doc (any MessagePack-able value) on topic (<= 15 bytes).
        NoPeer if no session comes up within connect_timeout seconds."""
        t = _topic("topic", topic)
        schema = _uint("schema", schema, 255)
        body = msgpack.packb(doc, use_bin_type=True)
        self._ensure_up()
        self._sent(lambda: _lib.phyllo_publish_doc(self._handle(), t, FORMAT_MSGPACK, schema,
                                                   body, len(body),
                                                   0 if reliable else _MSG_UNRELIABLE))

    def _sent(self, send):
        """send(), once more if the session ended before it (a reset or a
        named link's down and up: libphyllo says -ECONNRESET, not sent)."""
        ret = send()
        if ret == -_errno.ECONNRESET:
            ret = send()
        _check(ret, self.path)

    def send(self, type, payload=b"", *, reliable=True):
        """Send a raw unit: type (>= 0x10) and payload bytes."""
        payload = bytes(payload)
        type = _uint("type", type, 255)
        self._ensure_up()
        self._sent(lambda: _lib.phyllo_send(self._handle(), type, payload, len(payload),
                                            0 if reliable else _MSG_UNRELIABLE))

    def flush(self, timeout=5.0):
        """Wait until every reliable message sent is acknowledged; NoPeer
        if that takes longer than timeout seconds."""
        ret = _lib.phyllo_flush(self._handle(), _ms(timeout))
        if ret == -_errno.ETIMEDOUT:
            raise NoPeer(_errno.ETIMEDOUT, f"{self.path}: {self._status().tx_in_flight} "
                         f"reliable message(s) not acknowledged within {timeout:g} s")
        _check(ret, self.path)

    def request(self, topic, doc, timeout=5.0):
        """Publish doc on topic and return the next Message on that topic (as
        a board answers); other messages meanwhile stay queued."""
        t = _topic("topic", topic)
        body = msgpack.packb(doc, use_bin_type=True)
        self._ensure_up()
        m = _Message()
        _check(_lib.phyllo_request(self._handle(), t, body, len(body), ctypes.byref(m),
                                   _ms(timeout)), self.path)
        return self._deliver(self._counted(Message(m)))

    # -- receiving --
    def subscribe(self, prefix="", callback=None, *, count=None, timeout=None):
        """Receive pub-sub messages whose topic starts with prefix ("" for
        all). With callback(message), loop() calls it for each. Returns a
        Subscription: iterate over it for its messages alone, count of them
        at most, until timeout seconds pass with none."""
        _check(_lib.phyllo_subscribe(self._handle(), _topic("topic prefix", prefix)),
               self.path)
        sub = Subscription(self, prefix, callback, count, timeout)
        self._subs.append(sub)
        return sub

    def subscribe_type(self, type, callback=None, *, count=None, timeout=None):
        """Receive raw units of this type too; returns a Subscription."""
        _check(_lib.phyllo_subscribe_type(self._handle(), _uint("type", type, 255)), self.path)
        sub = Subscription(self, type, callback, count, timeout)
        self._subs.append(sub)
        return sub

    def unsubscribe_all(self):
        _check(_lib.phyllo_unsubscribe_all(self._handle()), self.path)
        self._subs.clear()
        self._pending.clear()

    def _recv(self, timeout):
        m = _Message()
        ret = _lib.phyllo_recv(self._handle(), ctypes.byref(m), _ms(timeout))
        if ret in (-_errno.EAGAIN, -_errno.ETIMEDOUT):
            return None
        if ret == -_errno.ECONNRESET and self._down:
            self._down = False
            raise LinkUp(_errno.ECONNRESET, f"{self.path}: the link is up again, session "
                         f"{self._status().session}")
        if ret == -_errno.ENOLINK:
            self._down = True
        _check(ret, self.path)
        return self._counted(Message(m))

    def _counted(self, m):
        if m.error is not None:
            self.malformed += 1
        return m

    def _deliver(self, m):
        """m, or MalformedDocument when its document did not decode."""
        if m.error is not None:
            raise MalformedDocument(_errno.EBADMSG, f"{self.path}: a malformed document on "
                                    f"{m.topic!r}: {m.error}", m)
        return m

    def _keep(self, m):
        """Keep m for the subscription it belongs to (if any still does)."""
        if not any(s.matches(m) for s in self._subs):
            return
        if len(self._pending) >= self._pending_max:
            self._pending.popleft()
            self.dropped += 1
        self._pending.append(m)

    def _next(self, want, timeout, resets):
        """The next message want(m) accepts, kept ones first; None after
        timeout seconds, or on a hang-up unless raising is asked for by
        resets (then SessionReset and HungUp propagate)."""
        for i, m in enumerate(self._pending):
            if want(m):
                del self._pending[i]
                return self._deliver(m)
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if end is None else max(0.0, end - time.monotonic())
            try:
                m = self._recv(left)
            except (SessionReset, LinkDown):
                if resets:
                    raise
                continue
            except HungUp:
                if resets:
                    raise
                return None
            if m is None:
                return None
            if want(m):
                return self._deliver(m)
            self._keep(m)

    def receive(self, timeout=None):
        """The next Message of any subscription, or None when timeout
        (seconds) passes first. Raises SessionReset (once per reset),
        LinkDown and LinkUp (once each per down and up of a named link:
        catch them and go on) and HungUp."""
        return self._next(lambda m: True, timeout, resets=True)

    def messages(self, timeout=None, resets=False):
        """Iterate over every received message; stops when timeout
        (seconds) passes with nothing, or when the link hangs up. Session
        resets are skipped unless resets=True (then SessionReset is
        raised)."""
        return _Messages(self, lambda m: True, None, timeout, resets)

    def __iter__(self):
        return self.messages()

    def loop(self, timeout=None, count=None):
        """Run the callbacks for the messages that arrive for them, until
        timeout seconds pass in all, count messages were handled, or the
        link hangs up. Messages of subscriptions without a callback stay
        kept for iteration. Returns the number handled."""
        cbs = [s for s in self._subs if s.callback is not None]
        if not cbs:
            raise ValueError("loop(): no subscription has a callback")
        end = None if timeout is None else time.monotonic() + timeout
        handled = 0
        while count is None or handled < count:
            left = None if end is None else max(0.0, end - time.monotonic())
            m = self._next(lambda m: any(s.matches(m) for s in cbs), left, resets=False)
            if m is None:
                break
            for s in cbs:
                if s.matches(m):
                    s.callback(m)
            handled += 1
        return handled

    def wait_readable(self, timeout=None):
        """select() on fileno(): True when there is something to do."""
        if self._pending:
            return True
        r, _, _ = select.select([self.fileno()], [], [], timeout)
        return bool(r)

    # -- state --
    def _status(self):
        s = _Status()
        _check(_lib.phyllo_status(self._handle(), ctypes.byref(s)), self.path)
        return s

    def stats(self):
        """The link's counters as a dict, in libphyllo's order: 64-bit totals
        that do not wrap (phyllo_stats64); rtt_ms and rto_ms as they are now."""
        v = (ctypes.c_uint64 * 64)()
        n = _check(_lib.phyllo_stats64(self._handle(), v, 64), self.path)
        return {_lib.phyllo_stat_name(i).decode(): v[i] for i in range(n)}

    def status(self):
        """transport, state (connecting, up, hung-up, down), session, resets,
        preset, mtu, tx_in_flight, queued."""
        s = self._status()
        out = {name: getattr(s, name) for name, _ in _Status._fields_ if name != "reserved"}
        out["transport"] = {1: "kernel", 2: "tty"}.get(s.transport, "?")
        out["state"] = _STATE_NAMES.get(s.state, "?")
        out["preset"] = {v: k for k, v in PRESETS.items()}.get(s.preset, "?")
        return out


def open(path="/dev/phyllo0", **kw):  # noqa: A001 - the module's verb
    """Open a link: see Link."""
    return Link(path, **kw)
