/* _e4dump: the CPython binding of libe4dump (the C API; python/e4dump/
 * __init__.py builds the public, pythonic layer on it).
 *
 * Threads.  A struct e4_fs is used by one thread at a time: every call on
 * it holds the FS object's lock, taken with the GIL released (never the
 * other way round), and the GIL stays released while the library runs.
 * The library's callbacks (the diagnostics, a source over a Python file
 * object) take the GIL themselves.  A File has a lock of its own; its
 * reads hold the FS lock too unless the image's source may be read from
 * several threads at once (e4_fs_concurrent_reads), so that Files opened
 * in several threads read in parallel.
 *
 * Lifetime.  Each File holds a reference to its FS.  FS.close() refuses
 * new calls at once; the real e4_fs_close waits until the last open File
 * is closed.  Key material: the key store wipes its copies; every buffer
 * here that held a key is wiped with e4_wipe. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "e4dump.h"
#include "binding.h"

_Thread_local struct callctx *tls_call;

typedef struct {
	PyObject_HEAD
	FSObject *fs;
	struct e4_file *f;
	PyThread_type_lock lock;
	uint64_t size;
	uint32_t ino;
	int raw;
} FileObject;

static PyTypeObject FS_Type, File_Type;
static PyObject *error_factory; /* set by the Python layer */

/* ---- errors ---------------------------------------------------------- */

static void diag_cb(void *arg, const struct e4_diag *d)
{
	FSObject *self = arg;
	PyGILState_STATE g;
	struct callctx *c = tls_call;

	if (c && d->level == E4_DIAG_ERROR) {
		c->have = 1;
		c->problem = d->problem;
		c->ino = d->ino;
		snprintf(c->path, sizeof(c->path), "%s", d->path ? d->path : "");
		snprintf(c->message, sizeof(c->message), "%s", d->message ? d->message : "");
	}
	if (!self || !self->diag)
		return;
	g = PyGILState_Ensure();
	PyObject *r = PyObject_CallFunction(self->diag, "iiiIss", (int)d->level,
					    (int)d->status, (int)d->problem,
					    (unsigned int)d->ino, d->path,
					    d->message ? d->message : "");
	if (r)
		Py_DECREF(r);
	else
		PyErr_WriteUnraisable(self->diag);
	PyGILState_Release(g);
}

/* Raise the exception of status st (GIL held), with the call's last error
 * as its message, and what the Python source raised as its cause. */
PyObject *raise_status(FSObject *self, enum e4_status st,
			      const struct callctx *c, const char *what)
{
	char msg[1400];
	PyObject *exc, *cause = NULL;

	if (c && c->have)
		snprintf(msg, sizeof(msg), "%s%s%s", what ? what : "", what ? ": " : "",
			 c->message);
	else
		snprintf(msg, sizeof(msg), "%s%s%s", what ? what : "", what ? ": " : "",
			 e4_status_str(st));
	if (self && self->src_exc) {
		cause = self->src_exc;
		self->src_exc = NULL;
	}
	if (!error_factory) {
		PyErr_SetString(PyExc_RuntimeError, msg);
		Py_XDECREF(cause);
		return NULL;
	}
	exc = PyObject_CallFunction(error_factory, "iisIs", (int)st,
				    c && c->have ? (int)c->problem : 0, msg,
				    c && c->have ? (unsigned int)c->ino : 0u,
				    c && c->have && c->path[0] ? c->path : NULL);
	if (!exc) {
		Py_XDECREF(cause);
		return NULL;
	}
	if (cause)
		PyException_SetCause(exc, cause); /* steals cause */
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

/* ---- the FS lock ------------------------------------------------------ */

/* Take the FS lock with the GIL released; GIL held on entry and exit.
 * -1 (exception set) when closed or when this thread already holds it (a
 * diagnostics callback or Python source calling back into the FS). */
int fs_enter(FSObject *self, int allow_closed)
{
	if (!allow_closed && (self->closed || !self->fs)) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed e4dump filesystem");
		return -1;
	}
	if (atomic_load(&self->owner) == PyThread_get_thread_ident()) {
		PyErr_SetString(PyExc_RuntimeError,
				"e4dump: the filesystem was called back from one of its own callbacks");
		return -1;
	}
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(self->lock, WAIT_LOCK);
	Py_END_ALLOW_THREADS
	/* closed by another thread while this one waited */
	if (!allow_closed && (self->closed || !self->fs)) {
		PyThread_release_lock(self->lock);
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed e4dump filesystem");
		return -1;
	}
	atomic_store(&self->owner, PyThread_get_thread_ident());
	return 0;
}

void fs_leave(FSObject *self)
{
	atomic_store(&self->owner, 0);
	PyThread_release_lock(self->lock);
}

/* Release the library's filesystem once it is closed and no File is open
 * (GIL held, lock not held by this thread). */
void fs_release(FSObject *self)
{
	if (!self->fs || !self->closed || self->nfiles)
		return;
	struct e4_fs *fs = self->fs;

	self->fs = NULL;
	e4_fs_close(fs);         /* closes a Python source: takes the GIL */
	e4_keystore_free(self->ks);
	self->ks = NULL;
}

/* ---- a source over a Python file object -------------------------------- */

struct pysrc {
	PyObject *f;
	FSObject *owner;   /* borrowed: it outlives its sources */
};

static int pysrc_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct pysrc *s = arg;
	PyGILState_STATE g = PyGILState_Ensure();
	int rc = 0;
	size_t done = 0;
	PyObject *r = PyObject_CallMethod(s->f, "seek", "Ki", (unsigned long long)off, 0);

	if (!r)
		goto fail;
	Py_DECREF(r);
	while (done < len) {
		size_t want = len - done;
		if (want > (size_t)PY_SSIZE_T_MAX)
			want = (size_t)PY_SSIZE_T_MAX;
		r = PyObject_CallMethod(s->f, "read", "n", (Py_ssize_t)want);
		if (!r)
			goto fail;
		char *p;
		Py_ssize_t n;
		if (PyBytes_AsStringAndSize(r, &p, &n) < 0) {
			Py_DECREF(r);
			goto fail;
		}
		if (n <= 0 || (size_t)n > want) {
			Py_DECREF(r);
			PyErr_Format(PyExc_EOFError, "read(%zu) at offset %llu gave %zd bytes",
				     want, (unsigned long long)(off + done), n);
			goto fail;
		}
		memcpy((uint8_t *)buf + done, p, (size_t)n);
		done += (size_t)n;
		Py_DECREF(r);
	}
	PyGILState_Release(g);
	return 0;
fail:
	{
		PyObject *t, *v, *tb;
		PyErr_Fetch(&t, &v, &tb);
		PyErr_NormalizeException(&t, &v, &tb);
		if (v && tb)
			PyException_SetTraceback(v, tb);
		Py_XDECREF(t);
		Py_XDECREF(tb);
		Py_XSETREF(s->owner->src_exc, v);
	}
	rc = -1;
	PyGILState_Release(g);
	errno = EIO;
	return rc;
}

static void pysrc_close(void *arg)
{
	struct pysrc *s = arg;
	PyGILState_STATE g = PyGILState_Ensure();

	Py_DECREF(s->f);
	PyGILState_Release(g);
	PyMem_RawFree(s);
}

static const struct e4_source_ops pysrc_ops = { pysrc_read, pysrc_close };

