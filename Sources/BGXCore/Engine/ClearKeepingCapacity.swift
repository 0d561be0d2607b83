extension RangeReplaceableCollection {
    /// `removeAll(keepingCapacity: true)`, skipped when already empty:
    /// emptying an array or deque checks its storage is unique, even when there is nothing to remove.
    @inline(__always) mutating func clearKeepingCapacity() {
        if !isEmpty { removeAll(keepingCapacity: true) }
    }
}
