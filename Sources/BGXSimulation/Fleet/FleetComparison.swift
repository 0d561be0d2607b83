import BGXCore

/// `bgx fleet compare A B`: two fleet results side by side — the load each
/// puts on the backend, how stale the app is when opened, how pushes fare —
/// the answer to "what if we change X" (two scenarios, or two settings).
public struct FleetComparison {
    public let a: FleetResult
    public let b: FleetResult
    public let names: (String, String)

    public init(_ a: FleetResult, _ b: FleetResult, names: (String, String)) {
        self.a = a.canonical
        self.b = b.canonical
        self.names = names
    }

    /// Each line: what, A's figure, B's figure.
    public var rows: [(String, String, String)] {
        var rows: [(String, String, String)] = []
        rows.append(("devices × days", "\(a.deviceCount) × \(a.days)", "\(b.deviceCount) × \(b.days)"))
        let apps = Set(a.arrivals.keys).union(b.arrivals.keys).sorted()
        for app in apps {
            for cause in FleetResult.causes where a.arrivals[app]?[cause] != nil || b.arrivals[app]?[cause] != nil {
                let x = a.arrivals[app]?[cause], y = b.arrivals[app]?[cause]
                let label = apps.count > 1 ? "\(app) \(cause)" : cause
                rows.append(("\(label): arrivals", Self.total(x), Self.total(y)))
                rows.append(("\(label): busiest minute", Self.busiest(x), Self.busiest(y)))
                rows.append(("\(label): top of the hour", Self.ratio(x), Self.ratio(y)))
            }
        }
        for name in FleetResult.delayNames {
            rows.append(("\(name) p50 / p90 / p99", Self.percentiles(a, name), Self.percentiles(b, name)))
        }
        func share(_ r: FleetResult) -> String {
            let sent = r.counts["pushesSent"] ?? 0
            guard sent > 0 else { return "—" }
            let delivered = r.counts["pushesDelivered"] ?? 0
            return "\(delivered) of \(sent) (\(Int((Double(delivered) / Double(sent) * 100).rounded())) %)"
        }
        rows.append(("silent pushes delivered", share(a), share(b)))
        rows.append(("uses before any background refresh", "\(a.counts["usesBeforeAnyRefresh"] ?? 0)",
                     "\(b.counts["usesBeforeAnyRefresh"] ?? 0)"))
        return rows
    }

    static func total(_ m: [Int]?) -> String { m.map { "\($0.reduce(0, +))" } ?? "—" }

    static func busiest(_ m: [Int]?) -> String {
        guard let m, let top = m.max(), top > 0, let at = m.firstIndex(of: top) else { return "—" }
        return "\(top) at \(FleetResult.clock(at))"
    }

    static func ratio(_ m: [Int]?) -> String { m.map { FleetReport.topOfHour($0) } ?? "—" }

    static func percentiles(_ r: FleetResult, _ name: String) -> String {
        guard let h = r.delays[name], h.totalCount > 0 else { return "—" }
        return [50.0, 90, 99].map { Time.describe(Nanoseconds(h.valueAtPercentile($0)) * 1_000_000) }.joined(separator: " / ")
    }

    public var text: String {
        let all = [("", names.0, names.1)] + rows
        let w0 = all.map(\.0.count).max() ?? 0, w1 = all.map(\.1.count).max() ?? 0
        func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
        return all.map { pad($0.0, w0) + "  " + pad($0.1, w1) + "  " + $0.2 }.joined(separator: "\n") + "\n"
    }
}
