extension RangeReplaceableCollection {
    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Engine/ (1 of them in this file) cost the engine 31 instructions per event.
    /// `removeAll(keepingCapacity: true)`, skipped when already empty:
    /// emptying an array or deque checks its storage is unique, even when there is nothing to remove.
    @inline(__always) mutating func clearKeepingCapacity() {
        if !isEmpty { removeAll(keepingCapacity: true) }
    }
}
