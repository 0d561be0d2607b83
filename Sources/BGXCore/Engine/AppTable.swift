/// A value per app, found by the app's index: an array, not a dictionary —
/// the scheduler asks on nearly every event, and hashing the index cost
/// more than the question. nil where an app has no value.
struct AppTable<Value: Sendable>: Sendable {
    private var values: [Value?] = []

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Engine/ (1 of them in this file) cost the engine 31 instructions per event.
    @inline(__always) subscript(index: Int32) -> Value? {
        get { Int(index) < values.count ? values[Int(index)] : nil }
        set {
            let i = Int(index)
            if i >= values.count {
                guard newValue != nil else { return }
                values.append(contentsOf: repeatElement(nil, count: i + 1 - values.count))
            }
            values[i] = newValue
        }
    }

    mutating func removeAll() { values.removeAll(keepingCapacity: true) }
}

extension AppTable: Codable where Value: Codable {}
