@testable import BGXCore
import PropertyBased
import Testing

/// Deterministic time: events come out in (time, insertion order), whichever
/// lane or heap holds them, so a scenario and seed give one trace
/// (docs/fuzzing.md, "Property tests").
@Suite("The event queue")
struct EventQueueTests {
    /// Kinds that wait in each lane, and one that always goes to the heap.
    static let kinds: [EngineEvent] = [
        .user(.home), .device(.battery(50)), .expirationWarning(AppID(index: 0), Ticket(epoch: 0, number: 0)),
        .budgetDeadline(AppID(index: 0), Ticket(epoch: 0, number: 0)), .jetsamCheck,
        .timer(AppID(index: 0), epoch: 0, token: 0, continuation: false),
    ]

    @Test("The queue pops in (time, insertion order) however pushes interleave with pops — sorted runs, out-of-order pushes, ties")
    func popsInTimeThenInsertionOrder() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 0...UInt64.max).array(of: 1...200)) { steps in
            var queue = EventQueue()
            var reference: [(time: Nanoseconds, order: Int)] = []
            var now: Nanoseconds = 0
            var pushed = 0
            var popped: [(Nanoseconds, Int)] = []
            var expected: [(Nanoseconds, Int)] = []
            for step in steps {
                var s = step
                let kind = Int(s % UInt64(Self.kinds.count)); s /= UInt64(Self.kinds.count)
                if s % 3 == 0, let next = queue.pop() {
                    now = next.time
                    popped.append((next.time, Int(next.sequence)))
                    let least = reference.indices.min { (reference[$0].time, reference[$0].order) < (reference[$1].time, reference[$1].order) }!
                    expected.append((reference[least].time, reference[least].order))
                    reference.remove(at: least)
                } else {
                    // Small delays make ties; a delay of 0…9 s mixes sorted runs and out-of-order pushes.
                    let time = now + Time.seconds(Int((s / 3) % 10))
                    queue.push(Self.kinds[kind], at: time)
                    reference.append((time, pushed))
                    pushed += 1
                }
                #expect(queue.count == reference.count)
                #expect(queue.nextTime == reference.map(\.time).min())
            }
            while let next = queue.pop() {
                popped.append((next.time, Int(next.sequence)))
            }
            expected += reference.sorted { ($0.time, $0.order) < ($1.time, $1.order) }.map { ($0.time, $0.order) }
            #expect(popped.map(\.0) == expected.map(\.0))
            #expect(popped.map(\.1) == expected.map(\.1))
        }
    }

    @Test("An event of a lane's kind queued earlier than that lane's last still comes out first")
    func outOfOrderPushOfALaneKind() {
        var queue = EventQueue()
        queue.push(.jetsamCheck, at: 100)
        queue.push(.jetsamCheck, at: 50)
        queue.push(.user(.home), at: 75)
        #expect(queue.pop()?.time == 50)
        #expect(queue.pop()?.time == 75)
        #expect(queue.pop()?.time == 100)
        #expect(queue.pop() == nil)
    }
}
