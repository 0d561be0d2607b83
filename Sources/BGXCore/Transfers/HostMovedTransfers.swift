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

extension Engine {
    /// From now on running transfers finish only when the host says so.
    public mutating func letHostMoveTransferBytes() {
        transfers.bytesMovedByHost = true
    }

    /// The transfers the engine says run now (what the host must be moving).
    public var runnableTransfers: [RunnableTransfer] {
        transfers.tasks.filter { $0.phase == .running }.map {
            RunnableTransfer(task: $0.id, app: $0.app, session: text($0.session), kind: $0.kind, bytes: $0.bytes)
        }
    }

    /// The host moved every byte of a running transfer (a download verified).
    /// False when the engine no longer runs it (cancelled, timed out meanwhile).
    @discardableResult
    public mutating func transferFinishedByHost(_ task: Int32) -> Bool {
        settleTransfers()
        guard let t = transferIndex(task), transfers.tasks[t].phase == .running else { return false }
        transfers.tasks[t].remaining = 0
        reviewTransfers()
        return true
    }

    /// An attempt failed in a way another attempt may mend (a dropped or
    /// stalled connection, a 5xx): the task stays; the host tries again.
    public mutating func transferAttemptFailedByHost(_ task: Int32, reason: String) {
        guard let t = transferIndex(task), transfers.tasks[t].phase != .finished else { return }
        let current = transfers.tasks[t]
        record(current.app, .transferRetry(session: current.session, task: current.id, reason: appendText(
            reason + "; the daemon retries it, resuming from the bytes it has")))
    }

    /// The server's answer cannot be used and retrying cannot help: the task
    /// ends with NSURLErrorBadServerResponse and the reason.
    @discardableResult
    public mutating func transferFailedByHost(_ task: Int32, reason: String) -> Bool {
        settleTransfers()
        guard let t = transferIndex(task), transfers.tasks[t].phase != .finished else { return false }
        finishTransfer(at: t, .badServerResponse, reason: reason)
        reviewTransfers()
        return true
    }
}
