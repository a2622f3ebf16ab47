/* e4dump QEMU guest: the scenario command table and the scenario loop. */
#include "guest.h"

static const struct scn_cmd commands[] = {
	/* keys and trees (scn_trees.c) */
	{ "key", cmd_key, "a v1 key in the session keyring (add_key logon)" },
	{ "key2", cmd_key2, "a v2 key in the filesystem's keyring, identifier recorded" },
	{ "tree", cmd_tree, "a tree with a v1 policy" },
	{ "tree2", cmd_tree2, "a tree with a v2 policy, casefolded on request" },
	{ "plain", cmd_plain, "an unencrypted tree" },
	{ "dummy-tree", cmd_dummy_tree, "a tree with the test_dummy_encryption policy" },
	{ "mkdir", cmd_mkdir, "a directory added to a tree" },
	{ "bigdir-names", cmd_bigdir_names, "empty files with names of every length" },
	{ "files", cmd_files, "files with the given names" },
	/* mounts (scn_mount.c) */
	{ "remount", cmd_remount, "mount again with other options" },
	{ "forget-keys", cmd_forget_keys, "drop every key" },
	{ "mount-try", cmd_mount_try, "try a mount, record the errno and the kernel's messages" },
	{ "proc", cmd_proc, "the first word of a /proc file" },
	/* the filesystem's keyring (scn_fskey.c) */
	{ "fskey-add", cmd_fskey_add, "FS_IOC_ADD_ENCRYPTION_KEY into a key slot" },
	{ "fskey-add-as", cmd_fskey_add_as, "add a slot's key again as another user" },
	{ "fskey-remove", cmd_fskey_remove, "FS_IOC_REMOVE_ENCRYPTION_KEY (_ALL_USERS)" },
	{ "fskey-status", cmd_fskey_status, "FS_IOC_GET_ENCRYPTION_KEY_STATUS" },
	{ "hold", cmd_hold, "open a file and keep it open" },
	{ "read-held", cmd_read_held, "read a held file again" },
	{ "release", cmd_release, "close a held file" },
	{ "remember", cmd_remember, "lstat a directory's first file by its listed name" },
	{ "recheck", cmd_recheck, "that name and inode again, after the key came back" },
	/* without the key (scn_nokey.c) */
	{ "readdir", cmd_readdir, "recursive readdir, the names as returned" },
	{ "lookup-all", cmd_lookup_all, "lstat every listed name" },
	{ "open-all", cmd_open_all, "open every listed regular file" },
	{ "nokey-ops", cmd_nokey_ops, "the operations that need the key, tried without it" },
	{ "unlink-first", cmd_unlink_first, "unlink the first listed regular file" },
	{ "exists", cmd_exists, "lstat a path" },
	{ "touch-names", cmd_touch_names, "empty files with the given names" },
	{ "stat-name", cmd_stat_name, "lstat by a name as written" },
	{ "unlink-name", cmd_unlink_name, "unlink by a name as written" },
	/* policies (scn_policy.c) */
	{ "policy-try", cmd_policy_try, "try to set a policy on a new directory" },
	{ "policy-nonempty", cmd_policy_nonempty, "set a policy on a non-empty directory" },
	{ "inherit", cmd_inherit, "compare the policies below a directory with its own" },
	/* deletions (scn_delete.c) */
	{ "sync", cmd_sync, "syncfs: commit the journal transaction" },
	{ "unlink", cmd_unlink, "delete a file or symlink of the manifest" },
	{ "rmtree", cmd_rmtree, "delete a directory of the manifest and what is below" },
	{ "churn", cmd_churn, "fsync'd files until a count or ENOSPC" },
	{ "sparse", cmd_sparse, "a file with N data extents" },
	/* extended attributes (scn_xattr.c) */
	{ "xattr-set", cmd_xattr_set, "setxattr of a value given in hex" },
	{ "xattr-set-gen", cmd_xattr_set, "setxattr of a generated value of a size" },
	{ "xattr-list", cmd_xattr_list, "listxattr and getxattr of each name, recorded" },
	/* running a program of the initramfs, Debian's fscrypt (scn_tool.c) */
	{ "mount-extra", cmd_mount_extra, "mount another disk or filesystem" },
	{ "uuid-links", cmd_uuid_links, "/dev/disk/by-uuid links of the ext4 disks" },
	{ "seed-random", cmd_seed_random, "read /dev/random once (getrandom works after)" },
	{ "setenv", cmd_setenv, "an environment variable for run" },
	{ "secret", cmd_secret, "a secret of the user, in /secrets and next to the image" },
	{ "user", cmd_user, "a login account for pam_unix" },
	{ "fscrypt-conf", cmd_fscrypt_conf, "write fscrypt.conf with the given costs and options" },
	{ "fscrypt-dir", cmd_fscrypt_dir, "an empty directory for fscrypt encrypt" },
	{ "run", cmd_run, "run a program with secrets on stdin, check its exit status" },
	{ "fill", cmd_fill, "a tree written into a directory fscrypt encrypted" },
	/* RAM captures (scn_capture.c) */
	{ "key-unlink", cmd_key_unlink, "unlink a logon key from the session keyring" },
	{ "key-revoke", cmd_key_revoke, "revoke a logon key, then unlink it" },
	{ "drop-caches", cmd_drop_caches, "syncfs and drop_caches: evict unused inodes" },
	{ "read-all", cmd_read_all, "read every file and list every directory of a tree" },
	{ "capture", cmd_capture, "last line: wait for the host to save the RAM" },
	/* the benchmark (scn_bench.c) */
	{ "bench-tree", cmd_bench_tree, "the benchmark's tree, written fast" },
	{ "journal-churn", cmd_journal_churn, "many transactions and deletions, written fast" },
};

/* the command named NAME, NULL if none */
static const struct scn_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Run the scenario TEXT line by line: words separated by blanks; blank
 * lines, '#' comments and '@' host directives are skipped; the first error
 * fails the run. */
void run_scenario(char *text)
{
	char *line, *save = NULL;
	int lineno = 0;
	char *copy = xstrdup(text);

	/* strtok_r would merge empty lines and break line numbers: split by hand */
	line = copy;
	while (line) {
		char *nl = strchr(line, '\n');
		char *tok[32];
		int ntok = 0;
		char *t;

		if (nl)
			*nl = '\0';
		lineno++;
		for (t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
			if (ntok == 32)
				fail("line %d: too many words", lineno);
			tok[ntok++] = t;
		}
		if (ntok > 0 && tok[0][0] != '#' && tok[0][0] != '@') {
			const struct scn_cmd *c = find_command(tok[0]);

			if (g_capture)
				fail("line %d: nothing may follow `capture` (line %d)", lineno,
				     g_capture);
			if (!c)
				fail("line %d: unknown command '%s'", lineno, tok[0]);
			c->run(tok, ntok, lineno);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(copy);
}
