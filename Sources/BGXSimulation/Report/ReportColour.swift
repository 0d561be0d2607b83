/// The report's colours, each with one meaning (issue 31: a legend that gave
/// one purple to cellular and to a policy, one orange to three things, could
/// not be read). A marker's shape says what happened and its colour how it
/// went; a band's colour says what the app, the request or the device was
/// doing. The policies that hold a request back are patterns on the colour
/// of waiting, not colours of their own. Picked so that no two look alike
/// (ReportWeekBrowserTests measures them as Chromium draws them).
enum ReportColour: String, CaseIterable {
    case front, background, suspended, notRunning = "not-running", waiting, running, charging, device
    case ok, person, bad, expired, ended

    var hex: String {
        switch self {
        case .front: "#9fcdfd"
        case .background: "#1b3a8c"
        case .suspended: "#a1a1aa"
        case .notRunning: "#f4f5f8"
        case .waiting: "#f59e0b"
        case .running: "#0e7490"
        case .charging: "#bbf7d0"
        case .device: "#5b5b5b"
        case .ok: "#16a34a"
        case .person: "#db2777"
        case .bad: "#dc2626"
        case .expired: "#7c3aed"
        case .ended: "#18181b"
        }
    }

    /// What it means, in the legend.
    var meaning: String {
        switch self {
        case .front: "app in front (active)"
        case .background: "app running in the background"
        case .suspended: "app suspended (thin)"
        case .notRunning: "app not running"
        case .waiting: "waiting: a transfer, a push held for later (until it arrives), a request held back (by pattern)"
        case .running: "a BGTask running, a transfer moving"
        case .charging: "charging (behind the apps)"
        case .device: "the device row's state: locked, charging, Low Power Mode, Wi-Fi (cellular striped, no network hollow)"
        case .ok: "launched into the background, started, delivered or finished"
        case .person: "by the person: launched by the user or from a notification, a notification opened"
        case .bad: "killed, refused or failed"
        case .expired: "expired or warned: out of time or memory"
        case .ended: "ended, stopped, cancelled or dropped"
        }
    }

    /// The CSS custom property that holds it.
    var variable: String { "--\(rawValue)" }
    /// The class a legend swatch of it is drawn with.
    var swatchClass: String { "c-\(rawValue)" }

    /// `:root{--front:#9fcdfd;…}` and a swatch class per colour.
    static var css: String {
        ":root{" + allCases.map { "\($0.variable):\($0.hex)" }.joined(separator: ";") + "}\n"
            + allCases.map { ".\($0.swatchClass){fill:var(\($0.variable))}" }.joined() + "\n"
    }
}
