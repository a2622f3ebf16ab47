#include "fname.h"
#include "fscrypt_disk.h"

size_t e4_fname_encrypted_size(enum e4_name_format fmt, unsigned int padding,
			       size_t len, size_t max_len)
{
	size_t n;

	if (len == 0 || len > max_len || padding == 0)
		return 0;
	n = len < E4_FNAME_MIN_LEN ? E4_FNAME_MIN_LEN : len;
	if (fmt == E4_FORMAT_2015)
		return n;
	n = (n + padding - 1) / padding * padding;
	return n < max_len ? n : max_len;
}

int e4_fname_stored_len_possible(enum e4_name_format fmt,
				 unsigned int padding, size_t stored,
				 size_t max_len)
{
	if (stored < E4_FNAME_MIN_LEN || stored > max_len || padding == 0)
		return 0;
	if (fmt == E4_FORMAT_2015)
		return 1;
	return stored % padding == 0 || stored == max_len;
}
