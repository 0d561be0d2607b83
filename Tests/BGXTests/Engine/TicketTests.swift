@testable import BGXCore
import Testing

/// A timed event's ticket is checked in one place: it is outstanding while
/// its process lives and its controller's moment is the current one.
@Suite struct TicketTests {
    @Test func aTicketGoesStaleWhenTheProcessEndsOrTheControllerMovesOn() {
        var engine = Engine()
        let app = engine.install(AppManifest(bundleIdentifier: "com.example.a"))
        let i = Int(app.index)
        let window = engine.ticket(app, engine.backgroundTasks.apps[i].windowNumber)
        #expect(engine.isOutstanding(window, .backgroundWindow, app))
        engine.backgroundTasks.openWindow(app, now: 0, budget: Time.seconds(30))  // the controller moves on: a new window
        #expect(!engine.isOutstanding(window, .backgroundWindow, app))

        let check = engine.ticket(app, engine.memory.cpu[i].checkNumber)
        #expect(engine.isOutstanding(check, .cpuCheck, app))
        engine.apps[i].processEnded(.exit)
        #expect(!engine.isOutstanding(check, .cpuCheck, app))
        #expect(engine.isOutstanding(engine.ticket(app, engine.memory.cpu[i].checkNumber), .cpuCheck, app))
    }

    @Test func aPushTicketIsOutstandingUntilItsCompletionHandlerIsCalled() {
        var engine = Engine()
        let app = engine.install(AppManifest(bundleIdentifier: "com.example.a"))
        let i = Int(app.index)
        let epoch = engine.apps[i].epoch
        for _ in 1...2 {
            _ = engine.pushes.handToApp(app, Push(type: .background, priority: 5), watched: true, epoch: epoch, now: 0,
                                        completionTimeout: Time.seconds(30))
        }
        #expect(engine.isOutstanding(engine.ticket(app, 1), .pushCompletion, app))
        _ = engine.pushes.completed(app, number: 1, result: .newData)
        #expect(!engine.isOutstanding(engine.ticket(app, 1), .pushCompletion, app))
        #expect(engine.isOutstanding(engine.ticket(app, 2), .pushCompletion, app))
    }
}
