#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "escape.h"
#include "fsckeys.h"
#include "fsmeta.h"
#include "inode.h"
#include "jsonout.h"
#include "kdf.h"
#include "keyload.h"
#include "modes.h"

/* A protector as messages name it: descriptor, source and name (escaped,
 * cut), and where it is. */
static const char *who(const struct fsc_protector *p, char *out, size_t len)
{
	char name[4 * 48 + 1];
	size_t n = p->p.name_len < 48 ? p->p.name_len : 48;

	e4_escape(p->p.name ? p->p.name : (const uint8_t *)"", n, name, 0);
	snprintf(out, len, "fscrypt protector %s (%s \"%s%s\", %s%s)",
		 p->p.descriptor, e4_fsc_source_name(p->p.source), name,
		 p->p.name_len > 48 ? "..." : "", p->on_root ? "--fscrypt-root " : "",
		 p->file);
	return out;
}

static long find_protector(const struct fsc_state *st, const char *desc,
			   int on_root)
{
	for (size_t i = 0; i < st->n_prot; i++)
		if (st->prot[i].on_root == on_root &&
		    !strcmp(st->prot[i].p.descriptor, desc))
			return (long)i;
	return -1;
}

/* The protectors of dir; with want (a descriptor) only that one. */
static void load_protectors(struct fsc_state *st, struct e4_fsmeta_dir *d,
			    int on_root, const char *want, struct report *r)
{
	for (size_t i = 0; i < d->n; i++) {
		struct e4_fsmeta_file *f = &d->files[i];
		struct fsc_protector *p;
		const char *why;
		enum e4_status s;

		if (f->name_len > 5 && !strcmp(f->name + f->name_len - 5, ".link"))
			continue;
		if (want && strcmp(f->name, want))
			continue;
		if (st->n_prot == st->cap_prot)
			break;
		p = &st->prot[st->n_prot];
		memset(p, 0, sizeof(*p));
		s = e4_fsc_protector_parse(f->data, f->len, &p->p, &why);
		if (s != E4_OK) {
			char esc[E4_ESCAPE_SIZE(64)];

			e4_escape((const uint8_t *)f->name, f->name_len < 64 ? f->name_len : 64,
				  esc, E4_ESCAPE_SLASH);
			report_error(r, "%s%s/%s: not a protector fscrypt can use: %s",
				     on_root ? "--fscrypt-root " : "", d->path, esc,
				     why ? why : e4_status_str(s));
			continue;
		}
		snprintf(p->file, sizeof(p->file), "%s/%s", d->path, p->p.descriptor);
		p->on_root = on_root;
		if (strcmp(f->name, p->p.descriptor))
			report_warning(r, "%s%s: names protector %s inside (fscrypt finds it by its file name)",
				       on_root ? "--fscrypt-root " : "", p->file,
				       p->p.descriptor);
		if (p->p.source == E4_FSC_PAM_PASSPHRASE && f->uid != 0 &&
		    (int64_t)f->uid != p->p.uid)
			report_warning(r, "%s: a login protector for uid %lld owned by uid %u (fscrypt refuses it as belonging to the wrong user)",
				       p->file, (long long)p->p.uid, f->uid);
		st->n_prot++;
		if (want)
			break; /* one per link, also when a hostile directory
				* holds the name twice */
	}
}

/* Does the link's PATH= name the mount point the kernel last recorded in
 * the superblock (s_last_mounted)? */
static int mounted_at(const struct e4_fs_info *fi, const struct e4_fsc_link *l)
{
	return fi->last_mounted_len && l->path_len == fi->last_mounted_len &&
	       !memcmp(l->path, fi->last_mounted, l->path_len);
}

/* Link l reaches --fscrypt-root: its protectors are read once (rd). */
static void follow_to_root(struct fsc_state *st, struct fsc_link *l,
			   struct e4_fs *root, struct e4_fsmeta_dir *rd,
			   int *have_rd, struct report *r)
{
	if (!*have_rd) {
		enum e4_status s = e4_fsmeta_read(root, "protectors", E4_FSC_MAX_FILE, rd);

		*have_rd = 1;
		if (s != E4_OK && s != E4_NOT_FOUND)
			report_error(r, "--fscrypt-root: /.fscrypt/protectors cannot be read: %s",
				     e4_status_str(s));
	}
	load_protectors(st, rd, 1, l->descriptor, r);
	l->target = find_protector(st, l->descriptor, 1);
	if (l->target < 0)
		snprintf(l->why, sizeof(l->why), "--fscrypt-root has no protector %s",
			 l->descriptor);
}

