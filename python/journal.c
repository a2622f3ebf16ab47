/* The journal's objects of the _e4dump module: a Journal (the jbd2 log of
 * an FS: its transactions and block copies, e4_journal_*) and the Deleted
 * entries undelete's scan finds in it (e4_undelete_scan), each able to
 * rebuild its file (e4_recovery_*) into a Python writer.
 *
 * A Journal holds its FS (counted in nfiles, as a File is: FS.close()
 * waits for it); a Deleted holds its Journal.  Every library call holds
 * the FS lock with the GIL released, as _e4dump.c's do. */
#include <stdlib.h>
#include <string.h>
#include "binding.h"

typedef struct {
	PyObject_HEAD
	FSObject *fs;
	struct e4_journal *j;
} JournalObject;

/* A deleted entry: the scan's struct e4_deleted, copied with what it
 * points to (the library's is valid during its callback only). */
typedef struct {
	PyObject_HEAD
	JournalObject *jo;
	struct e4_deleted d;
	struct e4_name_part *parts;
	uint8_t *names;             /* the parts' bytes, one after another */
	uint32_t *inos;
	uint8_t *raw;
} DeletedObject;

/* ---- Journal ------------------------------------------------------------ */

static void journal_free_handle(void *j)
{
	e4_journal_free(j);
}

/* Free the library's journal (GIL held, FS lock not held). */
static void journal_free(JournalObject *self)
{
	struct e4_journal *j = self->j;

	if (!j)
		return;
	self->j = NULL;
	fs_put_handle(self->fs, journal_free_handle, j);
}

static void journal_dealloc(JournalObject *self)
{
	journal_free(self);
	Py_XDECREF(self->fs);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* FS.journal(): the internal journal, loaded (one read of its area). */
PyObject *fs_journal(FSObject *self, PyObject *unused)
{
	struct e4_journal *j = NULL;
	enum e4_status st;

	(void)unused;
	JournalObject *jo = PyObject_New(JournalObject, &Journal_Type);
	if (!jo)
		return NULL;
	jo->fs = NULL, jo->j = NULL;
	struct callctx c_ = { 0 };
	if (fs_enter(self, 0) < 0) {
		Py_DECREF(jo);
		return NULL;
	}
	tls_call = &c_;
	Py_BEGIN_ALLOW_THREADS
	st = e4_fs_journal(self->fs, &j);
	Py_END_ALLOW_THREADS
	if (st == E4_OK)
		self->nfiles++;
	CALL_END(self);
	if (st != E4_OK) {
		Py_DECREF(jo);
		if (st == E4_NOT_FOUND && !c_.have) {
			c_.have = 1;
			snprintf(c_.message, sizeof(c_.message), "the filesystem has no journal");
		}
		return raise_status(self, st, &c_, "journal");
	}
	Py_INCREF(self);
	jo->fs = self;
	jo->j = j;
	return (PyObject *)jo;
}

static int journal_check(JournalObject *self)
{
	if (!self->j) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed e4dump journal");
		return -1;
	}
	return 0;
}

static PyObject *journal_close(JournalObject *self, PyObject *unused)
{
	(void)unused;
	journal_free(self);
	Py_RETURN_NONE;
}

/* info() -> the superblock's facts, with the CLI's journal record names. */
static PyObject *journal_info(JournalObject *self, PyObject *unused)
{
	(void)unused;
	if (journal_check(self) < 0)
		return NULL;
	const struct e4_jbd2_sb *sb = e4_journal_sb(self->j);
	uint32_t ino = 0;

	CALL_BEGIN(self->fs, 1);
	ino = e4_fs_journal_inode(self->fs->fs);
	CALL_END(self->fs);
	return Py_BuildValue("{s:k,s:i,s:k,s:k,s:k,s:k,s:k,s:k,s:i,s:n,s:n,s:k,s:k,s:k,s:k}",
			     "inode", (unsigned long)ino, "version", (int)sb->version,
			     "block_size", (unsigned long)sb->block_size,
			     "blocks", (unsigned long)sb->maxlen,
			     "first", (unsigned long)sb->first,
			     "log_end", (unsigned long)sb->log_end,
			     "sequence", (unsigned long)sb->sequence,
			     "start", (unsigned long)sb->start,
			     "superblock_checksum", e4_journal_sb_csum(self->j),
			     "transactions", (Py_ssize_t)e4_journal_ntrans(self->j),
			     "copies", (Py_ssize_t)e4_journal_ncopies(self->j),
			     "unreadable_blocks", (unsigned long)e4_journal_unreadable(self->j),
			     "feature_compat", (unsigned long)sb->compat,
			     "feature_incompat", (unsigned long)sb->incompat,
			     "feature_ro_compat", (unsigned long)sb->ro_compat);
}

