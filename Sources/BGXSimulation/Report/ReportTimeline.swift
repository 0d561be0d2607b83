import BGXCore
import Foundation

/// What the report's timeline draws, computed from the trace alone: per app
/// its state bands and event markers, per device property its value bands.
struct ReportTimeline {
    /// How a process state is drawn. `inactive` is a moment between the
    /// others and shares the foreground's band; `notRunning` is drawn as
    /// nothing.
    enum BandKind: String, CaseIterable {
        case foreground, background, suspended

        init?(_ state: ProcessState) {
            switch state {
            case .active, .inactive: self = .foreground
            case .background: self = .background
            case .suspended: self = .suspended
            case .notRunning: return nil
            }
        }
    }

    struct Band {
        var start: Nanoseconds
        var end: Nanoseconds
        /// The CSS class it is drawn with.
        var style: String
        /// What hovering over it says (before the times).
        var label: String
    }

    struct Marker {
        var time: Nanoseconds
        var style: MarkerStyle
        /// The trace kind it stands for, e.g. `launch` (tests count these).
        var kind: String
        /// The event in words, for hovering.
        var title: String
    }

    struct Lane {
        var label: String
        var bands: [Band]
        var markers: [Marker]
        /// Under an app's row, thin lanes of waits as bands: one per
        /// BGTaskScheduler identifier (its requests' lives), per background
        /// session (its transfers), and one for pushes held for later.
        var sublanes: [Lane] = []
    }

    var apps: [Lane]
    /// Only the device rows with something to show.
    var device: [Lane]
    /// When the device charged: drawn as a green zone behind every app.
    var charging: [Band]
    /// The policies that held a request back, in order of first appearance:
    /// the first `policyPatterns` each have their pattern (`req-hold0` …) on
    /// the colour of waiting, so a band's pattern names its policy; the rest
    /// share one pattern, and hovering names them.
    var policies: [String]
    static let policyPatterns = 8

    init(events: [TraceEvent], names: TraceNames, duration: Nanoseconds, initialDevice: DeviceState,
         clock: ReportClock, ledger: RequestLedger) {
        apps = Self.appLanes(events: events, names: names, duration: duration, clock: clock)
        let allDevice = Self.deviceLanes(events: events, names: names, duration: duration, initial: initialDevice,
                                         clock: clock)
        charging = allDevice.first { $0.label == DeviceRow.charging.label }?.bands ?? []
        device = allDevice.filter { !$0.bands.isEmpty || !$0.markers.isEmpty }
        var policies: [String] = []
        for life in ledger.lives {
            for hold in life.holds {
                let policy = RequestLedger.policy(of: names.text(hold.reason))
                if !policies.contains(policy) { policies.append(policy) }
            }
        }
        self.policies = policies
        for (app, lanes) in Self.requestLanes(ledger, names: names, duration: duration, policies: policies) {
            apps[app].sublanes += lanes
        }
        for (app, lanes) in ReportWaits.transferLanes(events, names: names, duration: duration) {
            apps[app].sublanes += lanes
        }
        let held = ReportWaits.heldPushes(events, names: names)
        for (app, lane) in ReportWaits.pushLanes(held, duration: duration, clock: clock) { apps[app].sublanes.append(lane) }
    }

    /// The CSS class of the band of a request held back by the policy at `index`.
    static func policyStyle(_ index: Int) -> String { "req-hold\(min(index, policyPatterns))" }

    // MARK: Requests

