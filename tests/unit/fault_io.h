/* An io manager for tests: lets the first N block writes through, then fails every write (a power cut). */
#ifndef E4R_FAULT_IO_H
#define E4R_FAULT_IO_H

#include <ext2fs/ext2fs.h>

/*
 * e4r_fault_io_manager forwards everything to BACKING. Writes are counted
 * in blocks (a multi-block write counts each block, and is cut part-way
 * when the budget runs out); once LIMIT blocks have been written, every
 * later write fails with E4R_INJECTED_FAULT and writes nothing. LIMIT < 0
 * never fails. The counters are global: they span every channel opened
 * through the manager, as a real power cut spans every open file.
 */
extern io_manager e4r_fault_io_manager;

void e4r_fault_io_setup(io_manager backing, long limit);
/*
 * Cut and fail only channels opened on NAME (NULL: all, the default); the
 * others (an undo file on another disk) are forwarded and not counted. Kept
 * across setups.
 */
void e4r_fault_io_target(const char *name);

/* Blocks written so far, and whether a write was refused. */
long e4r_fault_io_written(void);
int e4r_fault_io_tripped(void);

/*
 * After setup: fail the READ_AT-th read call or the WRITE_AT-th write call
 * (counted from 1 over every channel; 0: none) with EIO, once; the calls
 * before and after it go through. A multi-block call is one call.
 */
void e4r_fault_io_eio(long read_at, long write_at);
/* The read and write calls made since setup. */
void e4r_fault_io_calls(long *reads, long *writes);
/* Whether the EIO was returned; at which block (a byte offset for write_byte); how many writes went through after it. */
int e4r_fault_io_eio_done(unsigned long long *block, long *writes_after);

#endif
