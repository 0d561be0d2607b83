import BGXCore

/// A host for an `Engine` with no app code behind it: every callback and
/// timer it is handed returns the moment it is delivered, after `answer`
/// (if any) has done what the app would do first — end a task, complete a
/// fetch. Tests of the engine and of its controllers, and the benchmark,
/// drive an engine through it instead of draining directives by hand (as
/// NIO's tests drive `EmbeddedEventLoop`).
public struct ImmediateHost: Sendable {
    public var engine: Engine
    /// The directives being carried out (kept for its storage).
    @usableFromInline var directives: [Directive] = []

    public init(_ engine: Engine) {
        self.engine = engine
        directives.reserveCapacity(64)
    }

    /// Carries out every directive the engine has produced, and those that
    /// carrying them out produces, in order.
    @inlinable
    public mutating func drain(_ answer: (Directive, inout Engine) -> Void = { _, _ in }) {
        engine.answerAtOnce(&directives, answer)
    }

    /// Handles each event due by `time`, carrying out what it produces; the
    /// clock then stands at `time`.
    public mutating func run(until time: Nanoseconds, _ answer: (Directive, inout Engine) -> Void = { _, _ in }) {
        drain(answer)
        while let next = engine.nextEventTime, next <= time {
            engine.step()
            drain(answer)
        }
        engine.advanceClock(to: time)
    }

    /// Handles every event until none is left.
    public mutating func runToEnd(_ answer: (Directive, inout Engine) -> Void = { _, _ in }) {
        drain(answer)
        while engine.step() { drain(answer) }
    }

    /// The trace produced since the last call.
    public mutating func takeTrace() -> [TraceEvent] {
        defer { engine.trace.removeAll() }
        return engine.trace
    }
}

extension Engine {
    /// `ImmediateHost.drain` for an engine a test holds itself: carries out
    /// every directive produced so far (and those that produces) in order,
    /// `answer` first, then each callback and timer returns. `buffer` is
    /// the caller's, kept for its storage.
    @inlinable
    public mutating func answerAtOnce(_ buffer: inout [Directive], _ answer: (Directive, inout Engine) -> Void = { _, _ in }) {
        while hasDirectives {
            takeDirectives(into: &buffer)
            for d in buffer {
                answer(d, &self)
                switch d {
                case let .deliver(app, _), let .fire(app, _, _): returned(app)
                case .launch, .suspend, .resume, .terminate: break
                }
            }
        }
    }
}
