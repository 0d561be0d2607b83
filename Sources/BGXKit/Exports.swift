// BGXKit is what an app's background code imports on Linux in place of UIKit,
// BackgroundTasks and UserNotifications:
//
//     #if canImport(UIKit)
//     import UIKit
//     import BackgroundTasks
//     #else
//     import BGXKit
//     #endif
//
// It re-exports Foundation and BGXApp (whose BackgroundTasks and
// UserNotifications classes already carry iOS's names) and adds UIKit's names.
@_exported import BGXApp
@_exported import Foundation
