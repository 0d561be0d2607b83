// The trace buffer and its text table are the coordinator's: what a host
// asks of them — the names to write events with, and that it has written
// them — is answered here.

extension Engine {
    public var traceNames: TraceNames {
        var names = TraceNames(apps: [], notifications: [], texts: [])
        updateTraceNames(&names)
        return names
    }

    /// Brings names made earlier up to date. Apps, notification identifiers
    /// and texts are only ever added (or a slot reused after `traceWritten`),
    /// so only what is new is put into words. A host that writes the trace as
    /// it runs (the live daemon) keeps one `TraceNames` and updates it before each write: making them
    /// afresh put every decision so far into words at every write, a cost
    /// that grew with the daemon's age (quadratic over a run, and over the
    /// replay of a long journal at restart).
    public func updateTraceNames(_ names: inout TraceNames) {
        if names.apps.count < apps.count {
            names.apps += apps[names.apps.count...].map(\.manifest.bundleIdentifier)
        }
        if names.notifications.count < notifications.names.count {
            names.notifications += notifications.names[names.notifications.count...]
        }
        let from = names.texts.count
        // Slots the engine let go and reused since (`traceWritten`) say something new.
        for i in texts.reusedSince where Int(i) < from {
            names.texts[Int(i)] = text(TextID(index: i))
            names.scores[i] = texts.decision(at: i).flatMap(\.scores)
        }
        guard from < texts.strings.count else { return }
        // Whole, the table is shared, not copied.
        if from == 0 { names.texts = texts.strings } else { names.texts += texts.strings[from...] }
        for k in texts.firstDecision(atOrAfter: Int32(from))..<texts.decisionIndices.count {
            let i = texts.decisionIndices[k], d = texts.decisions[k]
            names.texts[Int(i)] = d.text(wallClockOffset: wallClockOffset)
            if let scores = d.scores { names.scores[i] = scores }
        }
    }
    public var traceRenderer: TraceRenderer { TraceRenderer(names: traceNames) }
}

/// A host that writes its trace out as it goes (the live daemon) tells the
/// engine so, and the engine lets go of the one-off texts — scheduling
/// decisions, transfer and notification reasons — that only written trace
/// events referred to. Without it, a daemon that runs for months would keep
/// every decision it ever made (one per 11 inputs of the live soak's mix).
/// A simulation never calls it: its trace and text identifiers stay as they
/// are, byte for byte.
extension Engine {
    /// The host has taken and written every trace event so far (`trace` is
    /// empty). Text identifiers the engine's state still holds — task
    /// identifiers, names, interned words, the decisions in the task history
    /// `explain` reads — keep resolving; those held only by written events
    /// may name other text from now on.
    /// The work is done once `batch` one-off texts have gathered (the daemon
    /// calls it after every input), so a run keeps at most that many more.
    public mutating func traceWritten(batch: Int = 256) {
        texts.lettingGo = true
        // Events not yet taken may refer to anything: forget nothing then.
        guard trace.isEmpty, texts.strings.count - Int(texts.writtenUpTo) + texts.reusedSince.count >= batch else { return }
        var candidates = texts.retained + texts.reusedSince
        for k in Int(texts.writtenUpTo)..<texts.strings.count where texts.index[texts.strings[k]] != Int32(k) {
            candidates.append(Int32(k))
        }
        var held = Set<Int32>()
        for entry in scheduler.taskHistory { if let d = entry.detail { held.insert(d.index) } }
        texts.retained = candidates.filter { held.contains($0) }
        texts.forget(candidates.filter { !held.contains($0) })
        // `updateTraceNames` has read the slots reused since the last pass (the host updates
        // its names before writing, then calls this), so they are no longer news.
        texts.reusedSince.removeAll(keepingCapacity: true)
        texts.writtenUpTo = Int32(texts.strings.count)
    }

}
