import BGXCore
import Foundation

/// The waits the report draws besides BGTask requests, read from the trace
/// alone: each background transfer (waiting, moving, its results waiting for
/// the app) and each push held for later, until it arrives, is dropped or is
/// replaced by a newer one.
struct ReportWaits {
    /// What became of a push held for later.
    enum HeldEnd: Equatable {
        case delivered(at: Nanoseconds)
        case dropped(at: Nanoseconds, reason: String)
        /// Still held when the run ended.
        case stillHeld
    }

    struct HeldPush {
        var app: Int
        var since: Nanoseconds
        var reason: String
        var end: HeldEnd
        /// When its wait ended (the run's end if it never did).
        func until(_ duration: Nanoseconds) -> Nanoseconds {
            switch end {
            case let .delivered(at), let .dropped(at, _): at
            case .stillHeld: duration
            }
        }
    }

    /// Held pushes in the order they were held. The trace does not name a
    /// push, so a held push is matched to the app's next outcome of a push of
    /// its type and priority: the engine keeps one held push per app and
    /// decides it before any newer push of that kind.
    static func heldPushes(_ events: [TraceEvent], names: TraceNames) -> [HeldPush] {
        var held: [HeldPush] = []
        var open: [Int: (index: Int, type: PushType, priority: UInt8)] = [:]
        for event in events {
            guard let app = event.app else { continue }
            let i = Int(app.index)
            switch event.kind {
            case let .pushDrop(type, priority, reason, isHeld):
                if let o = open[i], o.type == type, o.priority == priority {
                    held[o.index].end = .dropped(at: event.time, reason: names.text(reason))
                    open[i] = nil
                }
                if isHeld {
                    open[i] = (held.count, type, priority)
                    held.append(HeldPush(app: i, since: event.time, reason: names.text(reason), end: .stillHeld))
                }
            case let .pushDeliver(type, priority, toApp):
                if toApp, let o = open[i], o.type == type, o.priority == priority {
                    held[o.index].end = .delivered(at: event.time)
                    open[i] = nil
                }
            default: break
            }
        }
        return held
    }

    /// One lane per app with a held push: its waits as bands.
    static func pushLanes(_ held: [HeldPush], duration: Nanoseconds, clock: ReportClock) -> [Int: ReportTimeline.Lane] {
        var lanes: [Int: ReportTimeline.Lane] = [:]
        for push in held {
            let then: String
            switch push.end {
            case let .delivered(at): then = "arrived \(clock.clock(at))"
            case let .dropped(at, reason): then = "dropped \(clock.clock(at)): \(reason)"
            case .stillHeld: then = "still held at the end"
            }
            lanes[push.app, default: ReportTimeline.Lane(label: "pushes held", bands: [], markers: [])].bands.append(
                ReportTimeline.Band(start: push.since, end: push.until(duration), style: "push-wait",
                                    label: "push \(push.reason); \(then)"))
        }
        return lanes
    }

    /// One piece of a transfer's life to draw: a task from its creation to
    /// its end, or a session's results waiting for the app.
    private struct Item {
        var session: TextID
        var start: Nanoseconds
        var end: Nanoseconds
        var bands: [ReportTimeline.Band]
    }

