@testable import BGXCore
import Testing

/// rules §10's memory controller deciding on its own — no engine: what a
/// low-memory episode, the CPU monitor and a suspension turn into (effects
/// for the coordinator to carry out).
@Suite struct MemoryEffectsTests {
    let app = AppID(index: 0), other = AppID(index: 1)

    func controller() -> MemoryController {
        var c = MemoryController()
        c.appInstalled(AppManifest(bundleIdentifier: "com.example.a", memory: 100 << 20))
        c.appInstalled(AppManifest(bundleIdentifier: "com.example.b", memory: 200 << 20))
        return c
    }

    @Test("rules §10 [O]: at its check, a background app busy over 80 % of 60 s is killed (cpuLimit); under it, checked again later")
    func cpuCheckKillsOrLooksAgain() {
        var c = controller()
        let window = Time.seconds(60)
        c.noteBusy(app, now: 0, for: Time.seconds(100), window: window)
        #expect(c.cpuCheckDue(app, now: Time.seconds(60), epoch: 1, window: window, fraction: 0.8)
                == .terminate(app, .cpuLimit, detail: "CPU time 1m over the last 1m in the background exceeds 80 %"))
        c.noteBusy(other, now: 0, for: Time.seconds(50), window: window)
        #expect(c.cpuCheckDue(other, now: Time.seconds(10), epoch: 3, window: window, fraction: 0.8)
                == .schedule(.cpuCheck(other, Ticket(epoch: 3, number: 1)), at: Time.seconds(48)))
    }

    @Test("rules §10 [S]: a file lock held into suspension kills the app (0xdead10cc); listeners and Bonjour close, connections stay")
    func suspensionClosesListenersOrKillsForALock() {
        var c = controller()
        c.openSocket(app, "l", .listener)
        c.openSocket(app, "c", .connection)
        c.openSocket(app, "b", .bonjour)
        let released = c.releaseForSuspension(app)
        #expect(released.suspends)
        let why = "listening sockets and Bonjour services are closed on suspension"
        #expect(released.effects == [.socketClose(app, name: "l", kind: .listener, reason: why),
                                     .socketClose(app, name: "b", kind: .bonjour, reason: why)])
        #expect(c.apps[0].sockets.map(\.name) == ["c"])
        // Resumed after long enough suspended, the connection goes too; the app hears of all three.
        let resumed = c.resumed(app, suspendedFor: Time.minutes(10), teardown: Time.minutes(5))
        #expect(resumed.tellApp)
        #expect(resumed.effects == [.socketClose(app, name: "c", kind: .connection, reason: "torn down after 10m suspended")])
        #expect(c.takeClosedSockets(app).map(\.name) == ["l", "b", "c"])
        c.holdLock(other, "db.sqlite")
        let locked = c.releaseForSuspension(other)
        #expect(!locked.suspends)
        #expect(locked.effects == [.terminate(other, .lockHeldWhileSuspended,
                                              detail: "held the file lock 'db.sqlite' when it was suspended (0xdead10cc)")])
    }
}