static void load_links(struct fsc_state *st, struct e4_fsmeta_dir *d,
		       struct e4_fs *fs, struct e4_fs *root, struct report *r)
{
	struct e4_fs_info me, ri;
	struct e4_fsmeta_dir rd = { 0 };
	int have_rd = 0;

	e4_fs_get_info(fs, &me);
	if (root)
		e4_fs_get_info(root, &ri);
	for (size_t i = 0; i < d->n; i++) {
		struct e4_fsmeta_file *f = &d->files[i];
		struct fsc_link *l;
		const char *why;
		size_t dl = f->name_len - 5;

		if (f->name_len <= 5 || strcmp(f->name + dl, ".link"))
			continue;
		l = &st->links[st->n_links];
		memset(l, 0, sizeof(*l));
		l->target = -1;
		if (dl != E4_FSC_PROTECTOR_DESC ||
		    strspn(f->name, "0123456789abcdef") != dl) {
			char esc[E4_ESCAPE_SIZE(64)];

			e4_escape((const uint8_t *)f->name, f->name_len < 64 ? f->name_len : 64,
				  esc, E4_ESCAPE_SLASH);
			report_warning(r, "%s/%s: a .link file not named by a protector descriptor; ignored",
				       d->path, esc);
			continue;
		}
		memcpy(l->descriptor, f->name, dl);
		snprintf(l->file, sizeof(l->file), "%s/%s", d->path, f->name);
		l->data = f->data; /* taken over */
		f->data = NULL;
		st->n_links++;
		if (e4_fsc_link_parse(l->data, f->len, &l->l, &why) != E4_OK) {
			snprintf(l->why, sizeof(l->why), "%s", why);
			report_warning(r, "%s: %s; the protector it names is not found", l->file, why);
			continue;
		}
		/* fscrypt's getMountFromLink: the filesystem of the UUID;
		 * when none has it (or the link gives none), the one mounted
		 * at PATH (offline: the one the kernel last mounted there) */
		if (l->l.has_uuid && !memcmp(l->l.uuid, me.uuid, 16)) {
			l->target = find_protector(st, l->descriptor, 0);
			if (l->target < 0)
				snprintf(l->why, sizeof(l->why), "names this filesystem, which has no protector %s",
					 l->descriptor);
		} else if (l->l.has_uuid && root && !memcmp(l->l.uuid, ri.uuid, 16)) {
			follow_to_root(st, l, root, &rd, &have_rd, r);
		} else if (l->l.path_len && root && mounted_at(&ri, &l->l)) {
			l->by_path = 1;
			follow_to_root(st, l, root, &rd, &have_rd, r);
			if (l->target >= 0)
				report_note(r, "%s: %s; followed by its PATH= to --fscrypt-root, which the kernel last mounted there (s_last_mounted), as fscrypt falls back to the mount point",
					    l->file, l->l.has_uuid ?
					    "its UUID names neither this filesystem nor --fscrypt-root" :
					    "it names no UUID");
		} else if (l->l.path_len && mounted_at(&me, &l->l)) {
			l->by_path = 1;
			l->target = find_protector(st, l->descriptor, 0);
			if (l->target < 0)
				snprintf(l->why, sizeof(l->why), "names this filesystem by its mount point, and it has no protector %s",
					 l->descriptor);
		} else if (!root) {
			snprintf(l->why, sizeof(l->why), "%s", l->l.has_uuid ?
				 "names another filesystem by UUID (give it with --fscrypt-root IMAGE)" :
				 "names a filesystem by its mount point only (give it with --fscrypt-root IMAGE)");
		} else if (!l->l.path_len) {
			snprintf(l->why, sizeof(l->why), "names a filesystem by a UUID other than --fscrypt-root's");
		} else {
			char p[E4_ESCAPE_SIZE(48)], m[E4_ESCAPE_SIZE(64)];

			e4_escape(l->l.path, l->l.path_len < 48 ? l->l.path_len : 48, p, 0);
			e4_escape((const uint8_t *)ri.last_mounted, ri.last_mounted_len, m, 0);
			snprintf(l->why, sizeof(l->why), "%s mount point %s%s, and --fscrypt-root %s%s",
				 l->l.has_uuid ? "names a UUID of neither filesystem and the" :
						 "names a filesystem only by its",
				 p, l->l.path_len > 48 ? "..." : "",
				 ri.last_mounted_len ? "was last mounted on " :
				 "records no mount point (its s_last_mounted is empty)", m);
		}
		if (l->target < 0)
			report_warning(r, "%s: a dangling link: %s", l->file, l->why);
	}
	e4_fsmeta_free(&rd);
}

