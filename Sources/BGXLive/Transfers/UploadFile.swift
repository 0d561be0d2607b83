import CBGXLive
import Foundation
import Glibc

/// An upload's file, opened with the app's rights: the daemon runs as root,
/// and an app must not be able to send its server a file only root may read
/// (the state, another app's container, /etc/shadow). The kernel checks the
/// app's user at the open itself, so a file swapped after a check gains
/// nothing; only a regular file is read.
public enum UploadFile {
    /// Opens `path` as `user` (nil: this process's own user, when apps have none of their own).
    public static func open(_ path: String, as user: (uid: uid_t, gid: gid_t)?) -> Int32 {
        bgx_open_as(path, user?.uid ?? uid_t.max, user?.gid ?? gid_t.max)
    }

    public static func readable(_ path: String, as user: (uid: uid_t, gid: gid_t)?) -> Bool {
        let fd = open(path, as: user)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    /// The whole file, read as `user`, or why not.
    public static func contents(_ path: String, as user: (uid: uid_t, gid: gid_t)?) -> Result<Data, UploadFileError> {
        let fd = open(path, as: user)
        guard fd >= 0 else {
            let why = errno == EINVAL ? "not a regular file" : String(cString: strerror(errno))
            return .failure(UploadFileError(description: "cannot read \(path) as the app's user: \(why)"))
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do { return .success(try handle.readToEnd() ?? Data()) } catch {
            return .failure(UploadFileError(description: "cannot read \(path): \(error)"))
        }
    }
}

public struct UploadFileError: Error, CustomStringConvertible {
    public var description: String
}
