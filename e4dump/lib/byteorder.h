/* Little- and big-endian integers read from bytes of the evidence (any
 * alignment): ext4, JBD2, the containers and captures all store them so.
 * Internal to the build, not installed. */
#ifndef E4_BYTEORDER_H
#define E4_BYTEORDER_H

#include <stdint.h>

static inline uint16_t e4_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t e4_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t e4_le64(const uint8_t *p)
{
	return (uint64_t)e4_le32(p) | (uint64_t)e4_le32(p + 4) << 32;
}

static inline uint16_t e4_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t e4_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t e4_be64(const uint8_t *p)
{
	return (uint64_t)e4_be32(p) << 32 | e4_be32(p + 4);
}

#endif
