# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""The Python package (phyllolink) against `phyllo peer --echo --pty` (the board: it sends
every unit back) on the userspace transport, and two Links on a socketpair
for what an echo cannot show (callbacks on another topic, a session reset).

Environment: PHYLLO_BIN (the phyllo tool), PHYLLO_LIBRARY (libphyllo.so.0).
"""

import ctypes
import errno
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import phyllolink as phyllo

BIN = os.environ.get("PHYLLO_BIN", "build/host/phyllo")


@pytest.fixture
def board(tmp_path):
    """An echo peer on a new pty; yields the pty's path."""
    pty = tmp_path / "pty"
    proc = subprocess.Popen([BIN, "peer", "--echo", "--pty", str(pty)],
                            stderr=subprocess.DEVNULL)
    for _ in range(100):
        if pty.is_symlink():
            break
        time.sleep(0.1)
    assert pty.is_symlink(), "phyllo peer made no pty"
    yield proc, str(pty)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)


@pytest.fixture
def link(board):
    with phyllo.open(board[1]) as lk:
        lk.wait_up(timeout=5)
        yield lk


def test_publish_and_iterate_a_subscription(link):
    link.subscribe("sensors/")
    link.publish("sensors/t", 21.5)
    link.publish("other", 1)          # echoed too, but not subscribed
    msgs = list(link.messages(timeout=2))
    assert [(m.topic, m.value) for m in msgs] == [("sensors/t", 21.5)]
    assert isinstance(msgs[0].value, float)


def test_iterating_a_subscription_yields_its_messages_only(link):
    early = link.subscribe("sensors/")
    servo = link.subscribe("servo", count=2, timeout=5)
    link.publish("sensors/a", 1)
    link.publish("servo", 10)
    link.publish("sensors/b", 2)
    link.publish("servo", 20)
    link.publish("servo", 30)
    link.flush(timeout=5)
    assert [m.value for m in servo] == [10, 20]          # count ends it
    # what arrived meanwhile for the earlier subscription was kept for it
    assert [(m.topic, m.value) for m in early.messages(count=2, timeout=5)] == \
        [("sensors/a", 1), ("sensors/b", 2)]
    assert [m.value for m in servo.messages(timeout=0.5)] == [30]   # timeout ends it


def test_integers_stay_integers(link):
    reply = link.request("servo", 90, timeout=5)
    assert reply.topic == "servo"
    assert reply.value == 90 and isinstance(reply.value, int)
    assert reply.payload == b"\x5a"          # positive fixint, not float64
    assert reply.format == 0x11 and reply.schema == 0


def test_request_reply_with_a_document(link):
    doc = {"mode": "auto", "gains": [1, 2.5, -3], "on": True, "note": None}
    reply = link.request("cfg", doc, timeout=5)
    assert reply.value == doc


def test_callbacks(link):
    got = []
    link.subscribe("a/", got.append)
    link.publish("a/x", [1, 2])
    link.publish("a/y", "z")
    assert link.loop(timeout=5, count=2) == 2
    assert [(m.topic, m.value) for m in got] == [("a/x", [1, 2]), ("a/y", "z")]


def test_raw_units(link):
    link.subscribe_type(phyllo.TYPE_BUFFER)
    link.send(phyllo.TYPE_BUFFER, b"\x00\x01abc")
    m = link.receive(timeout=5)
    assert m.topic is None and m.type == 0x10 and m.payload == b"\x00\x01abc"
    assert m.raw == b"\x10\x00\x01abc"


def test_unreliable_and_flush(link):
    link.subscribe("u")
    link.publish("u", 7, reliable=False)
    link.flush(timeout=5)
    assert link.receive(timeout=5).value == 7


def test_fileno_is_pollable(link):
    link.publish("p", 1)
    deadline = time.monotonic() + 5
    m = None
    while m is None and time.monotonic() < deadline:
        if link.wait_readable(0.5):
            m = link.receive(timeout=0)
    assert m is not None and m.value == 1


def test_stats_and_status(link):
    link.request("s", None, timeout=5)
    st = link.stats()
    assert len(st) == 34 and st["rx_units"] >= 1 and st["sessions"] == 1
    assert list(st)[:3] == ["rx_bytes", "rx_frames", "rx_units"]
    s = link.status()
    assert s["transport"] == "tty" and s["state"] == "up" and s["preset"] == "standard"
    assert s["mtu"] == link.mtu == 243


