import Yams

/// One key of a scenario mapping, declared once: its name, what a mapping
/// without it is told, and how its value is read into what the section
/// builds. A section's known keys, its "unknown key … did you mean" and the
/// docs' vocabulary check (DocsDriftTests) all come from these declarations.
struct ScenarioKey<Target> {
    typealias Read = (ScenarioParser, Node, _ key: String, inout Target) throws -> Void
    let name: String
    /// The error when the key is missing, made from its name; nil: optional.
    let needed: ((String) -> String)?
    let read: Read

    init(_ name: String, needed: ((String) -> String)? = nil, _ read: @escaping Read) {
        self.name = name
        self.needed = needed
        self.read = read
    }
}

/// A mapping of the scenario language (`device:`, an app, `submit:` …): its
/// keys, each read by its own declaration.
struct ScenarioSection<Target> {
    /// The mapping as messages name it ("device", "an app").
    let what: String
    let keys: [ScenarioKey<Target>]
    /// Whether values are read in the order the keys are declared (a key
    /// reads what an earlier one set) rather than as written (`device:` in a
    /// timeline entry: its changes happen in the order written).
    let declaredOrder: Bool
    /// Rules between the section's keys, checked before any value is read,
    /// with the mapping as written (for readers that point at another key).
    let check: ((ScenarioParser, ScenarioParser.Mapping, Node, inout Target) throws -> Void)?
    /// The keys' names, in their order (every mapping read checks against them).
    let names: [String]

    init(what: String, keys: [ScenarioKey<Target>], declaredOrder: Bool = false,
         check: ((ScenarioParser, ScenarioParser.Mapping, Node, inout Target) throws -> Void)? = nil) {
        self.what = what
        self.keys = keys
        self.declaredOrder = declaredOrder
        self.check = check
        names = keys.map(\.name)
    }

    /// The section with more keys (`reboot` in a timeline's `device:`).
    func adding(_ more: [ScenarioKey<Target>]) -> ScenarioSection {
        ScenarioSection(what: what, keys: keys + more, declaredOrder: declaredOrder, check: check)
    }
}

extension ScenarioParser {
    /// Reads `node` as a mapping of `section`: an unknown key is an error naming
    /// the nearest known one, a missing needed key one pointing at the mapping,
    /// and each value is read by its key into `target`.
    @discardableResult
    func read<Target>(_ section: ScenarioSection<Target>, _ node: Node, into target: inout Target) throws -> ScenarioParser.Mapping {
        let m = try mapping(node, section.what, known: section.names)
        for key in section.keys {
            if let needed = key.needed, m[key.name] == nil { throw err(node, needed(key.name)) }
        }
        try section.check?(self, m, node, &target)
        if section.declaredOrder {
            for key in section.keys {
                if let value = m[key.name] { try key.read(self, value, key.name, &target) }
            }
        } else {
            for (name, value) in m.ordered {
                // `mapping` let only the section's keys through.
                try section.keys.first { $0.name == name }!.read(self, value, name, &target)
            }
        }
        return m
    }
}

/// A word of the scenario language that is not a key (an action, a user
/// command, a handler), declared once with what reads it.
struct ScenarioWord<Read> {
    let name: String
    let read: Read
    init(_ name: String, _ read: Read) {
        self.name = name
        self.read = read
    }
}

extension Array {
    /// The declaration named `name` among words of the scenario language.
    func word<R>(_ name: String) -> Element? where Element == ScenarioWord<R> { first { $0.name == name } }
}
