@testable import BGXCore
import BGXTestKit
import Testing

/// A live daemon runs for months: what the engine keeps must not grow with
/// the number of inputs, only with the apps and what they have pending.
@Suite struct BoundedStateTests {
    static let hour = Time.hours(1)

    /// What the live soak's test apps do when called (Tests/LiveTestApp):
    /// every push completed, a polite app's background task ended in its
    /// expiration handler, a refresh app's task registered, submitted and
    /// completed, a notify app's reminder scheduled 30 s ahead.
    static func answer(_ behaviour: @escaping (AppID) -> String) -> (Directive, inout Engine) -> Void {
        { d, engine in
            guard case let .deliver(app, callback) = d else { return }
            switch (behaviour(app), callback) {
            case ("polite", .didEnterBackground): _ = engine.beginBackgroundTask(for: app, name: "upload")
            case ("refresh", .didFinishLaunching): _ = engine.registerTask(for: app, identifier: "com.example.refresh")
            case ("refresh", .didEnterBackground):
                try? engine.submitTask(for: app, TaskRequestSpec(identifier: "com.example.refresh", kind: .appRefresh,
                                                                earliestBegin: engine.now + hour))
            case ("refresh", .bgTask): engine.completeTask(for: app, identifier: "com.example.refresh", success: true)
            case ("notify", .didEnterBackground):
                try? engine.scheduleNotification(for: app, id: "reminder", trigger: .timeInterval(Time.seconds(30), repeats: false),
                                                 content: NotificationContent(body: "time to look"))
            case let (_, .remoteNotification(number, _)): engine.completeRemoteNotification(for: app, number: number, result: .newData)
            case let (_, .backgroundTaskExpired(id)): engine.endBackgroundTask(for: app, id)
            default: break
            }
        }
    }

    @Test("a held push retried on every device change keeps one retry queued, not one per change")
    func heldPushRetriesDoNotPileUp() {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.engine.install(AppManifest(bundleIdentifier: "com.example.pushed", backgroundModes: [.remoteNotification]))
        let answer = Self.answer { _ in "normal" }
        func input(_ event: EngineEvent) {
            host.engine.schedule(event, at: host.engine.now)
            host.run(until: host.engine.now + Time.seconds(1), answer)
        }
        input(.user(.launch(app)))
        input(.user(.home))
        // Three background pushes an hour reach it; the fourth is held until the hour is over.
        for _ in 0..<4 { input(.push(app, Push(type: .background, priority: 5))) }
        #expect(host.engine.pushes.apps[Int(app.index)].held != nil)
        let queued = host.engine.queuedEventCount
        for k in 0..<600 { input(.device(.charging(k % 2 == 0))) }
        #expect(host.engine.pushes.apps[Int(app.index)].held != nil)
        #expect(host.engine.queuedEventCount <= queued, "\(queued) events queued before the device changes, \(host.engine.queuedEventCount) after")
        // And the retry still comes: an hour after the first push, the held one is delivered.
        host.run(until: Self.hour + Time.seconds(10), answer)
        #expect(host.engine.pushes.apps[Int(app.index)].held == nil)
    }

    @Test("a notification delivered again under its identifier replaces the one in Notification Center")
    func redeliveredNotificationReplacesTheDeliveredOne() {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.engine.install(AppManifest(bundleIdentifier: "com.example.notify"))
        let answer = Self.answer { _ in "notify" }
        for _ in 0..<5 {
            host.engine.schedule(.user(.launch(app)), at: host.engine.now)
            host.run(until: host.engine.now + Time.seconds(1), answer)
            host.engine.schedule(.user(.home), at: host.engine.now)
            host.run(until: host.engine.now + Time.seconds(40), answer)
        }
        #expect(host.engine.trace.filter { if case .notificationDeliver = $0.kind { true } else { false } }.count == 5)
        let center = host.engine.deliveredNotifications(for: app)
        #expect(center.count == 1)
        #expect(center.first?.deliveredAt == host.engine.trace.last { if case .notificationDeliver = $0.kind { true } else { false } }?.time)
    }

