import BitCollections

/// A set of apps by index, a bit per app, iterated in index order. Cheaper
/// than `Set<Int32>` on the hot path (a process starts or ends on nearly
/// every launch): no hashing, and no sort where the order matters.
struct AppIndexSet: Sendable, Sequence {
    private var bits = BitSet()

    @inline(__always) mutating func insert(_ index: Int32) { bits.insert(Int(index)) }
    @inline(__always) mutating func remove(_ index: Int32) { bits.remove(Int(index)) }
    @inline(__always) func contains(_ index: Int32) -> Bool { bits.contains(Int(index)) }
    var isEmpty: Bool { bits.isEmpty }
    var count: Int { bits.count }

    /// Ascending, as `sorted()` would give.
    func makeIterator() -> LazyMapSequence<BitSet, Int32>.Iterator {
        bits.lazy.map { Int32($0) }.makeIterator()
    }
    /// Already in index order.
    func sorted() -> [Int32] { Array(self) }
}
