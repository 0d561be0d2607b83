import BGXCore
import Yams

/// The mappings of the actions that make requests: `submit`, `download`,
/// `writeFile`, `performExpiringActivity`.
extension ScenarioParser {
    // MARK: submit

    struct SubmitReading {
        var identifier = ""
        /// nil: a continuedProcessing request.
        var kind: BGTaskKind? = .appRefresh
        var submit = ScenarioApp.Submit(identifier: "", kind: .appRefresh)
        var title: String?
        var subtitle: String?
        var strategy = ContinuedProcessingStrategy.queue
        var requiresGPU = false
        var written = Mapping()
    }

    typealias SubmitKey = ScenarioKey<SubmitReading>

    /// A key of BGProcessingTaskRequest and BGAppRefreshTaskRequest, which
    /// a continued-processing request does not take (it starts at once).
    static func scheduledKey(_ name: String, processingOnly: Bool, _ read: @escaping SubmitKey.Read) -> SubmitKey {
        SubmitKey(name) { p, node, key, d in
            guard let kind = d.kind else {
                throw p.err(d.written.keyNodes[key], "\(key) does not belong to continuedProcessing requests (they start at once)")
            }
            if processingOnly, kind != .processing { throw p.err(node, "\(key) belongs to processing requests") }
            try read(p, node, key, &d)
        }
    }

    /// A key only a continued-processing request takes (rules §13).
    static func continuedKey(_ name: String, _ read: @escaping SubmitKey.Read) -> SubmitKey {
        SubmitKey(name) { p, node, key, d in
            guard d.kind == nil else { throw p.err(d.written.keyNodes[key], "\(key) belongs to continuedProcessing requests") }
            try read(p, node, key, &d)
        }
    }

    /// `submit: {identifier, type, earliestBegin, …}`; with `type: continuedProcessing`,
    /// `{identifier, type, title, subtitle, strategy, requiredResources}` (rules §13).
    static let submitKeys = ScenarioSection<SubmitReading>(what: "submit", keys: [
        SubmitKey("identifier", needed: { "'submit' needs an \($0)" }) { p, node, key, d in
            d.identifier = try p.scalar(node, key)
        },
        SubmitKey("type") { p, node, key, d in
            let type = try p.scalar(node, key)
            if type == "continuedProcessing" { d.kind = nil; return }
            if let feature = Self.futureTaskTypes[type] { throw p.err(node, "not yet supported: \(feature)") }
            guard let kind = BGTaskKind.allCases.first(where: { $0.description == type }) else {
                throw p.unknown(node, "task type", type, BGTaskKind.allCases.map(\.description))
            }
            d.kind = kind
        },
        scheduledKey("earliestBegin", processingOnly: false) { p, node, key, d in
            d.submit.earliestBegin = try p.duration(node, key)
        },
        scheduledKey("requiresNetworkConnectivity", processingOnly: true) { p, node, key, d in
            d.submit.requiresNetworkConnectivity = try p.bool(node, key)
        },
        scheduledKey("requiresExternalPower", processingOnly: true) { p, node, key, d in
            d.submit.requiresExternalPower = try p.bool(node, key)
        },
        continuedKey("title") { p, node, key, d in d.title = try p.scalar(node, key) },
        continuedKey("subtitle") { p, node, key, d in d.subtitle = try p.scalar(node, key) },
        continuedKey("strategy") { p, node, key, d in
            let word = try p.scalar(node, key)
            guard let v = ContinuedProcessingStrategy(rawValue: word) else {
                throw p.unknown(node, key, word, ContinuedProcessingStrategy.allCases.map(\.rawValue))
            }
            d.strategy = v
        },
        continuedKey("requiredResources") { p, node, key, d in
            let word = try p.scalar(node, key)
            guard word == "gpu" || word == "default" else { throw p.unknown(node, "required resource", word, ["default", "gpu"]) }
            d.requiresGPU = word == "gpu"
        },
    ], declaredOrder: true, check: { _, m, _, d in d.written = m })

    func submit(_ node: Node) throws -> ScenarioApp.Action {
        var d = SubmitReading()
        try read(Self.submitKeys, node, into: &d)
        guard let kind = d.kind else {
            guard let title = d.title, let subtitle = d.subtitle else {
                throw err(node, "a continuedProcessing request needs a title and a subtitle (the person sees them)")
            }
            var r = ContinuedProcessingRequest(identifier: d.identifier, title: title, subtitle: subtitle)
            r.strategy = d.strategy
            r.requiresGPU = d.requiresGPU
            return .submitContinued(r)
        }
        d.submit.identifier = d.identifier
        d.submit.kind = kind
        return .submit(d.submit)
    }

    // MARK: download