static enum e4_status pysrc_new(FSObject *owner, struct e4_source **out)
{
	struct pysrc *s = PyMem_RawMalloc(sizeof(*s));
	PyObject *name;
	const char *nm = "<file object>";

	if (!s)
		return E4_NOMEM;
	s->f = owner->fileobj;
	Py_INCREF(s->f);
	s->owner = owner;
	name = PyObject_GetAttrString(owner->fileobj, "name");
	if (name && PyUnicode_Check(name))
		nm = PyUnicode_AsUTF8(name);
	PyErr_Clear();
	enum e4_status st = e4_source_new(&pysrc_ops, s, owner->fileobj_size,
					  nm ? nm : "<file object>", 0, "raw", out);
	Py_XDECREF(name);
	return st;
}

/* ---- opening ------------------------------------------------------------ */

/* A key given as bytes (raw, or a key file's text when it looks like one)
 * or str (a key file's text: hex or the states form). */
static enum e4_status add_key_bytes(struct e4_keystore *ks, const uint8_t *p,
				    size_t n, int text, const char *label,
				    const char **why)
{
	struct e4_keyfile kf;
	enum e4_status st;

	*why = NULL;
	if (!text && !(n >= 18 && !memcmp(p, "e4dump-hkdf-states", 18)) && !(n && p[0] == '#'))
		return e4_keystore_add(ks, p, n, label);
	st = e4_keyfile_read(p, n, &kf, why);
	if (st == E4_OK)
		st = kf.is_states ? e4_keystore_add_states(ks, &kf.states, label)
				  : e4_keystore_add(ks, kf.key, kf.key_len, label);
	e4_wipe(&kf, sizeof(kf));
	return st;
}

static enum e4_status add_key_file(struct e4_keystore *ks, const char *path,
				   const char **why)
{
	uint8_t buf[8192];
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum e4_status st;

	*why = NULL;
	if (fd < 0) {
		*why = strerror(errno);
		return E4_IO;
	}
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)r;
	close(fd);
	if (n == sizeof(buf)) {
		e4_wipe(buf, sizeof(buf));
		*why = "larger than any key file";
		return E4_BAD_KEY;
	}
	struct e4_keyfile kf;
	st = e4_keyfile_read(buf, n, &kf, why);
	if (st == E4_OK)
		st = kf.is_states ? e4_keystore_add_states(ks, &kf.states, path)
				  : e4_keystore_add(ks, kf.key, kf.key_len, path);
	e4_wipe(&kf, sizeof(kf));
	e4_wipe(buf, sizeof(buf));
	return st;
}

static void fs_dealloc(FSObject *self)
{
	self->closed = 1;
	self->nfiles = 0;
	fs_release(self);
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_XDECREF(self->diag);
	Py_XDECREF(self->fileobj);
	Py_XDECREF(self->src_exc);
	PyMem_Free(self->path);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* _open(source, size, keys, key_files, passphrase, salt, partition,
 *       offset, diag): source is a path (str/bytes) or a file object of
 * size bytes. */
static PyObject *mod_open(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "source", "size", "keys", "key_files", "passphrase",
			       "salt", "partition", "offset", "diag", "listing", NULL };
	PyObject *source, *keys = Py_None, *key_files = Py_None, *pass = Py_None;
	PyObject *salt = Py_None, *diag = Py_None, *path_b = NULL;
	unsigned long long size = 0, offset = 0;
	unsigned int partition = 0;
	int by_offset = 0, listing = 1;
	struct e4_fs_options opt;
	struct callctx c = { 0 };
	enum e4_status st;
	FSObject *self;
	PyObject *seq = NULL;
	const char *why;
	char label[64];

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OK|OOOOIKOp", kwl, &source, &size,
					 &keys, &key_files, &pass, &salt, &partition,
					 &offset, &diag, &listing))
		return NULL;
	by_offset = PyDict_Check(kw) && PyDict_GetItemString(kw, "offset") != NULL;
	self = PyObject_New(FSObject, &FS_Type);
	if (!self)
		return NULL;
	self->fs = NULL, self->ks = NULL, self->closed = 0, self->nfiles = 0;
	atomic_init(&self->owner, 0);
	self->diag = NULL, self->fileobj = NULL, self->path = NULL, self->src_exc = NULL;
	self->concurrent = 0;
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	if (diag != Py_None) {
		Py_INCREF(diag);
		self->diag = diag;
	}
	if (PyUnicode_Check(source) || PyBytes_Check(source)) {
		if (!PyUnicode_FSConverter(source, &path_b))
			goto fail;
		self->path = PyMem_Malloc((size_t)PyBytes_GET_SIZE(path_b) + 1);
		if (!self->path) {
			PyErr_NoMemory();
			goto fail;
		}
		memcpy(self->path, PyBytes_AS_STRING(path_b), (size_t)PyBytes_GET_SIZE(path_b) + 1);
		Py_CLEAR(path_b);
	} else {
		Py_INCREF(source);
		self->fileobj = source;
		self->fileobj_size = size;
	}
	self->ks = e4_keystore_new();
	if (!self->ks) {
		PyErr_NoMemory();
		goto fail;
	}
	/* keys: bytes-like (raw) or str (key file text) */
	if (keys != Py_None) {
		seq = PySequence_Fast(keys, "keys must be a sequence");
		if (!seq)
			goto fail;
		for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
			PyObject *k = PySequence_Fast_GET_ITEM(seq, i);
			snprintf(label, sizeof(label), "keys[%zd]", i);
			if (PyUnicode_Check(k)) {
				Py_ssize_t n;
				const char *u = PyUnicode_AsUTF8AndSize(k, &n);
				if (!u)
					goto fail;
				st = add_key_bytes(self->ks, (const uint8_t *)u, (size_t)n, 1, label, &why);
			} else {
				Py_buffer b;
				if (PyObject_GetBuffer(k, &b, PyBUF_SIMPLE) < 0)
					goto fail;
				st = add_key_bytes(self->ks, b.buf, (size_t)b.len, 0, label, &why);
				PyBuffer_Release(&b);
			}
			if (st != E4_OK) {
				snprintf(c.message, sizeof(c.message), "%s: %s", label,
					 why ? why : e4_status_str(st));
				c.have = 1;
				raise_status(self, st, &c, NULL);
				goto fail;
			}
		}
		Py_CLEAR(seq);
	}
	if (key_files != Py_None) {
		seq = PySequence_Fast(key_files, "key_files must be a sequence");
		if (!seq)
			goto fail;
		for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
			PyObject *pb = NULL;
			if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &pb))
				goto fail;
			st = add_key_file(self->ks, PyBytes_AS_STRING(pb), &why);
			if (st != E4_OK) {
				snprintf(c.message, sizeof(c.message), "key file %s: %s",
					 PyBytes_AS_STRING(pb), why ? why : e4_status_str(st));
				c.have = 1;
				Py_DECREF(pb);
				raise_status(self, st, &c, NULL);
				goto fail;
			}
			Py_DECREF(pb);
		}
		Py_CLEAR(seq);
	}
	memset(&opt, 0, sizeof(opt));
	opt.keys = self->ks;
	opt.listing = listing;
	opt.diag = diag_cb;
	opt.diag_arg = self;
	opt.volume.partition = partition;
	opt.volume.by_offset = by_offset;
	opt.volume.offset = offset;
	tls_call = &c;
	if (self->path) {
		struct e4_fs *fs = NULL;
		char *p = self->path;
		Py_BEGIN_ALLOW_THREADS
		st = e4_fs_open(&fs, p, &opt);
		Py_END_ALLOW_THREADS
		self->fs = fs;
	} else {
		struct e4_source *disk, *vol;
		char desc[192], why2[1024], shortfall[512];
		st = pysrc_new(self, &disk);
		if (st == E4_OK) {
			Py_BEGIN_ALLOW_THREADS
			st = e4_volume_select_short(disk, &opt.volume, &vol, desc, sizeof(desc),
						    why2, sizeof(why2), shortfall,
						    sizeof(shortfall));
			Py_END_ALLOW_THREADS
			if (st != E4_OK && !c.have) {
				c.have = 1;
				snprintf(c.message, sizeof(c.message), "cannot open: %.900s", why2);
			}
		}
		if (st == E4_OK) {
			struct e4_fs *fs = NULL;
			Py_BEGIN_ALLOW_THREADS
			st = e4_fs_open_source(&fs, vol, &opt);
			Py_END_ALLOW_THREADS
			self->fs = fs;
		}
	}
	tls_call = NULL;
	if (st != E4_OK) {
		raise_status(self, st, &c, "cannot open the image");
		goto fail;
	}
	self->concurrent = e4_fs_concurrent_reads(self->fs);
	/* an e4crypt passphrase, with the superblock's salt or the one given */
	if (pass != Py_None) {
		struct e4_fs_info info;
		Py_buffer pb, sb = { 0 };
		uint8_t s16[16];
		const uint8_t *sp = s16;
		size_t sl = 16;
		int is_str = PyUnicode_Check(pass);
		const char *pu = NULL;
		Py_ssize_t pn = 0;

		if (is_str) {
			pu = PyUnicode_AsUTF8AndSize(pass, &pn);
			if (!pu)
				goto fail;
		} else if (PyObject_GetBuffer(pass, &pb, PyBUF_SIMPLE) < 0) {
			goto fail;
		}
		e4_fs_get_info(self->fs, &info);
		memcpy(s16, info.encrypt_pw_salt, 16);
		if (salt != Py_None) {
			if (PyObject_GetBuffer(salt, &sb, PyBUF_SIMPLE) < 0) {
				if (!is_str)
					PyBuffer_Release(&pb);
				goto fail;
			}
			sp = sb.buf, sl = (size_t)sb.len;
		} else if (!memcmp(s16, (uint8_t[16]){ 0 }, 16)) {
			if (!is_str)
				PyBuffer_Release(&pb);
			PyErr_SetString(PyExc_ValueError,
					"s_encrypt_pw_salt is zero: give salt= for the passphrase");
			goto fail;
		}
		st = e4_keystore_add_passphrase(self->ks,
						is_str ? (const uint8_t *)pu : pb.buf,
						is_str ? (size_t)pn : (size_t)pb.len, sp, sl,
						"passphrase");
		if (!is_str)
			PyBuffer_Release(&pb);
		if (salt != Py_None)
			PyBuffer_Release(&sb);
		if (st != E4_OK) {
			raise_status(self, st, NULL, "passphrase");
			goto fail;
		}
	}
	return (PyObject *)self;
