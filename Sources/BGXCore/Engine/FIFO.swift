/// A first-in, first-out queue: an array read from a moving head.
///
/// The engine's queues (main-thread jobs, the event queue's sorted lanes)
/// only append at the back and take from the front. swift-collections'
/// `Deque` did that as a ring buffer, but since 1.6 its module brings
/// `ContainersPreview` along, about a tenth of what the demo's first build
/// compiles (docs/building.md); this is all of a deque the engine used.
///
/// Taken elements stay in the array until the queue drains, or until they
/// are half of it, when the live ones move to the front: each element is
/// moved at most once more, so appending and taking stay O(1) amortised,
/// and the array keeps its capacity, so a queue at its working size
/// allocates nothing.
@usableFromInline struct FIFO<Element> {
    @usableFromInline var items: [Element] = []
    @usableFromInline var head = 0

    @inlinable init() {}
    @inlinable init<S: Sequence>(_ elements: S) where S.Element == Element { items = Array(elements) }

    @inlinable var isEmpty: Bool { head == items.count }
    @inlinable var count: Int { items.count &- head }
    @inlinable var first: Element? { head < items.count ? items[head] : nil }

    @inlinable mutating func append(_ element: consuming Element) { items.append(element) }

    @inlinable @inline(__always) mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head &+= 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head &* 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    @inlinable mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}

/// Written as the list of waiting elements, first first: the same shape as
/// the `Deque` it replaced, so a live snapshot reads the same either way.
extension FIFO: Codable where Element: Codable {
    @usableFromInline init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { items.append(try container.decode(Element.self)) }
    }

    @usableFromInline func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in items[head...] { try container.encode(element) }
    }
}
