import BGXCore
import Foundation

/// The report's tables: the scenario's expectations, why each BGTask request
/// waited (and the submits refused, the pushes held or dropped), the per-app
/// summary, and rules §12's three concerns — power (background time),
/// performance (kills, watchdog hits) and privacy (what each app did while it
/// ran in the background).
struct ReportTables {
    let names: TraceNames
    let facts: [ReportFacts]
    let summaries: [String: AppSummary]
    let ledger: RequestLedger
    let clock: ReportClock
    let duration: Nanoseconds
    let expectations: [(passed: Bool, text: String)]
    /// The pushes held for later, in the order held, with what became of each.
    let heldPushes: [ReportWaits.HeldPush]
    /// A table longer than this many rows is folded under its heading (a
    /// `<details>` the reader opens), so a week's page stays a page.
    static let unfoldedRows = 12

    init(names: TraceNames, facts: [ReportFacts], summaries: [AppSummary], ledger: RequestLedger, clock: ReportClock,
         duration: Nanoseconds, expectations: [(passed: Bool, text: String)], heldPushes: [ReportWaits.HeldPush]) {
        self.heldPushes = heldPushes
        self.names = names
        self.facts = facts
        var byName: [String: AppSummary] = [:]
        for s in summaries { byName[s.bundleIdentifier] = s }
        self.summaries = byName
        self.ledger = ledger
        self.clock = clock
        self.duration = duration
        self.expectations = expectations
    }

    var html: String { requestsTable + refusalsTable + pushesTable + summaryTable + concernsTable }

    /// The scenario's `expect:` entries, each ok or failed.
    var expectationList: String {
        guard !expectations.isEmpty else { return "" }
        let failed = expectations.filter { !$0.passed }.count
        var out = "<h2>Expectations: " + (failed == 0 ? "all \(expectations.count) held"
                                          : "\(failed) of \(expectations.count) failed") + "</h2>\n<ul class=\"expectations\">"
        for e in expectations {
            out += "<li class=\"\(e.passed ? "ok" : "failed")\"><b>\(e.passed ? "ok" : "FAILED")</b> \(F.escape(e.text))</li>"
        }
        return out + "</ul>\n"
    }

    /// Each BGTaskScheduler request: when it was submitted, what held it
    /// back and for how long (each reason as it changed), and how its wait ended.
    var requestsTable: String {
        guard !ledger.lives.isEmpty else { return "" }
        var out = "<table class=\"requests\"><thead><tr><th>App</th>"
            + "<th>Request</th><th>Submitted</th><th>Why it waited</th><th>Outcome</th></tr></thead>\n<tbody>\n"
        for life in ledger.lives {
            let identifier = names.text(life.identifier)
            let waitEnd: Nanoseconds
            switch life.end {
            case let .started(at, _), let .cancelled(at), let .replaced(at): waitEnd = at
            case nil: waitEnd = duration
            }
            var why = life.holds.map { hold -> String in
                let until = hold.until ?? waitEnd
                return "<div>\(clock.clock(hold.since)) – \(clock.clock(until)) (\(F.duration(until - hold.since))): "
                    + F.escape(names.text(hold.reason)) + "</div>"
            }.joined()
            if why.isEmpty { why = life.kind == nil ? "not submitted (started by the debugger)" : "not held back" }
            var outcome: String
            switch life.end {
            case let .started(at, reason):
                outcome = "started \(clock.clock(at)) after \(F.duration(at - life.submitted)): " + names.text(reason)
            case let .cancelled(at): outcome = "cancelled by the app \(clock.clock(at))"
            case let .replaced(at): outcome = "replaced by a new submit \(clock.clock(at))"
            case nil: outcome = "still pending at the end (\(F.duration(duration - life.submitted)))"
            }
            if let t = life.expired { outcome += "; expired \(clock.clock(t))" }
            switch life.run {
            case let .completed(t, success): outcome += "; completed \(clock.clock(t)), success \(success)"
            case let .lost(t): outcome += "; the process ended \(clock.clock(t))"
            case nil: break
            }
            let kind = life.kind.map { " (\($0))" } ?? ""
            out += "<tr data-request=\"\(F.escape(identifier))\"><td class=\"app\">\(F.escape(names.app(life.app)))</td>"
                + "<td class=\"app\">\(F.escape(identifier + kind))</td><td>\(clock.clock(life.submitted))</td>"
                + "<td class=\"why\">\(why)</td><td>\(F.escape(outcome))</td></tr>\n"
        }
        return "<h2>Why it waited: each BGTask request</h2>\n"
            + Self.folded(out + "</tbody></table>\n", rows: ledger.lives.count, what: "requests")
    }

