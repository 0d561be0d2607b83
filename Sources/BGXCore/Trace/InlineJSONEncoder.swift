/// Encodes an `Encodable` as one line of JSON in the style of the trace
/// (docs/scenarios.md, "The trace"): keys in the order the type encodes them
/// (a synthesized `Codable` encodes its properties in declaration order),
/// `": "` and `", "` between, strings escaped as the trace escapes them,
/// numbers as Swift writes them.
///
/// A nil optional is written `null` (a reader finds every key, as bgx's
/// outputs always wrote them), unless the property is `@OmittedWhenNil`:
/// then the key is left out. A number whose text is fixed elsewhere
/// (`Time.format`'s exact decimals) goes in as a `JSONNumber`, JSON written
/// elsewhere as a `JSONFragment`, an object whose keys are data (in an order
/// of their own) as `JSONMembers`.
///
/// Foundation's `JSONEncoder` orders keys by hash unless told to sort them,
/// leaves nil optionals out, and leaves no space after `:` and `,`: the
/// outputs bgx documents (`bgx run --json`, `bgx explain --json`,
/// `bgx bench --json`, `bgx ctl status --json`, …) were written by hand in
/// this style, and keep it byte for byte. (Two writers stay by hand: the
/// trace's lines, `TraceRenderer.jsonLine`, on the engine's hot path, and the
/// live protocol's frames, `LiveMessage.encoded`, measured faster by hand.)
public struct InlineJSONEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = InlineJSONWriter(codingPath: [])
        try encoder.write(value)
        return encoder.root.text
    }
}

/// JSON written elsewhere (a value Foundation's encoder wrote), put in as it is.
public struct JSONFragment: Encodable, InlineJSONText {
    public let text: String
    public init(_ text: String) { self.text = text }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }
}

/// A number written as the text given (`Time.format`'s exact decimals, a
/// rounding of the output's own), not as Swift would print the value.
/// (Another encoder, Foundation's, gets it as the Double the text reads as.)
public struct JSONNumber: Encodable, InlineJSONText {
    public let text: String
    public init(_ text: String) { self.text = text }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if let value = Double(text) { try c.encode(value) } else { try c.encode(text) }
    }
}

/// Text an `InlineJSONEncoder` writes as it is.
protocol InlineJSONText { var text: String { get } }

/// An object whose keys are data (states, causes, reasons), in the order
/// given — a dictionary would lose it.
public struct JSONMembers<Value: Encodable>: Encodable {
    public var members: [(key: String, value: Value)]
    public init(_ members: [(key: String, value: Value)]) { self.members = members }

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for (key, value) in members { try c.encode(value, forKey: Key(stringValue: key)) }
    }
}

/// A property an `InlineJSONEncoder` leaves out when it is nil (any other
/// nil is written `null`): fields that are there only sometimes, such as a
/// process's pid beside an app that has none.
@propertyWrapper
public struct OmittedWhenNil<Value: Encodable>: Encodable, InlineJSONOmittable {
    public var wrappedValue: Value?
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
    var isNil: Bool { wrappedValue == nil }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

protocol InlineJSONOmittable { var isNil: Bool { get } }

/// A value being written: a scalar's text, or a container's members.
final class InlineJSONValue {
    enum Shape { case scalar(String), object([(String, InlineJSONValue)]), array([InlineJSONValue]) }
    var shape: Shape = .scalar("null")

