/* pending.h - temp files being written, removed if the process is killed
 * (internal to core/results: write_file_atomic registers each one). */
#ifndef DDL_RESULTS_PENDING_H
#define DDL_RESULTS_PENDING_H

/* Remember path as a file to remove when SIGINT, SIGTERM or SIGHUP ends
 * the process (the handlers are installed on the first call; a handler the
 * program had is called instead, ignored signals stay ignored). Call it before creating the
 * file. Returns a slot for pending_done, or -1 when every slot is taken
 * (the write then goes on without that protection). */
int pending_add(const char *path);
/* The file of slot is renamed into place or removed: forget it. */
void pending_done(int slot);

#endif
