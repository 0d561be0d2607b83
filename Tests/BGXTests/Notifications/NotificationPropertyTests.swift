import BGXCore
import Foundation
import Testing

/// rules §9 invariants over random sequences of scheduling, cancelling, time
/// zone changes and the passing of time, on the bare engine: an app never
/// holds more than its profile's limit; nothing pending is in the past; only
/// what was pending is delivered; every drop carries a reason.
@Suite("rules §9 — notification properties")
struct NotificationPropertyTests {
    static let zones = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Sydney"].map(zone)

    @Test("rules §9: the cap holds, nothing pending is past, only pending notifications are delivered, drops have reasons",
          arguments: 0..<16)
    func invariants(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let profile = PolicyProfile.all[pick(3)]
        var engine = Engine(profile: profile, startEpochSeconds: 1_767_571_200)
        let app = engine.install(AppManifest(bundleIdentifier: "com.example.n"))
        for _ in 0..<250 {
            switch pick(10) {
            case 0...5:
                let trigger: NotificationTrigger = pick(2) == 0
                    ? .timeInterval(Time.seconds(60 + pick(20_000)), repeats: pick(4) == 0)
                    : .calendar(DateMatch(weekday: pick(3) == 0 ? 1 + pick(7) : nil, hour: pick(24), minute: pick(60)),
                                timeZone: pick(2) == 0 ? Self.zones[pick(Self.zones.count)] : nil, repeats: pick(3) == 0)
                try engine.scheduleNotification(for: app, id: "n\(pick(200))", trigger: trigger,
                                                content: NotificationContent(body: "b"))
            case 6:
                engine.cancelNotification(for: app, id: "n\(pick(200))")
            case 7:
                engine.schedule(.device(.timeZone(Self.zones[pick(Self.zones.count)])), at: engine.now)
                advance(&engine, by: 0)
            default:
                let live = Set(engine.pendingNotifications(for: app).map(\.id))
                let before = engine.trace.count
                advance(&engine, by: Time.seconds(pick(30_000)))
                let renderer = engine.traceRenderer
                for event in engine.trace[before...] {
                    if case let .notificationDeliver(id, _, _, _, _, _) = event.kind {
                        #expect(live.contains(renderer.names.notification(id)), "seed \(seed)")
                    }
                }
            }
            let pending = engine.pendingNotifications(for: app)
            #expect(pending.count <= profile.notifications.limit, "seed \(seed)")
            #expect(pending.allSatisfy { $0.fireAt >= engine.now }, "seed \(seed)")
        }
        let renderer = engine.traceRenderer
        for event in engine.trace where event.kindName == "notification.drop" {
            #expect(renderer.fields(of: event).contains { $0.0 == "reason" }, "seed \(seed)")
        }
    }

    func advance(_ engine: inout Engine, by duration: Nanoseconds) {
        let target = engine.now + duration
        while let next = engine.nextEventTime, next <= target { engine.step() }
        engine.advanceClock(to: target)
    }
}