    /// A long table folded: its summary line says how many rows it holds.
    static func folded(_ table: String, rows: Int, what: String) -> String {
        rows <= unfoldedRows ? table : "<details><summary>All \(rows) \(what) (click to show)</summary>\n\(table)</details>\n"
    }

    /// Submits iOS refused, each with its error and why.
    var refusalsTable: String {
        guard !ledger.refusals.isEmpty else { return "" }
        var out = "<table class=\"refusals\"><thead><tr><th>When</th><th>App</th>"
            + "<th>Request</th><th>Error</th><th>Why</th></tr></thead>\n<tbody>\n"
        for r in ledger.refusals {
            out += "<tr><td>\(clock.clock(r.time))</td><td class=\"app\">\(F.escape(names.app(r.app)))</td>"
                + "<td class=\"app\">\(F.escape(names.text(r.identifier)))</td><td>\(r.error)</td>"
                + "<td>\(F.escape(names.text(r.reason)))</td></tr>\n"
        }
        return "<h2>BGTask submits refused</h2>\n"
            + Self.folded(out + "</tbody></table>\n", rows: ledger.refusals.count, what: "refused submits")
    }

    /// Pushes that did not reach the app at once: held for later (and when
    /// they arrived, if they did), or dropped.
    var pushesTable: String {
        let notDelivered = ledger.pushes.filter { $0.reason != nil }
        guard !notDelivered.isEmpty else { return "" }
        var out = "<table class=\"pushes\"><thead><tr><th>When</th><th>App</th>"
            + "<th>Push</th><th>What became of it</th><th>Why</th></tr></thead>\n<tbody>\n"
        var held = heldPushes.makeIterator()
        for p in notDelivered {
            var fate = "dropped"
            if p.held {
                fate = "held for later"
                if let h = held.next() {
                    switch h.end {
                    case let .delivered(at): fate = "held, arrived \(clock.clock(at)) (after \(F.duration(at - h.since)))"
                    case let .dropped(at, reason):
                        fate = "held, dropped \(clock.clock(at)) (after \(F.duration(at - h.since))): \(F.escape(reason))"
                    case .stillHeld: fate = "held, still held at the end (\(F.duration(duration - h.since)))"
                    }
                }
            }
            out += "<tr><td>\(clock.clock(p.time))</td><td class=\"app\">\(F.escape(names.app(p.app)))</td>"
                + "<td>\(p.type)</td><td>\(fate)</td>"
                + "<td>\(F.escape(names.text(p.reason!)))</td></tr>\n"
        }
        return "<h2>Pushes held or dropped</h2>\n"
            + Self.folded(out + "</tbody></table>\n", rows: notDelivered.count, what: "pushes held or dropped")
    }

    private typealias F = ReportFormat

    func seconds(_ app: String, _ state: ProcessState) -> String {
        guard let s = summaries[app] else { return "—" }
        return F.duration(seconds: s.secondsInState[state] ?? 0)
    }

    func terminations(_ facts: ReportFacts, kills: Bool) -> String {
        F.counts(TerminationReason.allCases.compactMap { r in
            guard !kills || ReportFacts.isKill(r), let n = facts.terminations[r] else { return nil }
            return ("\(r)", n)
        })
    }