fail:
	tls_call = NULL;
	Py_XDECREF(seq);
	Py_XDECREF(path_b);
	self->closed = 1;
	Py_DECREF(self);
	return NULL;
}

/* ---- FS methods ---------------------------------------------------------- */


static PyObject *fs_close(FSObject *self, PyObject *unused)
{
	(void)unused;
	if (self->closed)
		Py_RETURN_NONE;
	if (fs_enter(self, 1) < 0)
		return NULL;
	self->closed = 1;
	fs_leave(self);
	fs_release(self);
	Py_RETURN_NONE;
}

static PyObject *fs_get_closed(FSObject *self, void *unused)
{
	(void)unused;
	return PyBool_FromLong(self->closed);
}

PyObject *hexstr(const uint8_t *p, size_t n)
{
	static const char d[] = "0123456789abcdef";
	char buf[257];

	if (n > 128)
		n = 128;
	for (size_t i = 0; i < n; i++)
		buf[2 * i] = d[p[i] >> 4], buf[2 * i + 1] = d[p[i] & 15];
	return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)(2 * n));
}

static PyObject *fs_info(FSObject *self, PyObject *unused)
{
	struct e4_fs_info i;
	const char *why;

	(void)unused;
	CALL_BEGIN(self, 0);
	e4_fs_get_info(self->fs, &i);
	enum e4_name_format fmt;
	Py_BEGIN_ALLOW_THREADS
	fmt = e4_fs_name_format(self->fs);
	Py_END_ALLOW_THREADS
	why = e4_fs_name_format_why(self->fs);
	CALL_END(self);
	(void)fmt;
	return Py_BuildValue(
		"{s:s,s:s,s:s,s:K,s:K,s:I,s:K,s:I,s:I,s:N,s:O,s:O,s:O,s:O,s:i,s:y#,s:N,"
		"s:y#,s:K,s:K,s:K,s:K,s:i,s:s}",
		"name", i.name ? i.name : "", "container", i.container ? i.container : "",
		"volume", i.volume ? i.volume : "",
		"offset", (unsigned long long)i.offset,
		"image_size", (unsigned long long)i.image_size,
		"block_size", i.block_size,
		"blocks_count", (unsigned long long)i.blocks_count,
		"inodes_count", (unsigned int)i.inodes_count,
		"first_ino", (unsigned int)i.first_ino,
		"uuid", hexstr(i.uuid, 16),
		"encrypt", i.encrypt_feature ? Py_True : Py_False,
		"encrypt_2015", i.encrypt_2015_feature ? Py_True : Py_False,
		"casefold", i.casefold_feature ? Py_True : Py_False,
		"stable_inodes", i.stable_inodes_feature ? Py_True : Py_False,
		"encryption_level", (int)i.encryption_level,
		"encrypt_algos", (const char *)i.encrypt_algos, (Py_ssize_t)4,
		"encrypt_pw_salt", hexstr(i.encrypt_pw_salt, 16),
		"last_mounted", i.last_mounted, (Py_ssize_t)i.last_mounted_len,
		"max_file_size", (unsigned long long)i.max_file_size,
		"declared_size", (unsigned long long)i.declared_size,
		"source_size", (unsigned long long)i.source_size,
		"shortfall", (unsigned long long)e4_fs_shortfall(&i, NULL, 0),
		"name_format", (int)fmt,
		"name_format_why", why ? why : "");
}