    typealias DownloadKey = ScenarioKey<ScenarioApp.Download>

    static func downloadTimeout(_ name: String, _ path: WritableKeyPath<ScenarioApp.Download, Nanoseconds?>) -> DownloadKey {
        DownloadKey(name) { p, node, key, d in
            let t = try p.duration(node, key)
            guard t > 0 else { throw p.err(node, "\(key) must be longer than 0") }
            d[keyPath: path] = t
        }
    }

    /// `download: {session, bytes, discretionary, earliestBegin, …}` (rules §8).
    static let downloadKeys = ScenarioSection<ScenarioApp.Download>(what: "download", keys: [
        DownloadKey("session", needed: { "'download' needs a \($0) identifier" }) { p, node, key, d in
            d.session = try p.scalar(node, key)
            guard !d.session.isEmpty, !d.session.contains(where: { $0.isWhitespace }) else {
                throw p.err(node, "a session identifier cannot be empty or contain spaces")
            }
        },
        DownloadKey("bytes", needed: { "'download' needs \($0) (a size like 50MB)" }) { p, node, key, d in
            let text = try p.scalar(node, key)
            guard let bytes = Units.size(text), bytes > 0, bytes <= 1024 * 1024 * 1024 * 1024 else {
                throw p.err(node, "\(key) must be a size between 1B and 1TB like 50MB, got '\(text)'")
            }
            d.bytes = bytes
        },
        DownloadKey("discretionary") { p, node, key, d in d.discretionary = try p.bool(node, key) },
        DownloadKey("earliestBegin") { p, node, key, d in d.earliestBegin = try p.duration(node, key) },
        DownloadKey("upload") { p, node, key, d in if try p.bool(node, key) { d.kind = .upload } },
        DownloadKey("newsstand") { p, node, key, d in d.newsstand = try p.bool(node, key) },
        DownloadKey("sessionSendsLaunchEvents") { p, node, key, d in d.sessionSendsLaunchEvents = try p.bool(node, key) },
        downloadTimeout("timeoutIntervalForRequest", \.timeoutIntervalForRequest),
        downloadTimeout("timeoutIntervalForResource", \.timeoutIntervalForResource),
    ], declaredOrder: true)

    func download(_ node: Node) throws -> ScenarioApp.Download {
        var d = ScenarioApp.Download(session: "", bytes: 0)
        try read(Self.downloadKeys, node, into: &d)
        return d
    }

    // MARK: writeFile, performExpiringActivity

    /// `writeFile: {path, protection}` (rules §13); protection defaults to iOS's
    /// default for app files, `completeUntilFirstUserAuthentication`.
    static let writeFileKeys = ScenarioSection<(path: String, protection: FileProtection)>(what: "writeFile", keys: [
        ScenarioKey("path", needed: { "'writeFile' needs a \($0)" }) { p, node, key, d in d.path = try p.scalar(node, key) },
        ScenarioKey("protection") { p, node, key, d in
            let word = try p.scalar(node, key)
            if word == "completeUnlessOpen" {
                throw p.err(node, "not yet supported: completeUnlessOpen protection (a file kept open across the lock)")
            }
            guard let v = FileProtection(rawValue: word) else {
                throw p.unknown(node, "protection class", word, FileProtection.allCases.map(\.rawValue))
            }
            d.protection = v
        },
    ], declaredOrder: true)

    func writeFile(_ node: Node) throws -> ScenarioApp.Action {
        var d = (path: "", protection: FileProtection.completeUntilFirstUserAuthentication)
        try read(Self.writeFileKeys, node, into: &d)
        return .writeFile(path: d.path, protection: d.protection)
    }

    /// `performExpiringActivity: {reason: save, work: 10s}` (rules §13): the
    /// reason is the activity's name (iOS: not empty); `work` what the block
    /// does on the background queue before it returns (default: nothing).
    static let expiringActivityKeys = ScenarioSection<(reason: String, work: Nanoseconds)>(what: "performExpiringActivity", keys: [
        ScenarioKey("reason", needed: { "'performExpiringActivity' needs a \($0) (its name, not empty)" }) { p, node, key, d in
            d.reason = try p.scalar(node, key)
            guard !d.reason.isEmpty else { throw p.err(node, "\(key): performExpiringActivity's reason must not be empty") }
        },
        ScenarioKey("work") { p, node, key, d in d.work = try p.duration(node, key) },
    ], declaredOrder: true)

    func expiringActivity(_ node: Node) throws -> ScenarioApp.Action {
        var d = (reason: "", work: Nanoseconds(0))
        try read(Self.expiringActivityKeys, node, into: &d)
        return .performExpiringActivity(reason: d.reason, work: d.work)
    }
}
