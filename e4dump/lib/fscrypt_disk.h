/* On-disk and ioctl structures of ext4 encryption (fscrypt), as in Linux 6.1
 * include/uapi/linux/fscrypt.h and fs/crypto/fscrypt_private.h. */
#ifndef E4_FSCRYPT_DISK_H
#define E4_FSCRYPT_DISK_H

#include <stdint.h>

/* Extended attribute holding the context: index 9 (EXT4_XATTR_INDEX_ENCRYPTION),
 * name "c" (EXT4_XATTR_NAME_ENCRYPTION_CONTEXT). */
#define E4_XATTR_INDEX_ENCRYPTION 9
#define E4_XATTR_NAME_CONTEXT "c"

#define E4_CONTEXT_V1 1 /* FSCRYPT_CONTEXT_V1 */
#define E4_CONTEXT_V2 2 /* FSCRYPT_CONTEXT_V2 */

#define E4_KEY_DESCRIPTOR_SIZE 8  /* FSCRYPT_KEY_DESCRIPTOR_SIZE */
#define E4_KEY_IDENTIFIER_SIZE 16 /* FSCRYPT_KEY_IDENTIFIER_SIZE */
#define E4_NONCE_SIZE 16          /* FSCRYPT_FILE_NONCE_SIZE */
#define E4_MAX_KEY_SIZE 64        /* FSCRYPT_MAX_KEY_SIZE */

/* struct fscrypt_context_v1: 28 bytes */
struct e4_disk_context_v1 {
	uint8_t version;                               /* 0x00: 1 */
	uint8_t contents_encryption_mode;              /* 0x01 */
	uint8_t filenames_encryption_mode;             /* 0x02 */
	uint8_t flags;                                 /* 0x03 */
	uint8_t master_key_descriptor[E4_KEY_DESCRIPTOR_SIZE]; /* 0x04 */
	uint8_t nonce[E4_NONCE_SIZE];                  /* 0x0c */
};                                                     /* 0x1c */

/* struct fscrypt_context_v2: 40 bytes */
struct e4_disk_context_v2 {
	uint8_t version;                               /* 0x00: 2 */
	uint8_t contents_encryption_mode;              /* 0x01 */
	uint8_t filenames_encryption_mode;             /* 0x02 */
	uint8_t flags;                                 /* 0x03 */
	uint8_t reserved[4];                           /* 0x04: zero */
	uint8_t master_key_identifier[E4_KEY_IDENTIFIER_SIZE]; /* 0x08 */
	uint8_t nonce[E4_NONCE_SIZE];                  /* 0x18 */
};                                                     /* 0x28 */

/* Encryption modes (FSCRYPT_MODE_*). 2 and 3 were reserved, 7 and 8 were the
 * removed Speck modes. */
#define E4_MODE_AES_256_XTS 1
#define E4_MODE_AES_256_CTS 4
#define E4_MODE_AES_128_CBC 5
#define E4_MODE_AES_128_CTS 6
#define E4_MODE_ADIANTUM 9
#define E4_MODE_AES_256_HCTR2 10

/* Policy flags (FSCRYPT_POLICY_FLAGS_*). */
#define E4_POLICY_FLAGS_PAD_MASK 0x03 /* name padding 4 << (flags & 3) */
#define E4_POLICY_FLAG_DIRECT_KEY 0x04
#define E4_POLICY_FLAG_IV_INO_LBLK_64 0x08
#define E4_POLICY_FLAG_IV_INO_LBLK_32 0x10
#define E4_POLICY_FLAGS_V1_VALID 0x07
#define E4_POLICY_FLAGS_V2_VALID 0x1f

/* Names are at least one cipher block long (FSCRYPT_FNAME_MIN_MSG_LEN). */
#define E4_FNAME_MIN_LEN 16
#define E4_NAME_MAX 255

/* Header of an encrypted symlink target (struct fscrypt_symlink_data):
 * __le16 len at 0x00, ciphertext at 0x02. */
#define E4_SYMLINK_HEADER_SIZE 2

/* Inode flag EXT4_ENCRYPT_FL and superblock feature bit. */
#define E4_INODE_ENCRYPT_FL 0x00000800
#define E4_FEATURE_INCOMPAT_ENCRYPT 0x10000

/* Logon key payload (struct fscrypt_key): u32 mode, u8 raw[64], u32 size. */
#define E4_LOGON_PAYLOAD_SIZE 72

#endif