static PyObject *copy_tuple(const struct e4_journal *j, size_t index)
{
	const struct e4_jcopy *c = e4_journal_copy(j, index);

	return Py_BuildValue("(KkskN)", (unsigned long long)c->fs_block,
			     (unsigned long)c->jblock,
			     e4_jcopy_trust_name((enum e4_jcopy_trust)c->trust),
			     (unsigned long)index, PyBool_FromLong(c->escaped));
}

/* transactions() -> [dict], oldest first; "blocks": (fs block, journal
 * block, trust, copy index, escaped) of each readable copy, "revoked":
 * the blocks it revoked.  No I/O: the load read the log. */
static PyObject *journal_transactions(JournalObject *self, PyObject *unused)
{
	(void)unused;
	if (journal_check(self) < 0)
		return NULL;
	const struct e4_journal *j = self->j;
	size_t n = e4_journal_ntrans(j);
	PyObject *list = PyList_New(0);

	if (!list)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct e4_jtrans *t = e4_journal_trans(j, i);
		PyObject *blocks = PyList_New((Py_ssize_t)t->ncopies);
		PyObject *revoked = PyList_New((Py_ssize_t)t->revokes);
		PyObject *d = NULL;

		if (!blocks || !revoked)
			goto fail;
		for (size_t k = 0; k < t->ncopies; k++) {
			PyObject *c = copy_tuple(j, t->first_copy + k);
			if (!c)
				goto fail;
			PyList_SET_ITEM(blocks, (Py_ssize_t)k, c);
		}
		for (size_t k = 0; k < t->revokes; k++) {
			const struct e4_jrevoke *r = e4_journal_revoke(j, t->first_revoke + k);
			PyObject *b = PyLong_FromUnsignedLongLong(r->fs_block);
			if (!b)
				goto fail;
			PyList_SET_ITEM(revoked, (Py_ssize_t)k, b);
		}
		d = Py_BuildValue("{s:k,s:i,s:N,s:N,s:i,s:N,s:k,s:k,s:k,s:k,s:N,s:N}",
				  "sequence", (unsigned long)t->sequence, "age", (int)t->age,
				  "committed", PyBool_FromLong(t->committed),
				  "commit_time", t->committed && t->commit_sec ?
					Py_BuildValue("(Kk)", (unsigned long long)t->commit_sec,
						      (unsigned long)t->commit_nsec) :
					(Py_INCREF(Py_None), Py_None),
				  "commit_checksum", t->commit_csum,
				  "live", PyBool_FromLong(t->live),
				  "descriptors", (unsigned long)t->descriptors,
				  "bad_descriptor_blocks", (unsigned long)t->bad_descriptors,
				  "overwritten", (unsigned long)t->overwritten,
				  "bad_checksums", (unsigned long)t->bad_tag_csum,
				  "blocks", blocks, "revoked", revoked);
		blocks = revoked = NULL;
		if (!d || PyList_Append(list, d) < 0)
			goto fail;
		Py_DECREF(d);
		continue;
fail:
		Py_XDECREF(blocks);
		Py_XDECREF(revoked);
		Py_XDECREF(d);
		Py_DECREF(list);
		return NULL;
	}
	return list;
}

/* read_copy(index) -> the copy's bytes (a filesystem block, the escaped
 * magic put back). */
static PyObject *journal_read_copy(JournalObject *self, PyObject *args)
{
	Py_ssize_t index;
	enum e4_status st;

	if (!PyArg_ParseTuple(args, "n", &index))
		return NULL;
	if (journal_check(self) < 0)
		return NULL;
	if (index < 0 || (size_t)index >= e4_journal_ncopies(self->j)) {
		PyErr_SetString(PyExc_IndexError, "no such journal copy");
		return NULL;
	}
	size_t bs = e4_journal_sb(self->j)->block_size;
	const struct e4_jcopy *c = e4_journal_copy(self->j, (size_t)index);
	CALL_BEGIN(self->fs, 1);
	PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)bs);
	if (!b) {
		CALL_END(self->fs);
		return NULL;
	}
	uint8_t *buf = (uint8_t *)PyBytes_AS_STRING(b);
	Py_BEGIN_ALLOW_THREADS
	st = e4_journal_read_copy(self->j, c, buf);
	Py_END_ALLOW_THREADS
	CALL_END(self->fs);
	if (st != E4_OK) {
		Py_DECREF(b);
		return raise_status(self->fs, st, &c_, "journal copy");
	}
	return b;
}

