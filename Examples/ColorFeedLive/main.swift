// Examples/ColorFeed's AppDelegate, unchanged, as a real process under
// `bgx daemon`: what UIApplicationMain is on iOS, this line is on the live host.
import BGXKit
import BGXLiveApp
import ColorFeedExample

LiveApplication.main { Application.delegate(runningUIKit: AppDelegate()) }
