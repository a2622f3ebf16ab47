/* struct e4_algs (algs.h), for the library's own files. */
#ifndef E4_ALGS_IMPL_H
#define E4_ALGS_IMPL_H

#include <openssl/evp.h>
#include <openssl/kdf.h>
#include "algs.h"

struct e4_algs {
	EVP_CIPHER *aes_128_ecb, *aes_256_ecb, *aes_256_xts, *aes_128_cbc,
		   *aes_128_cts, *aes_256_cts;
	EVP_KDF *hkdf;
};

#endif