    /// Each request's life as bands: waiting for the scheduler's first look,
    /// held back (coloured by the policy, a new band whenever the reason
    /// changes), running once started.
    static func requestLanes(_ ledger: RequestLedger, names: TraceNames, duration: Nanoseconds,
                             policies: [String]) -> [Int: [Lane]] {
        var lanes: [Int: [Lane]] = [:]
        var laneOf: [Int: [TextID: Int]] = [:]
        for life in ledger.lives {
            let app = Int(life.app.index)
            let lane: Int
            if let k = laneOf[app]?[life.identifier] {
                lane = k
            } else {
                lane = lanes[app]?.count ?? 0
                laneOf[app, default: [:]][life.identifier] = lane
                lanes[app, default: []].append(Lane(label: names.text(life.identifier), bands: [], markers: []))
            }
            var bands: [Band] = []
            let waitEnd: Nanoseconds
            switch life.end {
            case let .started(at, _), let .cancelled(at), let .replaced(at): waitEnd = at
            case nil: waitEnd = duration
            }
            let firstHold = life.holds.first?.since ?? waitEnd
            if firstHold > life.submitted {
                bands.append(Band(start: life.submitted, end: firstHold, style: "req-wait",
                                  label: "\(names.text(life.identifier)) submitted, waiting for the scheduler to look"))
            }
            for hold in life.holds {
                let reason = names.text(hold.reason)
                let index = policies.firstIndex(of: RequestLedger.policy(of: reason)) ?? 0
                bands.append(Band(start: hold.since, end: hold.until ?? waitEnd, style: policyStyle(index),
                                  label: "\(names.text(life.identifier)) held back: \(reason)"))
            }
            if case let .started(at, reason) = life.end {
                let end: Nanoseconds
                switch life.run {
                case let .completed(t, _), let .lost(t): end = t
                case nil: end = duration
                }
                bands.append(Band(start: at, end: max(end, at), style: "req-run",
                                  label: "\(names.text(life.identifier)) running (\(names.text(reason)))"))
            }
            lanes[app]![lane].bands += bands
        }
        return lanes
    }

    // MARK: Apps

    static func appLanes(events: [TraceEvent], names: TraceNames, duration: Nanoseconds,
                         clock: ReportClock) -> [Lane] {
        var lanes = names.apps.map { Lane(label: $0, bands: [], markers: []) }
        // The open band of each app: its kind and since when (nil: not running).
        var open = [(kind: BandKind, since: Nanoseconds)?](repeating: nil, count: lanes.count)

        func close(_ i: Int, at time: Nanoseconds) {
            guard let current = open[i], time > current.since else { return }
            if let last = lanes[i].bands.last, last.end == current.since, last.style == current.kind.rawValue {
                lanes[i].bands[lanes[i].bands.count - 1].end = time  // adjacent, same kind: one band
            } else {
                lanes[i].bands.append(Band(start: current.since, end: time, style: current.kind.rawValue,
                                           label: Self.bandLabel(current.kind)))
            }
        }

        for event in events {
            guard let app = event.app else { continue }
            let i = Int(app.index)
            if case let .state(_, to, _) = event.kind {
                let kind = BandKind(to)
                if kind == open[i]?.kind { continue }
                close(i, at: event.time)
                open[i] = kind.map { ($0, event.time) }
            }
            if let style = MarkerStyle(event.kind) {
                lanes[i].markers.append(Marker(time: event.time, style: style, kind: event.kindName,
                                               title: title(event, names: names, clock: clock)))
            }
        }
        for i in lanes.indices { close(i, at: duration) }
        return lanes
    }

    static func bandLabel(_ kind: BandKind) -> String {
        switch kind {
        case .foreground: "in front (active)"
        case .background: "running in the background"
        case .suspended: "suspended"
        }
    }

    /// `1d 17:50:30 terminate: reason=backgroundTaskTimeout code=0x2182bad2 …`
    static func title(_ event: TraceEvent, names: TraceNames, clock: ReportClock) -> String {
        let fields = event.fields(names).map { name, value in "\(name)=\(value.text)" }
        return clock.clock(event.time) + " " + event.kindName + (fields.isEmpty ? "" : ": " + fields.joined(separator: " "))
    }

    // MARK: Device

    /// The device properties the report draws, each as a row of value bands.
    struct DeviceRow {
        var property: String
        var label: String
        var initial: (DeviceState) -> String
        /// The CSS class a value is drawn with; nil draws nothing (e.g. `false`).
        var style: (String) -> String?

