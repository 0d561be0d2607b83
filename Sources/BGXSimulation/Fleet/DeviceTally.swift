import BGXCore

/// Folds one device's trace into a fleet result as the trace goes by: what
/// reached the backend and when, how long requests and pushes waited, what
/// was refused, held, dropped or killed and why, and how stale the app was
/// when the person opened it. Per-device state lives here; the result only adds.
struct DeviceTally {
    let run: ScenarioRun
    /// The scenario's apps by engine index (the population's others are not reported).
    let reported: [Int32: String]
    let startOffset: Nanoseconds
    /// Each app's background pushes, sent at these times (the scenario's timeline).
    var pushSends: [Int32: [Nanoseconds]] = [:]
    var nextSend: [Int32: Int] = [:]
    var heldSince: [Int32: Nanoseconds] = [:]
    var submitted: [Int32: [Int32: (at: Nanoseconds, kind: BGTaskKind)]] = [:]
    var lastRefresh: [Int32: Nanoseconds] = [:]
    var texts: [Int32: String] = [:]

    init(run: ScenarioRun, bundles: [String]) {
        self.run = run
        var reported: [Int32: String] = [:]
        for b in bundles { if let id = run.device.app(b) { reported[id.index] = b } }
        self.reported = reported
        startOffset = run.startOffset
        for entry in run.scenario.timeline {
            if case let .push(bundle, push) = entry.event, push.type == .background, let id = run.device.app(bundle),
               reported[id.index] != nil {
                pushSends[id.index, default: []].append(entry.at)
            }
        }
    }

    mutating func text(_ id: TextID) -> String {
        if let t = texts[id.index] { return t }
        let t = run.device.withEngine { $0.text(id) }
        texts[id.index] = t
        return t
    }

    /// The category of a reason (`reasonKind`), straight from a scheduling
    /// decision's policy where the reason is one, else from its words.
    mutating func kind(_ reason: TextID) -> String {
        if let policy = run.device.withEngine({ $0.decidingPolicy(of: reason) }) { return policy }
        return Self.reasonKind(text(reason))
    }

