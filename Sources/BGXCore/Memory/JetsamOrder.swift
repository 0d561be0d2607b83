/// Which app of one band jetsam kills first.
public enum JetsamOrder: String, Sendable, CaseIterable, Codable {
    /// XNU keeps each band as a FIFO and kills from its head: the app that
    /// has been in its band (its state) the longest [D].
    case leastRecentlyUsed
    /// The app with the largest footprint first (frees the most per kill).
    case largestFirst
}
