// Examples/Messenger's unchanged app code — its sync singleton, the silent
// push fetched on a global queue and answered on the main queue, the refresh
// synced on its own serial queue — as a real process under `bgx daemon`.
import BGXKit
import BGXLiveApp
import MessengerExample

LiveApplication.main { Application.delegate(runningUIKit: MessengerAppDelegate()) }
