@testable import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// rules §8 invariants over random runs: a podcast app downloading on random
/// sessions while the person opens, leaves and swipes it away, the system
/// kills it, and the device changes network, power, speed, or reboots.
@Suite("Background transfer properties (rules §8)")
struct BackgroundTransferPropertyTests {
    /// One random run; returns the device after it has settled.
    func randomRun(seed: UInt64) -> (SimulatedDevice, AppID) {
        var random = SeededRandom(seed: seed)
        let journal = Journal()
        let device = SimulatedDevice(seed: seed)
        let app = device.install(AppManifest(bundleIdentifier: "com.example.podcasts"), delegate: {
            PodcastApp(journal: journal, downloads: [], createsSessionAtLaunch: true)
        })
        var t: Nanoseconds = 0
        for _ in 0..<40 {
            t += Nanoseconds.random(in: 0...Time.minutes(20), using: &random)
            let event: EngineEvent
            switch Int.random(in: 0..<11, using: &random) {
            case 0, 1: event = .user(.launch(app))
            case 2, 3: event = .user(.home)
            case 4: event = .user(.forceQuit(app))
            case 5: event = .device(.network([.wifi, .cellular, .none][Int.random(in: 0..<3, using: &random)]))
            case 6: event = .device(.charging(Bool.random(using: &random)))
            case 7: event = .device(.bandwidth(Int64.random(in: 100_000...5_000_000, using: &random)))
            case 8: event = .device(.reboot)
            case 9: event = .user(.unlock)
            default: event = .user(.lock)
            }
            device.schedule(event, at: t)
        }
        // Downloads, started by the app whenever it runs at these moments.
        var starts: [Nanoseconds] = []
        for _ in 0..<12 { starts.append(Nanoseconds.random(in: 0...t, using: &random)) }
        var sizes: [Int64] = starts.map { _ in Int64.random(in: 1...(300 * megabyte), using: &random) }
        var discretionary = starts.map { _ in Bool.random(using: &random) }
        for start in starts.sorted() {
            device.run(until: start)
            guard device.state(of: app).isRunning else { continue }
            let bytes = sizes.removeFirst(), flag = discretionary.removeFirst()
            device.withEngine {
                _ = $0.createBackgroundSession(for: app, BackgroundSessionConfiguration(identifier: "s\(bytes % 3)"))
                _ = $0.startTransfer(for: app, session: "s\(bytes % 3)", TransferTaskSpec(bytes: bytes, discretionary: flag))
            }
        }
        device.run(until: t)
        // Good conditions at the end, and time for everything to settle.
        device.change(.network(.wifi))
        device.change(.charging(true))
        device.perform(.unlock)
        device.advance(by: Time.days(8))
        return (device, app)
    }

    @Test("rules §8 property: every transfer ends exactly once — completed, failed or cancelled — and each result reaches the delegate at most once")
    func everyTransferEndsOnce() {
        var total = 0
        for seed in UInt64(1)...25 {
            let (device, app) = randomRun(seed: seed)
            let renderer = device.renderer
            func task(_ e: TraceEvent) -> Int? {
                renderer.fields(of: e).first { $0.0 == "task" }.flatMap { if case let .number(n) = $0.1 { Int(n) } else { nil } }
            }
            let events = device.events(of: app)
            let created = events.filter { $0.kindName == "transfer.create" }.compactMap(task)
            let ended = events.filter { ["transfer.complete", "transfer.fail"].contains($0.kindName) }.compactMap(task)
            #expect(Set(ended).count == ended.count, "seed \(seed): a transfer ended twice")
            let delivered = events.filter {
                if case .callback(.urlSessionTaskDidComplete) = $0.kind { return true }
                return false
            }.compactMap(task)
            #expect(Set(delivered).count == delivered.count, "seed \(seed): a result was delivered twice")
            // What neither completed nor failed was cancelled (a force-quit) in its session after it began.
            func field(_ e: TraceEvent, _ name: String) -> String? {
                renderer.fields(of: e).first { $0.0 == name }.flatMap { if case let .string(s) = $0.1 { s } else { nil } }
            }
            for e in events where e.kindName == "transfer.create" {
                guard let id = task(e), !ended.contains(id) else { continue }
                let cancelled = events.contains {
                    $0.kindName == "transfer.cancel" && $0.time >= e.time && field($0, "session") == field(e, "session")
                }
                #expect(cancelled, "seed \(seed): transfer \(id) neither ended nor was cancelled")
            }
            total += created.count
            #expect(device.engine.pendingTransfers(for: app, session: "s0").isEmpty
                    && device.engine.pendingTransfers(for: app, session: "s1").isEmpty
                    && device.engine.pendingTransfers(for: app, session: "s2").isEmpty, "seed \(seed): transfers left running")
        }
        #expect(total >= 25, "the random runs should create transfers (\(total))")
    }

    @Test("rules §8/§11 property: no launch for transfer events while the app is force-quit (until the person opens it or the device reboots), and no callback reaches a suspended app")
    func forceQuitStopsRelaunches() {
        for seed in UInt64(1)...25 {
            let (device, app) = randomRun(seed: seed)
            var forceQuit = false
            var state = ProcessState.notRunning
            for e in device.trace {
                switch e.kind {
                case .user(.forceQuit) where e.app == app: forceQuit = true
                case let .launch(cause) where e.app == app:
                    if cause == .user { forceQuit = false }
                    #expect(!(forceQuit && cause == .transfer), "seed \(seed): relaunched for transfer after a force-quit")
                case let .device(property, _) where renderer(device).text(property) == "reboot": forceQuit = false
                case let .state(_, to, _) where e.app == app: state = to
                case .callback where e.app == app:
                    #expect(state.isRunning, "seed \(seed): a callback at t=\(Time.format(e.time)) reached a \(state) app")
                default: break
                }
            }
        }
    }

    @Test("rules §8 property: the same seed gives the same trace")
    func deterministic() {
        for seed in UInt64(1)...5 {
            #expect(randomRun(seed: seed).0.traceLines == randomRun(seed: seed).0.traceLines)
        }
    }

    func renderer(_ device: SimulatedDevice) -> TraceNames { device.renderer.names }
}
