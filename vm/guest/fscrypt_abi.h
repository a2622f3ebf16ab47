/* e4dump QEMU guest: the kernel ABI it uses (defined here so that the guest
 * does not depend on the host's header version; values from
 * include/uapi/linux/fscrypt.h and include/uapi/linux/fs.h). */
#ifndef E4DUMP_GUEST_FSCRYPT_ABI_H
#define E4DUMP_GUEST_FSCRYPT_ABI_H

struct e4_fscrypt_policy_v1 {
	uint8_t version; /* FSCRYPT_POLICY_V1 == 0 */
	uint8_t contents_encryption_mode;
	uint8_t filenames_encryption_mode;
	uint8_t flags;
	uint8_t master_key_descriptor[8];
};
struct e4_fscrypt_key {
	uint32_t mode;
	uint8_t raw[64];
	uint32_t size;
};
_Static_assert(sizeof(struct e4_fscrypt_policy_v1) == 12, "policy v1 size");
_Static_assert(sizeof(struct e4_fscrypt_key) == 72, "fscrypt_key size");
#define E4_IOC_SET_ENCRYPTION_POLICY _IOR('f', 19, struct e4_fscrypt_policy_v1)
#define E4_IOC_GET_ENCRYPTION_POLICY _IOW('f', 21, struct e4_fscrypt_policy_v1)
/* FS_IOC_GET_ENCRYPTION_POLICY_EX (Linux >= 5.4): any policy version */
struct e4_get_policy_ex_arg {
	uint64_t policy_size; /* in: size of policy[]; out: size of the policy */
	uint8_t policy[64];   /* v1: 12 bytes, v2: 24 bytes; version first */
};
#define E4_IOC_GET_ENCRYPTION_POLICY_EX _IOWR('f', 22, uint8_t[9])
/* v2 policies (Linux >= 5.4): keys live in the filesystem's keyring */
struct e4_fscrypt_policy_v2 {
	uint8_t version; /* FSCRYPT_POLICY_V2 == 2 */
	uint8_t contents_encryption_mode;
	uint8_t filenames_encryption_mode;
	uint8_t flags;
	uint8_t __reserved[4];
	uint8_t master_key_identifier[16];
};
struct e4_fscrypt_key_specifier {
	uint32_t type; /* FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER == 2 */
	uint32_t __reserved;
	union {
		uint8_t __reserved[32];
		uint8_t descriptor[8];
		uint8_t identifier[16];
	} u;
};
struct e4_fscrypt_add_key_arg {
	struct e4_fscrypt_key_specifier key_spec;
	uint32_t raw_size;
	uint32_t key_id;
	uint32_t __reserved[8];
	uint8_t raw[];
};
_Static_assert(sizeof(struct e4_fscrypt_policy_v2) == 24, "policy v2 size");
_Static_assert(sizeof(struct e4_fscrypt_key_specifier) == 40, "key specifier size");
_Static_assert(sizeof(struct e4_fscrypt_add_key_arg) == 80, "add_key_arg size");
#define E4_FSCRYPT_POLICY_V2 2
#define E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER 2
#define E4_IOC_ADD_ENCRYPTION_KEY _IOWR('f', 23, struct e4_fscrypt_add_key_arg)
#define E4_FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR 1
struct e4_fscrypt_remove_key_arg {
	struct e4_fscrypt_key_specifier key_spec;
	uint32_t removal_status_flags; /* 1 FILES_BUSY, 2 OTHER_USERS */
	uint32_t __reserved[5];
};
struct e4_fscrypt_get_key_status_arg {
	struct e4_fscrypt_key_specifier key_spec;
	uint32_t __reserved[6];
	uint32_t status;       /* 1 ABSENT, 2 PRESENT, 3 INCOMPLETELY_REMOVED */
	uint32_t status_flags; /* 1 ADDED_BY_SELF */
	uint32_t user_count;
	uint32_t __out_reserved[13];
};
_Static_assert(sizeof(struct e4_fscrypt_remove_key_arg) == 64, "remove_key_arg size");
_Static_assert(sizeof(struct e4_fscrypt_get_key_status_arg) == 128, "key_status_arg size");
#define E4_IOC_REMOVE_ENCRYPTION_KEY _IOWR('f', 24, struct e4_fscrypt_remove_key_arg)
#define E4_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS _IOWR('f', 25, struct e4_fscrypt_remove_key_arg)
#define E4_IOC_GET_ENCRYPTION_KEY_STATUS _IOWR('f', 26, struct e4_fscrypt_get_key_status_arg)
/* inode flags (FS_IOC_GETFLAGS / FS_IOC_SETFLAGS: the kernel reads an int) */
#define E4_IOC_GETFLAGS _IOR('f', 1, long)
#define E4_IOC_SETFLAGS _IOW('f', 2, long)
#define E4_FS_CASEFOLD_FL 0x40000000 /* EXT4_CASEFOLD_FL */
#define E4_KEYCTL_JOIN_SESSION_KEYRING 1
#define E4_KEY_SPEC_SESSION_KEYRING (-3)
#define E4_KEYCTL_REVOKE 3
#define E4_KEYCTL_UNLINK 9
#define E4_KEYCTL_SEARCH 10

#endif
