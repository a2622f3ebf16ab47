/* Casefolded encrypted directories (ext4, Linux 5.13+): the SipHash
 * dirhash pair every entry stores after its name, recomputed from the
 * plaintext name with libext2fs' casefolding.  See spec/ext4-encryption.md
 * section 10.8. */
#ifndef E4_CASEFOLD_H
#define E4_CASEFOLD_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* Is libext2fs' folding usable (the private table layout this file relies
 * on, checked against a known fold and the public ext2fs_casefold_cmp)?
 * Callers cache the answer (e4_fs_casefold_table). */
int e4_casefold_self_check(const struct ext2fs_nls_table *enc);

/* utf8_casefold (NFD + full case folding) of name into out (outsz bytes,
 * one of them for a terminating NUL that is written).  Returns the folded
 * length, or -1 when the name is not valid UTF-8 or its fold does not fit
 * in outsz - 1 bytes (the kernel's utf8_casefold fails in both cases).
 * enc must have passed e4_casefold_self_check(). */
int e4_casefold_name(const struct ext2fs_nls_table *enc, const uint8_t *name,
		     size_t len, uint8_t *out, size_t outsz);

/* The hash pair Linux 6.1 stores for the plaintext name (1..255 bytes) in
 * a casefolded encrypted directory with the given dirhash key: what
 * ext4_fname_setup_ci_filename() computes.  It folds the name into a
 * 255-byte buffer (a fold of 255 bytes or more does not fit there), then
 * ext4fs_dirhash() folds that result (or the name itself) again into a
 * PATH_MAX buffer and hashes the fold, or the bytes it got when they are
 * not valid UTF-8: SipHash-2-4, hash = high 32 bits & ~1 (0xfffffffe ->
 * 0xfffffffc), minor = low 32 bits.  enc NULL: no folding (raw bytes);
 * else it must have passed e4_casefold_self_check().  Returns 0, or -1 for
 * a bad argument or a crypto failure. */
int e4_casefold_dirhash(const struct ext2fs_nls_table *enc,
			const uint8_t key[16], const uint8_t *name, size_t len,
			uint32_t *hash, uint32_t *minor);

#endif