        static let charging = DeviceRow(property: "charging", label: "charging",
                                        initial: { "\($0.charging)" }, style: { $0 == "true" ? "charging" : nil })
        static let locked = DeviceRow(property: "locked", label: "locked",
                                      initial: { "\($0.locked)" }, style: { $0 == "true" ? "locked" : nil })
        static let network = DeviceRow(property: "network", label: "network", initial: { $0.network.rawValue },
                                       style: { ["wifi": "net-wifi", "cellular": "net-cellular", "none": "net-none"][$0] })
        static let lowPowerMode = DeviceRow(property: "lowPowerMode", label: "Low Power Mode",
                                            initial: { "\($0.lowPowerMode)" }, style: { $0 == "true" ? "lowpower" : nil })
        static let all = [charging, locked, network, lowPowerMode]
        /// Device events drawn as markers (on the `locked` row) rather than bands.
        static let markerProperties: Set<String> = ["reboot"]
    }

    static func deviceLanes(events: [TraceEvent], names: TraceNames, duration: Nanoseconds,
                            initial: DeviceState, clock: ReportClock) -> [Lane] {
        var lanes: [Lane] = []
        for row in DeviceRow.all {
            var bands: [Band] = []
            var value = row.initial(initial), since: Nanoseconds = 0
            func close(at time: Nanoseconds) {
                guard time > since, let style = row.style(value) else { return }
                bands.append(Band(start: since, end: time, style: style, label: "\(row.label): \(value)"))
            }
            var markers: [Marker] = []
            for event in events where event.app == nil {
                guard case let .device(property, newValue) = event.kind else { continue }
                let p = names.text(property), v = names.text(newValue)
                if p == row.property, v != value {
                    close(at: event.time)
                    value = v
                    since = event.time
                } else if row.property == DeviceRow.locked.property, DeviceRow.markerProperties.contains(p) {
                    markers.append(Marker(time: event.time, style: .reboot, kind: "device",
                                          title: title(event, names: names, clock: clock)))
                }
            }
            close(at: duration)
            lanes.append(Lane(label: row.label, bands: bands, markers: markers))
        }
        return lanes
    }
}

/// How one kind of trace event is marked on an app's row. To mark a new kind
/// of event, add a case here and in `init(_:)`, give it a shape (a new one
/// in `ReportSVG.markerShapes` if none says what it marks) and the colour of
/// how it went — no two cases may share both.
enum MarkerStyle: String, CaseIterable {
    case launchUser = "launch-user", launchNotification = "launch-notification", launchBackground = "launch-bg"
    case terminateKill = "kill", terminateOther = "term"
    case taskBegin = "task-begin", taskExpire = "task-expire", taskRefused = "task-refused"
    case notificationDeliver = "notif", notificationToApp = "notif-app", notificationDrop = "notif-drop"
    case notificationTap = "notif-tap"
    case bgTaskStart = "bgt-start", bgTaskExpire = "bgt-expire", bgTaskReject = "bgt-reject", bgTaskCancel = "bgt-cancel"
    case fetchStart = "fetch"
    case memoryWarning = "mem-warn"
    case pushDeliver = "push", pushHeld = "push-held", pushDrop = "push-drop"
    case reboot
    case audioStart = "audio", audioStop = "audio-stop"
    case serviceDeliver = "service", serviceDrop = "service-drop"
    case transferComplete = "transfer", transferFailed = "transfer-fail"

