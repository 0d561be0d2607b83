/// What the engine's text table does when a host has written its trace
/// (`Engine.traceWritten`): slots let go, and reused.
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
