#define _GNU_SOURCE
#include "CBGXLive.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// Linux keeps credentials per thread; glibc makes set*id process-wide by
// signalling every thread, but the raw setgroups system call and
// setfsuid/setfsgid change only the calling thread. So this thread alone
// becomes the user for one open(2), and then root again.
static int regular_or_refused(int fd);

int bgx_open_as(const char *path, uid_t uid, gid_t gid) {
    if (uid == (uid_t)-1) return regular_or_refused(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    gid_t groups[256];
    int count = getgroups(256, groups);
    if (count < 0) return -1;
    if (syscall(SYS_setgroups, 0, NULL) != 0) return -1;
    gid_t old_gid = (gid_t)setfsgid(gid);
    uid_t old_uid = (uid_t)setfsuid(uid);
    int fd = -1, saved = EPERM;
    // setfsuid reports the old value whether or not it changed anything: ask again.
    if ((uid_t)setfsuid((uid_t)-1) == uid && (gid_t)setfsgid((gid_t)-1) == gid) {
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        saved = errno;
    }
    setfsuid(old_uid);
    setfsgid(old_gid);
    if (syscall(SYS_setgroups, (long)count, groups) != 0) {
        // This thread could not become root's again: it must not go on as a mix.
        if (fd >= 0) close(fd);
        _exit(70);
    }
    errno = saved;
    return regular_or_refused(fd);
}

// Only a regular file: not a FIFO the app could leave the reader blocked on, nor a device.
static int regular_or_refused(int fd) {
    if (fd < 0) return fd;
    int flags = fcntl(fd, F_GETFL);
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}
