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

extension TextTable {
    /// Lets the slots go: their strings and decisions are released, the slots reused.
    mutating func forget(_ slots: [Int32]) {
        guard !slots.isEmpty else { return }
        let gone = Set(slots)
        for k in slots { strings[Int(k)] = "" }
        var kept = 0
        for j in decisionIndices.indices where !gone.contains(decisionIndices[j]) {
            decisionIndices[kept] = decisionIndices[j]
            decisions.swapAt(kept, j)
            kept += 1
        }
        decisionIndices.removeLast(decisionIndices.count - kept)
        decisions.removeLast(decisions.count - kept)
        // Lowest last, so the lowest slot is reused first.
        free += slots
        free.sort(by: >)
    }

    /// A freed slot, now holding a decision (kept in index order beside the others).
    mutating func reuseSlot(for d: DecisionWords) -> Int32 {
        let slot = free.removeLast()
        reusedSince.append(slot)
        strings[Int(slot)] = ""
        let k = firstDecision(atOrAfter: slot)
        decisionIndices.insert(slot, at: k)
        decisions.insert(d, at: k)
        return slot
    }

    /// A freed slot, now holding a one-off text.
    mutating func reuseSlot(for s: String) -> Int32 {
        let slot = free.removeLast()
        reusedSince.append(slot)
        strings[Int(slot)] = s
        return slot
    }
}
