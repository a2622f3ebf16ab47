/* What the files of the _e4dump module share: the FS object, its lock
 * and the call context its errors are explained by (_e4dump.c), used by
 * the journal's objects (journal.c). */
#ifndef E4_PY_BINDING_H
#define E4_PY_BINDING_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdatomic.h>
#include "e4dump.h"

/* What a call learnt from the diagnostics of its thread: the last error,
 * for the exception's message. */
struct callctx {
	int have;
	enum e4_problem problem;
	uint32_t ino;
	char path[512];
	char message[1024];
};
extern _Thread_local struct callctx *tls_call;

typedef struct {
	PyObject_HEAD
	struct e4_fs *fs;
	struct e4_keystore *ks;
	PyThread_type_lock lock;
	atomic_ulong owner;         /* thread holding lock, or 0 */
	int closed;                 /* FS.close() was called */
	long nfiles;                /* open Files and Journals */
	int concurrent;
	PyObject *diag;             /* callable or NULL */
	PyObject *fileobj;          /* the Python file object read, or NULL */
	uint64_t fileobj_size;
	char *path;                 /* the image's path, or NULL */
	PyObject *src_exc;          /* what the Python source's read raised */
} FSObject;

/* Raise the exception of status st (GIL held), explained by the call's
 * last error; NULL. */
PyObject *raise_status(FSObject *self, enum e4_status st, const struct callctx *c,
		       const char *what);
/* The FS lock (taken with the GIL released): -1 with an exception when
 * closed (unless allow_closed) or re-entered from a callback. */
int fs_enter(FSObject *self, int allow_closed);
void fs_leave(FSObject *self);
/* Free the library's filesystem once closed and nothing holds it (nfiles:
 * open Files and Journals). */
void fs_release(FSObject *self);
/* Free handle h (a File's or a Journal's) that counts in fs->nfiles:
 * free_fn(h) under the FS lock with the GIL released, then fs freed if
 * it was closed and this was the last (GIL held). */
void fs_put_handle(FSObject *fs, void (*free_fn)(void *), void *h);
PyObject *hexstr(const uint8_t *p, size_t n);
PyObject *policy_dict(FSObject *self, const struct e4_context *ctx, int with_nonce,
		      const struct e4_policy_key *pk, int have_pk);
void *dup_mem(const void *p, size_t n);
PyObject *ts(const struct e4_timestamp *t);
/* An inode's stat fields into dict d (the walk's entries' and the deleted
 * entries' inode copies): 0, or -1 with an exception. */
int inode_fields(PyObject *d, const struct e4_inode *in);

/* Put expr (a new reference, or NULL for an error) into dict d under
 * key k; when that fails, run fail (which must leave the function). */
#define DICT_SET(d, k, expr, fail)                                     \
	do {                                                           \
		PyObject *v_ = (expr);                                 \
		if (!v_ || PyDict_SetItemString((d), (k), v_) < 0) {   \
			Py_XDECREF(v_);                                \
			fail;                                          \
		}                                                      \
		Py_DECREF(v_);                                         \
	} while (0)

/* A call on the FS: its lock, and the diagnostics of this thread caught
 * into c_ for the exception's message. */
#define CALL_BEGIN(self, allow_closed)                                     \
	struct callctx c_ = { 0 };                                         \
	if (fs_enter((self), (allow_closed)) < 0)                          \
		return NULL;                                               \
	tls_call = &c_;

#define CALL_END(self) do { tls_call = NULL; fs_leave(self); } while (0)

/* journal.c */
extern PyTypeObject Journal_Type, Deleted_Type;
PyObject *fs_journal(FSObject *self, PyObject *unused);

#endif
