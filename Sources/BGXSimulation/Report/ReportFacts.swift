import BGXCore
import Foundation

/// The per-app numbers of the report's tables that the engine's summary does
/// not hold, counted from the trace: warm launches, wakes, background-task
/// outcomes, and what the app did while it ran in the background (rules §12).
struct ReportFacts {
    var coldLaunches = 0
    /// Returns to the front of a process that was already running or suspended.
    var warmLaunches = 0
    /// Launches by cause, in `LaunchCause` order.
    var launches: [LaunchCause: Int] = [:]
    /// Resumed from suspension into the background (not on the way to the front).
    var backgroundResumes = 0
    var tasksBegun = 0
    var tasksExpired = 0
    var tasksRefused = 0
    /// Background fetches (rules §6); BGTaskScheduler requests are the ledger's.
    var fetches = 0
    /// Local notifications (rules §9): delivered to the user, to the app in
    /// front, dropped, and opened by the person.
    var notificationsToUser = 0
    var notificationsToApp = 0
    var notificationsDropped = 0
    var notificationsOpened = 0
    var terminations: [TerminationReason: Int] = [:]
    /// What ran while the app was in the background, in order of first
    /// appearance, with counts.
    var backgroundActivity: [(what: String, count: Int)] = []

    var wakes: [(String, Int)] {
        LaunchCause.allCases.compactMap { c in launches[c].map { ("\(c)", $0) } }
            + (backgroundResumes > 0 ? [("resumed in the background", backgroundResumes)] : [])
    }
    var kills: Int { terminations.filter { ReportFacts.isKill($0.key) }.values.reduce(0, +) }

    /// Terminations the system imposes as a penalty or for resources — not
    /// the person's, the app's own, or a restart's.
    static func isKill(_ reason: TerminationReason) -> Bool {
        switch reason {
        case .userForceQuit, .exit, .exitsOnSuspend, .multitaskingUnsupported, .reboot: false
        default: true
        }
    }

    /// One value per installed app, in `names.apps` order.
    static func count(events: [TraceEvent], names: TraceNames) -> [ReportFacts] {
        var facts = [ReportFacts](repeating: ReportFacts(), count: names.apps.count)
        var state = [ProcessState](repeating: .notRunning, count: names.apps.count)
        var activityIndex = [[String: Int]](repeating: [:], count: names.apps.count)
        // A resume waits for the app's next state change to tell whether it
        // was on the way to the front.
        var pendingResume = [Bool](repeating: false, count: names.apps.count)
        /// Audio sounding (rules §4): audio that went on playing in the background
        /// is background activity; audio stopped as the app left the front is not.
        var playing = [Bool](repeating: false, count: names.apps.count)
        var backgroundSince = [Nanoseconds](repeating: 0, count: names.apps.count)
        func playedOn(_ i: Int, until t: Nanoseconds) {
            if playing[i] && state[i] == .background && t > backgroundSince[i] { note(i, "played audio") }
        }

        func note(_ i: Int, _ what: String) {
            if let k = activityIndex[i][what] {
                facts[i].backgroundActivity[k].count += 1
            } else {
                activityIndex[i][what] = facts[i].backgroundActivity.count
                facts[i].backgroundActivity.append((what, 1))
            }
        }

        for event in events {
            guard let app = event.app else { continue }
            let i = Int(app.index)
            switch event.kind {
            case let .state(from, to, reason):
                if pendingResume[i] {
                    pendingResume[i] = false
                    if !to.isForeground { facts[i].backgroundResumes += 1 }
                }
                if to.isForeground && (from == .background || from == .suspended) { facts[i].warmLaunches += 1 }
                if from == .suspended && to == .background && reason == .resumed { pendingResume[i] = true }
                if to != .background { playedOn(i, until: event.time) }
                if to == .background && state[i] != .background { backgroundSince[i] = event.time }
                state[i] = to
                if to == .notRunning { playing[i] = false }
            case .audioStart:
                playing[i] = true
            case .audioStop:
                playedOn(i, until: event.time)
                playing[i] = false
            case let .launch(cause):
                facts[i].coldLaunches += 1
                facts[i].launches[cause, default: 0] += 1
                // Recorded before the state it launches into: a background launch is background activity.
                if !cause.launchesIntoForeground { note(i, "launched for \(cause)") }
            case .bgtaskBegin: facts[i].tasksBegun += 1
            case .bgtaskExpire: facts[i].tasksExpired += 1
            case .bgtaskInvalid: facts[i].tasksRefused += 1
            case .fetchStart: facts[i].fetches += 1
            case let .notificationDeliver(_, toApp, _, _, _, _):
                if toApp { facts[i].notificationsToApp += 1 } else { facts[i].notificationsToUser += 1 }
            case .notificationDrop: facts[i].notificationsDropped += 1
            case .notificationTap: facts[i].notificationsOpened += 1
            case .terminate, .memoryKill: facts[i].terminations[event.terminationReason!, default: 0] += 1
            default: break
            }
            guard state[i] == .background else { continue }
            switch event.kind {
            case let .callback(callback), let .callbackOnQueue(callback): note(i, "ran \(callback.name)")
            case let .bgtaskBegin(_, name): note(i, "background task '\(names.text(name))'")
            case let .taskStart(id, _): note(i, "BGTask '\(names.text(id))'")
            case .fetchStart: note(i, "background fetch")
            case let .notificationSchedule(id, _, _): note(i, "scheduled notification '\(names.notification(id))'")
            default: break
            }
        }
        for i in pendingResume.indices where pendingResume[i] { facts[i].backgroundResumes += 1 }
        for i in playing.indices { playedOn(i, until: .max) }
        return facts
    }
}