    init?(_ kind: TraceEvent.Kind) {
        switch kind {
        case let .launch(cause):
            switch cause {
            case .user: self = .launchUser
            case .notification: self = .launchNotification
            default: self = .launchBackground
            }
        case let .terminate(reason, _): self = ReportFacts.isKill(reason) ? .terminateKill : .terminateOther
        case .memoryKill: self = .terminateKill
        case .memoryWarning: self = .memoryWarning
        case .bgtaskBegin: self = .taskBegin
        case .bgtaskExpire: self = .taskExpire
        case .bgtaskInvalid: self = .taskRefused
        case let .notificationDeliver(_, toApp, _, _, _, _): self = toApp ? .notificationToApp : .notificationDeliver
        case .notificationDrop: self = .notificationDrop
        case .notificationTap: self = .notificationTap
        case .taskStart: self = .bgTaskStart
        case .taskExpire, .taskExpireWithReason: self = .bgTaskExpire
        case .taskReject: self = .bgTaskReject
        case .taskCancel: self = .bgTaskCancel
        case .fetchStart: self = .fetchStart
        case .audioStart: self = .audioStart
        case .audioStop: self = .audioStop
        case .locationDeliver, .accessoryDeliver: self = .serviceDeliver
        case .locationDrop, .accessoryDrop: self = .serviceDrop
        case .transferComplete: self = .transferComplete
        case .transferFail, .transferCancel: self = .transferFailed
        case .pushDeliver: self = .pushDeliver
        case let .pushDrop(_, _, _, held): self = held ? .pushHeld : .pushDrop
        default: return nil
        }
    }

    /// Which shape it is drawn with (an id in the report's `<defs>`): the
    /// shape says what happened, the colour (`colour`) how it went; no two
    /// styles share both.
    var shape: String {
        switch self {
        case .launchUser, .launchBackground: "launch"
        case .launchNotification: "launch-notification"
        case .terminateKill, .terminateOther: "terminate"
        case .taskBegin: "begin"
        case .taskExpire: "expire"
        case .taskRefused: "refused"
        case .bgTaskStart: "star"
        case .bgTaskExpire: "hourglass"
        case .fetchStart: "fetch"
        case .memoryWarning: "warning"
        case .bgTaskReject: "forbidden"
        case .bgTaskCancel: "cancel"
        case .notificationDeliver, .notificationDrop: "notification"
        case .notificationToApp: "notification-app"
        case .serviceDeliver, .serviceDrop: "service"
        case .notificationTap: "tap"
        case .pushDeliver, .pushHeld, .pushDrop: "push"
        case .reboot: "reboot"
        case .audioStart, .audioStop: "audio"
        case .transferComplete, .transferFailed: "transfer"
        }
    }

    /// How it went, as a colour with one meaning.
    var colour: ReportColour {
        switch self {
        case .launchUser, .launchNotification, .notificationTap: .person
        case .launchBackground, .taskBegin, .bgTaskStart, .fetchStart, .notificationDeliver, .notificationToApp,
             .pushDeliver, .audioStart, .serviceDeliver, .transferComplete: .ok
        case .terminateKill, .taskRefused, .bgTaskReject, .transferFailed: .bad
        case .taskExpire, .bgTaskExpire, .memoryWarning: .expired
        case .pushHeld: .waiting
        case .terminateOther, .notificationDrop, .bgTaskCancel, .pushDrop, .reboot, .audioStop, .serviceDrop: .ended
        }
    }

    /// What a shape marks, in the legend (its colour says how it went).
    static func shapeLegend(_ shape: String) -> String {
        switch shape {
        case "launch": "launch (by the user, or into the background by cause)"
        case "launch-notification": "launch from a notification"
        case "terminate": "process ended (killed: by reason; or force quit, exit, reboot)"
        case "begin": "background task begun"
        case "expire": "background task expired"
        case "refused": "background task refused"
        case "star": "BGTask started (scheduler)"
        case "hourglass": "BGTask expired"
        case "fetch": "background fetch"
        case "warning": "memory warning (jetsam kills follow if memory stays low)"
        case "forbidden": "BGTask submit refused (by error)"
        case "cancel": "BGTask request cancelled by the app"
        case "notification": "notification to the person (delivered or dropped)"
        case "notification-app": "notification delivered to the app in front"
        case "service": "location or accessory event (delivered or dropped)"
        case "tap": "notification opened by the person"
        case "push": "push (delivered, held for later, or dropped)"
        case "reboot": "device restarted"
        case "audio": "audio (started or stopped)"
        case "transfer": "background transfer (finished or failed, rules §8)"
        default: shape
        }
    }
}