    /// A reason as a category of reasons: the deciding policy's name, or the
    /// words with their numbers and times made `#`, so that a fleet's
    /// reasons add up instead of each moment being its own.
    ///
    /// Every background event's reason goes through here, so it reads the
    /// text's UTF-8 once and never asks Foundation or the generic collection
    /// algorithms (`range(of:)` through NSString was four tenths of a fleet
    /// run's instructions, `firstRange(of:)` a tenth after that).
    static func reasonKind(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            var start = 0
            if bytes.starts(with: "score ".utf8), let dash = end(of: " — ".utf8, in: bytes) { start = dash }
            if let colon = bytes[start...].firstIndex(of: UInt8(ascii: ":")) {
                let name = UnsafeBufferPointer(rebasing: bytes[start..<colon])
                if !name.contains(UInt8(ascii: " ")), name.count >= 6, name.suffix(6).elementsEqual("Policy".utf8) {
                    return String(decoding: name, as: UTF8.self)
                }
            }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count - start + 1)
            var inNumber = false
            var i = start
            while i < bytes.count {
                // One scalar: its bytes, and whether it is a number as `Character.isNumber`
                // sees one (a numeric type); outside ASCII that asks Unicode's tables.
                let lead = bytes[i]
                let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                let scalar = UnsafeBufferPointer(rebasing: bytes[i..<min(i + length, bytes.count)])
                let isNumber = lead < 0x80
                    ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(lead)
                    : String(decoding: scalar, as: UTF8.self).unicodeScalars.first?.properties.numericType != nil
                if isNumber || (inNumber && lead == UInt8(ascii: ".")) {
                    if !inNumber { out.append(UInt8(ascii: "#")) }
                    inNumber = true
                } else {
                    inNumber = false
                    out.append(contentsOf: scalar)
                }
                i += length
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Where the first occurrence of `needle` in `bytes` ends.
    private static func end(of needle: String.UTF8View, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = Array(needle)
        guard n.count <= bytes.count else { return nil }
        for i in 0...(bytes.count - n.count) where bytes[i] == n[0] {
            if UnsafeBufferPointer(rebasing: bytes[i..<(i + n.count)]).elementsEqual(n) { return i + n.count }
        }
        return nil
    }

    mutating func fold(_ events: [TraceEvent], into r: inout FleetResult) {
        for e in events {
            guard let appID = e.app, let app = reported[appID.index] else { continue }
            let a = appID.index
            let minute = Int((((e.time + startOffset) % Time.days(1)) + Time.days(1)) % Time.days(1) / Time.minutes(1))
            switch e.kind {
            case let .state(from, to, _) where to == .active && from != .active:
                r.arrive(app, "userLaunch", minute: minute)
                r.tally("uses")
                if let last = lastRefresh[a] { r.record("stalenessAtUse", e.time - last) } else { r.tally("usesBeforeAnyRefresh") }
            case let .taskSubmit(identifier, kind, _):
                submitted[a, default: [:]][identifier.index] = (e.time, kind)
                r.tally("tasksSubmitted")
            case let .taskStart(identifier, _):
                let request = submitted[a]?.removeValue(forKey: identifier.index)
                if let request { r.record("submitToRun", e.time - request.at) }
                let processing = request.map { $0.kind != .appRefresh } ?? false
                r.arrive(app, processing ? "processing" : "refresh", minute: minute)
                if !processing { lastRefresh[a] = e.time }
            case .fetchStart:
                r.arrive(app, "fetch", minute: minute)
                lastRefresh[a] = e.time
            case let .pushDeliver(type, _, _) where type == .background:
                r.arrive(app, "silentPush", minute: minute)
                lastRefresh[a] = e.time
                if let sent = resolvePush(a, at: e.time, replaced: false) { r.record("pushToWake", e.time - sent) }
                r.tally("pushesDelivered")
            case let .pushDrop(type, _, reason, held) where type == .background:
                let words = text(reason)
                if held {
                    r.count("held", app, Self.reasonKind(words))
                    if let sent = takeNewSend(a, at: e.time) { heldSince[a] = sent }
                } else {
                    r.count("dropped", app, Self.reasonKind(words))
                    if let sent = resolvePush(a, at: e.time, replaced: words.hasPrefix("replaced")) {
                        r.record("pushToDrop", e.time - sent)
                    }
                    r.tally("pushesDropped")
                }
            case .transferComplete:
                r.arrive(app, "transfer", minute: minute)
            case let .taskReject(_, error, reason):
                r.count("refused", app, "\(error): " + kind(reason))
            case let .taskDefer(_, reason), let .fetchDefer(reason), let .transferHold(_, reason):
                r.count("held", app, kind(reason))
            case let .notificationDrop(_, reason), let .transferCancel(_, reason), let .transferFail(_, _, _, reason):
                r.count("dropped", app, kind(reason))
            default:
                if let reason = e.terminationReason { r.count("killed", app, reason.description) }
            }
        }
    }

    /// A push sent at this very moment, if one is waiting to be accounted for.
    mutating func takeNewSend(_ a: Int32, at t: Nanoseconds) -> Nanoseconds? {
        let k = nextSend[a, default: 0]
        guard let sends = pushSends[a], k < sends.count, sends[k] <= t else { return nil }
        nextSend[a] = k + 1
        return sends[k]
    }

    /// Which push a delivery or drop ends: one sent now, else the held one.
    mutating func resolvePush(_ a: Int32, at t: Nanoseconds, replaced: Bool) -> Nanoseconds? {
        if !replaced, let sent = takeNewSend(a, at: t) { return sent }
        return heldSince.removeValue(forKey: a)
    }

    /// What is still waiting when the run ends.
    func finish(into r: inout FleetResult) {
        for (a, requests) in submitted where reported[a] != nil { r.tally("tasksPendingAtEnd", requests.count) }
        r.tally("pushesHeldAtEnd", heldSince.count)
        r.tally("pushesSent", pushSends.values.reduce(0) { $0 + $1.count })
    }
}