struct fsc_state *fsc_load(struct e4_fs *fs, struct e4_fs *root,
			   struct report *r)
{
	struct fsc_state *st = calloc(1, sizeof(*st));
	struct e4_fsmeta_dir pd, pold;
	enum e4_status s1, s2;
	size_t nprot;

	if (!st)
		return NULL;
	s1 = e4_fsmeta_read(fs, "protectors", E4_FSC_MAX_FILE, &pd);
	s2 = e4_fsmeta_read(fs, "policies", E4_FSC_MAX_FILE, &pold);
	st->present = s1 != E4_NOT_FOUND || s2 != E4_NOT_FOUND;
	if (s1 != E4_OK && s1 != E4_NOT_FOUND)
		report_error(r, "/.fscrypt/protectors cannot be read: %s", e4_status_str(s1));
	if (s2 != E4_OK && s2 != E4_NOT_FOUND)
		report_error(r, "/.fscrypt/policies cannot be read: %s", e4_status_str(s2));
	/* each link may add one protector of the root */
	nprot = 2 * pd.n + 1;
	st->cap_prot = nprot;
	st->prot = calloc(nprot, sizeof(*st->prot));
	st->links = calloc(pd.n + 1, sizeof(*st->links));
	st->pol = calloc(pold.n + 1, sizeof(*st->pol));
	if (!st->prot || !st->links || !st->pol) {
		e4_fsmeta_free(&pd);
		e4_fsmeta_free(&pold);
		fsc_free(st);
		return NULL;
	}
	load_protectors(st, &pd, 0, NULL, r);
	load_links(st, &pd, fs, root, r);
	for (size_t i = 0; i < pold.n; i++) {
		struct e4_fsmeta_file *f = &pold.files[i];
		struct fsc_policy *p = &st->pol[st->n_pol];
		const char *why;
		enum e4_status s = e4_fsc_policy_parse(f->data, f->len, &p->p, &why);

		if (s != E4_OK) {
			char esc[E4_ESCAPE_SIZE(64)];

			e4_escape((const uint8_t *)f->name, f->name_len < 64 ? f->name_len : 64,
				  esc, E4_ESCAPE_SLASH);
			report_error(r, "%s/%s: not a policy fscrypt can use: %s", pold.path,
				     esc, why ? why : e4_status_str(s));
			continue;
		}
		snprintf(p->file, sizeof(p->file), "%s/%s", pold.path, p->p.descriptor);
		p->opened_by = -1;
		st->n_pol++;
	}
	e4_fsmeta_free(&pd);
	e4_fsmeta_free(&pold);
	return st;
}

void fsc_free(struct fsc_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n_prot; i++) {
		e4_fsc_protector_free(&st->prot[i].p);
		free(st->prot[i].opened_with);
	}
	for (size_t i = 0; i < st->n_links; i++)
		free(st->links[i].data);
	for (size_t i = 0; i < st->n_pol; i++)
		e4_fsc_policy_free(&st->pol[i].p);
	free(st->prot);
	free(st->links);
	free(st->pol);
	free(st);
}

size_t fsc_passphrase_protectors(const struct fsc_state *st)
{
	size_t n = 0;

	for (size_t i = 0; i < st->n_prot; i++)
		n += st->prot[i].p.source != E4_FSC_RAW_KEY;
	return n;
}

