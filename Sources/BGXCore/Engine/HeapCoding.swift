import HeapModule

/// A heap is stored as its array, in the order it holds it. Making a heap
/// from an array that is already a valid heap moves nothing, so a decoded
/// heap has the same layout as the one encoded and pops ties in the same
/// order: an engine restored from a snapshot goes on exactly as the original.
extension Heap: @retroactive Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Array(unordered))
    }
}

extension Heap: @retroactive Decodable where Element: Decodable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([Element].self))
    }
}
