@testable import BGXCore
import Foundation
import PropertyBased
import Testing

/// The engine's FIFOs (main-thread jobs, the event queue's lanes) give back
/// what went in, in the order it went in, whatever the ring's wrap-around
/// and growth — and a live snapshot reads them as the list they hold.
@Suite("The engine's FIFO")
struct FIFOTests {
    @Test("Appends and pops interleaved in any order give the elements back first in, first out, as an array used as a queue does")
    func firstInFirstOut() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 0...UInt64.max).array(of: 0...300)) { steps in
            var fifo = FIFO<String>()
            var reference: [String] = []
            for (n, step) in steps.enumerated() {
                switch step % 7 {
                case 0, 1, 2: #expect(fifo.popFirst() == (reference.isEmpty ? nil : reference.removeFirst()))
                case 3 where n % 11 == 0:
                    fifo.removeAll()
                    reference.removeAll()
                default:
                    fifo.append("e\(n)")  // a String: a payload with a reference to count
                    reference.append("e\(n)")
                }
                #expect(fifo.count == reference.count)
                #expect(fifo.isEmpty == reference.isEmpty)
                #expect(fifo.first == reference.first)
                #expect(fifo.mapFirst { $0.count } == reference.first?.count)
            }
            var rest: [String] = []
            while let e = fifo.popFirst() { rest.append(e) }
            #expect(rest == reference)
        }
    }

    @Test("Encoded, a FIFO is the list of what waits in it, first first, whatever slot the ring starts at")
    func encodesAsTheListItHolds() throws {
        var fifo = FIFO<Int>()
        for i in 0..<20 { fifo.append(i) }
        for _ in 0..<15 { _ = fifo.popFirst() }
        for i in 20..<30 { fifo.append(i) }  // wraps around the ring's end
        let data = try JSONEncoder().encode(fifo)
        #expect(String(decoding: data, as: UTF8.self) == "[15,16,17,18,19,20,21,22,23,24,25,26,27,28,29]")
        var decoded = try JSONDecoder().decode(FIFO<Int>.self, from: data)
        var back: [Int] = []
        while let e = decoded.popFirst() { back.append(e) }
        #expect(back == Array(15..<30))
    }
}
