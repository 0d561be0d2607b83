import BGXCore

/// `bgx ctl status --json` (docs/cli.md), written by `InlineJSONEncoder`:
/// the freezer, the engine's time, PSI memory pressure, and each app — its
/// state, its process's fields when it has one (left out when it has none),
/// and each controller's dump.
struct StatusJSON: Encodable {
    struct App: Encodable {
        let app: String
        let state: String
        @OmittedWhenNil var pid: Int32?
        @OmittedWhenNil var frozen: Bool?
        @OmittedWhenNil var connected: Bool?
        @OmittedWhenNil var awaitingAck: Int?
        @OmittedWhenNil var residentBytes: Int64?
        @OmittedWhenNil var cpuNanoseconds: Int64?
        let controllers: [ControllerDumpJSON]
    }

    let freezer: String
    let now: Nanoseconds
    let memoryPressure: String
    let apps: [App]
}