    var summaryTable: String {
        var out = "<h2>Summary</h2>\n<table class=\"summary\"><thead><tr><th>App</th><th>In front</th>"
            + "<th>Background running</th><th>Suspended</th><th>Cold launches</th><th>Warm launches</th>"
            + "<th>Launches and wakes by cause</th><th>Background tasks<br>begun / expired / refused</th>"
            + "<th>BGTask requests<br>submitted / started / deferred / refused / expired</th><th>Held back longest by</th>"
            + "<th>Fetches</th><th>Pushes<br>delivered / held / dropped</th>"
            + "<th>Notifications<br>to user / to app / dropped / opened</th><th>Terminations by reason</th></tr></thead>\n<tbody>\n"
        for (i, app) in names.apps.enumerated() {
            let f = facts[i]
            let id = AppID(index: Int32(i))
            let r = TaskRequestCounts(ledger, app: id, names: names, now: duration)
            let p = PushCounts(ledger, app: id, names: names)
            let longest = r.longestHold.map { "\($0.policy) (\(F.duration($0.duration)))" } ?? "—"
            let inFront = summaries[app].map {
                F.duration(seconds: ($0.secondsInState[.active] ?? 0) + ($0.secondsInState[.inactive] ?? 0))
            } ?? "—"
            out += "<tr data-app=\"\(F.escape(app))\"><td class=\"app\">\(F.escape(app))</td>"
                + "<td class=\"n\">\(inFront)</td><td class=\"n\">\(seconds(app, .background))</td>"
                + "<td class=\"n\">\(seconds(app, .suspended))</td>"
                + "<td class=\"n\">\(f.coldLaunches)</td><td class=\"n\">\(f.warmLaunches)</td>"
                + "<td>\(F.escape(F.counts(f.wakes)))</td>"
                + "<td class=\"n\">\(f.tasksBegun) / \(f.tasksExpired) / \(f.tasksRefused)</td>"
                + "<td class=\"n\">\(r.submitted) / \(r.started) / \(r.deferred) / \(r.refusedCount) / \(r.expired)</td>"
                + "<td>\(F.escape(longest))</td><td class=\"n\">\(f.fetches)</td>"
                + "<td class=\"n\">\(p.delivered) / \(p.heldCount) / \(p.droppedCount)</td>"
                + "<td class=\"n\">\(f.notificationsToUser) / \(f.notificationsToApp) / \(f.notificationsDropped)"
                + " / \(f.notificationsOpened)</td>"
                + "<td>\(F.escape(terminations(f, kills: false)))</td></tr>\n"
        }
        return out + "</tbody></table>\n"
    }

    var concernsTable: String {
        var out = "<h2>The three concerns: power, performance, privacy (rules §12)</h2>\n<table class=\"concerns\"><thead><tr><th>App</th>"
            + "<th>Power: background seconds</th><th>Performance: kills by the system</th>"
            + "<th>Performance: watchdog hits</th><th>Privacy: what it did in the background</th></tr></thead>\n<tbody>\n"
        for (i, app) in names.apps.enumerated() {
            let f = facts[i]
            let power = summaries[app].map { ReportFormat.coordinate($0.backgroundSeconds) + " s" } ?? "—"
            let watchdog = summaries[app].map { "\($0.watchdogHits)" } ?? "—"
            let kills = f.kills == 0 ? "0" : "\(f.kills): " + terminations(f, kills: true)
            let activity = f.backgroundActivity.isEmpty ? "nothing"
                : f.backgroundActivity.map { $0.count > 1 ? "\($0.what) ×\($0.count)" : $0.what }.joined(separator: "; ")
            out += "<tr data-app=\"\(F.escape(app))\"><td class=\"app\">\(F.escape(app))</td>"
                + "<td class=\"n\">\(power)</td><td>\(F.escape(kills))</td><td class=\"n\">\(watchdog)</td>"
                + "<td>\(F.escape(activity))</td></tr>\n"
        }
        return out + "</tbody></table>\n"
    }
}
