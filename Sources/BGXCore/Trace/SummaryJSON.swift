/// An app's summary as data: its object in `bgx run --json` (docs/cli.md),
/// written by `InlineJSONEncoder` — times as exact decimals (`Time.format`),
/// states, causes and errors in their declared order, every key there
/// (`longestHold` is `null` when nothing held a request back). (Foundation's
/// encoder writes the same values, with its own key order and nil rule.)
extension AppSummary: Encodable {
    struct JSON: Encodable {
        struct BackgroundTasks: Encodable { let begun, expired: Int }
        let app: String
        let secondsInState: JSONMembers<JSONNumber>
        let backgroundSeconds: JSONNumber
        let launches: JSONMembers<Int>
        let coldLaunches, warmLaunches: Int
        let terminations: JSONMembers<Int>
        let backgroundTasks: BackgroundTasks
        let scheduledTasks: ScheduledTasks
        let pushes: Pushes
        let fetches: Int

        struct ScheduledTasks: Encodable {
            struct Hold: Encodable { let policy: String; let seconds: JSONNumber }
            struct Refusal: Encodable { let error: String; let reason: String; let count: Int }
            let submitted, started, expired, deferred: Int
            let longestHold: Hold?
            /// Refused submits by error, in iOS's code order.
            let refused: JSONMembers<Int>
            let refusals: [Refusal]
            let cancelled, pendingAtEnd: Int
        }

        struct Pushes: Encodable {
            let delivered, deliveredToApp, deliveredToUser: Int
            /// By reason, in the order each first happened.
            let held, dropped: JSONMembers<Int>
        }
    }

    var jsonValue: JSON {
        func seconds(_ s: Double) -> JSONNumber { JSONNumber(Time.format(Time.seconds(s))) }
        let r = requests
        let errors = [BGTaskSchedulerError.unavailable, .tooManyPendingTaskRequests, .notPermitted]
        let scheduled = JSON.ScheduledTasks(
            submitted: r.submitted, started: scheduledTasksStarted, expired: scheduledTasksExpired, deferred: r.deferred,
            longestHold: r.longestHold.map { .init(policy: $0.policy, seconds: JSONNumber(Time.format($0.duration))) },
            refused: JSONMembers(errors.compactMap { e in
                let n = r.refused.filter { $0.error == e }.reduce(0) { $0 + $1.count }
                return n > 0 ? (e.description, n) : nil
            }),
            refusals: r.refused.map { .init(error: $0.error.description, reason: $0.reason, count: $0.count) },
            cancelled: r.cancelled, pendingAtEnd: r.pendingAtEnd)
        func reasons(_ list: [PushCounts.Reason]) -> JSONMembers<Int> { JSONMembers(list.map { ($0.reason, $0.count) }) }
        return JSON(
            app: bundleIdentifier,
            secondsInState: JSONMembers(ProcessState.allCases.map { ($0.description, seconds(secondsInState[$0] ?? 0)) }),
            backgroundSeconds: seconds(backgroundSeconds),
            launches: JSONMembers(LaunchCause.allCases.compactMap { c in launches[c].map { (c.description, $0) } }),
            coldLaunches: coldLaunches, warmLaunches: warmLaunches,
            terminations: JSONMembers(TerminationReason.allCases.compactMap { r in terminations[r].map { (r.description, $0) } }),
            backgroundTasks: .init(begun: backgroundTasksBegun, expired: backgroundTasksExpired),
            scheduledTasks: scheduled,
            pushes: .init(delivered: pushes.delivered, deliveredToApp: pushes.deliveredToApp,
                          deliveredToUser: pushes.deliveredToUser, held: reasons(pushes.held), dropped: reasons(pushes.dropped)),
            fetches: fetches)
    }

    public func encode(to encoder: Encoder) throws { try jsonValue.encode(to: encoder) }

    /// The summary's JSON object, one line.
    public var json: String {
        // Strings, whole numbers and exact decimals: nothing that fails to encode.
        (try? InlineJSONEncoder().encode(self)) ?? "{}"
    }
}
