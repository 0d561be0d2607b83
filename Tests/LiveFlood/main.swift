import BGXLive
import Glibc

// A hostile client of the daemon's socket, as its own process (the daemon
// counts connections per process, so the test that runs it is not counted
// with it). It does one thing, says on standard output when it has done it,
// then holds everything open until its standard input closes:
//   silent PATH N   opens N connections and never speaks on them
//   ctl PATH N      opens N connections and says hello as ctl on each
//   frames PATH N   one ctl connection, N frames (an unknown verb, whose
//                   refusal is small) sent as fast as it can, no reply read

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    print("usage: bgx-live-flood silent|ctl|frames SOCKET COUNT")
    exit(2)
}
let path = arguments[2]
var held: [LiveConnection] = []

switch arguments[1] {
case "silent":
    for _ in 0..<count {
        if let c = try? LiveConnection(socket: path) { held.append(c) }
    }
    print("connected \(held.count)")
case "ctl":
    var welcomed = 0
    for _ in 0..<count {
        guard let c = try? LiveConnection(socket: path) else { continue }
        held.append(c)
        try? c.send(LiveMessage(type: "hello", role: "ctl"))
        if case let reply? = try? c.receive(), reply.ok == true { welcomed += 1 }
    }
    print("welcomed \(welcomed)")
case "frames":
    let c = try LiveConnection(socket: path)
    held.append(c)
    try c.send(LiveMessage(type: "hello", role: "ctl"))
    _ = try c.receive()
    guard let frame = LiveMessage(type: "ctl", seq: 1, name: "flood").frame() else { exit(2) }
    var sent = 0
    // In batches, so the socket's buffer is full most of the time.
    let batch = Array(repeating: frame, count: 100).flatMap { $0 }
    while sent < count {
        guard (try? c.sendRaw(sent + 100 <= count ? batch : Array(batch.prefix(frame.count * (count - sent))))) != nil else { break }
        sent = min(count, sent + 100)
    }
    print("sent \(sent)")
default:
    print("unknown mode \(arguments[1])")
    exit(2)
}
fflush(stdout)
var byte: UInt8 = 0
while read(0, &byte, 1) == 1 {}