/* The policy of context ctx as a dict, with what opens it. */
PyObject *policy_dict(FSObject *self, const struct e4_context *ctx,
			     int with_nonce, const struct e4_policy_key *pk, int have_pk)
{
	char flags[E4_FLAGS_NAME_MAX], fl[8];
	PyObject *d, *key = Py_None;

	e4_policy_flags_name(ctx->flags, flags);
	snprintf(fl, sizeof(fl), "0x%02x", ctx->flags);
	size_t idn = ctx->key_id_size > sizeof(ctx->key_id) ? sizeof(ctx->key_id) : ctx->key_id_size;
	d = Py_BuildValue("{s:i,s:i,s:s,s:i,s:s,s:s,s:s,s:N}",
			  "policy_version", (int)ctx->version,
			  "contents_mode", (int)ctx->contents_mode,
			  "contents", e4_mode_name(ctx->contents_mode),
			  "filenames_mode", (int)ctx->filenames_mode,
			  "filenames", e4_mode_name(ctx->filenames_mode),
			  "flags", flags, "policy_flags", fl,
			  ctx->version == 1 ? "descriptor" : "identifier",
			  hexstr(ctx->key_id, idn));
	if (!d)
		return NULL;
	if (with_nonce) {
		PyObject *nh = hexstr(ctx->nonce, E4_NONCE_SIZE);
		if (!nh || PyDict_SetItemString(d, "nonce", nh) < 0) {
			Py_XDECREF(nh);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(nh);
	}
	if (have_pk) {
		PyObject *k = NULL;
		if (pk->open && pk->key >= 0) {
			const struct e4_master_key *mk = e4_keystore_key(self->ks, (size_t)pk->key);
			k = PyUnicode_DecodeFSDefault(mk && mk->label ? mk->label : "");
		} else if (pk->open) {
			k = PyUnicode_FromString("dummy key");
		}
		key = k ? k : (Py_INCREF(Py_None), Py_None);
		PyDict_SetItemString(d, "key", key);
		Py_DECREF(key);
		PyObject *ki = PyLong_FromLong(pk->open ? pk->key : -1);
		PyDict_SetItemString(d, "key_index", ki);
		Py_DECREF(ki);
		PyObject *how = PyUnicode_FromString(pk->how ? pk->how : "");
		PyDict_SetItemString(d, "key_how", how);
		Py_DECREF(how);
		PyObject *stt = PyUnicode_FromString(pk->open ? "decrypted" : "locked");
		PyDict_SetItemString(d, "state", stt);
		Py_DECREF(stt);
	}
	return d;
}

static PyObject *fs_policies(FSObject *self, PyObject *unused)
{
	const struct e4_enc_inode *v;
	size_t n, in_use;
	enum e4_status st;
	struct pol {
		struct e4_context ctx;
		size_t inodes;
		struct e4_policy_key pk;
	} *p = NULL;
	size_t np = 0;

	(void)unused;
	CALL_BEGIN(self, 0);
	Py_BEGIN_ALLOW_THREADS
	st = e4_fs_encrypted_inodes(self->fs, &v, &n, &in_use);
	if (st == E4_OK) {
		p = calloc(n ? n : 1, sizeof(*p));
		if (!p)
			st = E4_NOMEM;
	}
	for (size_t i = 0; st == E4_OK && i < n; i++) {
		size_t j;
		if (v[i].ctx_status != E4_OK)
			continue;
		for (j = 0; j < np; j++)
			if (e4_context_same_policy(&p[j].ctx, &v[i].ctx))
				break;
		if (j == np) {
			p[np].ctx = v[i].ctx;
			if (e4_fs_policy_key(self->fs, &v[i].ctx, &p[np].pk) != E4_OK)
				p[np].pk.open = 0;
			np++;
		}
		p[j].inodes++;
	}
	Py_END_ALLOW_THREADS
	PyObject *list = NULL;
	if (st == E4_OK && (list = PyList_New(0))) {
		for (size_t j = 0; j < np; j++) {
			PyObject *d = policy_dict(self, &p[j].ctx, 0, &p[j].pk, 1);
			PyObject *ni = PyLong_FromSize_t(p[j].inodes);
			if (!d || !ni || PyDict_SetItemString(d, "inodes", ni) < 0 ||
			    PyList_Append(list, d) < 0) {
				Py_XDECREF(d);
				Py_XDECREF(ni);
				Py_CLEAR(list);
				break;
			}
			Py_DECREF(d);
			Py_DECREF(ni);
		}
	}
	free(p);
	CALL_END(self);
	if (st != E4_OK)
		return raise_status(self, st, &c_, "policies");
	return list;
}

static PyObject *fs_volumes(FSObject *self, PyObject *unused)
{
	struct e4_source *disk = NULL;
	struct e4_volume_table t;
	char why[1024] = "";
	enum e4_status st;

	(void)unused;
	CALL_BEGIN(self, 0);
	if (self->path) {
		char *p = self->path;
		Py_BEGIN_ALLOW_THREADS
		st = e4_source_open_any(p, &disk, why, sizeof(why));
		Py_END_ALLOW_THREADS
	} else {
		st = pysrc_new(self, &disk);
	}
	if (st == E4_OK) {
		Py_BEGIN_ALLOW_THREADS
		st = e4_volumes_read(disk, &t, why, sizeof(why));
		Py_END_ALLOW_THREADS
	}
	PyObject *res = NULL;
	if (st == E4_OK) {
		PyObject *vl = PyList_New(0);
		for (size_t i = 0; vl && i < t.n; i++) {
			const struct e4_volume *v = &t.v[i];
			PyObject *d = Py_BuildValue(
				"{s:I,s:s,s:K,s:K,s:K,s:K,s:s,s:s,s:s,s:O,s:O,s:O,s:K,s:I,s:s}",
				"index", v->index, "slot", v->slot,
				"first", (unsigned long long)v->first,
				"last", (unsigned long long)v->last,
				"start", (unsigned long long)v->start,
				"size", (unsigned long long)v->size, "type", v->type,
				"name", v->name, "fs", v->fs, "ext", v->ext ? Py_True : Py_False,
				"extended", v->extended ? Py_True : Py_False,
				"logical", v->logical ? Py_True : Py_False,
				"missing", (unsigned long long)v->missing, "odd",
				v->odd, "why_odd", v->why_odd);
			if (!d || PyList_Append(vl, d) < 0)
				Py_CLEAR(vl);
			Py_XDECREF(d);
		}
		if (vl)
			res = Py_BuildValue("{s:s,s:s,s:s,s:I,s:K,s:s,s:N}",
					    "container", disk->kind ? disk->kind : "raw",
					    "scheme", t.scheme, "id", t.id,
					    "sector_size", t.sector_size,
					    "disk_size", (unsigned long long)t.disk_size,
					    "note", t.note, "volumes", vl);
		e4_volumes_free(&t);
	}
	if (disk) {
		Py_BEGIN_ALLOW_THREADS
		e4_source_close(disk);
		Py_END_ALLOW_THREADS
	}
	CALL_END(self);
	if (st != E4_OK) {
		if (!c_.have && why[0]) {
			c_.have = 1;
			snprintf(c_.message, sizeof(c_.message), "%s", why);
		}
		return raise_status(self, st, &c_, "volumes");
	}
	return res;
}

/* One entry as a listing gathers it (with the FS lock, without the GIL). */
struct ent {
	char *path;                 /* display path */
	uint8_t *name, *raw;        /* shown name, stored bytes */
	size_t name_len, raw_len;
	int is_start;
	uint32_t ino;
	int file_type;              /* EXT2_FT_* of the entry, or -1 */
	int name_state;             /* -1: none */
	int have_inode;
	enum e4_status inode_status;
	struct e4_inode in;
	/* encryption */
	int ctx_read;               /* 0 none, 1 read, -1 error */
	enum e4_status ctx_status;
	const char *ctx_why;
	struct e4_context ctx;
	struct e4_policy_key pk;
	int have_pk;
	uint64_t stat_size;
	int allocated;
	uint8_t *target;            /* a symlink's target as readlink gives it */
	size_t target_len;
	int target_nokey;
};

struct gather {
	struct e4_fs *fs;
	struct ent *v;
	size_t n, cap;
	int nomem;
	int enc_dir;                /* the listed directory's facts */
	int dir_have_key;
	int dir_damaged;
	const char *display;        /* the start's display path, or NULL */
};

void *dup_mem(const void *p, size_t n)
{
	void *q = malloc(n + 1);
	if (q) {
		if (n)
			memcpy(q, p, n);
		((char *)q)[n] = 0;
	}
	return q;
}

/* What lstat and readlink give (tool/linkfacts.c's rule, by the
 * symlink's own policy). */
static void fill_inode_facts(struct e4_fs *fs, struct ent *e)
{
	int allocated;

	e->stat_size = e->in.size;
	e->allocated = e4_inode_allocated(fs, e->ino, &allocated) == E4_OK ? allocated : -1;
	if (e->in.encrypted) {
		e->ctx_status = e4_inode_context(fs, &e->in, &e->ctx, &e->ctx_why);
		e->ctx_read = (e->ctx_status == E4_OK || e->ctx_status == E4_UNRECOGNIZED) ? 1 : -1;
		if (e->ctx_read == 1 && e->ctx_status == E4_OK) {
			e->have_pk = 1;
			if (e4_fs_policy_key(fs, &e->ctx, &e->pk) != E4_OK)
				e->pk.open = 0;
		}
	}
	if (E4_ISLNK(e->in.mode)) {
		int locked = e->in.encrypted && e->ctx_read == 1 && e->have_pk && !e->pk.open;
		if (locked) {
			char nk[E4_NOKEY_NAME_MAX + 1];
			if (e4_symlink_locked_target(fs, &e->in, e->path, nk) == E4_OK) {
				e->target_len = strlen(nk);
				e->target = dup_mem(nk, e->target_len);
				e->target_nokey = 1;
				e->stat_size = e->target_len;
			}
		} else {
			char *t = NULL;
			size_t len;
			if (e4_symlink_read(fs, &e->in, e->path, &t, &len) == E4_OK) {
				e->target = (uint8_t *)t;
				e->target_len = len;
				e->stat_size = len;
			}
		}
	}
}

static enum e4_walk_action gather_entry(void *arg, const struct e4_walk_node *n)
{
	struct gather *g = arg;
	struct ent *e;

	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		struct ent *v = realloc(g->v, cap * sizeof(*v));
		if (!v) {
			g->nomem = 1;
			return E4_WALK_STOP;
		}
		g->v = v, g->cap = cap;
	}
	e = &g->v[g->n];
	memset(e, 0, sizeof(*e));
	e->is_start = n->entry == NULL;
	e->ino = n->ino;
	e->file_type = n->entry ? n->entry->file_type : -1;
	e->name_state = n->entry ? (int)n->entry->state : -1;
	if (g->display && !n->entry) {
		e->path = dup_mem(g->display, strlen(g->display));
	} else if (g->display) {
		/* the caller's display path of the start and the walker's of
		 * the entry below it (its rel) */
		size_t dl = strlen(g->display), rl = strlen(n->rel);
		int slash = dl && g->display[dl - 1] == '/';
		e->path = malloc(dl + rl + 2);
		if (e->path) {
			memcpy(e->path, g->display, dl);
			if (!slash)
				e->path[dl++] = '/';
			memcpy(e->path + dl, n->rel, rl + 1);
		}
	} else {
		e->path = dup_mem(n->path, n->path_len);
	}
	if (n->entry) {
		e->name = dup_mem(n->entry->name, n->entry->name_len);
		e->name_len = n->entry->name_len;
		e->raw = dup_mem(n->entry->raw, n->entry->raw_len);
		e->raw_len = n->entry->raw_len;
	}
	if (!e->path || (n->entry && (!e->name || !e->raw))) {
		free(e->path), free(e->name), free(e->raw);
		g->nomem = 1;
		return E4_WALK_STOP;
	}
	e->inode_status = n->inode_status;
	if (n->inode) {
		e->have_inode = 1;
		e->in = *n->inode;
		fill_inode_facts(g->fs, e);
	}
	g->n++;
	/* only the start's own entries; do not list its subdirectories */
	return n->entry ? E4_WALK_SKIP : E4_WALK_CONTINUE;
}

