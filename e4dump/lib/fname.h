/* Stored lengths of encrypted names and symlink targets, per generation. */
#ifndef E4_FNAME_H
#define E4_FNAME_H

#include <stddef.h>

/* Which generation wrote the names of encrypted directories; it decides
 * the stored lengths and the no-key names shown without a key. */
enum e4_name_format {
	E4_FORMAT_AUTO = 0, /* to be decided from the image */
	E4_FORMAT_2015,     /* the 2015 seed: max(len, 16) bytes, no padding */
	E4_FORMAT_61,       /* Linux 4.1 to 6.1: padded per the policy */
};

/* The ciphertext length of a plaintext name or symlink target of len
 * bytes (the kernel's fscrypt_fname_encrypted_size):
 *   6.1:  min(round_up(max(len, 16), padding), max_len)
 *   2015: max(len, 16)
 * padding is 4, 8, 16 or 32 (e4_context_name_padding); max_len is 255 for
 * names, blocksize - 3 for symlink targets.  0 when len is 0 or above
 * max_len (no such name can be stored). */
size_t e4_fname_encrypted_size(enum e4_name_format fmt, unsigned int padding,
			       size_t len, size_t max_len);

/* Can a ciphertext of stored bytes come from the format's rule for some
 * plaintext?  6.1: a multiple of the padding, or max_len; 2015: 16 or
 * more.  Both: at least 16 and at most max_len. */
int e4_fname_stored_len_possible(enum e4_name_format fmt,
				 unsigned int padding, size_t stored,
				 size_t max_len);

#endif
