/// A first-in, first-out queue: a ring of slots in an array.
///
/// The engine's queues (main-thread jobs, the event queue's sorted lanes)
/// only append at the back and take from the front. swift-collections'
/// `Deque` did that, but since 1.6 its module brings `ContainersPreview`
/// into the demo's first build (docs/building.md); this is all of a deque
/// the engine used. An element is moved out of its slot as it is taken
/// (`Optional.take()`), so taking copies nothing and leaves nothing to tidy,
/// and the array keeps its size, so a queue at its working size allocates
/// nothing. (An array read from a moving head and emptied when drained cost
/// the engine about 4 % more instructions in `bgx bench`, callgrind.)
@usableFromInline struct FIFO<Element> {
    @usableFromInline var slots: [Element?] = []
    /// The first element's slot.
    @usableFromInline var head = 0
    @usableFromInline var count = 0

    @inlinable init() {}

    @inlinable var isEmpty: Bool { count == 0 }
    @inlinable var first: Element? { count == 0 ? nil : slots[head] }
    /// What `transform` makes of the first element, read in its slot (not copied out of it).
    @inlinable @inline(__always) func mapFirst<T>(_ transform: (borrowing Element) -> T) -> T? {
        guard count > 0 else { return nil }
        return slots[head].map(transform)
    }

    @inlinable @inline(__always) mutating func append(_ element: consuming Element) {
        if count == slots.count { grow() }
        var tail = head &+ count
        if tail >= slots.count { tail &-= slots.count }
        slots[tail] = element
        count &+= 1
    }

    @inlinable @inline(__always) mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head].take()
        head &+= 1
        if head == slots.count { head = 0 }
        count &-= 1
        return element
    }

    @inlinable mutating func removeAll() {
        while count > 0 { _ = popFirst() }
        head = 0
    }

    /// Twice the slots (16 at first), the elements moved to the front in order.
    @usableFromInline mutating func grow() {
        var grown = [Element?]()
        grown.reserveCapacity(Swift.max(16, slots.count &* 2))
        for i in 0..<count { grown.append(slots[(head &+ i) % slots.count].take()) }
        while grown.count < grown.capacity { grown.append(nil) }
        slots = grown
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}

/// Written as the list of waiting elements, first first: the same shape as
/// the `Deque` it replaced, so a live snapshot reads the same either way.
extension FIFO: Codable where Element: Codable {
    @usableFromInline init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }

    @usableFromInline func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for i in 0..<count { try container.encode(slots[(head &+ i) % slots.count]!) }
    }
}