static enum e4_walk_action gather_enter(void *arg, const struct e4_walk_node *n,
					const struct e4_dir *listing, void **data)
{
	struct gather *g = arg;
	const struct e4_dir_facts *f = e4_dir_facts(listing);

	(void)n, (void)data;
	g->enc_dir = f->encrypted;
	g->dir_have_key = f->have_key;
	g->dir_damaged = f->damaged;
	return E4_WALK_CONTINUE;
}

static void gather_free(struct gather *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path), free(g->v[i].name), free(g->v[i].raw);
		if (g->v[i].target) {
			e4_wipe(g->v[i].target, g->v[i].target_len);
			free(g->v[i].target);
		}
	}
	free(g->v);
}

PyObject *ts(const struct e4_timestamp *t)
{
	return Py_BuildValue("(Lk)", (long long)t->sec, (unsigned long)t->nsec);
}

int inode_fields(PyObject *d, const struct e4_inode *in)
{
	DICT_SET(d, "i_mode", PyLong_FromLong(in->mode), return -1);
	DICT_SET(d, "uid", PyLong_FromUnsignedLong(in->uid), return -1);
	DICT_SET(d, "gid", PyLong_FromUnsignedLong(in->gid), return -1);
	DICT_SET(d, "links", PyLong_FromLong(in->links), return -1);
	DICT_SET(d, "size", PyLong_FromUnsignedLongLong(in->size), return -1);
	DICT_SET(d, "i_size", PyLong_FromUnsignedLongLong(in->size), return -1);
	DICT_SET(d, "i_flags", PyLong_FromUnsignedLong(in->flags), return -1);
	DICT_SET(d, "atime", ts(&in->atime), return -1);
	DICT_SET(d, "mtime", ts(&in->mtime), return -1);
	DICT_SET(d, "ctime", ts(&in->ctime), return -1);
	if (in->has_crtime)
		DICT_SET(d, "crtime", ts(&in->crtime), return -1);
	DICT_SET(d, "dtime", PyLong_FromUnsignedLong(in->dtime), return -1);
	DICT_SET(d, "orphan_next", PyLong_FromUnsignedLong(in->orphan_next), return -1);
	DICT_SET(d, "generation", PyLong_FromUnsignedLong(in->generation), return -1);
	DICT_SET(d, "encrypted", PyBool_FromLong(in->encrypted), return -1);
	return 0;
}

static PyObject *ent_dict(FSObject *self, const struct ent *e)
{
#define SET(k, expr) DICT_SET(d, (k), (expr), goto fail)
	PyObject *d = PyDict_New();
	PyObject *o;

	if (!d)
		return NULL;
	SET("path", PyUnicode_DecodeUTF8(e->path, (Py_ssize_t)strlen(e->path), "surrogateescape"));
	SET("inode", PyLong_FromUnsignedLong(e->ino));
	if (e->name) {
		SET("name_bytes", PyBytes_FromStringAndSize((const char *)e->name, (Py_ssize_t)e->name_len));
		SET("raw_name", PyBytes_FromStringAndSize((const char *)e->raw, (Py_ssize_t)e->raw_len));
		SET("name_state", PyLong_FromLong(e->name_state));
		SET("entry_type", PyLong_FromLong(e->file_type));
	}
	if (!e->have_inode) {
		SET("inode_status", PyLong_FromLong((long)e->inode_status));
		return d;
	}
	const struct e4_inode *in = &e->in;
	if (inode_fields(d, in) < 0)
		goto fail;
	SET("size", PyLong_FromUnsignedLongLong(e->stat_size));
	SET("allocated", PyLong_FromLong(e->allocated));
	if (in->encrypted) {
		if (e->ctx_read == 1) {
			o = policy_dict(self, &e->ctx, 1, &e->pk, e->have_pk);
			if (!o)
				goto fail;
			PyObject *k = PyBool_FromLong(e->ctx_status == E4_OK);
			PyDict_SetItemString(o, "known", k);
			Py_DECREF(k);
			if (!e->have_pk) {
				PyDict_SetItemString(o, "key", Py_None);
				PyObject *s = PyUnicode_FromString("locked");
				PyDict_SetItemString(o, "state", s);
				Py_DECREF(s);
				if (e->ctx_why) {
					s = PyUnicode_FromString(e->ctx_why);
					PyDict_SetItemString(o, "key_how", s);
					Py_DECREF(s);
				}
			}
			SET("encryption", o);
		} else {
			SET("encryption", Py_BuildValue("{s:s,s:s}", "error",
							e->ctx_why ? e->ctx_why : e4_status_str(e->ctx_status),
							"state", "locked"));
		}
	}
	if (e->target) {
		SET("target", PyBytes_FromStringAndSize((const char *)e->target, (Py_ssize_t)e->target_len));
		SET("target_nokey", PyBool_FromLong(e->target_nokey));
	}
	return d;
fail:
	Py_DECREF(d);
	return NULL;
#undef SET
}

