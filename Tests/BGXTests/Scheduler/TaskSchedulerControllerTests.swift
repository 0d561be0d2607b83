@testable import BGXCore
import BGXTestKit
import Foundation
import Testing

/// rules §5's BGTaskScheduler in a process, as the task scheduler
/// controller keeps it, with no engine and no device: registrations, the
/// tasks handed to the app, and their launch's one budget.
@Suite("The task scheduler controller")
struct TaskSchedulerControllerTests {
    let app = AppID(index: 0)
    let refresh = TextID(index: 1), index = TextID(index: 2), export = TextID(index: 3)
    /// A controller with one app installed.
    static func fresh() -> TaskSchedulerController {
        var c = TaskSchedulerController()
        c.appInstalled()
        return c
    }
    func task(_ id: TextID, _ kind: BGTaskKind, at started: Nanoseconds = 0) -> RunningTask {
        RunningTask(identifier: id, kind: kind, started: started, requiresExternalPower: false)
    }

    @Test("rules §5: a launch handler is registered once per process; the second registration of an identifier is refused")
    func registeredOnce() {
        var controller = Self.fresh()
        let first = controller.register(app, refresh, onMain: false)
        let second = controller.register(app, refresh, onMain: true)
        // The first is traced; the second is refused (the engine ends the app for it).
        #expect(first == .trace(app, .taskRegister(identifier: refresh)) && second == nil)
        #expect(controller.isRegistered(app, refresh) && !controller.isRegistered(app, index))
        // The refused registration did not move the handler to the main queue.
        #expect(!controller.runsOnMain(app, refresh))
        let onMain = controller.register(app, index, onMain: true)
        #expect(onMain != nil && controller.runsOnMain(app, index))
    }

    @Test("rules §5: the tasks of one launch share one budget — a second task opens none and moves no deadline")
    func oneBudgetPerLaunch() {
        var controller = Self.fresh()
        let opened = controller.openBudget(app, deadline: Time.seconds(30))
        controller.started(app, task(refresh, .appRefresh))
        let again = controller.openBudget(app, deadline: Time.seconds(40))
        controller.started(app, task(index, .processing, at: Time.seconds(10)))
        #expect(opened != nil && again == nil)
        #expect(controller.apps[0].deadline == Time.seconds(30))
        #expect(controller.holdsApp(app))
    }

    @Test("rules §5, §13: the budget closes when the last refresh or processing task completes; a continued-processing task has none and still holds the app")
    func budgetClosesWithTheLastBudgetedTask() {
        var controller = Self.fresh()
        let number = controller.openBudget(app, deadline: Time.seconds(30))
        controller.started(app, task(refresh, .appRefresh))
        controller.started(app, task(export, .continuedProcessing))
        let whileRunning = controller.closeBudgetIfDone(app)
        #expect(!whileRunning && controller.apps[0].deadline != nil)
        let kind = controller.complete(app, refresh)
        let closed = controller.closeBudgetIfDone(app)
        #expect(kind == .appRefresh && closed)
        #expect(controller.apps[0].deadline == nil)
        // The closed budget's number has moved on: its expiry and deadline are stale.
        #expect(controller.apps[0].budgetNumber != number)
        #expect(controller.holdsApp(app) && controller.isRunning(app, export))
    }

    @Test("rules §5 [D]: at expiry a task with no expiration handler is completed and leaves; one with a handler stays, expired, until setTaskCompleted")
    func expiryWithAndWithoutHandler() {
        var controller = Self.fresh()
        controller.started(app, task(refresh, .appRefresh))
        controller.started(app, task(index, .processing))
        controller.setExpirationHandler(app, index, true)
        let expiredRefresh = controller.expire(app, refresh, completing: true)
        let expiredIndex = controller.expire(app, index, completing: false)
        #expect(expiredRefresh && expiredIndex)
        #expect(!controller.isRunning(app, refresh))
        #expect(controller.runningTask(app, index)?.expired == true)
        #expect(!controller.isRunningUnexpired(app, index))
        let notRunning = controller.expire(app, refresh, completing: true)
        #expect(!notRunning)
        #expect(controller.complete(app, index) == .processing && !controller.holdsApp(app))
        #expect(controller.complete(app, index) == nil)
    }

    @Test("rules §5: registering ends when didFinishLaunching returns, for that process only")
    func registeringEndsWithTheLaunch() {
        var controller = Self.fresh()
        #expect(!controller.launchFinished(app, epoch: 0))
        controller.finishLaunching(app, epoch: 0)
        #expect(controller.launchFinished(app, epoch: 0))
        // The next process (the epoch moves on as one ends) may register again.
        controller.processEnded(app)
        #expect(!controller.launchFinished(app, epoch: 1))
    }

    @Test("a process's end drops its registrations, tasks and budget in one call, and its budget's tickets go stale")
    func processEndDropsEverything() {
        var controller = Self.fresh()
        _ = controller.register(app, refresh, onMain: true)
        controller.finishLaunching(app, epoch: 0)
        let number = controller.openBudget(app, deadline: Time.seconds(30))
        controller.started(app, task(refresh, .appRefresh))
        controller.processEnded(app)
        let tasks = controller.apps[0]
        #expect(tasks.registered.isEmpty && tasks.onMain.isEmpty)
        #expect(tasks.running.isEmpty && tasks.deadline == nil && tasks.budgetNumber != number)
        #expect(!controller.holdsApp(app))
    }

    @Test("a process that held nothing of BGTaskScheduler ends without its record being written")
    func emptyProcessEndIsNotWritten() {
        var controller = Self.fresh()
        let before = controller.apps[0].budgetNumber
        controller.processEnded(app)
        // Writing it would have moved the budget's number on.
        #expect(controller.apps[0].budgetNumber == before)
        #expect(!controller.apps[0].holdsSomething)
    }
}
