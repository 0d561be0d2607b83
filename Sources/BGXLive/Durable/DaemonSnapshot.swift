import BGXCore
import Foundation

/// A snapshot as the store keeps it: stored with the journal entry `seq`, it
/// is the state just before that entry's input, so a restart decodes it and
/// replays the journal from that entry on.
public struct StoredSnapshot: Sendable, Equatable {
    public var seq: Int64
    /// `DaemonSnapshot.format` of the daemon that stored it.
    public var format: Int
    public var body: Data

    public init(seq: Int64 = 0, format: Int, body: Data) {
        self.seq = seq
        self.format = format
        self.body = body
    }
}

/// Everything a restart would otherwise rebuild by replaying the whole
/// journal: the engine (a plain value, so it encodes whole), the steps it has
/// run, the apps' bundles and the background transfers the daemon moves.
/// The rest of the daemon is the present moment's (processes, connections,
/// attempts under way) and is never restored from the past.
struct DaemonSnapshot: Codable {
    /// Bumped whenever the engine's stored state changes shape or meaning: a
    /// daemon reads only snapshots of its own format. 2: continued processing
    /// became a controller; the text table says whether it lets texts go.
    /// 3: the scheduler learns the device's use (DeviceUsePrediction); an
    /// app's work queued for now holds it awake (AppProcess.queuedNow).
    /// 4: the controllers keep their own settings; the thundering herd is the
    /// scheduler's; the memory controller keeps each app's declared footprint.
    /// 5: the notification controller keeps its settings and the start's Unix time.
    static let format = 5

    var engine: Engine
    var steps: Int64
    var bundles: [AppID: AppBundle]
    var transfers: LiveTransfers.Stored

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        // A Double the engine keeps may be infinite (a budget without end).
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }()
}

extension LiveTransfers {
    /// What outlives an attempt: the requests, the ended ones not yet handed
    /// to their app, and the failures in a row that set the next attempt's wait.
    struct Stored: Codable {
        var requests: [Int32: LiveTransfer]
        var ended: [Int32: LiveTransfer]
        var failures: [Int32: Int]
        var retryAt: [Int32: Int64]
    }

    var stored: Stored { Stored(requests: requests, ended: ended, failures: failures, retryAt: retryAt) }

    mutating func restore(_ stored: Stored) {
        requests = stored.requests
        ended = stored.ended
        failures = stored.failures
        retryAt = stored.retryAt
        moving.removeAll()
    }
}
