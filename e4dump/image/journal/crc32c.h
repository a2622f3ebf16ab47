/* crc32c (Castagnoli) as libext2fs's ext2fs_crc32c_le and the kernel's
 * crc32c_le compute it: reflected, no inversion in or out (the caller's
 * seed), with the SSE4.2 instruction when the CPU has it.  The journal's
 * checksums read every block of the log: libext2fs's table code took 1.3
 * CPU seconds per GiB, the instruction 0.25 (bench/README.md, "The journal
 * at scale"). */
#ifndef E4_CRC32C_H
#define E4_CRC32C_H
#include <stddef.h>
#include <stdint.h>

uint32_t e4_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