    /// Per app, a lane per background session (more when its tasks overlap
    /// in time, so no band covers another): each task waiting (with why),
    /// moving, and its session's results waiting for the app.
    static func transferLanes(_ events: [TraceEvent], names: TraceNames,
                              duration: Nanoseconds) -> [Int: [ReportTimeline.Lane]] {
        struct Open { var item: Int; var since: Nanoseconds; var moving: Bool; var why: String }
        var items: [Int: [Item]] = [:]
        var tasks: [Int: [TextID: [Int32: Open]]] = [:]
        var holds: [Int: [TextID: (item: Int, since: Nanoseconds, why: String)]] = [:]

        func segment(_ app: Int, _ session: TextID, _ o: Open, until t: Nanoseconds) {
            let name = names.text(session)
            let band = o.moving
                ? ReportTimeline.Band(start: o.since, end: t, style: "xfer-run", label: "transfer in \(name) moving")
                : ReportTimeline.Band(start: o.since, end: t, style: "xfer-wait", label: "transfer in \(name) waiting: \(o.why)")
            if t > o.since || o.moving { items[app]![o.item].bands.append(band) }
            items[app]![o.item].end = max(items[app]![o.item].end, t)
        }
        func change(_ app: Int, _ session: TextID, _ task: Int32, at t: Nanoseconds, moving: Bool?, why: String = "") {
            guard var o = tasks[app]?[session]?[task] else { return }
            segment(app, session, o, until: t)
            if let moving {
                o.since = t
                o.moving = moving
                o.why = why
                tasks[app]![session]![task] = o
            } else {
                tasks[app]![session]![task] = nil
            }
        }
        func endHold(_ app: Int, _ session: TextID, at t: Nanoseconds) {
            guard let h = holds[app]?[session] else { return }
            items[app]![h.item].end = t
            items[app]![h.item].bands = [ReportTimeline.Band(
                start: h.since, end: t, style: "xfer-wait",
                label: "\(names.text(session)): results wait for the app (\(h.why))")]
            holds[app]![session] = nil
        }

        for event in events {
            guard let app = event.app else { continue }
            let i = Int(app.index), t = event.time
            switch event.kind {
            case let .transferCreate(session, task, _, _):
                items[i, default: []].append(Item(session: session, start: t, end: t, bands: []))
                tasks[i, default: [:]][session, default: [:]][task] =
                    Open(item: items[i]!.count - 1, since: t, moving: false, why: "created, not yet started")
            case let .transferStart(session, task, _): change(i, session, task, at: t, moving: true)
            case let .transferDefer(session, task, reason):
                change(i, session, task, at: t, moving: false, why: names.text(reason))
            case let .transferRetry(session, task, reason):
                change(i, session, task, at: t, moving: false, why: names.text(reason))
            case let .transferComplete(session, task), let .transferFail(session, task, _, _):
                change(i, session, task, at: t, moving: nil)
            case let .transferCancel(session, _):
                for task in (tasks[i]?[session]?.keys).map(Array.init) ?? [] { change(i, session, task, at: t, moving: nil) }
            case let .transferHold(session, reason):
                guard holds[i]?[session] == nil else { continue }
                items[i, default: []].append(Item(session: session, start: t, end: t, bands: []))
                holds[i, default: [:]][session] = (items[i]!.count - 1, t, names.text(reason))
            case let .callback(callback), let .callbackOnQueue(callback):
                switch callback {
                case let .handleEventsForBackgroundURLSession(session), let .urlSessionTaskDidComplete(session, _, _, _):
                    endHold(i, session, at: t)
                default: break
                }
            default: break
            }
        }
        for (i, sessions) in tasks {
            for (session, open) in sessions {
                for task in open.keys.sorted() { change(i, session, task, at: duration, moving: nil) }
            }
        }
        for (i, sessions) in holds { for session in sessions.keys { endHold(i, session, at: duration) } }

        // Each session's items packed first-fit into as few lanes as keep them apart.
        var lanes: [Int: [ReportTimeline.Lane]] = [:]
        for (i, appItems) in items {
            var sessionOrder: [TextID] = []
            for item in appItems where !sessionOrder.contains(item.session) { sessionOrder.append(item.session) }
            for session in sessionOrder {
                var packed: [ReportTimeline.Lane] = [], ends: [Nanoseconds] = []
                for item in appItems where item.session == session && !item.bands.isEmpty {
                    if let k = ends.firstIndex(where: { $0 <= item.start }) {
                        packed[k].bands += item.bands
                        ends[k] = item.end
                    } else {
                        let label = packed.isEmpty ? names.text(session) : ""
                        packed.append(ReportTimeline.Lane(label: label, bands: item.bands, markers: []))
                        ends.append(item.end)
                    }
                }
                lanes[i, default: []] += packed
            }
        }
        return lanes
    }
}
