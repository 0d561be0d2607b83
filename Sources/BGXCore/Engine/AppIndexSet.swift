import BitCollections

/// A set of apps by index, a bit per app, iterated in index order. Cheaper
/// than `Set<Int32>` on the hot path (a process starts or ends on nearly
/// every launch): no hashing, and no sort where the order matters. It
/// keeps its own count: `BitSet`'s `count` and `isEmpty` scan every word.
struct AppIndexSet: Sendable, Sequence {
    private var bits = BitSet()
    private(set) var count = 0

    @inline(__always) mutating func insert(_ index: Int32) {
        if bits.insert(Int(index)).inserted { count += 1 }
    }
    @inline(__always) mutating func remove(_ index: Int32) {
        if bits.remove(Int(index)) != nil { count -= 1 }
    }
    @inline(__always) func contains(_ index: Int32) -> Bool { bits.contains(Int(index)) }
    var isEmpty: Bool { count == 0 }
    /// The lowest index, if any.
    var first: Int32? { count == 0 ? nil : bits.first.map { Int32($0) } }
    /// Empties the set, keeping its words.
    mutating func removeAll() {
        // A few members (the usual case) one by one, without an array; many by dropping the words.
        if count > 16 { bits = BitSet(); count = 0 }
        while let index = first { remove(index) }
    }

    /// Ascending, as `sorted()` would give.
    func makeIterator() -> LazyMapSequence<BitSet, Int32>.Iterator {
        bits.lazy.map { Int32($0) }.makeIterator()
    }
    /// Already in index order.
    func sorted() -> [Int32] { Array(self) }
}