/* ---- the scan ----------------------------------------------------------- */

struct found {
	DeletedObject **v;          /* made without the GIL: plain C memory */
	size_t n, cap;
	int nomem;
};

static void deleted_free_copy(DeletedObject *o)
{
	free(o->parts), free(o->names), free(o->inos), free(o->raw);
	o->parts = NULL, o->names = NULL, o->inos = NULL, o->raw = NULL;
	e4_wipe(&o->d.inode, sizeof(o->d.inode));
	e4_wipe(&o->d.ctx, sizeof(o->d.ctx));
}

/* Copy d and what it points to into o (no GIL: plain malloc).  0 or -1. */
static int deleted_copy(DeletedObject *o, const struct e4_deleted *d)
{
	size_t total = 0;

	o->d = *d;
	o->parts = NULL, o->names = NULL, o->inos = NULL, o->raw = NULL;
	for (size_t i = 0; i < d->nparts; i++)
		total += d->parts[i].len;
	o->parts = calloc(d->nparts ? d->nparts : 1, sizeof(*o->parts));
	o->names = malloc(total ? total : 1);
	o->inos = calloc(d->nparts ? d->nparts : 1, sizeof(*o->inos));
	o->raw = dup_mem(d->raw_name, d->raw_len);
	if (!o->parts || !o->names || !o->inos || !o->raw) {
		deleted_free_copy(o);
		return -1;
	}
	total = 0;
	for (size_t i = 0; i < d->nparts; i++) {
		memcpy(o->names + total, d->parts[i].name, d->parts[i].len);
		o->parts[i].name = o->names + total;
		o->parts[i].len = d->parts[i].len;
		total += d->parts[i].len;
		o->inos[i] = d->inos ? d->inos[i] : 0;
	}
	o->d.parts = o->parts;
	o->d.inos = o->inos;
	o->d.raw_name = o->raw;
	return 0;
}

static int found_one(void *arg, const struct e4_deleted *d)
{
	struct found *f = arg;
	DeletedObject *o;

	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		DeletedObject **v = realloc(f->v, cap * sizeof(*v));
		if (!v) {
			f->nomem = 1;
			return 1;
		}
		f->v = v, f->cap = cap;
	}
	o = malloc(sizeof(*o));
	if (!o || deleted_copy(o, d) < 0) {
		free(o);
		f->nomem = 1;
		return 1;
	}
	f->v[f->n++] = o;
	return 0;
}

/* deleted(ino) -> [Deleted]: the entries deleted under directory ino
 * (the root: with the orphans), parents before what was deleted with
 * them, as e4_undelete_scan passes them. */
static PyObject *journal_deleted(JournalObject *self, PyObject *args)
{
	unsigned int ino;
	struct found f = { 0 };
	enum e4_status st;
	PyObject *list = NULL;

	if (!PyArg_ParseTuple(args, "I", &ino))
		return NULL;
	if (journal_check(self) < 0)
		return NULL;
	CALL_BEGIN(self->fs, 1);
	Py_BEGIN_ALLOW_THREADS
	st = e4_undelete_scan(self->fs->fs, self->j, ino, found_one, &f);
	Py_END_ALLOW_THREADS
	CALL_END(self->fs);
	if (f.nomem)
		st = E4_NOMEM;
	if (st == E4_OK || st == E4_STOPPED)
		list = PyList_New(0);
	for (size_t i = 0; i < f.n; i++) {
		DeletedObject *src = f.v[i], *o = NULL;

		if (list)
			o = PyObject_New(DeletedObject, &Deleted_Type);
		if (!o) {
			deleted_free_copy(src);
			free(src);
			Py_CLEAR(list);
			continue;
		}
		o->d = src->d;
		o->parts = src->parts, o->names = src->names;
		o->inos = src->inos, o->raw = src->raw;
		Py_INCREF(self);
		o->jo = self;
		e4_wipe(src, sizeof(*src));
		free(src);
		if (PyList_Append(list, (PyObject *)o) < 0)
			Py_CLEAR(list);
		Py_DECREF(o);
	}
	free(f.v);
	if (st != E4_OK && st != E4_STOPPED)
		return raise_status(self->fs, st, &c_, "undelete scan");
	return list;
}

