/* CRC32C (Castagnoli) and CRC32 (big-endian), with the kernel's conventions. */
#ifndef E4R_CRC_H
#define E4R_CRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * crc32c as jbd2 uses it: reflected Castagnoli polynomial, the caller's
 * initial value, no final inversion. Uses the CPU's crc32 instruction when
 * the CPU has one (detected at run time), a table otherwise.
 */
uint32_t util_crc32c(uint32_t crc, const void *buf, size_t len);
/* The portable implementation, always (for tests and for CPUs without SSE4.2). */
uint32_t util_crc32c_sw(uint32_t crc, const void *buf, size_t len);
/* 1 when util_crc32c uses the CPU instruction. */
int util_crc32c_hw_available(void);

/* crc32_be as jbd2's v1 checksum uses it: polynomial 0x04C11DB7, MSB first, no final inversion. */
uint32_t util_crc32_be(uint32_t crc, const void *buf, size_t len);
/* The same, one byte per table step (the reference the unit test holds the fast one to). */
uint32_t util_crc32_be_bytewise(uint32_t crc, const void *buf, size_t len);

#endif