static int get_path_arg(PyObject *arg, PyObject **bytes)
{
	if (PyUnicode_Check(arg) || PyBytes_Check(arg))
		return PyUnicode_FSConverter(arg, bytes);
	PyErr_SetString(PyExc_TypeError, "a path (str or bytes) was expected");
	return 0;
}

/* lookup(path) -> inode number (e4_path_lookup: shown names, no-key names
 * and "<N>"). */
static PyObject *fs_lookup(FSObject *self, PyObject *arg)
{
	PyObject *pb = NULL;
	uint32_t ino = 0;
	enum e4_status st;

	if (!get_path_arg(arg, &pb))
		return NULL;
	if (memchr(PyBytes_AS_STRING(pb), 0, (size_t)PyBytes_GET_SIZE(pb))) {
		Py_DECREF(pb);
		PyErr_SetString(PyExc_ValueError, "embedded NUL in the path");
		return NULL;
	}
	CALL_BEGIN(self, 0);
	const char *p = PyBytes_AS_STRING(pb);
	Py_BEGIN_ALLOW_THREADS
	st = e4_path_lookup(self->fs, p, &ino);
	Py_END_ALLOW_THREADS
	CALL_END(self);
	if (st != E4_OK) {
		PyObject *r = raise_status(self, st, &c_, p);
		Py_DECREF(pb);
		return r;
	}
	Py_DECREF(pb);
	return PyLong_FromUnsignedLong(ino);
}

/* list(ino, raw_path, display, entries) -> (start dict, [entry dicts],
 * dir facts): the start and, for a directory and when entries, its
 * entries.  raw_path: the shown names joined (bytes, for the library's
 * messages; a NUL in it is shown as '?'); display: the start's display
 * path (str) that the entries' are built on, or None (the walker's
 * escaping of raw_path). */
static PyObject *fs_list(FSObject *self, PyObject *args)
{
	unsigned int ino;
	const char *rawp, *display = NULL;
	Py_ssize_t rawn;
	int entries = 1;
	struct gather g;
	enum e4_status st;

	if (!PyArg_ParseTuple(args, "Iy#|zp", &ino, &rawp, &rawn, &display, &entries))
		return NULL;
	char *pb = PyMem_Malloc((size_t)rawn + 1);
	if (!pb)
		return PyErr_NoMemory();
	for (Py_ssize_t i = 0; i < rawn; i++)
		pb[i] = rawp[i] ? rawp[i] : '?';
	pb[rawn] = 0;
	memset(&g, 0, sizeof(g));
	g.display = display;
	struct callctx c_ = { 0 };
	if (fs_enter(self, 0) < 0) {
		PyMem_Free(pb);
		return NULL;
	}
	tls_call = &c_;
	g.fs = self->fs;
	const char *p = pb;
	struct e4_walk_options wo = { .recursive = 0, .need_inodes = 1 };
	struct e4_walk_visitor v = { .entry = gather_entry, .enter = gather_enter };
	if (!entries) {
		/* the start alone: no listing */
		Py_BEGIN_ALLOW_THREADS
		struct e4_walk_node n;
		struct e4_inode in;
		char *esc = malloc(E4_ESCAPE_SIZE(strlen(p)));
		memset(&n, 0, sizeof(n));
		if (!esc) {
			st = E4_NOMEM;
		} else {
			n.path_len = e4_escape((const uint8_t *)p, strlen(p), esc, 0);
			n.path = esc;
			n.rel = "";
			n.ino = ino;
			st = e4_inode_read(self->fs, ino, esc, &in);
			if (st == E4_OK) {
				n.inode = &in;
				gather_entry(&g, &n);
			}
			free(esc);
		}
		Py_END_ALLOW_THREADS
	} else {
		Py_BEGIN_ALLOW_THREADS
		st = e4_walk(self->fs, ino, p, &wo, &v, &g, NULL);
		Py_END_ALLOW_THREADS
	}
	if (g.nomem)
		st = E4_NOMEM;
	PyObject *res = NULL;
	if (st == E4_OK || st == E4_STOPPED) {
		PyObject *lst = PyList_New(0), *start = NULL;
		for (size_t i = 0; lst && i < g.n; i++) {
			PyObject *d = ent_dict(self, &g.v[i]);
			if (!d) {
				Py_CLEAR(lst);
				break;
			}
			if (g.v[i].is_start && !start) {
				start = d;
				continue;
			}
			if (PyList_Append(lst, d) < 0)
				Py_CLEAR(lst);
			Py_DECREF(d);
		}
		if (lst && start)
			res = Py_BuildValue("(NN{s:O,s:O,s:O})", start, lst,
					    "encrypted", g.enc_dir ? Py_True : Py_False,
					    "have_key", g.dir_have_key ? Py_True : Py_False,
					    "damaged", g.dir_damaged ? Py_True : Py_False);
		else {
			Py_XDECREF(start);
			Py_XDECREF(lst);
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_RuntimeError, "e4dump: walk gave no start");
		}
	}
	gather_free(&g);
	CALL_END(self);
	if (st != E4_OK && st != E4_STOPPED)
		res = raise_status(self, st, &c_, p);
	PyMem_Free(pb);
	return res;
}

/* readlink(ino, nokey) -> bytes: the target decrypted, or (locked, or
 * nokey) the kernel's no-key form. */
static PyObject *fs_readlink(FSObject *self, PyObject *args)
{
	unsigned int ino;
	struct e4_inode in;
	enum e4_status st;
	char *t = NULL, nk[E4_NOKEY_NAME_MAX + 1];
	size_t len = 0;
	int force_nokey = 0;

	if (!PyArg_ParseTuple(args, "I|p", &ino, &force_nokey))
		return NULL;
	CALL_BEGIN(self, 0);
	Py_BEGIN_ALLOW_THREADS
	st = e4_inode_read(self->fs, ino, NULL, &in);
	if (st == E4_OK && !E4_ISLNK(in.mode))
		st = E4_INVALID;
	if (st == E4_OK) {
		st = force_nokey && in.encrypted ? E4_NO_KEY
						  : e4_symlink_read(self->fs, &in, NULL, &t, &len);
		if (st == E4_NO_KEY && in.encrypted) {
			st = e4_symlink_locked_target(self->fs, &in, NULL, nk);
			if (st == E4_OK) {
				len = strlen(nk);
				t = dup_mem(nk, len);
				if (!t)
					st = E4_NOMEM;
			}
		}
	}
	Py_END_ALLOW_THREADS
	CALL_END(self);
	if (st != E4_OK) {
		if (st == E4_INVALID && !c_.have) {
			c_.have = 1;
			snprintf(c_.message, sizeof(c_.message), "inode %u is not a symlink", ino);
		}
		return raise_status(self, st, &c_, "readlink");
	}
	PyObject *r = PyBytes_FromStringAndSize(t, (Py_ssize_t)len);
	e4_wipe(t, len);
	free(t);
	return r;
}