    var text: String {
        switch shape {
        case let .scalar(s): s
        case let .object(members): "{" + members.map { Self.quoted($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
        case let .array(items): "[" + items.map(\.text).joined(separator: ", ") + "]"
        }
    }

    static func quoted(_ s: String) -> String {
        var out = ""
        TraceRenderer.appendJSONString(s, to: &out)
        return out
    }

    // Each append lets go of `shape`'s array first, so the array is not
    // copied: an output of thousands of apps is written in linear time.
    func append(_ key: String, _ value: InlineJSONValue) {
        guard case var .object(members) = shape else { shape = .object([(key, value)]); return }
        shape = .scalar("")
        members.append((key, value))
        shape = .object(members)
    }

    func append(_ value: InlineJSONValue) {
        guard case var .array(items) = shape else { shape = .array([value]); return }
        shape = .scalar("")
        items.append(value)
        shape = .array(items)
    }
}

final class InlineJSONWriter: Encoder {
    let codingPath: [CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let root = InlineJSONValue()

    init(codingPath: [CodingKey]) { self.codingPath = codingPath }

    /// Writes `value` into `root`: a fragment or number as it is, any other by its own `encode(to:)`.
    func write<T: Encodable>(_ value: T) throws {
        if let verbatim = value as? InlineJSONText {
            root.shape = .scalar(verbatim.text)
        } else {
            try value.encode(to: self)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .scalar = root.shape { root.shape = .object([]) }
        return KeyedEncodingContainer(Keyed<Key>(writer: self))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .scalar = root.shape { root.shape = .array([]) }
        return Unkeyed(writer: self)
    }

    func singleValueContainer() -> SingleValueEncodingContainer { Single(writer: self) }

    /// The value `value` writes, as a member of a container.
    func nested<T: Encodable>(_ value: T, at key: CodingKey?) throws -> InlineJSONValue {
        let child = InlineJSONWriter(codingPath: codingPath + (key.map { [$0] } ?? []))
        try child.write(value)
        return child.root
    }

    static func scalar(_ text: String) -> InlineJSONValue {
        let v = InlineJSONValue()
        v.shape = .scalar(text)
        return v
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: InlineJSONWriter
        var codingPath: [CodingKey] { writer.codingPath }

        mutating func encodeNil(forKey key: Key) throws { writer.root.append(key.stringValue, InlineJSONWriter.scalar("null")) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let omittable = value as? InlineJSONOmittable, omittable.isNil { return }
            writer.root.append(key.stringValue, try writer.nested(value, at: key))
        }

        // A synthesized `Codable` calls these for its optionals: nil is
        // written `null` (the protocol's own versions leave the key out).
        // Each overload is here, so none falls back to those versions.
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }
        private mutating func present<T: Encodable>(_ value: T?, _ key: Key) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = InlineJSONWriter(codingPath: codingPath + [key])
            writer.root.append(key.stringValue, child.root)
            return child.container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
            let child = InlineJSONWriter(codingPath: codingPath + [key])
            writer.root.append(key.stringValue, child.root)
            return child.unkeyedContainer()
        }
        mutating func superEncoder() -> Encoder { writer }
        mutating func superEncoder(forKey key: Key) -> Encoder { writer }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let writer: InlineJSONWriter
        var codingPath: [CodingKey] { writer.codingPath }
        var count: Int {
            if case let .array(items) = writer.root.shape { return items.count }
            return 0
        }

        mutating func encodeNil() throws { writer.root.append(InlineJSONWriter.scalar("null")) }
        mutating func encode<T: Encodable>(_ value: T) throws { writer.root.append(try writer.nested(value, at: nil)) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = InlineJSONWriter(codingPath: codingPath)
            writer.root.append(child.root)
            return child.container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
            let child = InlineJSONWriter(codingPath: codingPath)
            writer.root.append(child.root)
            return child.unkeyedContainer()
        }
        mutating func superEncoder() -> Encoder { writer }
    }

    struct Single: SingleValueEncodingContainer {
        let writer: InlineJSONWriter
        var codingPath: [CodingKey] { writer.codingPath }

        func set(_ text: String) { writer.root.shape = .scalar(text) }
        mutating func encodeNil() throws { set("null") }
        mutating func encode(_ value: Bool) throws { set(value ? "true" : "false") }
        mutating func encode(_ value: String) throws { set(InlineJSONValue.quoted(value)) }
        mutating func encode(_ value: Double) throws { set("\(value)") }
        mutating func encode(_ value: Float) throws { set("\(value)") }
        mutating func encode(_ value: Int) throws { set("\(value)") }
        mutating func encode(_ value: Int8) throws { set("\(value)") }
        mutating func encode(_ value: Int16) throws { set("\(value)") }
        mutating func encode(_ value: Int32) throws { set("\(value)") }
        mutating func encode(_ value: Int64) throws { set("\(value)") }
        mutating func encode(_ value: UInt) throws { set("\(value)") }
        mutating func encode(_ value: UInt8) throws { set("\(value)") }
        mutating func encode(_ value: UInt16) throws { set("\(value)") }
        mutating func encode(_ value: UInt32) throws { set("\(value)") }
        mutating func encode(_ value: UInt64) throws { set("\(value)") }
        mutating func encode<T: Encodable>(_ value: T) throws { try writer.write(value) }
    }
}