static char *escaped(const char *s)
{
	char *e = malloc(E4_ESCAPE_SIZE(strlen(s)));

	if (e)
		e4_escape((const uint8_t *)s, strlen(s), e, 0);
	return e;
}

/* --write-policy-keys: DIR/DESCRIPTOR.key, 64 raw bytes, never replacing
 * a file. */
static int write_key(const char *dir, const char *desc, const uint8_t *key,
		     struct report *r)
{
	if (keyload_write_key(dir, desc, key, E4_FSC_POLICY_KEY, "--write-policy-keys", r))
		return -1;
	report_info(r, "policy key of fscrypt policy %s written to %s/%s.key", desc, dir, desc);
	return 0;
}

/* The policy keys protector i (its key pk) wraps: each checked against
 * its policy's descriptor, then into ks.  -1 on a fatal error. */
static int open_policies(struct fsc_state *st, size_t i,
			 const uint8_t pk[E4_FSC_KEY], struct e4_keystore *ks,
			 const struct options *o, struct report *r)
{
	struct fsc_protector *p = &st->prot[i];
	char whop[400];

	who(p, whop, sizeof(whop));
	for (size_t j = 0; j < st->n_pol; j++) {
		struct fsc_policy *pol = &st->pol[j];

		for (size_t k = 0; k < pol->p.n_slots; k++) {
			uint8_t key[E4_FSC_POLICY_KEY];
			char desc[E4_FSC_POLICY_DESC_V2 + 1], label[512];
			enum e4_status s;

			if (strcmp(pol->p.slots[k].protector, p->p.descriptor) ||
			    pol->opened_by >= 0)
				continue;
			s = e4_fsc_unwrap(key, pk, &pol->p.slots[k].wrapped);
			if (s == E4_BAD_KEY) {
				report_error(r, "%s: its key slot for protector %s does not authenticate under that protector's key (HMAC check failed): it was not wrapped by %s; the policy stays locked",
					     pol->file, p->p.descriptor, whop);
				continue;
			}
			if (s == E4_OK)
				s = e4_fsc_descriptor(desc, key, sizeof(key), pol->p.version);
			if (s != E4_OK) {
				e4_wipe(key, sizeof(key));
				report_error(r, "%s: unwrapping its key failed: %s", pol->file,
					     e4_status_str(s));
				continue;
			}
			if (strcmp(desc, pol->p.descriptor)) {
				e4_wipe(key, sizeof(key));
				report_error(r, "%s: the key its slot for protector %s holds is not this policy's (its %s is %s); not used",
					     pol->file, p->p.descriptor,
					     pol->p.version == 1 ? "descriptor" : "identifier", desc);
				continue;
			}
			snprintf(label, sizeof(label), "fscrypt policy %s from %s",
				 pol->p.descriptor, whop);
			s = e4_keystore_add(ks, key, sizeof(key), label);
			if (s == E4_OK && o->write_policy_keys &&
			    write_key(o->write_policy_keys, pol->p.descriptor, key, r)) {
				e4_wipe(key, sizeof(key));
				return -1;
			}
			e4_wipe(key, sizeof(key));
			if (s != E4_OK) {
				report_error(r, "%s: %s", pol->file, e4_status_str(s));
				continue;
			}
			if (pol->opened_by < 0)
				pol->opened_by = (long)i;
			report_info(r, "%s opened fscrypt policy %s (v%u)", whop,
				    pol->p.descriptor, pol->p.version);
		}
	}
	return 0;
}

/* One protector with one wrapping key: E4_OK (pk set), E4_BAD_KEY. */
static enum e4_status try_protector(struct fsc_protector *p,
				    const uint8_t wk[E4_FSC_KEY],
				    uint8_t pk[E4_FSC_KEY], struct report *r)
{
	char desc[E4_FSC_POLICY_DESC_V2 + 1], whop[400];
	enum e4_status s = e4_fsc_unwrap(pk, wk, &p->p.wrapped);

	if (s == E4_OK && e4_fsc_descriptor(desc, pk, E4_FSC_KEY, 1) == E4_OK &&
	    strcmp(desc, p->p.descriptor))
		report_warning(r, "%s: its key's descriptor is %s, not the one it is filed under",
			       who(p, whop, sizeof(whop)), desc);
	return s;
}

