import BGXCore
import Foundation

/// The report's tables: the per-app summary, and SPEC §12's three concerns —
/// power (background time), performance (kills, watchdog hits) and privacy
/// (what each app did while it ran in the background).
struct ReportTables {
    let names: TraceNames
    let facts: [ReportFacts]
    let summaries: [String: AppSummary]

    init(names: TraceNames, facts: [ReportFacts], summaries: [AppSummary]) {
        self.names = names
        self.facts = facts
        var byName: [String: AppSummary] = [:]
        for s in summaries { byName[s.bundleIdentifier] = s }
        self.summaries = byName
    }

    var html: String { summaryTable + concernsTable }

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
            + "<th>Launches and wakes by cause</th><th>Background tasks<br>begun / expired / refused</th><th>BGTasks<br>run / expired / refused</th><th>Fetches</th>"
            + "<th>Notifications<br>to user / to app / dropped / opened</th><th>Terminations by reason</th></tr></thead>\n<tbody>\n"
        for (i, app) in names.apps.enumerated() {
            let f = facts[i]
            let inFront = summaries[app].map {
                F.duration(seconds: ($0.secondsInState[.active] ?? 0) + ($0.secondsInState[.inactive] ?? 0))
            } ?? "—"
            out += "<tr data-app=\"\(F.escape(app))\"><td class=\"app\">\(F.escape(app))</td>"
                + "<td class=\"n\">\(inFront)</td><td class=\"n\">\(seconds(app, .background))</td>"
                + "<td class=\"n\">\(seconds(app, .suspended))</td>"
                + "<td class=\"n\">\(f.coldLaunches)</td><td class=\"n\">\(f.warmLaunches)</td>"
                + "<td>\(F.escape(F.counts(f.wakes)))</td>"
                + "<td class=\"n\">\(f.tasksBegun) / \(f.tasksExpired) / \(f.tasksRefused)</td>"
                + "<td class=\"n\">\(f.bgTasksRun) / \(f.bgTasksExpired) / \(f.bgTasksRefused)</td>"
                + "<td class=\"n\">\(f.fetches)</td>"
                + "<td class=\"n\">\(f.notificationsToUser) / \(f.notificationsToApp) / \(f.notificationsDropped)"
                + " / \(f.notificationsOpened)</td>"
                + "<td>\(F.escape(terminations(f, kills: false)))</td></tr>\n"
        }
        return out + "</tbody></table>\n"
    }

    var concernsTable: String {
        var out = "<h2>The three concerns (rules §12)</h2>\n<table class=\"concerns\"><thead><tr><th>App</th>"
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
