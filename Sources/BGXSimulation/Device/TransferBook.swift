import BGXCore

/// What the system keeps of an app's background-session tasks across its
/// processes, as nsurlsessiond does: `taskIdentifier`s count up per session
/// from 1 (a relaunched process's new tasks go on counting), and each task's
/// identifier, `taskDescription` and size come back with it in the next process.
struct TransferBook {
    var counters: [String: Int] = [:]
    /// By the engine's transfer task.
    var tasks: [Int32: (taskIdentifier: Int, description: String?, bytes: Int64)] = [:]

    mutating func nextIdentifier(session: String) -> Int {
        counters[session, default: 0] += 1
        return counters[session]!
    }
}
