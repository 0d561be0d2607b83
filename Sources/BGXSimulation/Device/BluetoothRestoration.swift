/// What Core Bluetooth keeps for an app's next process (state restoration):
/// the restore identifiers of the central managers whose connection, and of
/// the peripheral managers whose advertising, it keeps up, and with each what
/// the app had set up ([0] centrals, [1] peripherals).
struct BluetoothRestoration {
    var kept: [Set<String>] = [[], []]
    var states: [[String: Any]] = [[:], [:]]

    mutating func keep(_ identifier: String, peripheral: Bool, _ isKept: Bool) {
        let i = peripheral ? 1 : 0
        if isKept { kept[i].insert(identifier) } else { kept[i].remove(identifier) }
    }

    func identifiers(peripheral: Bool) -> [String] { kept[peripheral ? 1 : 0].sorted() }
}
