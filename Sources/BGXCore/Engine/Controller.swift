/// What every concern's controller is told by the coordinator, and asked
/// (AOSP JobScheduler's `StateController`): the moments that cross concerns
/// — an app installed, a process changed state, a process ended, the device
/// changed, app work was queued — and which reasons of `BackgroundAssertions`
/// it holds an app by. A controller answers from its own state and the
/// read-only `ControllerContext`, and appends effects for what it cannot do
/// itself to the hook's `effects` — the engine's one buffer, kept empty
/// between moments, not an array per hook (an empty array returned by each of
/// ten controllers at every state change cost about 45 instructions per
/// engine event, callgrind); the coordinator reaches every controller through one list
/// (`Engine.forEachController`), never by naming them at each moment.
///
/// Every hook has a default that does nothing, so a controller states only
/// the moments it cares about.
protocol Controller {
    /// An app was installed: per-app state grows by one, at the app's index.
    mutating func appInstalled(_ manifest: AppManifest)
    /// The app's process went from `from` to `to` (`Engine.setState`, before the change is traced).
    mutating func processStateChanged(_ app: AppID, from: ProcessState, to: ProcessState,
                                      _ context: ControllerContext, _ effects: inout [Effect])
    /// The app's process ended (`Engine.terminate`, its state already not running,
    /// before the process table forgets the process).
    mutating func processEnded(_ app: AppID, _ reason: TerminationReason, _ context: ControllerContext,
                               _ effects: inout [Effect])
    /// A device change is about to take effect: what ran at the old conditions settles first.
    mutating func deviceWillChange(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect])
    /// The device changed (the device holds the new value and the change is traced).
    mutating func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect])
    /// App code queued work for later or for now (a timer, a block on a queue; not a
    /// continuation of the job running now).
    mutating func appWorkQueued(_ app: AppID)
    /// The reasons among `.keepRunning` this concern holds the app by, read
    /// from its own state: what the app's assertion set must say for it.
    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions
}

extension Controller {
    @inline(__always) mutating func appInstalled(_ manifest: AppManifest) {}
    @inline(__always) mutating func processStateChanged(_ app: AppID, from: ProcessState, to: ProcessState,
                                                        _ context: ControllerContext, _ effects: inout [Effect]) {}
    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {}
    @inline(__always) mutating func deviceWillChange(_ change: DeviceChange, _ context: ControllerContext,
                                                     _ effects: inout [Effect]) {}
    @inline(__always) mutating func deviceChanged(_ change: DeviceChange, _ context: ControllerContext,
                                                  _ effects: inout [Effect]) {}
    @inline(__always) mutating func appWorkQueued(_ app: AppID) {}
    @inline(__always) func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions { [] }
}

/// What a controller may read of the coordinator at a hook: plain numbers,
/// copied (a controller's own settings are its own, given at its init).
struct ControllerContext {
    var now: Nanoseconds
    /// Time of day at t = 0 (calendar days, the usage predictor's bins).
    var wallClockOffset: Nanoseconds
    /// The device's memory, in bytes: jetsam's levels are shares of it.
    var deviceMemory: Int64
    /// The profile's flag that background location updates need
    /// `allowsBackgroundLocationUpdates` (rules §4).
    var locationNeedsOptIn: Bool
    /// Whether the app a question is about declares the `location` mode
    /// (false at the hooks, which do not ask).
    var appDeclaresLocation = false
}

/// Where controllers append their effects at a moment (`Engine.forEachController`):
/// empty between moments, so a snapshot keeps nothing of it.
struct HookEffects: Sendable, Codable {
    var effects: [Effect] = []
    init() {}
    init(from decoder: Decoder) throws {}
    func encode(to encoder: Encoder) throws {}
}

/// One moment, told to each controller in turn (see `Engine.forEachController`).
protocol ControllerHook {
    func tell<C: Controller>(_ controller: inout C, _ effects: inout [Effect])
}

/// One question, asked of each controller in turn (see `Engine.forEachControllerRead`).
protocol ControllerQuestion {
    mutating func ask<C: Controller>(_ controller: C)
}

