/// The daemon's side of durability: where it is in the engine's life (the
/// steps it has run, which the journal records with each input) and whether
/// it is replaying the journal after a restart.
struct DurableHost {
    enum Mode {
        /// Inputs arrive and are journaled; directives are carried out.
        case live
        /// Rebuilding the engine from the journal: no directive is carried
        /// out, no line written (all of it happened before the restart).
        case replay
        /// Replaying the journal's last entry and the steps that followed it,
        /// whose effects the dead daemon may or may not have shown: lines not
        /// already in the trace are written, directives are still not carried
        /// out (the processes they were for died with that daemon).
        case catchUp
    }
    var mode = Mode.live
    /// Engine steps run since engine time 0, across restarts.
    var steps: Int64 = 0
    /// Inputs journaled since the latest snapshot (or since the start).
    var sinceSnapshot = 0
    /// The latest snapshot: its entry, its size, and the time this daemon took to encode it (nil: restored from it).
    var lastSnapshot: (seq: Int64, bytes: Int, nanoseconds: Int64?)?
    /// In `catchUp`: what the dead daemon had written.
    var tail: TraceTail?
    /// Processes a dead daemon left, killed at restart, to report once the engine is back.
    var leftovers: [Leftover] = []
    /// Test seam: die right after journaling the Nth input of this kind
    /// (`BGX_CRASH_AFTER_JOURNAL=KIND[:N]`), before acting on it — a power cut
    /// between the write and its effect.
    var crashAfter: (kind: String, count: Int)?
    var lockFD: Int32 = -1
    /// In `catchUp`: the lines replayed, held until the trace is found to agree (`settleCatchUp`).
    var caughtUp: [CaughtUpLine] = []

    struct CaughtUpLine {
        var line: String
        var audited: Bool
        var code: String?
        /// The dead daemon wrote it already.
        var alreadyWritten: Bool
    }

    struct Leftover {
        var app: String
        var pid: Int32
        var mechanism: String
    }
}