static int opened(struct fsc_protector *p, const char *path, struct report *r)
{
	char whop[400];

	free(p->opened_with);
	p->opened_with = escaped(path);
	report_info(r, "%s opened with %s", who(p, whop, sizeof(whop)),
		    p->opened_with ? p->opened_with : "?");
	return 0;
}

long fsc_unlock(struct fsc_state *st, struct e4_keystore *ks,
		const struct options *o, const struct secret *sec, size_t n_sec,
		size_t *opened_by_sec, struct report *r)
{
	uint64_t max_mem = o->argon2_max_memory ? o->argon2_max_memory :
						  E4_FSC_DEFAULT_MAX_MEMORY_KIB;
	uint64_t max_time = o->argon2_max_time ? o->argon2_max_time :
						 E4_FSC_DEFAULT_MAX_TIME;
	uint8_t (*raw)[E4_FSC_KEY] = NULL;
	uint8_t *pass = NULL;
	size_t n_raw = o->n_protector_key_files;
	long count = 0;
	int fatal = 0;
	char whop[400];

	if (o->write_policy_keys)
		report_warning(r, "--write-policy-keys %s: the policy keys written there open the files as any key file does: they are secrets; keep them as such",
			       o->write_policy_keys);
	if (n_raw) {
		raw = calloc(n_raw, sizeof(*raw));
		if (!raw) {
			report_error(r, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < n_raw && !fatal; i++)
			fatal = keyload_protector_key(o->protector_key_files[i], raw[i], r) != 0;
	}
	if (!fatal && n_sec) {
		pass = malloc(sizeof(sec[0].buf));
		fatal = !pass;
		if (!pass)
			report_error(r, "out of memory");
	}
	/* raw keys against raw-key protectors */
	for (size_t k = 0; k < n_raw && !fatal; k++) {
		int any = 0;

		for (size_t i = 0; i < st->n_prot && !fatal; i++) {
			struct fsc_protector *p = &st->prot[i];
			uint8_t pk[E4_FSC_KEY];
			enum e4_status s;

			if (p->p.source != E4_FSC_RAW_KEY || p->opened_with)
				continue;
			s = try_protector(p, raw[k], pk, r);
			if (s == E4_OK) {
				any = 1;
				count++;
				opened(p, o->protector_key_files[k], r);
				fatal = open_policies(st, i, pk, ks, o, r) != 0;
			} else {
				report_warning(r, "%s: the key of %s does not open it (HMAC check failed: not its key)",
					       who(p, whop, sizeof(whop)), o->protector_key_files[k]);
			}
			e4_wipe(pk, sizeof(pk));
		}
		if (!any && !fatal)
			report_error(r, "protector key file %s opens none of the image's %s",
				     o->protector_key_files[k],
				     "fscrypt raw_key protectors");
	}
	/* passphrases against login and custom passphrase protectors */
	for (size_t k = 0; k < n_sec && !fatal; k++) {
		size_t len;

		if (keyload_fscrypt_passphrase(&sec[k], pass, &len, r))
			continue;
		for (size_t i = 0; i < st->n_prot && !fatal; i++) {
			struct fsc_protector *p = &st->prot[i];
			uint8_t wk[E4_FSC_KEY], pk[E4_FSC_KEY];
			char why[200];
			enum e4_status s;

			if (p->p.source == E4_FSC_RAW_KEY || p->opened_with)
				continue;
			s = e4_fsc_check_costs(&p->p.costs, max_mem, max_time, why, sizeof(why));
			if (s != E4_OK) {
				report_error(r, "%s: not tried: %s", who(p, whop, sizeof(whop)), why);
				continue;
			}
			s = e4_fsc_passphrase_hash(wk, pass, len, p->p.salt, &p->p.costs,
						   max_mem, max_time);
			if (s == E4_OK)
				s = try_protector(p, wk, pk, r);
			else
				report_error(r, "%s: Argon2id failed: %s", who(p, whop, sizeof(whop)),
					     e4_status_str(s));
			e4_wipe(wk, sizeof(wk));
			if (s == E4_OK) {
				count++;
				opened_by_sec[k]++;
				opened(p, sec[k].path, r);
				fatal = open_policies(st, i, pk, ks, o, r) != 0;
			} else if (s == E4_BAD_KEY) {
				report_warning(r, "%s: the passphrase of %s does not open it (HMAC check failed: a wrong passphrase)",
					       who(p, whop, sizeof(whop)), sec[k].path);
			}
			e4_wipe(pk, sizeof(pk));
		}
	}
	if (raw) {
		e4_wipe(raw, n_raw * sizeof(*raw));
		free(raw);
	}
	if (pass) {
		e4_wipe(pass, sizeof(sec[0].buf));
		free(pass);
	}
	return fatal ? -1 : count;
}

static size_t policy_inodes(struct e4_fs *fs, const struct fsc_policy *p)
{
	const struct e4_enc_inode *v;
	size_t n, count = 0;

	if (e4_fs_encrypted_inodes(fs, &v, &n, NULL) != E4_OK)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char hex[33];

		if (!v[i].flagged || v[i].ctx_status != E4_OK ||
		    v[i].ctx.version != p->p.version)
			continue;
		e4_context_key_id_hex(&v[i].ctx, hex);
		count += !strcmp(hex, p->p.descriptor);
	}
	return count;
}

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *protector_json(const struct fsc_protector *p)
{
	json_object *o = json_record("fscrypt_protector");
	char *name = malloc(E4_ESCAPE_SIZE(p->p.name_len));

	json_object_object_add(o, "descriptor", json_object_new_string(p->p.descriptor));
	json_object_object_add(o, "source", json_object_new_string(e4_fsc_source_name(p->p.source)));
	if (name)
		e4_escape(p->p.name ? p->p.name : (const uint8_t *)"", p->p.name_len, name, 0);
	json_object_object_add(o, "name", json_object_new_string(name ? name : "?"));
	free(name);
	json_object_object_add(o, "uid", p->p.source == E4_FSC_PAM_PASSPHRASE ?
				      json_object_new_int64(p->p.uid) : NULL);
	if (p->p.source != E4_FSC_RAW_KEY) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "time", json_object_new_int64(p->p.costs.time));
		json_object_object_add(c, "memory_kib", json_object_new_int64(p->p.costs.memory));
		json_object_object_add(c, "parallelism", json_object_new_int64(p->p.costs.parallelism));
		json_object_object_add(o, "costs", c);
	} else {
		json_object_object_add(o, "costs", NULL);
	}
	json_object_object_add(o, "file", json_object_new_string(p->file));
	json_object_object_add(o, "filesystem", json_object_new_string(p->on_root ? "fscrypt-root" : "image"));
	json_object_object_add(o, "opened_with", str_or_null(p->opened_with));
	return o;
}

