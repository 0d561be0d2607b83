#define _GNU_SOURCE
#include "CBGXLive.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

// Between fork and exec only async-signal-safe calls: no malloc, no stdio.
static void child_fail(int pipe_fd, int err) {
    (void)!write(pipe_fd, &err, sizeof err);
    _exit(127);
}

pid_t bgx_spawn(const char *path, char *const argv[], char *const envp[],
                const char *cgroup_procs, int log_fd, const char *directory,
                int change_user, uid_t uid, gid_t gid, int *error) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) { *error = errno; return -1; }
    pid_t pid = fork();
    if (pid < 0) {
        *error = errno;
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (pid == 0) {
        close(report[0]);
        sigset_t all;
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
        setpgid(0, 0);
        if (cgroup_procs) {
            char digits[24];
            int n = 0;
            pid_t self = getpid();
            char reversed[24];
            do { reversed[n++] = (char)('0' + self % 10); self /= 10; } while (self > 0);
            for (int i = 0; i < n; i++) digits[i] = reversed[n - 1 - i];
            int fd = open(cgroup_procs, O_WRONLY | O_CLOEXEC);
            if (fd < 0) child_fail(report[1], errno);
            if (write(fd, digits, (size_t)n) != n) child_fail(report[1], errno);
            close(fd);
        }
        // The app's own user, last of what needs the daemon's privileges (joining the leaf):
        // no supplementary groups, and nothing it execs may gain privileges (set-uid files).
        if (change_user) {
            if (setgroups(0, NULL) != 0) child_fail(report[1], errno);
            if (setresgid(gid, gid, gid) != 0) child_fail(report[1], errno);
            if (setresuid(uid, uid, uid) != 0) child_fail(report[1], errno);
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(report[1], errno);
        if (directory && chdir(directory) != 0) child_fail(report[1], errno);
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0) { dup2(null_fd, 0); if (null_fd > 2) close(null_fd); }
        if (log_fd >= 0) { dup2(log_fd, 1); dup2(log_fd, 2); }
        // Nothing else of the daemon's crosses exec — not even descriptors its own parent
        // leaked to it: an app (or a child it leaves behind) holding one would keep the
        // daemon's parent waiting on a pipe forever. CLOEXEC rather than close, so the
        // report pipe still works if exec fails.
        (void)syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
        execve(path, argv, envp);
        child_fail(report[1], errno);
    }
    close(report[1]);
    int err = 0;
    ssize_t got;
    do { got = read(report[0], &err, sizeof err); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof err) {
        // The child failed before exec: collect it here, it never ran app code.
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        *error = err;
        return -1;
    }
    return pid;
}

int bgx_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int bgx_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

int bgx_peer_credentials(int fd, pid_t *pid, uid_t *uid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    return 0;
}

int bgx_ppoll(struct pollfd *fds, nfds_t count, int64_t timeout_ns) {
    if (timeout_ns < 0) return ppoll(fds, count, NULL, NULL);
    struct timespec t = { .tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000 };
    return ppoll(fds, count, &t, NULL);
}

int bgx_termination_signalfd(void) {
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    sigdelset(&mask, SIGPIPE);
    return signalfd(-1, &mask, SFD_CLOEXEC);
}