struct xa_item {
	char *name;
	uint8_t *value;
	size_t len;
	char *error, *acl_error;
	uint8_t *stored;
	size_t stored_len;
	int listed;
};
struct xa_list {
	struct xa_item *v;
	size_t n, cap;
	int nomem;
};

static int xa_cb(void *arg, const struct e4_xattr_item *x)
{
	struct xa_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct xa_item *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return l->nomem = 1;
		l->v = v, l->cap = cap;
	}
	struct xa_item *it = &l->v[l->n++];
	memset(it, 0, sizeof(*it));
	it->name = dup_mem(x->name, strlen(x->name));
	it->listed = x->listed;
	if (x->value) {
		it->value = dup_mem(x->value, x->value_len);
		it->len = x->value_len;
	}
	if (x->error)
		it->error = dup_mem(x->error, strlen(x->error));
	if (x->acl_error)
		it->acl_error = dup_mem(x->acl_error, strlen(x->acl_error));
	if (x->stored) {
		it->stored = dup_mem(x->stored, x->stored_len);
		it->stored_len = x->stored_len;
	}
	return 0;
}

/* xattrs(ino) -> ([(name, value|None, listed, error|None, stored|None,
 * acl_error|None)], why) */
static PyObject *fs_xattrs(FSObject *self, PyObject *args)
{
	unsigned int ino;
	struct e4_inode in;
	enum e4_status st;
	struct xa_list l = { 0 };
	char why[E4_XATTRS_WHY_MAX] = "";

	if (!PyArg_ParseTuple(args, "I", &ino))
		return NULL;
	CALL_BEGIN(self, 0);
	Py_BEGIN_ALLOW_THREADS
	st = e4_inode_read(self->fs, ino, NULL, &in);
	if (st == E4_OK) {
		st = e4_inode_xattrs_why(self->fs, &in, NULL, xa_cb, &l, 1, why, sizeof(why));
		if (st == E4_CORRUPT || st == E4_IO)
			st = E4_OK; /* what could be read, and why says the rest */
	}
	if (l.nomem)
		st = E4_NOMEM;
	Py_END_ALLOW_THREADS
	CALL_END(self);
	PyObject *res = NULL;
	if (st == E4_OK) {
		PyObject *lst = PyList_New(0);
		for (size_t i = 0; lst && i < l.n; i++) {
			struct xa_item *it = &l.v[i];
			PyObject *t = Py_BuildValue("(sy#Nzy#z)", it->name ? it->name : "",
						    (const char *)it->value,
						    (Py_ssize_t)(it->value ? it->len : 0),
						    PyBool_FromLong(it->listed), it->error,
						    (const char *)it->stored,
						    (Py_ssize_t)(it->stored ? it->stored_len : 0),
						    it->acl_error);
			if (!t || PyList_Append(lst, t) < 0)
				Py_CLEAR(lst);
			Py_XDECREF(t);
		}
		if (lst)
			res = Py_BuildValue("(Ns)", lst, why);
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].name), free(l.v[i].value), free(l.v[i].error);
		free(l.v[i].acl_error), free(l.v[i].stored);
	}
	free(l.v);
	if (st != E4_OK)
		return raise_status(self, st, &c_, "xattrs");
	return res;
}

/* open_file(ino, raw) -> File */
static PyObject *fs_open_file(FSObject *self, PyObject *args)
{
	unsigned int ino;
	int raw = 0;
	struct e4_inode in;
	struct e4_file *f = NULL;
	enum e4_status st;

	if (!PyArg_ParseTuple(args, "I|p", &ino, &raw))
		return NULL;
	FileObject *fo = PyObject_New(FileObject, &File_Type);
	if (!fo)
		return NULL;
	fo->fs = NULL, fo->f = NULL, fo->size = 0, fo->ino = ino, fo->raw = raw;
	fo->lock = PyThread_allocate_lock();
	if (!fo->lock) {
		Py_DECREF(fo);
		return PyErr_NoMemory();
	}
	struct callctx c_ = { 0 };
	if (fs_enter(self, 0) < 0) {
		Py_DECREF(fo);
		return NULL;
	}
	tls_call = &c_;
	Py_BEGIN_ALLOW_THREADS
	st = e4_inode_read(self->fs, ino, NULL, &in);
	if (st == E4_OK && !E4_ISREG(in.mode))
		st = E4_INVALID;
	if (st == E4_OK)
		st = raw ? e4_file_open_raw(self->fs, &in, NULL, &f)
			 : e4_file_open(self->fs, &in, NULL, &f);
	Py_END_ALLOW_THREADS
	if (st == E4_OK)
		self->nfiles++;
	CALL_END(self);
	if (st != E4_OK) {
		Py_DECREF(fo);
		if (st == E4_INVALID && !c_.have) {
			c_.have = 1;
			snprintf(c_.message, sizeof(c_.message), "inode %u is not a regular file", ino);
		}
		if (st == E4_NO_KEY && !c_.have) {
			c_.have = 1;
			snprintf(c_.message, sizeof(c_.message),
				 "inode %u: no key opens its policy (open it with raw=True for its ciphertext)", ino);
		}
		return raise_status(self, st, &c_, "open");
	}
	Py_INCREF(self);
	fo->fs = self;
	fo->f = f;
	fo->size = e4_file_size(f);
	return (PyObject *)fo;
}

