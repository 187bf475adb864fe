#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""fault-client.py - tests/bridge's independent MQTT client for the fault
run, on Debian's python3-paho-mqtt, reconnecting (0.1 to 0.5 s) while the
broker is killed and restarted:
  pub HOST PORT TOPIC N [RATE]
                         publish the integers 0..N-1 (as JSON) at QoS 1 in a
                         persistent session; exit 0 once the broker has
                         acknowledged every one, 1 after 120 s; at most
                         RATE a second if given
  sub HOST PORT TOPIC N  subscribe at QoS 1 in a persistent session (again
                         at every connection); print each
                         payload on a line; exit 0 once N distinct payloads
                         came, 1 after 120 s"""
import sys
import threading
import time

import paho.mqtt.client as mqtt

mode, host, port, topic, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
rate = float(sys.argv[6]) if len(sys.argv) > 6 else 0
seen = set()
done = threading.Event()
lock = threading.Lock()


def on_publish(client, userdata, mid):
    with lock:
        seen.add(mid)
        if len(seen) >= n:
            done.set()


def on_connect(client, userdata, flags, rc):
    if rc == 0:
        print("connected", file=sys.stderr, flush=True)
    if rc == 0 and mode == "sub":
        client.subscribe(topic, qos=1)


def on_subscribe(client, userdata, mid, granted):
    print("subscribed", file=sys.stderr, flush=True)


def on_message(client, userdata, msg):
    text = msg.payload.decode("utf-8", "replace")
    print(text, flush=True)
    with lock:
        seen.add(text)
        if len(seen) >= n:
            done.set()


c = mqtt.Client(client_id="phyllo-test-fault-" + mode, clean_session=False)
c.max_inflight_messages_set(20)
c.reconnect_delay_set(0.1, 0.5)
c.on_publish = on_publish
c.on_connect = on_connect
c.on_message = on_message
c.on_subscribe = on_subscribe
c.connect(host, port, keepalive=5)
c.loop_start()
if mode == "pub":
    start = time.monotonic()
    for i in range(n):
        if rate:
            time.sleep(max(0.0, start + i / rate - time.monotonic()))
        c.publish(topic, str(i), qos=1)
        while i + 1 - len(seen) > 200:  # keep paho's own queue short
            time.sleep(0.005)
ok = done.wait(120)
c.loop_stop()
print("%s: %d of %d" % (mode, len(seen), n), file=sys.stderr)
sys.exit(0 if ok else 1)