void fsc_print(const struct fsc_state *st, struct e4_fs *fs,
	       const struct policy_dirs *pd, int json)
{
	size_t dangling = 0;

	for (size_t i = 0; i < st->n_links; i++)
		dangling += st->links[i].target < 0;
	if (!json)
		printf("fscrypt tool metadata (/.fscrypt): %s; %zu protectors, %zu policies, %zu links (%zu dangling)\n",
		       st->present ? "present" : "none", st->n_prot, st->n_pol,
		       st->n_links, dangling);
	for (size_t i = 0; i < st->n_prot; i++) {
		const struct fsc_protector *p = &st->prot[i];
		char whop[400];

		if (json) {
			json_emit(protector_json(p));
			continue;
		}
		printf("  %s", who(p, whop, sizeof(whop)));
		if (p->p.source == E4_FSC_PAM_PASSPHRASE)
			printf(", uid %lld", (long long)p->p.uid);
		if (p->p.source != E4_FSC_RAW_KEY)
			printf(", Argon2id time %lld, memory %lld KiB, parallelism %lld",
			       (long long)p->p.costs.time, (long long)p->p.costs.memory,
			       (long long)p->p.costs.parallelism);
		printf(p->opened_with ? ": opened with %s\n" : ": locked\n",
		       p->opened_with);
	}
	for (size_t i = 0; i < st->n_pol; i++) {
		const struct fsc_policy *p = &st->pol[i];
		size_t inodes = policy_inodes(fs, p);

		if (json) {
			json_object *o = json_record("fscrypt_policy"), *a = json_object_new_array();

			json_object_object_add(o, p->p.version == 1 ? "descriptor" : "identifier",
					       json_object_new_string(p->p.descriptor));
			json_object_object_add(o, "policy_version", json_object_new_int(p->p.version));
			json_object_object_add(o, "contents_mode", json_object_new_int(p->p.contents));
			json_object_object_add(o, "filenames_mode", json_object_new_int(p->p.filenames));
			json_object_object_add(o, "padding", json_object_new_int64(p->p.padding));
			for (size_t k = 0; k < p->p.n_slots; k++)
				json_object_array_add(a, json_object_new_string(p->p.slots[k].protector));
			json_object_object_add(o, "protectors", a);
			json_object_object_add(o, "opened_by", p->opened_by >= 0 ?
				json_object_new_string(st->prot[p->opened_by].p.descriptor) : NULL);
			json_object_object_add(o, "file", json_object_new_string(p->file));
			json_object_object_add(o, "inodes", json_object_new_uint64(inodes));
			if (pd) {
				json_object *d = json_object_new_array();
				size_t more;

				policy_dirs_emit(pd, p->p.version, p->p.descriptor, d, NULL, &more);
				json_object_object_add(o, "directories", d);
				json_object_object_add(o, "directories_not_listed",
						       json_object_new_uint64(more));
			}
			json_emit(o);
			continue;
		}
		printf("  fscrypt policy v%u %s %s (contents %s, filenames %s, padding %lld; %zu inodes in the image): protectors",
		       p->p.version, p->p.version == 1 ? "descriptor" : "identifier",
		       p->p.descriptor, e4_mode_name((uint8_t)p->p.contents),
		       e4_mode_name((uint8_t)p->p.filenames), (long long)p->p.padding, inodes);
		for (size_t k = 0; k < p->p.n_slots; k++)
			printf(" %s", p->p.slots[k].protector);
		if (!p->p.n_slots)
			printf(" none");
		if (p->opened_by >= 0)
			printf("; opened by %s\n", st->prot[p->opened_by].p.descriptor);
		else
			printf("; locked\n");
		if (pd) {
			size_t more;

			if (!policy_dirs_emit(pd, p->p.version, p->p.descriptor, NULL,
					      "    ", &more) && !more)
				printf("    no directory of the image has this policy\n");
		}
	}
	for (size_t i = 0; i < st->n_links; i++) {
		const struct fsc_link *l = &st->links[i];
		char uuid[37] = "", *path = NULL;

		if (l->l.has_uuid)
			for (int k = 0, o = 0; k < 16; k++)
				o += snprintf(uuid + o, sizeof(uuid) - (size_t)o,
					      k == 4 || k == 6 || k == 8 || k == 10 ? "-%02x" : "%02x",
					      l->l.uuid[k]);
		if (l->l.path_len && (path = malloc(E4_ESCAPE_SIZE(l->l.path_len))))
			e4_escape(l->l.path, l->l.path_len, path, 0);
		if (json) {
			json_object *o = json_record("fscrypt_link");

			json_object_object_add(o, "descriptor", json_object_new_string(l->descriptor));
			json_object_object_add(o, "file", json_object_new_string(l->file));
			json_object_object_add(o, "uuid", l->l.has_uuid ? json_object_new_string(uuid) : NULL);
			json_object_object_add(o, "mount_path", str_or_null(path));
			json_object_object_add(o, "dangling", json_object_new_boolean(l->target < 0));
			json_object_object_add(o, "resolved_by", l->target < 0 ? NULL :
					       json_object_new_string(l->by_path ? "mount_path" : "uuid"));
			json_object_object_add(o, "why", l->target < 0 ? json_object_new_string(l->why) : NULL);
			json_emit(o);
		} else {
			printf("  fscrypt link %s: UUID %s, mount point %s: %s%s%s%s\n", l->file,
			       *uuid ? uuid : "none", path ? path : "none",
			       l->target < 0 ? "dangling, " : "reaches ",
			       l->target < 0 ? "" : st->prot[l->target].on_root ? "--fscrypt-root " : "",
			       l->target < 0 ? l->why : st->prot[l->target].file,
			       l->target >= 0 && l->by_path ? " (by its mount point)" : "");
		}
		free(path);
	}
}