static PyMethodDef journal_methods[] = {
	{ "close", (PyCFunction)journal_close, METH_NOARGS, "Free the journal (also when collected)." },
	{ "info", (PyCFunction)journal_info, METH_NOARGS, "The journal superblock's facts." },
	{ "transactions", (PyCFunction)journal_transactions, METH_NOARGS,
	  "The transactions still in the log, oldest first." },
	{ "read_copy", (PyCFunction)journal_read_copy, METH_VARARGS, "A block copy's bytes." },
	{ "deleted", (PyCFunction)journal_deleted, METH_VARARGS,
	  "The entries deleted under a directory (its inode)." },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject Journal_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "e4dump._e4dump.Journal",
	.tp_basicsize = sizeof(JournalObject),
	.tp_dealloc = (destructor)journal_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The jbd2 journal of an FS (the low-level handle).",
	.tp_methods = journal_methods,
};

/* ---- Deleted ------------------------------------------------------------ */

static void deleted_dealloc(DeletedObject *self)
{
	deleted_free_copy(self);
	Py_XDECREF(self->jo);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int deleted_check(DeletedObject *self)
{
	if (journal_check(self->jo) < 0)
		return -1;
	return 0;
}

/* facts() -> dict: struct e4_deleted's fields (the inode copy's stat
 * fields under "inode_copy"), the path as every writer of the CLI shows
 * it (e4_deleted_path) and the shown names' bytes joined with '/'. */
static PyObject *deleted_facts(DeletedObject *self, PyObject *unused)
{
#define SET(k, expr) DICT_SET(r, (k), (expr), goto fail)
	const struct e4_deleted *d = &self->d;
	size_t rawlen = 0;
	PyObject *r, *o;

	(void)unused;
	for (size_t i = 0; i < d->nparts; i++)
		rawlen += d->parts[i].len + 1;
	char *raw = malloc(rawlen + 1), *shown = NULL;
	if (!raw)
		return PyErr_NoMemory();
	rawlen = 0;
	for (size_t i = 0; i < d->nparts; i++) {
		raw[rawlen++] = '/';
		memcpy(raw + rawlen, d->parts[i].name, d->parts[i].len);
		rawlen += d->parts[i].len;
	}
	raw[rawlen] = 0;
	shown = e4_deleted_path(d);
	if (!shown) {
		free(raw);
		return PyErr_NoMemory();
	}
	r = Py_BuildValue("{s:s,s:y#,s:y#,s:k,s:k,s:i,s:i,s:y#,s:N,s:N,s:k,s:N,s:N,s:N}",
			  "path", shown, "raw_path", raw, (Py_ssize_t)rawlen,
			  "name_bytes", d->nparts ? (const char *)d->parts[d->nparts - 1].name : "",
			  (Py_ssize_t)(d->nparts ? d->parts[d->nparts - 1].len : 0),
			  "parent", (unsigned long)d->parent, "inode", (unsigned long)d->ino,
			  "entry_type", (int)d->file_type, "name_state", (int)d->name_state,
			  "raw_name", (const char *)d->raw_name, (Py_ssize_t)d->raw_len,
			  "deleted_with_parent", PyBool_FromLong(d->parent_deleted),
			  "orphan", PyBool_FromLong(d->orphan),
			  "seen_sequence", (unsigned long)d->seen_sequence,
			  "deleted_sequence", d->deleted_known ?
				PyLong_FromUnsignedLong(d->deleted_sequence) : (Py_INCREF(Py_None), Py_None),
			  "still_in_use", PyBool_FromLong(d->still_in_use),
			  "have_inode", PyBool_FromLong(d->have_inode));
	free(raw);
	free(shown);
	if (!r)
		return NULL;
	if (!d->have_inode) {
		SET("no_inode_why", PyUnicode_FromString(d->no_inode_why ? d->no_inode_why : ""));
		return r;
	}
	o = PyDict_New();
	if (!o || inode_fields(o, &d->inode) < 0) {
		Py_XDECREF(o);
		goto fail;
	}
	SET("inode_copy", o);
	SET("inode_sequence", PyLong_FromUnsignedLong(d->inode_sequence));
	SET("inode_trust", PyUnicode_FromString(e4_jcopy_trust_name(d->inode_trust)));
	SET("inode_committed", PyBool_FromLong(d->inode_committed));
	SET("dtime", d->have_dtime ? PyLong_FromUnsignedLong(d->dtime) : (Py_INCREF(Py_None), Py_None));
	SET("dtime_sequence", d->have_dtime ? PyLong_FromUnsignedLong(d->dtime_sequence)
					     : (Py_INCREF(Py_None), Py_None));
	if (d->encrypted && d->have_ctx) {
		struct e4_policy_key pk;
		enum e4_status st;

		memset(&pk, 0, sizeof(pk));
		if (deleted_check(self) < 0 || fs_enter(self->jo->fs, 1) < 0)
			goto fail;
		st = e4_fs_policy_key(self->jo->fs->fs, &d->ctx, &pk);
		fs_leave(self->jo->fs);
		if (st != E4_OK)
			pk.open = 0;
		SET("encryption", policy_dict(self->jo->fs, &d->ctx, 1, &pk, 1));
	} else if (d->encrypted) {
		SET("encryption", Py_BuildValue("{s:s,s:s}", "error", "its context could not be read",
						 "state", "locked"));
	}
	return r;
fail:
	Py_DECREF(r);
	return NULL;
#undef SET
}

/* The recovery's sink: the Python writer called with (offset, bytes),
 * the GIL taken; what it raises stops the stream. */
struct sinkarg {
	PyObject *write;
	PyObject *exc;              /* the writer's exception, or NULL */
};

static int sink_to_python(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct sinkarg *s = arg;
	PyGILState_STATE g = PyGILState_Ensure();
	int stop = 0;
	PyObject *r = PyObject_CallFunction(s->write, "Ky#", (unsigned long long)off,
					    (const char *)data, (Py_ssize_t)len);

	if (r) {
		Py_DECREF(r);
	} else {
		PyObject *t, *v, *tb;
		PyErr_Fetch(&t, &v, &tb);
		PyErr_NormalizeException(&t, &v, &tb);
		if (tb && v)
			PyException_SetTraceback(v, tb);
		Py_XDECREF(t);
		Py_XDECREF(tb);
		s->exc = v;
		stop = 1;
	}
	PyGILState_Release(g);
	return stop;
}

/* recover(write, locked) -> dict: the file rebuilt (e4_recovery_open,
 * _stream) and passed to write(offset, bytes) in increasing offsets
 * (gaps are holes); its "size", "suspects" [(lblk, count, why)] and
 * "runs" [(lblk, pblk, len, unwritten)], "locked" (the ciphertext was
 * passed).  locked: the ciphertext when no key opens its policy. */
static PyObject *deleted_recover(DeletedObject *self, PyObject *args)
{
	PyObject *write;
	int locked = 0, was_locked = 0;
	struct e4_recovery *rec = NULL;
	const char *why = NULL;
	enum e4_status st;
	struct sinkarg sa = { 0 };

	if (!PyArg_ParseTuple(args, "O|p", &write, &locked))
		return NULL;
	if (deleted_check(self) < 0)
		return NULL;
	if (self->d.still_in_use || !self->d.have_inode || self->d.file_type != 1) {
		PyErr_Format(PyExc_ValueError, "inode %u: %s", self->d.ino,
			     self->d.still_in_use ? "still in use: not a deleted file" :
			     !self->d.have_inode ? (self->d.no_inode_why ? self->d.no_inode_why
									  : "no inode copy") :
			     "not a regular file");
		return NULL;
	}
	sa.write = write;
	FSObject *fs = self->jo->fs;
	CALL_BEGIN(fs, 1);
	Py_BEGIN_ALLOW_THREADS
	st = e4_recovery_open(fs->fs, self->jo->j, &self->d, 0, &rec, &why);
	if (st == E4_NO_KEY && locked) {
		was_locked = 1;
		st = e4_recovery_open(fs->fs, self->jo->j, &self->d, 1, &rec, &why);
	}
	if (st == E4_OK)
		st = e4_recovery_stream(rec, sink_to_python, &sa);
	Py_END_ALLOW_THREADS
	CALL_END(fs);
	if (sa.exc) {
		e4_recovery_free(rec);
		PyErr_SetObject((PyObject *)Py_TYPE(sa.exc), sa.exc);
		Py_DECREF(sa.exc);
		return NULL;
	}
	if (st != E4_OK) {
		e4_recovery_free(rec);
		if (!c_.have && why) {
			c_.have = 1;
			snprintf(c_.message, sizeof(c_.message), "inode %u: %s", self->d.ino, why);
		}
		return raise_status(fs, st, &c_, "recover");
	}
	const struct e4_suspect *sus;
	const struct e4_run *runs;
	size_t nsus = e4_recovery_suspects(rec, &sus), nruns = e4_recovery_runs(rec, &runs);
	PyObject *ls = PyList_New((Py_ssize_t)nsus), *lr = PyList_New((Py_ssize_t)nruns);
	PyObject *r = NULL, *x;
	int ok = ls && lr;

	for (size_t i = 0; ok && i < nsus; i++) {
		x = Py_BuildValue("(KKs)", (unsigned long long)sus[i].lblk,
				  (unsigned long long)sus[i].count, sus[i].why);
		if (!x)
			ok = 0;
		else
			PyList_SET_ITEM(ls, (Py_ssize_t)i, x);
	}
	for (size_t i = 0; ok && i < nruns; i++) {
		x = Py_BuildValue("(KKKN)", (unsigned long long)runs[i].lblk,
				  (unsigned long long)runs[i].pblk, (unsigned long long)runs[i].len,
				  PyBool_FromLong(runs[i].unwritten));
		if (!x)
			ok = 0;
		else
			PyList_SET_ITEM(lr, (Py_ssize_t)i, x);
	}
	if (ok)
		r = Py_BuildValue("{s:K,s:O,s:O,s:N}", "size",
				  (unsigned long long)e4_recovery_size(rec), "suspects", ls,
				  "runs", lr, "locked", PyBool_FromLong(was_locked));
	Py_XDECREF(ls);
	Py_XDECREF(lr);
	Py_BEGIN_ALLOW_THREADS
	e4_recovery_free(rec);
	Py_END_ALLOW_THREADS
	return r;
}

/* symlink(locked) -> (target bytes, nokey): a deleted symlink's target,
 * decrypted; locked and no key: the no-key target (nokey True). */
static PyObject *deleted_symlink(DeletedObject *self, PyObject *args)
{
	int locked = 0, nokey = 0;
	char *target = NULL;
	size_t len = 0;
	const char *why = NULL;
	enum e4_status st;

	if (!PyArg_ParseTuple(args, "|p", &locked))
		return NULL;
	if (deleted_check(self) < 0)
		return NULL;
	if (self->d.still_in_use || !self->d.have_inode || self->d.file_type != 7) {
		PyErr_Format(PyExc_ValueError, "inode %u: %s", self->d.ino,
			     self->d.still_in_use ? "still in use: not a deleted symlink" :
			     !self->d.have_inode ? "no inode copy" : "not a symlink");
		return NULL;
	}
	FSObject *fs = self->jo->fs;
	CALL_BEGIN(fs, 1);
	Py_BEGIN_ALLOW_THREADS
	st = e4_recovery_symlink(fs->fs, self->jo->j, &self->d, locked, &target, &len, &nokey,
				 &why);
	Py_END_ALLOW_THREADS
	CALL_END(fs);
	if (st != E4_OK) {
		if (!c_.have && why) {
			c_.have = 1;
			snprintf(c_.message, sizeof(c_.message), "inode %u: %s", self->d.ino, why);
		}
		return raise_status(fs, st, &c_, "readlink");
	}
	PyObject *r = Py_BuildValue("(y#N)", target, (Py_ssize_t)len, PyBool_FromLong(nokey));
	e4_wipe(target, len);
	free(target);
	return r;
}

static PyMethodDef deleted_methods[] = {
	{ "facts", (PyCFunction)deleted_facts, METH_NOARGS, "What the journal says of the entry." },
	{ "recover", (PyCFunction)deleted_recover, METH_VARARGS,
	  "Rebuild the file into write(offset, bytes)." },
	{ "symlink", (PyCFunction)deleted_symlink, METH_VARARGS, "A deleted symlink's target." },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject Deleted_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "e4dump._e4dump.Deleted",
	.tp_basicsize = sizeof(DeletedObject),
	.tp_dealloc = (destructor)deleted_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A deleted entry the journal holds (the low-level handle).",
	.tp_methods = deleted_methods,
};
