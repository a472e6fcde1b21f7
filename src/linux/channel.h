/* channel: how records reach testfence run, out of the command's reach. A private directory
 * outside the writable set holds the shim's configuration and a datagram socket; the parent
 * receives each record there and writes the log itself, so what was sent cannot be erased. */
#ifndef TESTFENCE_CHANNEL_H
#define TESTFENCE_CHANNEL_H

#include "base/err.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* The files in the private directory, besides the shim's configuration (SHIMCONF_FILE); a
 * run locks the directory itself while it lives; earlier versions locked CHANNEL_LOCK in it. */
#define CHANNEL_SOCKET "records.sock"
#define CHANNEL_LOCK "lock"

struct channel {
    int basefd;      /* the per-user directory holding it */
    char name[64];   /* the private directory's name in it: the run id */
    int dirfd;       /* the private directory (-1: no channel), flocked while the run lives */
    int sock;        /* the bound datagram socket, nonblocking */
    int log;         /* our own copy of the log (SHIMCONF_LOG in dirfd; -1: no record yet) */
    int wsfd;        /* the run workspace (borrowed) */
    int wslog;       /* its SHIMCONF_LOG, as created by us at the first record (-1: not yet) */
    bool ws_foreign; /* one was there before our first record: the command made it */
    bool full;       /* REPORT_MAX_LOG reached: further records are counted (dropped) */
    size_t lost;     /* records our copy could not take (made or written): the run fails */
    int lost_errno;  /* why the last one could not */
    size_t bytes;    /* written to our copy (and to the workspace's) */
    size_t records, malformed, dropped;
    char sock_path[PATH_MAX];
};

/* No channel yet: channel_close is safe on it. */
void channel_init(struct channel *c);

/* Make the private directory DIR (<base>/testfence-channel-<uid>/<run_id>: the base must be ours
 * and private), remove what runs that died left in the base and bind the socket. Our copy of
 * the log is made there at the first record. */
int channel_open(struct channel *c, const char *dir, tf_err *err);

/* The workspace the log is also written to (borrowed), once it exists: before the first
 * record. */
void channel_workspace(struct channel *c, int wsfd);

/* Receive every record waiting (the parent calls it whenever the socket is readable): each
 * well-formed record, its pid replaced by the sender's as the kernel reports it, is appended
 * to our copy and to the workspace's. Malformed datagrams are counted and dropped. */
void channel_drain(struct channel *c);

/* Add a record testfence made itself (a process that outlived the command) to our copy of the
 * log and the workspace's, as channel_drain does with a received one. */
struct vlog_record;
void channel_add(struct channel *c, const struct vlog_record *r);

/* After the command: is the workspace's log what we wrote (WS names the workspace)? 0 yes;
 * else -1 with WHY (deleted, replaced, changed, or written by someone else), and the
 * workspace's log is restored from our copy where it can be. */
int channel_check(struct channel *c, const char *ws, char *why, size_t len);

/* Close the socket and remove the private directory. */
void channel_close(struct channel *c);

#endif
