import Foundation
import Glibc

/// The trace file from one journal entry's offset to its end: the lines a
/// daemon that died had already written for that entry and what followed.
/// A restarted daemon replays that stretch and writes only the lines not
/// already there, so a person sees each of them once.
struct TraceTail {
    var lines: [String]
    var next = 0
    /// Which lines a replayed line was found to be.
    var matched: [Bool] = []

    /// Reads the file from `offset`, first cutting off a torn last line (the
    /// daemon died in the middle of writing it). A file shorter than the
    /// offset was rotated since the entry was written (`rotated`, the file
    /// before, closed here): the stretch is the old file's from `offset`, then all of this one.
    init(fd: Int32, from offset: Int64, rotated: Int32? = nil) {
        let end = lseek(fd, 0, SEEK_END)
        var earlier: [UInt8] = []
        var from = offset
        if let rotated {
            defer { close(rotated) }
            let oldEnd = lseek(rotated, 0, SEEK_END)
            if Int64(end) < offset, Int64(oldEnd) >= offset {
                earlier = [UInt8](repeating: 0, count: Int(Int64(oldEnd) - offset))
                let n = earlier.isEmpty ? 0 : pread(rotated, &earlier, earlier.count, off_t(offset))
                earlier = Array(earlier.prefix(max(0, n)))
                from = 0
            }
        }
        var bytes = [UInt8](repeating: 0, count: Int(max(0, Int64(end) - from)))
        let n = bytes.isEmpty ? 0 : pread(fd, &bytes, bytes.count, off_t(from))
        bytes = Array(bytes.prefix(max(0, n)))
        let offset = from
        if let lastNewline = bytes.lastIndex(of: 10), lastNewline != bytes.count - 1 {
            _ = ftruncate(fd, off_t(offset) + off_t(lastNewline + 1))
            bytes = Array(bytes[...lastNewline])
        } else if !bytes.isEmpty, bytes.last != 10 {
            _ = ftruncate(fd, off_t(offset))
            bytes = []
        }
        lines = (earlier + bytes).split(separator: 10).map { String(decoding: $0, as: UTF8.self) }
        matched = Array(repeating: false, count: lines.count)
    }

    /// True (and consumed) when the line was written before: lines come back
    /// in the order they were written, with the host's own lines between.
    mutating func alreadyWritten(_ line: String) -> Bool {
        guard let i = lines[next...].firstIndex(of: line) else { return false }
        matched[i] = true
        next = i + 1
        return true
    }

    /// The engine's lines the replay did not give (the host's own — process,
    /// connection, daemon, transfer attempt, memory pressure, platform and install lines
    /// — are not replayed): each is a decision the journal cannot explain.
    var unmatchedEngineLines: [String] {
        lines.indices.filter { !matched[$0] && !Self.isHostLine(lines[$0]) }.map { lines[$0] }
    }

    static let hostKinds: Set<String> = ["daemon.start", "daemon.stall", "daemon.stop", "app.install", "process.spawn",
                                         "process.spawnFailed", "process.freeze", "process.thaw", "process.freezeFailed",
                                         "process.thawFailed", "process.kill", "process.exit", "connection.close",
                                         "connection.refuse", "transfer.attempt", "transfer.verified", "transfer.stop",
                                         "memory.pressure", "platform.source", "platform.input"]

    static func isHostLine(_ line: String) -> Bool {
        guard let r = line.range(of: "\"kind\": \"") else { return true }
        let kind = line[r.upperBound...].prefix { $0 != "\"" }
        return hostKinds.contains(String(kind))
    }

    /// The engine time of the last line written (the latest moment the dead
    /// daemon is known to have reached), from its `"t": SECONDS`.
    var lastTime: Int64? {
        for line in lines.reversed() {
            if let t = Self.time(of: line) { return t }
        }
        return nil
    }

    static func time(of line: String) -> Int64? {
        guard line.hasPrefix("{\"t\": ") else { return nil }
        let number = line.dropFirst(6).prefix { $0.isNumber || $0 == "." }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first.flatMap({ Int64($0) }) else { return nil }
        var frac: Int64 = 0
        if parts.count == 2 {
            let digits = String(parts[1].prefix(9))
            frac = (Int64(digits) ?? 0) * Int64(pow(10.0, Double(9 - digits.count)))
        }
        return whole * 1_000_000_000 + frac
    }
}
