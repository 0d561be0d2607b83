/// What a timed event carries to say whose moment it is: the process
/// lifetime it was queued in and the number its controller gave that
/// moment (a budget window, a callback, a playback …). When it comes due,
/// `Engine.isOutstanding` asks the controller, in one place, whether that
/// moment is still the current one; a stale ticket's event is dropped.
/// What must outlive the process (a notification's fire, a held push's
/// retry, a deferred significant-change fix, a session's wake: each may
/// launch a terminated app) and what is device-wide (the scheduler's wake,
/// the transfer daemon's review) keeps a generation instead: `EngineEvent`
/// says so at each.
public struct Ticket: Sendable, Hashable, Codable {
    /// `processEpoch(of:)` when the event was queued: a termination makes it stale.
    public var epoch: UInt32
    /// The controller's counter when the event was queued.
    public var number: UInt32
    public init(epoch: UInt32, number: UInt32) {
        self.epoch = epoch
        self.number = number
    }
}

/// Whose counter a ticket's number is.
enum TicketCounter: Sendable {
    /// The main-thread job holding the thread (a watchdog's).
    case job
    /// The background-time window (the budget's warning and deadline).
    case backgroundWindow
    /// The CPU monitor's next look.
    case cpuCheck
    /// A `playAudio {for:}` playback.
    case audio
    /// The run an event bought a long-running service.
    case serviceWake
    /// The VoIP keep-alive handler's schedule.
    case keepAlive
    /// A wake for a background session's events.
    case transferEvents
    /// A silent push awaiting its completion handler (several may be).
    case pushCompletion
    /// A launch's BGTask budget (its expiry and deadline).
    case taskBudget
    /// A background fetch awaiting its completion handler.
    case fetch
}

extension Engine {
    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Engine/ (2 of them in this file) cost the engine 31 instructions per event.
    /// Whether the moment a ticket was issued for is still the controller's current one.
    @inline(__always) func isOutstanding(_ ticket: Ticket, _ counter: TicketCounter, _ app: AppID) -> Bool {
        let i = Int(app.index)
        guard apps[i].epoch == ticket.epoch else { return false }
        switch counter {
        case .job: return apps[i].inFlight?.number == ticket.number
        case .backgroundWindow: return backgroundTasks.apps[i].windowNumber == ticket.number
        case .cpuCheck: return memory.cpu[i].checkNumber == ticket.number
        case .audio: return services.apps[i].audio?.number == ticket.number
        case .serviceWake: return services.apps[i].wakeNumber == ticket.number
        case .keepAlive: return services.apps[i].voip.keepAliveGeneration == ticket.number
        case .transferEvents: return transfers.apps[i].eventsWake?.number == ticket.number
        case .pushCompletion: return pushes.apps[i].awaitingCompletion.contains { $0.number == ticket.number }
        case .taskBudget: return taskScheduler.apps[i].budgetNumber == ticket.number
        case .fetch: return scheduler.apps[i].fetchInFlight?.number == ticket.number
        }
    }

    /// A ticket for the controller's current moment in the app's process.
    @inline(__always) func ticket(_ app: AppID, _ number: UInt32) -> Ticket {
        Ticket(epoch: apps[Int(app.index)].epoch, number: number)
    }
}
