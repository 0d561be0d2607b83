import BGXCore
import Foundation
import Glibc

/// A state directory knows it was initialised: `STATE/session` names the
/// session its database holds (seed and start). A database that was emptied
/// or deleted, or swapped for another state's, is then never mistaken for a
/// first start — which would silently forget every app, request and flag,
/// and write the old trace over from t = 0.
extension LiveDaemon {
    static let sessionMarker = "session"

    /// The marker's text for a session.
    static func marker(of session: DaemonSession) -> String { "seed \(session.seed) start \(session.startEpochSeconds)\n" }

    /// What the marker says, or nil when there is none.
    func readMarker() throws -> String? {
        let fd = openat(stateDirectory.fd, Self.sessionMarker, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw SystemError("open \(stateDirectory.path)/\(Self.sessionMarker)")
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 256)
        let n = read(fd, &bytes, bytes.count)
        return n > 0 ? String(decoding: bytes[0..<n], as: UTF8.self) : ""
    }

    /// Refuses to start on a state directory whose database lost what the
    /// marker says it held, unless `--fresh` asks for a new start on purpose.
    func checkNothingLost(stored: DaemonSession?) throws {
        guard let marker = try readMarker() else { return }
        let said = marker.trimmingCharacters(in: .whitespacesAndNewlines)
        if let stored {
            guard marker == Self.marker(of: stored) || options.fresh else {
                throw PrivateDirectory.Refused(description: "\(stateDirectory.path)/state.sqlite holds another session than this directory's (\(said)): "
                    + "it was replaced. Put the right file back, or start over on purpose with --fresh")
            }
            return
        }
        guard options.fresh else {
            throw PrivateDirectory.Refused(description: "\(stateDirectory.path) was initialised (\(said)) but its state.sqlite holds no session: "
                + "the database was emptied or deleted, and starting would forget every app, request and flag without a word. "
                + "Put the database back, or start over on purpose with --fresh (the trace starts again; the audit log is kept)")
        }
        log("bgx daemon: starting over on purpose (--fresh): \(stateDirectory.path) held \(said)")
    }

    /// Writes the marker for the session now in the database (and waits for the disk).
    func writeMarker(_ session: DaemonSession) throws {
        let text = Self.marker(of: session)
        if (try? readMarker()) == text { return }
        let fd = try stateDirectory.openFile(Self.sessionMarker, flags: O_WRONLY | O_TRUNC)
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            throw SystemError("write \(stateDirectory.path)/\(Self.sessionMarker)")
        }
    }
}
