"""The app side of bgx's live protocol, in Python (standard library only).

A process that `bgx daemon` launched finds the socket and its bundle
identifier in its environment (BGX_SOCKET, BGX_BUNDLE_IDENTIFIER). It says
hello, then runs the callbacks the system sends, acknowledging each when its
handler returns: the acknowledgement is what the system's watchdogs wait for.
The frames and messages are described in docs/live-protocol.md.
"""

import json
import os
import socket
import struct

MAGIC = b"BGX"
VERSION = 1
MAX_PAYLOAD = 64 * 1024


class Refused(Exception):
    pass


class LiveClient:
    def __init__(self, socket_path=None, bundle_identifier=None):
        path = socket_path or os.environ.get("BGX_SOCKET")
        self.bundle_identifier = bundle_identifier or os.environ.get("BGX_BUNDLE_IDENTIFIER")
        if not path or not self.bundle_identifier:
            raise Refused("not started by bgx daemon (no BGX_SOCKET / BGX_BUNDLE_IDENTIFIER)")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""
        self.next_seq = 1
        self.held = []
        self.expiration_handlers = {}
        self.handlers = {}
        self.send({"type": "hello", "role": "app", "app": self.bundle_identifier})
        welcome = self.receive()
        if welcome is None or welcome.get("type") != "welcome" or not welcome.get("ok"):
            raise Refused((welcome or {}).get("text", "the daemon closed the connection"))

    # Frames: "BGX", the version, a big-endian 32-bit length, a JSON object.
    def send(self, message):
        payload = json.dumps(message).encode()
        if len(payload) > MAX_PAYLOAD:
            raise ValueError("message over the frame bound")
        self.sock.sendall(MAGIC + bytes([VERSION]) + struct.pack(">I", len(payload)) + payload)

    def receive(self):
        while True:
            if len(self.buffer) >= 8:
                if self.buffer[:3] != MAGIC or self.buffer[3] != VERSION:
                    raise Refused("not a bgx frame")
                (length,) = struct.unpack(">I", self.buffer[4:8])
                if length > MAX_PAYLOAD:
                    raise Refused("frame over the bound")
                if len(self.buffer) >= 8 + length:
                    payload, self.buffer = self.buffer[8:8 + length], self.buffer[8 + length:]
                    return json.loads(payload)
            chunk = self.sock.recv(16384)
            if not chunk:
                return None
            self.buffer += chunk

    def call(self, name, /, **args):
        """A call into the system; returns its reply (a dict)."""
        seq = self.next_seq
        self.next_seq += 1
        self.send({"type": "call", "seq": seq, "name": name, "args": {k: str(v) for k, v in args.items()}})
        while True:
            message = self.receive()
            if message is None:
                raise Refused("the daemon closed the connection")
            if message.get("type") == "reply" and message.get("seq") == seq:
                return message
            self.held.append(message)

    def begin_background_task(self, name=None, expiration_handler=None):
        """UIApplication.beginBackgroundTask: the task's id, or 0 (.invalid)."""
        reply = self.call("beginBackgroundTask", **({"name": name} if name else {}))
        task = int(reply.get("args", {}).get("id", "0"))
        if task and expiration_handler:
            self.expiration_handlers[task] = expiration_handler
        return task

    def end_background_task(self, task):
        self.expiration_handlers.pop(task, None)
        return self.call("endBackgroundTask", id=task)

    def on(self, name, handler):
        """Runs handler(args) for each callback of this name."""
        self.handlers[name] = handler

    def run(self):
        """Runs callbacks until the daemon closes the connection."""
        while True:
            message = self.held.pop(0) if self.held else self.receive()
            if message is None:
                return
            if message.get("type") != "callback":
                continue
            name, args = message.get("name"), message.get("args", {})
            if name == "backgroundTaskExpired":
                handler = self.expiration_handlers.pop(int(args.get("id", "0")), None)
                if handler:
                    handler()
            if name in self.handlers:
                self.handlers[name](args)
            self.send({"type": "ack", "seq": message.get("seq")})