extension Engine {
    // The controllers, in the one order every hook reaches them. The order is
    // the trace's: every controller hears the moment, then the effects they
    // appended are carried out in the order appended, so whoever writes to the
    // trace at a moment does so in this order.
    // - memory first: at a process's end its unsaved changes are lost (traced)
    //   before anything else of the process goes, as iOS logs the kill first;
    // - the task scheduler before the scheduler: a running task's loss is written
    //   into the scheduler's history as the process ends, then the scheduler
    //   stops the energy clock and forgets a fetch in flight;
    // - continued processing next: its queued tasks are cancelled (traced), and
    //   freed slots are started once every controller has let the process go;
    // - pushes before transfers: after a device change held pushes are retried
    //   first, and the transfer daemon looks at its transfers last, at the new
    //   conditions, with what the pushes woke already running;
    // - the rest hold nothing another reads at these moments.
    @inline(__always) mutating func forEachController<H: ControllerHook>(_ hook: H) {
        hook.tell(&memory, &hookEffects.effects)
        hook.tell(&taskScheduler, &hookEffects.effects)
        hook.tell(&scheduler, &hookEffects.effects)
        hook.tell(&continuedProcessing, &hookEffects.effects)
        hook.tell(&backgroundTasks, &hookEffects.effects)
        hook.tell(&services, &hookEffects.effects)
        hook.tell(&notifications, &hookEffects.effects)
        hook.tell(&launches, &hookEffects.effects)
        hook.tell(&pushes, &hookEffects.effects)
        hook.tell(&transfers, &hookEffects.effects)
        if !hookEffects.effects.isEmpty { carryOutHookEffects() }
    }

    /// The effects controllers appended to the buffer, taken out of it first
    /// (carrying them out may start another moment, which appends anew), and
    /// the buffer's storage handed back afterwards: copying the effects out
    /// and emptying the buffer in place allocated at every moment with effects.
    mutating func carryOutHookEffects() {
        var effects: [Effect] = []
        swap(&effects, &hookEffects.effects)
        for effect in effects { apply(effect) }
        effects.removeAll(keepingCapacity: true)
        if hookEffects.effects.isEmpty { swap(&effects, &hookEffects.effects) }
    }

    /// The same controllers, in the same order, asked a question (nothing changes).
    @inline(__always) func forEachControllerRead<Q: ControllerQuestion>(_ question: inout Q) {
        question.ask(memory)
        question.ask(taskScheduler)
        question.ask(scheduler)
        question.ask(continuedProcessing)
        question.ask(backgroundTasks)
        question.ask(services)
        question.ask(notifications)
        question.ask(launches)
        question.ask(pushes)
        question.ask(transfers)
    }

    /// Effects a controller returned, carried out (most calls return none).
    @inline(__always) mutating func carryOut(_ effects: [Effect]) {
        if !effects.isEmpty { apply(effects) }
    }

    @inline(__always) var controllerContext: ControllerContext {
        ControllerContext(now: now, wallClockOffset: wallClockOffset, deviceMemory: device.memory,
                          locationNeedsOptIn: profile.longRunning.requiresAllowsBackgroundLocationUpdates)
    }
}

// MARK: The moments

struct ProcessStateChanged: ControllerHook {
    let app: AppID, from: ProcessState, to: ProcessState, context: ControllerContext
    @inline(__always) func tell<C: Controller>(_ c: inout C, _ effects: inout [Effect]) {
        c.processStateChanged(app, from: from, to: to, context, &effects)
    }
}

struct ProcessEnded: ControllerHook {
    let app: AppID, reason: TerminationReason, context: ControllerContext
    @inline(__always) func tell<C: Controller>(_ c: inout C, _ effects: inout [Effect]) {
        c.processEnded(app, reason, context, &effects)
    }
}

struct DeviceWillChange: ControllerHook {
    let change: DeviceChange, context: ControllerContext
    @inline(__always) func tell<C: Controller>(_ c: inout C, _ effects: inout [Effect]) {
        c.deviceWillChange(change, context, &effects)
    }
}

struct DeviceChanged: ControllerHook {
    let change: DeviceChange, context: ControllerContext
    @inline(__always) func tell<C: Controller>(_ c: inout C, _ effects: inout [Effect]) {
        c.deviceChanged(change, context, &effects)
    }
}

struct AppInstalled: ControllerHook {
    let manifest: AppManifest
    @inline(__always) func tell<C: Controller>(_ c: inout C, _ effects: inout [Effect]) { c.appInstalled(manifest) }
}

struct AppWorkQueued: ControllerHook {
    let app: AppID
    @inline(__always) func tell<C: Controller>(_ c: inout C, _ effects: inout [Effect]) { c.appWorkQueued(app) }
}

/// The reasons every controller holds the app by, together.
struct HeldAssertions: ControllerQuestion {
    let app: AppID, context: ControllerContext
    var held: BackgroundAssertions = []
    @inline(__always) mutating func ask<C: Controller>(_ c: C) { held.formUnion(c.heldAssertions(of: app, context)) }
}
