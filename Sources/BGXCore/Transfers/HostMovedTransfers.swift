/// rules §8 on the live host: the engine still decides which transfers may
/// run (discretion, network, power, earliest begin, the resource timeout,
/// force-quit) and what the app is told, but the bytes move over real
/// connections, so a transfer ends when the host reports it — an input like
/// any other, journaled by the host, so the engine stays a pure function of
/// its inputs.

/// A transfer the engine lets run now, for the host to move.
public struct RunnableTransfer: Sendable, Equatable {
    public var task: Int32
    public var app: AppID
    public var session: String
    public var kind: TransferKind
    /// The size the app said to expect (`countOfBytesClientExpectsToReceive`/`…ToSend`).
    public var bytes: Int64
}

extension TransferController {
    /// The transfers the daemon runs now (what the host must be moving); `name` words a session's identifier.
    func runnable(name: (TextID) -> String) -> [RunnableTransfer] {
        tasks.filter { $0.phase == .running }.map {
            RunnableTransfer(task: $0.id, app: $0.app, session: name($0.session), kind: $0.kind, bytes: $0.bytes)
        }
    }
}

// The host's reports: each is forwarded to the transfer controller.
extension Engine {
    /// From now on running transfers finish only when the host says so.
    public mutating func letHostMoveTransferBytes() {
        transfers.letHostMoveBytes()
    }

    /// The transfers the engine says run now (what the host must be moving).
    public var runnableTransfers: [RunnableTransfer] { transfers.runnable { text($0) } }

    /// The host moved every byte of a running transfer (a download verified).
    /// False when the engine no longer runs it (cancelled, timed out meanwhile).
    @discardableResult
    public mutating func transferFinishedByHost(_ task: Int32) -> Bool {
        guard let effects = transfers.finishedByHost(task, transferConditions, settings: profile.transfers) else {
            return false
        }
        apply(effects)
        return true
    }

    /// An attempt failed in a way another attempt may mend (a dropped or
    /// stalled connection, a 5xx): the task stays; the host tries again.
    public mutating func transferAttemptFailedByHost(_ task: Int32, reason: String) {
        apply(transfers.attemptFailedByHost(task, reason: reason))
    }

    /// The server's answer cannot be used and retrying cannot help: the task
    /// ends with NSURLErrorBadServerResponse and the reason.
    @discardableResult
    public mutating func transferFailedByHost(_ task: Int32, reason: String) -> Bool {
        guard let effects = transfers.failedByHost(task, reason: reason, transferConditions,
                                                   settings: profile.transfers) else { return false }
        apply(effects)
        return true
    }
}
