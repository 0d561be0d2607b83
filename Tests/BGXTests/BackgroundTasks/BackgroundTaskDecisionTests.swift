@testable import BGXCore
import Testing

/// rules §2's decisions as the background-task controller makes them, with
/// no engine: whether an assertion may be taken, the window's timers, what a
/// spent budget ends the app for, and the console's warnings.
extension BackgroundTaskControllerTests {
    static let running = AssertionFacts(running: true, inBackground: true, multitasking: true, exitsOnSuspend: false)

    @Test("rules §2: no assertion for an app not running, on a device without multitasking, for an app that exits on suspend, or once its time is spent — asked in that order")
    func refusals() {
        var controller = Self.fresh()
        let lead = Time.seconds(5)
        #expect(controller.refusal(app, Self.running, now: 0, leadTime: lead) == nil)
        var facts = Self.running
        facts.running = false
        facts.multitasking = false
        #expect(controller.refusal(app, facts, now: 0, leadTime: lead) == .notRunning)
        facts.running = true
        facts.exitsOnSuspend = true
        #expect(controller.refusal(app, facts, now: 0, leadTime: lead) == .noMultitasking)
        facts.multitasking = true
        #expect(controller.refusal(app, facts, now: 0, leadTime: lead) == .exitsOnSuspend)
        controller.openWindow(app, now: 0, budget: Time.seconds(30))
        #expect(controller.refusal(app, Self.running, now: Time.seconds(25), leadTime: lead) == .backgroundTimeExpired)
        #expect(AssertionRefusal.backgroundTimeExpired.words == "the app's background time has expired")
        // In front, the spent window does not count (the app is not in the background).
        facts = Self.running
        facts.inBackground = false
        #expect(controller.refusal(app, facts, now: Time.seconds(25), leadTime: lead) == nil)
    }

    @Test("rules §2 [D]: a window's expiration warning is scheduled once, the lead time before its budget ends; at the warning, its deadline, with the same ticket")
    func warningThenDeadline() {
        var controller = Self.fresh()
        controller.openWindow(app, now: Time.seconds(10), budget: Time.seconds(30))
        let ticket = Ticket(epoch: 4, number: controller.apps[0].windowNumber)
        let warning = controller.budgetWarning(app, epoch: 4, now: Time.seconds(10), leadTime: Time.seconds(5))
        #expect(warning == BudgetTimer(event: .expirationWarning(app, ticket), at: Time.seconds(35)))
        let again = controller.budgetWarning(app, epoch: 4, now: Time.seconds(11), leadTime: Time.seconds(5))
        #expect(again == nil, "scheduled once per window")
        #expect(controller.budgetDeadline(app, ticket, now: Time.seconds(35))
                == BudgetTimer(event: .budgetDeadline(app, ticket), at: Time.seconds(40)))
        // A closed window has no deadline; one opened already spent but for the lead time warns at once.
        controller.closeWindow(app)
        #expect(controller.budgetDeadline(app, ticket, now: Time.seconds(36)) == nil)
        controller.openWindow(app, now: Time.seconds(50), budget: Time.seconds(3))
        let next = Ticket(epoch: 4, number: controller.apps[0].windowNumber)
        #expect(next != ticket)
        #expect(controller.budgetWarning(app, epoch: 4, now: Time.seconds(50), leadTime: Time.seconds(5))
                == BudgetTimer(event: .expirationWarning(app, next), at: Time.seconds(50)))
    }

    @Test("rules §2 [D]: at the deadline, what is still open ends the app: one task by its name, several (or an activity) in words; nothing open, nothing")
    func budgetTimeout() {
        var controller = Self.fresh()
        let budget = Time.seconds(30)
        #expect(controller.budgetTimeout(app, budget: budget) == nil)
        let upload = controller.begin(app, name: "upload", text: TextID(index: 7), now: 0)
        #expect(controller.budgetTimeout(app, budget: budget) == .task(TextID(index: 7)))
        #expect(controller.onlyTaskTimeoutDetail(app, budget: budget)
                == "background task \"upload\" still open when the \(Time.describe(budget)) background budget ran out")
        _ = controller.begin(app, name: "export", text: TextID(index: 8), now: 0, expiringActivity: true)
        #expect(controller.budgetTimeout(app, budget: budget) == .several(
            "background task \"upload\", expiring activity \"export\" still open when the \(Time.describe(budget)) "
            + "background budget ran out"))
        // An expiring activity alone is named as one.
        _ = controller.end(app, upload)
        if case let .several(words)? = controller.budgetTimeout(app, budget: budget) {
            #expect(words.hasPrefix("background task expiring activity \"export\""))
        } else {
            Issue.record("an activity alone is told in words")
        }
    }

    @Test("rules §2 [O]: as the window opens, each background task open for the warning's age is warned of, once, in order; expiring activities are not")
    func staleWarnings() {
        var controller = Self.fresh()
        _ = controller.begin(app, name: "old", text: TextID(index: 0), now: 0)
        _ = controller.begin(app, name: "activity", text: TextID(index: 1), now: 0, expiringActivity: true)
        _ = controller.begin(app, name: "new", text: TextID(index: 2), now: Time.seconds(50))
        var t = 0, warnings: [String] = []
        while let w = controller.staleTaskWarning(app, from: &t, now: Time.seconds(60), age: Time.seconds(30)) {
            warnings.append(w)
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("Background Task 1 (\"old\"), was created over 30s ago.") == true)
        #expect(BackgroundTaskController.unknownTaskEnded(9).hasPrefix(
            "Can't end BackgroundTask: no background task exists with identifier 9"))
    }
}