static PyMethodDef fs_methods[] = {
	{ "close", (PyCFunction)fs_close, METH_NOARGS, "Close (deferred while Files are open)." },
	{ "info", (PyCFunction)fs_info, METH_NOARGS, "Superblock facts." },
	{ "policies", (PyCFunction)fs_policies, METH_NOARGS, "The policies met and their keys." },
	{ "volumes", (PyCFunction)fs_volumes, METH_NOARGS, "The disk's partition table." },
	{ "lookup", (PyCFunction)fs_lookup, METH_O, "Path to inode number." },
	{ "list", (PyCFunction)fs_list, METH_VARARGS, "An inode and its directory entries." },
	{ "readlink", (PyCFunction)fs_readlink, METH_VARARGS, "A symlink's target." },
	{ "xattrs", (PyCFunction)fs_xattrs, METH_VARARGS, "An inode's extended attributes." },
	{ "open_file", (PyCFunction)fs_open_file, METH_VARARGS, "A regular file's handle." },
	{ "journal", (PyCFunction)fs_journal, METH_NOARGS, "The jbd2 journal (a Journal)." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef fs_getset[] = {
	{ "closed", (getter)fs_get_closed, NULL, "close() was called", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject FS_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "e4dump._e4dump.FS",
	.tp_basicsize = sizeof(FSObject),
	.tp_dealloc = (destructor)fs_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An ext4 image opened read-only (the low-level handle).",
	.tp_methods = fs_methods,
	.tp_getset = fs_getset,
};

/* ---- File ------------------------------------------------------------------ */

void fs_put_handle(FSObject *fs, void (*free_fn)(void *), void *h)
{
	if (fs_enter(fs, 1) < 0) {
		/* called back from a callback: freeing without the FS lock
		 * is not safe; leak the handle rather than race */
		PyErr_Clear();
		return;
	}
	Py_BEGIN_ALLOW_THREADS
	free_fn(h);
	Py_END_ALLOW_THREADS
	fs->nfiles--;
	fs_leave(fs);
	fs_release(fs);
}

static void file_free(void *f)
{
	e4_file_close(f);
}

static void file_close_locked(FileObject *self)
{
	/* the File lock is held; GIL held */
	if (!self->f)
		return;
	struct e4_file *f = self->f;

	self->f = NULL;
	fs_put_handle(self->fs, file_free, f);
}

static void file_dealloc(FileObject *self)
{
	if (self->lock && self->f) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
		file_close_locked(self);
		PyThread_release_lock(self->lock);
	}
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_XDECREF(self->fs);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *file_close(FileObject *self, PyObject *unused)
{
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(self->lock, WAIT_LOCK);
	Py_END_ALLOW_THREADS
	file_close_locked(self);
	PyThread_release_lock(self->lock);
	Py_RETURN_NONE;
}

/* Read into buf[len] at off: the File lock, and the FS lock when the
 * source cannot be read from several threads at once, with the GIL
 * released.  -1 with an exception set. */
static Py_ssize_t file_read_at(FileObject *self, uint64_t off, void *buf, size_t len)
{
	enum e4_status st = E4_OK;
	size_t got = 0;
	struct callctx c_ = { 0 };
	FSObject *fs = self->fs;
	int need_fs = !fs->concurrent;

	if (need_fs && atomic_load(&fs->owner) == PyThread_get_thread_ident()) {
		PyErr_SetString(PyExc_RuntimeError,
				"e4dump: the filesystem was called back from one of its own callbacks");
		return -1;
	}
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(self->lock, WAIT_LOCK);
	if (self->f) {
		if (need_fs) {
			PyThread_acquire_lock(fs->lock, WAIT_LOCK);
			atomic_store(&fs->owner, PyThread_get_thread_ident());
		}
		tls_call = &c_;
		st = e4_file_pread(self->f, off, buf, len, &got);
		tls_call = NULL;
		if (need_fs) {
			atomic_store(&fs->owner, 0);
			PyThread_release_lock(fs->lock);
		}
	} else {
		st = E4_STOPPED;
	}
	PyThread_release_lock(self->lock);
	Py_END_ALLOW_THREADS
	if (st == E4_STOPPED) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed e4dump file");
		return -1;
	}
	if (st != E4_OK) {
		raise_status(fs, st, &c_, "read");
		return -1;
	}
	return (Py_ssize_t)got;
}

/* pread(offset, n) -> bytes */
static PyObject *file_pread(FileObject *self, PyObject *args)
{
	unsigned long long off;
	Py_ssize_t n;

	if (!PyArg_ParseTuple(args, "Kn", &off, &n))
		return NULL;
	if (n < 0) {
		PyErr_SetString(PyExc_ValueError, "negative length");
		return NULL;
	}
	if (off >= self->size)
		return PyBytes_FromStringAndSize(NULL, 0);
	if ((uint64_t)n > self->size - off)
		n = (Py_ssize_t)(self->size - off);
	PyObject *b = PyBytes_FromStringAndSize(NULL, n);
	if (!b)
		return NULL;
	Py_ssize_t got = file_read_at(self, off, PyBytes_AS_STRING(b), (size_t)n);
	if (got < 0) {
		Py_DECREF(b);
		return NULL;
	}
	if (got != n)
		_PyBytes_Resize(&b, got);
	return b;
}

/* preadinto(offset, buffer) -> n */
static PyObject *file_preadinto(FileObject *self, PyObject *args)
{
	unsigned long long off;
	Py_buffer b;

	if (!PyArg_ParseTuple(args, "Kw*", &off, &b))
		return NULL;
	Py_ssize_t got = 0;
	if (off < self->size && b.len > 0) {
		size_t len = (size_t)b.len;
		if (len > self->size - off)
			len = (size_t)(self->size - off);
		got = file_read_at(self, off, b.buf, len);
	}
	PyBuffer_Release(&b);
	if (got < 0)
		return NULL;
	return PyLong_FromSsize_t(got);
}

static PyObject *file_get_size(FileObject *self, void *unused)
{
	(void)unused;
	return PyLong_FromUnsignedLongLong(self->size);
}

static PyObject *file_get_closed(FileObject *self, void *unused)
{
	(void)unused;
	return PyBool_FromLong(self->f == NULL);
}

static PyMethodDef file_methods[] = {
	{ "close", (PyCFunction)file_close, METH_NOARGS, "Close the handle." },
	{ "pread", (PyCFunction)file_pread, METH_VARARGS, "pread(offset, n) -> bytes" },
	{ "preadinto", (PyCFunction)file_preadinto, METH_VARARGS,
	  "preadinto(offset, buffer) -> bytes read" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef file_getset[] = {
	{ "size", (getter)file_get_size, NULL, "i_size", NULL },
	{ "closed", (getter)file_get_closed, NULL, "closed", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject File_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "e4dump._e4dump.File",
	.tp_basicsize = sizeof(FileObject),
	.tp_dealloc = (destructor)file_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A regular file of the image, decrypted (or its ciphertext).",
	.tp_methods = file_methods,
	.tp_getset = file_getset,
};

/* ---- module ----------------------------------------------------------------- */

static PyObject *mod_set_error_factory(PyObject *mod, PyObject *f)
{
	(void)mod;
	Py_XINCREF(f);
	Py_XSETREF(error_factory, f);
	Py_RETURN_NONE;
}

static PyObject *mod_status_str(PyObject *mod, PyObject *arg)
{
	(void)mod;
	long v = PyLong_AsLong(arg);
	if (v == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(e4_status_str((enum e4_status)v));
}

static PyMethodDef mod_methods[] = {
	{ "open", (PyCFunction)(void (*)(void))mod_open, METH_VARARGS | METH_KEYWORDS,
	  "open(source, size, keys, key_files, passphrase, salt, partition, offset, diag, listing)" },
	{ "_set_error_factory", mod_set_error_factory, METH_O, "internal" },
	{ "status_str", mod_status_str, METH_O, "e4_status_str()" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef mod_def = {
	PyModuleDef_HEAD_INIT, "_e4dump",
	"The C layer of the e4dump package (libe4dump through the CPython C API).",
	-1, mod_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__e4dump(void)
{
	PyObject *m;

	if (PyType_Ready(&FS_Type) < 0 || PyType_Ready(&File_Type) < 0 ||
	    PyType_Ready(&Journal_Type) < 0 || PyType_Ready(&Deleted_Type) < 0)
		return NULL;
	m = PyModule_Create(&mod_def);
	if (!m)
		return NULL;
	/* the enums' last values, for the Python layer's check */
	if (PyModule_AddIntConstant(m, "STATUS_LAST", E4_STOPPED) < 0 ||
	    PyModule_AddIntConstant(m, "PROBLEM_LAST", E4_P_SHORT) < 0 ||
	    PyModule_AddIntConstant(m, "NOKEY_NAME_MAX", E4_NOKEY_NAME_MAX) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