def test_stats_are_64_bit_and_equal_the_32_bit_ones_while_small(link, monkeypatch):
    widths = []
    real = phyllo._lib.phyllo_stats64

    def spy(h, v, n):
        widths.append(ctypes.sizeof(v._type_))
        return real(h, v, n)

    monkeypatch.setattr(phyllo._lib, "phyllo_stats64", spy)
    link.request("s", None, timeout=5)
    st = link.stats()
    assert widths == [8]
    # the library runs the protocol only inside its calls: none between these two
    v = (ctypes.c_uint32 * 64)()
    n = phyllo._lib.phyllo_stats(link._handle(), v, 64)
    assert n == len(st) == 34
    assert all(type(x) is int for x in st.values())
    assert list(st.values()) == list(v[:n])
    assert st["rx_bytes"] > 0 and st["tx_bytes"] > 0


def test_every_preset(board, tmp_path):
    proc, _ = board
    for preset in ("minimal", "reduced"):
        pty = tmp_path / f"pty-{preset}"
        p = subprocess.Popen([BIN, "peer", "--echo", "--pty", str(pty), "-p", preset],
                             stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                if pty.is_symlink():
                    break
                time.sleep(0.1)
            with phyllo.open(str(pty), preset=preset) as lk:
                assert lk.request("ping", 1, timeout=5).value == 1
                assert lk.mtu == {"minimal": 252, "reduced": 247}[preset]
        finally:
            p.terminate()
            p.wait(timeout=10)


def test_hang_up(board):
    proc, pty = board
    with phyllo.open(pty) as lk:
        lk.wait_up(timeout=5)
        proc.kill()
        proc.wait(timeout=10)
        with pytest.raises(phyllo.HungUp):
            lk.receive(timeout=5)
        assert lk.status()["state"] == "hung-up"


def test_refusals(tmp_path):
    f = tmp_path / "file"
    f.write_bytes(b"keep")
    with pytest.raises(phyllo.PhylloError) as e:
        phyllo.open(str(f))
    assert e.value.errno == errno.ENOTTY
    assert f.read_bytes() == b"keep"
    with pytest.raises(phyllo.PhylloError) as e:
        phyllo.open(str(tmp_path / "nothing"))
    assert e.value.errno == errno.ENOENT


def test_a_malformed_document_raises_the_documented_error_and_iteration_goes_on(link):
    """a2 ff fe: a MessagePack string of two bytes that are not UTF-8."""
    sub = link.subscribe("bad", count=3, timeout=5)
    it = iter(sub)
    link.publish("bad", 1)
    phyllo._check(phyllo._lib.phyllo_publish_doc(link._handle(), b"bad", phyllo.FORMAT_MSGPACK,
                                                 0, b"\xa2\xff\xfe", 3, 0))
    link.publish("bad", 3)
    assert next(it).value == 1
    with pytest.raises(phyllo.MalformedDocument) as e:
        next(it)
    assert isinstance(e.value, phyllo.PhylloError) and e.value.errno == errno.EBADMSG
    assert e.value.message.payload == b"\xa2\xff\xfe" and e.value.message.value is None
    assert "UnicodeDecodeError" in e.value.message.error
    assert next(it).value == 3, "the iteration goes on after the error"
    assert link.malformed == 1
    with pytest.raises(StopIteration):
        next(it)


def test_arguments_that_would_wrap_in_c_are_refused(link):
    for t in (3e6, float("nan"), float("inf"), "5"):
        with pytest.raises(ValueError, match="timeout"):
            link.flush(timeout=t)
    with pytest.raises(ValueError, match="timeout"):
        link.receive(timeout=2**31)
    with pytest.raises(ValueError, match="schema"):
        link.publish("t", 1, schema=256)
    with pytest.raises(ValueError, match="type"):
        link.send(0x110, b"x")
    with pytest.raises(ValueError, match="window"):
        phyllo.open(link.path, window=-1)
    assert link.receive(timeout=0.01) is None     # small ones still work


def test_topic_too_long(link):
    with pytest.raises(ValueError):
        link.publish("0123456789abcdef", 1)


def _pair():
    a_sock, b_sock = socket.socketpair()
    a = phyllo.Link("a", fd=a_sock.detach())
    b_fd = b_sock.detach()
    b = phyllo.Link("b", fd=os.dup(b_fd))
    _both_up(a, b)
    return a, b, b_fd


def _both_up(a, b):
    for _ in range(400):
        a.dispatch()
        b.dispatch()
        if a.status()["state"] == "up" and b.status()["state"] == "up":
            return
        time.sleep(0.005)
    raise AssertionError("no session")


def test_session_reset_is_reported_once():
    a, b, b_fd = _pair()
    b.close()
    b2 = phyllo.Link("b2", fd=os.dup(b_fd))   # the board restarted
    stop = threading.Event()

    def run_b2():
        while not stop.is_set():
            b2.dispatch()
            time.sleep(0.002)
    t = threading.Thread(target=run_b2)
    t.start()
    try:
        with pytest.raises(phyllo.SessionReset):
            for _ in range(500):
                a.receive(timeout=0.01)
        assert a.status()["resets"] == 1
        assert a.receive(timeout=0.1) is None     # reported once
    finally:
        stop.set()
        t.join()
        b2.close()
        os.close(b_fd)
        a.close()


def _events_then_real(monkeypatch, events):
    """phyllo_recv returns the errno values of events (negated) first,
    then is libphyllo's own: a named link's down and up, as the kernel
    transport reports them, without a kernel."""
    real = phyllo._lib.phyllo_recv
    left = list(events)

    def fake(h, m, ms):
        if left:
            return -left.pop(0)
        return real(h, m, ms)
    monkeypatch.setattr(phyllo._lib, "phyllo_recv", fake)


def test_a_named_links_down_and_up_are_exceptions_to_catch_and_go_on(link, monkeypatch):
    _events_then_real(monkeypatch, [errno.ENOLINK, errno.ECONNRESET])
    with pytest.raises(phyllo.LinkDown) as down:
        link.receive(timeout=1)
    assert down.value.errno == errno.ENOLINK and "board went away" in str(down.value)
    with pytest.raises(phyllo.LinkUp) as up:
        link.receive(timeout=1)
    assert isinstance(up.value, phyllo.SessionReset) and "up again, session" in str(up.value)
    # the same Link goes on
    sub = link.subscribe("after")
    link.publish("after", 7)
    assert [m.value for m in sub.messages(count=1, timeout=5)] == [7]


def test_iteration_and_loop_skip_a_down_and_up(link, monkeypatch):
    sub = link.subscribe("it")
    link.publish("it", 1)
    _events_then_real(monkeypatch, [errno.ENOLINK, errno.ECONNRESET])
    assert [m.value for m in sub.messages(count=1, timeout=5)] == [1]
    got = []
    link.subscribe("cb", got.append)
    link.publish("cb", 2)
    _events_then_real(monkeypatch, [errno.ENOLINK, errno.ECONNRESET])
    assert link.loop(timeout=5, count=1) == 1 and got[0].value == 2


def test_a_reset_without_a_down_is_no_link_up(link, monkeypatch):
    _events_then_real(monkeypatch, [errno.ECONNRESET])
    with pytest.raises(phyllo.SessionReset) as e:
        link.receive(timeout=1)
    assert not isinstance(e.value, phyllo.LinkUp)


def test_status_names_the_down_state_and_sends_go_on_while_down(link, monkeypatch):
    real = phyllo._lib.phyllo_status

    def down(h, s):
        ret = real(h, s)
        s._obj.state = 3
        return ret
    monkeypatch.setattr(phyllo._lib, "phyllo_status", down)
    assert link.status()["state"] == "down"
    # a publish while down is no NoPeer after connect_timeout: libphyllo's
    # send waits for the link (here it is up underneath, so it goes)
    link.connect_timeout = 0.01
    sub = link.subscribe("d")
    link.publish("d", 3)
    monkeypatch.setattr(phyllo._lib, "phyllo_status", real)
    assert [m.value for m in sub.messages(count=1, timeout=5)] == [3]


def test_a_send_refused_by_a_session_end_is_sent_again(link, monkeypatch):
    real = phyllo._lib.phyllo_publish_doc
    calls = []

    def once_reset(*a):
        calls.append(1)
        return -errno.ECONNRESET if len(calls) == 1 else real(*a)
    monkeypatch.setattr(phyllo._lib, "phyllo_publish_doc", once_reset)
    sub = link.subscribe("r")
    link.publish("r", 4)
    assert len(calls) == 2
    assert [m.value for m in sub.messages(count=1, timeout=5)] == [4]


def test_iterator_from_another_thread_publisher():
    a, b, b_fd = _pair()
    os.close(b_fd)
    a.subscribe("n/")

    def publish():
        for i in range(50):
            b.publish(f"n/{i % 3}", i)
        b.flush(timeout=10)
    t = threading.Thread(target=publish)
    t.start()
    got = [m.value for m in a.messages(timeout=3)]
    t.join()
    assert got == list(range(50))
    b.close()
    a.close()


@pytest.fixture
def silent_tty():
    """A pty whose far end nobody serves: a board that is not there."""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    yield path
    os.close(slave)
    os.close(master)


def test_publish_with_nobody_there_raises(silent_tty):
    with phyllo.open(silent_tty, connect_timeout=0.3) as lk:
        with pytest.raises(phyllo.NoPeer) as e:
            lk.publish("temp", 21.5)
        assert "no session with the far end" in str(e.value)
        assert isinstance(e.value, TimeoutError) and e.value.errno == errno.ETIMEDOUT
        with pytest.raises(phyllo.NoPeer):
            lk.request("ping", 1)
        assert lk.status()["state"] == "connecting"


def test_unacknowledged_publish_raises_at_the_end_of_with(silent_tty):
    lk = phyllo.open(silent_tty, handshake=False, linger=0.3)
    with pytest.raises(phyllo.NoPeer) as e:
        with lk:
            lk.publish("temp", 21.5)   # no handshake: nothing to wait for first
    assert "1 reliable message(s) not acknowledged" in str(e.value)
    with pytest.raises(ValueError):
        lk.publish("temp", 1)          # and the link is closed


def test_unknown_preset_transport_and_speed_list_the_known(silent_tty):
    with pytest.raises(ValueError) as e:
        phyllo.open(silent_tty, preset="fast")
    assert str(e.value) == "preset 'fast': not one of minimal, reduced, standard"
    with pytest.raises(ValueError) as e:
        phyllo.open(silent_tty, transport="usb")
    assert "auto, kernel, tty" in str(e.value)
    with pytest.raises(ValueError) as e:
        phyllo.open(silent_tty, baud=12345)
    text = str(e.value)
    assert text.startswith("baud 12345: not a supported speed; the supported speeds are 1200, ")
    assert ", 115200, " in text and text.endswith("4000000")
    assert phyllo.speeds()[0] == 1200 and 12345 not in phyllo.speeds()
    with phyllo.open(silent_tty, baud=57600, preset=phyllo.REDUCED) as lk:
        assert lk.status()["preset"] == "reduced"


HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
TOP = os.path.dirname(PYDIR)


def _python(code, **env):
    e = {k: v for k, v in os.environ.items() if k != "PHYLLO_LIBRARY"}
    e.update(PYTHONPATH=PYDIR, PYTHONDONTWRITEBYTECODE="1", **env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                          timeout=60)


def test_a_missing_library_says_how_to_get_it():
    r = _python("import phyllolink", PHYLLO_LIBRARY="/nonexistent/libphyllo.so.0")
    assert r.returncode != 0
    assert "ImportError: phyllolink: cannot load libphyllo" in r.stderr
    assert "make libphyllo" in r.stderr and "PHYLLO_LIBRARY" in r.stderr


def test_a_missing_msgpack_says_how_to_get_it():
    """Issue 27, 2: a python3 without msgpack (another interpreter first on
    PATH, a bare venv) is told the package, not only the module's name."""
    r = _python("import sys; sys.modules['msgpack'] = None; import phyllolink")
    assert r.returncode != 0
    assert "ImportError: phyllolink: documents need the msgpack module" in r.stderr
    assert "apt install python3-msgpack" in r.stderr and "pip install msgpack" in r.stderr


def test_pythonpath_finds_the_trees_library():
    tree = os.path.join(TOP, "build", "host", "libphyllo.so.0")
    if not os.path.exists(tree):
        pytest.skip("no build/host/libphyllo.so.0 in this tree (BUILD elsewhere)")
    r = _python("import phyllolink; print(phyllolink._lib._name)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == tree


def _readme_python():
    """The first Python block of README.md's '## Python' section."""
    with open(os.path.join(TOP, "README.md")) as f:
        text = f.read()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```", 1)[0]



def test_the_readme_example_runs_to_its_last_line(board):
    code = _readme_python().replace('"/dev/ttyACM0"', repr(board[1]))
    assert repr(board[1]) in code
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=PYDIR, PYTHONDONTWRITEBYTECODE="1"))
    assert r.returncode == 0, r.stderr
    # the echo peer sends every message back: ping answers 1, the three
    # pings come back in order, the callback sees its topic only
    assert r.stdout.splitlines() == ["ping 1", "echo [1, 2.5, 'three']",
                                     "ping 0", "ping 1", "ping 2", "0 up"]


def test_the_readme_example_on_the_emulated_uno(tmp_path):
    """The same example against the Uno firmware itself (phyllo-simavr, real
    115200-baud timing): its ping answers with a counter from 0, and a
    window of 2 makes the library read answers while it still publishes.
    Run by make test-python-uno, which names the simulator and firmware."""
    sim, elf = os.environ.get("PHYLLO_SIMAVR"), os.environ.get("PHYLLO_UNO_ELF")
    if not sim or not elf:
        pytest.skip("PHYLLO_SIMAVR and PHYLLO_UNO_ELF not set (make test-python-uno sets them)")
    uno = tmp_path / "uno"
    proc = subprocess.Popen([sim, "--pty", "--link", str(uno), "--seconds", "120", elf],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            if uno.is_symlink():
                break
            time.sleep(0.1)
        assert uno.is_symlink(), "phyllo-simavr made no pty"
        code = _readme_python().replace('"/dev/ttyACM0"', repr(str(uno)))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=60,
                           env=dict(os.environ, PYTHONPATH=PYDIR, PYTHONDONTWRITEBYTECODE="1"))
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["ping 0", "echo [1, 2.5, 'three']",
                                         "ping 1", "ping 2", "ping 3", "0 up"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
