#if canImport(SwiftUI)
import SwiftUI

struct LibraryView: View {
    var body: some View { Text("Library") }
}
#else
/// bgx runs no UI: the window's content is never built, so its view is a name only.
struct LibraryView {}
#endif
