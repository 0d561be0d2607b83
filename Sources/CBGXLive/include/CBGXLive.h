#ifndef CBGXLIVE_H
#define CBGXLIVE_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

/// Starts `path` with `argv` and `envp` in a new process group, its standard
/// output and error on `log_fd`, standard input /dev/null. When
/// `cgroup_procs` is not NULL the child writes its own pid there before it
/// execs, so the app never runs a single instruction outside its cgroup.
/// Then, when `change_user`, it becomes `uid`/`gid` with no supplementary
/// groups; it always sets no_new_privs, and moves to `directory` if given.
/// Returns the pid, or -1 with `*error` set to the errno of the step that
/// failed (in the child: moving into the cgroup, or exec).
pid_t bgx_spawn(const char *path, char *const argv[], char *const envp[],
                const char *cgroup_procs, int log_fd, const char *directory,
                int change_user, uid_t uid, gid_t gid, int *error);

/// Opens `path` read-only with the file-system rights of `uid`/`gid` and no
/// supplementary groups (this thread only; root's again before it returns):
/// what an app may read, checked by the kernel at the open itself, so a file
/// swapped for a symbolic link after a check gains nothing. Only a regular
/// file is returned (else -1, EINVAL). A `uid` of -1: this thread's own rights,
/// the same check. Returns the descriptor, or -1 with errno.
int bgx_open_as(const char *path, uid_t uid, gid_t gid);

/// pidfd_open(2): a handle on the process that a reused pid cannot fool.
/// Readable (poll) once the process has exited.
int bgx_pidfd_open(pid_t pid);

/// pidfd_send_signal(2).
int bgx_pidfd_send_signal(int pidfd, int signal);

/// The peer's pid and uid on a Unix socket (SO_PEERCRED); 0 on success.
int bgx_peer_credentials(int fd, pid_t *pid, uid_t *uid);

/// ppoll(2) with a timeout in nanoseconds (negative: wait until something happens).
int bgx_ppoll(struct pollfd *fds, nfds_t count, int64_t timeout_ns);

/// Blocks SIGTERM, SIGINT and SIGPIPE in this thread and returns a signalfd
/// that becomes readable on SIGTERM or SIGINT: a stop request is one more
/// descriptor in the daemon's poll, not a handler.
int bgx_termination_signalfd(void);

/// Gives the heap's free memory back to the kernel (glibc's malloc_trim). A
/// snapshot's encoding builds a tree several times the size of its output and
/// frees it at once; without this the freed pages stay in the daemon's
/// resident size until the allocator happens to reuse them.
void bgx_release_free_memory(void);

#endif
