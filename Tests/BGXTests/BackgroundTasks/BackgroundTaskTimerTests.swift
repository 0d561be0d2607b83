@testable import BGXCore
import Testing

extension BackgroundTaskControllerTests {
    @Test("rules §2 [D]: a window's expiration warning is scheduled once, the lead time before its budget ends; at the warning, its deadline")
    func warningThenDeadline() {
        var controller = Self.fresh()
        controller.openWindow(app, now: Time.seconds(10), budget: Time.seconds(30))
        let ticket = Ticket(epoch: 4, number: controller.apps[0].windowNumber)
        #expect(controller.budgetTimer(app, epoch: 4, now: Time.seconds(10), leadTime: Time.seconds(5))
                == .schedule(.expirationWarning(app, ticket), at: Time.seconds(35)))
        #expect(controller.budgetTimer(app, epoch: 4, now: Time.seconds(11), leadTime: Time.seconds(5)) == nil)
        #expect(controller.budgetDeadline(app, ticket, now: Time.seconds(35))
                == .schedule(.budgetDeadline(app, ticket), at: Time.seconds(40)))
        // A window opened with its budget already spent but for the lead time warns at once.
        controller.closeWindow(app)
        #expect(controller.budgetDeadline(app, ticket, now: Time.seconds(36)) == nil)
        controller.openWindow(app, now: Time.seconds(50), budget: Time.seconds(3))
        let again = Ticket(epoch: 4, number: controller.apps[0].windowNumber)
        #expect(controller.budgetTimer(app, epoch: 4, now: Time.seconds(50), leadTime: Time.seconds(5))
                == .schedule(.expirationWarning(app, again), at: Time.seconds(50)))
    }
}