    /// The live soak's input mix (Tests/BGXLiveTests/SoakTests.swift): 100
    /// apps, an input every 0.43 s of engine time (1,400 a minute at ×10),
    /// its trace taken and written out as the daemon does.
    struct Soak {
        var host: ImmediateHost
        var apps: [AppID] = []
        var random = SeededRandom(seed: 42)
        static let behaviours = ["normal", "refresh", "notify", "polite"]

        init(apps count: Int = 100) {
            var device = DeviceState()
            device.memory = 24 * 1024 * 1024 * 1024
            host = ImmediateHost(Engine(profile: .modern, device: device, seed: 7))
            for i in 0..<count {
                let behaviour = Self.behaviours[i % 4]
                apps.append(host.engine.install(AppManifest(
                    bundleIdentifier: "com.example.soak\(i)",
                    backgroundModes: behaviour == "refresh" ? [.fetch, .remoteNotification] : [.remoteNotification],
                    permittedTaskIdentifiers: behaviour == "refresh" ? ["com.example.refresh"] : [])))
            }
        }

        mutating func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }

        /// `inputs` inputs, each one's trace handed to `written` and then cleared.
        mutating func inputs(_ count: Int, written: (inout Engine) -> Void = { _ in }) {
            let answer = BoundedStateTests.answer { Self.behaviours[Int($0.index) % 4] }
            for _ in 0..<count {
                let app = apps[below(apps.count)]
                let event: EngineEvent = switch below(12) {
                case 0, 1, 2, 3: .user(.launch(app))
                case 4, 5: .user(.home)
                case 6: .user(.lock)
                case 7: .user(.unlock)
                case 8, 9: .push(app, Push(type: .background, priority: 5))
                case 10: .device([.charging(true), .charging(false), .network(.wifi), .network(.cellular), .network(.none)][below(5)])
                default: .user(.forceQuit(app))
                }
                host.engine.schedule(event, at: host.engine.now)
                host.run(until: host.engine.now + 430_000_000, answer)
                written(&host.engine)
                host.engine.trace.removeAll(keepingCapacity: true)
            }
        }
    }

    @Test("the live soak's inputs for twelve hours of engine time: the queue and Notification Center stay within a bound of the apps")
    func soakMixStaysBounded() {
        var soak = Soak()
        var queued: [Int] = [], center: [Int] = []
        // 100,000 inputs: twelve hours of engine time, an hour and a quarter of the soak at ×10.
        for _ in 0..<10 {
            soak.inputs(10_000)
            queued.append(soak.host.engine.queuedEventCount)
            center.append(soak.host.engine.notifications.delivered.count)
        }
        // Each app has a few events pending at most (a retry, a timeout, a notification, a wake).
        #expect(queued.max()! <= 8 * soak.apps.count, "events queued, every 10,000 inputs: \(queued)")
        // One delivered notification per app and identifier (the notify apps reuse `reminder`).
        #expect(center.max()! <= soak.apps.count / 4, "notifications in Notification Center, every 10,000 inputs: \(center)")
    }

    @Test("a host that has written its trace out keeps the decisions its task history refers to, not one per decision made")
    func writtenDecisionsAreLetGo() {
        var soak = Soak()
        var texts: [Int] = []
        for _ in 0..<10 {
            soak.inputs(10_000) { engine in
                engine.trace.removeAll()
                engine.traceWritten()
            }
            texts.append(soak.host.engine.texts.strings.count)
        }
        // Decisions are made all along (one per 11 inputs); what is kept is the task history's
        // (at most 4,096 entries) and the interned words, so the second half adds next to nothing.
        #expect(soak.host.engine.texts.decisions.count <= 4_096 + 256)
        #expect(texts[9] - texts[4] <= 512, "texts, every 10,000 inputs: \(texts)")
        // Every decision the task history keeps still reads as words (explain reads them).
        for entry in soak.host.engine.scheduler.taskHistory {
            if let detail = entry.detail { #expect(!soak.host.engine.text(detail).isEmpty) }
        }
    }

    @Test("a console message naming an instance (\"Background Task 709 …\") is let go once written, not kept for each task")
    func writtenLogMessagesAreLetGo() {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.engine.install(AppManifest(bundleIdentifier: "com.example.slow"))
        // The expiration handler ends the task, as a polite app does.
        let answer: (Directive, inout Engine) -> Void = { d, engine in
            if case let .deliver(app, .backgroundTaskExpired(id)) = d { engine.endBackgroundTask(for: app, id) }
        }
        var names = TraceNames(apps: [], notifications: [], texts: [])
        var warnings: [String] = []
        var sizes: [Int] = []
        for cycle in 0..<400 {
            // A task begun in the foreground and still open 40 s later, when the app leaves it: iOS warns, naming the task.
            host.engine.schedule(.user(.launch(app)), at: host.engine.now)
            host.run(until: host.engine.now + Time.seconds(1), answer)
            _ = host.engine.beginBackgroundTask(for: app, name: "upload")
            host.run(until: host.engine.now + Time.seconds(40), answer)
            host.engine.schedule(.user(.home), at: host.engine.now)
            host.run(until: host.engine.now + Time.seconds(40), answer)
            // The daemon's way: names brought up to date, the lines written, the engine told.
            host.engine.updateTraceNames(&names)
            let renderer = TraceRenderer(names: names)
            warnings += host.engine.trace.map { renderer.jsonLine($0) }.filter { $0.contains("was created over 30s ago") }
            host.engine.trace.removeAll()
            host.engine.traceWritten(batch: 16)
            if cycle % 100 == 99 { sizes.append(host.engine.texts.strings.count) }
        }
        // Every warning was said, each naming its own task…
        #expect(warnings.count == 400)
        #expect(Set(warnings.map { $0.components(separatedBy: "Background Task ")[1].prefix(while: { $0 != " " }) }).count == 400)
        // …and the texts the engine keeps did not grow with them.
        #expect(sizes.last! - sizes.first! <= 32, "texts kept, every 100 cycles: \(sizes)")
    }

    @Test("letting written texts go changes no trace line and no explanation")
    func lettingWrittenTextsGoChangesNothingSaid() {
        var kept = Soak(), lettingGo = Soak()
        // The daemon's way: one set of names, brought up to date before each write.
        var names = TraceNames(apps: [], notifications: [], texts: [])
        var compared = 0
        // 51,000 inputs: past the task history's 4,096 entries, so decisions are let go and their slots reused.
        for _ in 0..<50 {
            kept.inputs(1_000)
            lettingGo.inputs(1_000) { engine in
                if !engine.trace.isEmpty { engine.updateTraceNames(&names) }
                engine.trace.removeAll()
                engine.traceWritten(batch: 1)
            }
            // Twenty inputs' lines compared: the one keeping everything renders them at the end,
            // the one letting go before each `traceWritten`, as the daemon does.
            var keptEvents: [TraceEvent] = [], writtenLines: [String] = []
            kept.inputs(20) { keptEvents += $0.trace }
            lettingGo.inputs(20) { engine in
                engine.updateTraceNames(&names)
                let r = TraceRenderer(names: names)
                writtenLines += engine.trace.map { r.jsonLine($0) }
                engine.trace.removeAll()
                engine.traceWritten(batch: 1)
            }
            let r = kept.host.engine.traceRenderer
            #expect(keptEvents.map { r.jsonLine($0) } == writtenLines)
            compared += writtenLines.count
        }
        #expect(compared > 1_000)
        // Texts were let go and their slots reused: the same decisions in fewer texts.
        #expect(lettingGo.host.engine.texts.strings.count < kept.host.engine.texts.strings.count,
                "\(lettingGo.host.engine.texts.strings.count) texts letting go, \(kept.host.engine.texts.strings.count) keeping all")
        for app in kept.apps where Soak.behaviours[Int(app.index) % 4] == "refresh" {
            #expect(kept.host.engine.explainTask(app: app, identifier: "com.example.refresh").text
                    == lettingGo.host.engine.explainTask(app: app, identifier: "com.example.refresh").text)
        }
    }
}
