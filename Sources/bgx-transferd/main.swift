import BGXLive
import BGXLiveTransfers
import Foundation

// The live host's transfer process: bgx-daemon starts it at the first
// background transfer and tells it, a JSON line each on standard input, which
// attempts to start and stop (`TransferCommand`); it moves the bytes with
// URLSession and answers, a JSON line per report on standard output
// (`TransferAttemptReport`). It ends when its standard input does: the
// daemon stopped, or died.

setvbuf(stdout, nil, _IOFBF, 1 << 16)
let out = NSLock()
let encoder = JSONEncoder()
let mover = HTTPTransferMover()

@Sendable func say(_ report: TransferAttemptReport) {
    guard var line = try? encoder.encode(report) else { return }
    line.append(10)
    out.withLock {
        let written = line.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, stdout) }
        // The daemon is gone: nobody wants the bytes any more.
        if written != line.count || fflush(stdout) != 0 { exit(0) }
    }
}

while let line = readLine(strippingNewline: true) {
    guard let command = try? JSONDecoder().decode(TransferCommand.self, from: Data(line.utf8)) else { continue }
    switch command {
    case let .start(transfer): mover.start(transfer, report: say)
    case let .stop(task): mover.stop(task)
    }
}
mover.shutdown()
exit(0)
