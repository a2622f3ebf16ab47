/* dynlib.h: the libraries some inputs need, loaded when first needed
 * (or linked: E4DUMP_DLOPEN off). */
#define FUSE_USE_VERSION 312 /* cmd_mount.c's */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "dynlib.h"

_Static_assert(E4_DL_N == 9, "a line of libs[] and state[] for each library");

/* What is loaded, and what to install when it is not there. */
static const struct {
	const char *soname;
	const char *package;
	const char *dir; /* also tried there after the search path, or NULL */
} libs[E4_DL_N] = {
	[E4_DL_BFIO] = { "libbfio.so.1", "libbfio1", NULL },
	[E4_DL_EWF] = { "libewf.so.2", "libewf2", NULL },
	[E4_DL_QCOW] = { "libqcow.so.1", "libqcow1", NULL },
	[E4_DL_VHDI] = { "libvhdi.so.1", "libvhdi1", NULL },
	[E4_DL_VMDK] = { "libvmdk.so.1", "libvmdk1", NULL },
	[E4_DL_SMRAW] = { "libsmraw.so.1", "libsmraw1", NULL },
	/* Debian keeps Android's libraries in a private directory, which the
	 * linked tool found by its rpath */
	[E4_DL_SPARSE] = { "libsparse.so.0", "android-libsparse", E4_SPARSE_LIBDIR },
	[E4_DL_BLKID] = { "libblkid.so.1", "libblkid1", NULL },
	[E4_DL_FUSE] = { "libfuse3.so.3", "libfuse3-3", NULL },
};

void e4_dl_why(const char *so, const char *pkg, const char *err, char *why,
	       size_t whylen)
{
	static const char missing[] = ": cannot open shared object file: No such file";
	size_t n = strlen(so);

	/* dlerror: "NAME: cannot open shared object file: No such file or
	 * directory" when it is nowhere (a library it needs that is missing
	 * is named instead of it); otherwise what is wrong with it */
	if (!strncmp(err, so, n) && !strncmp(err + n, missing, sizeof(missing) - 1))
		snprintf(why, whylen, "%s not found (install the Debian package %s)", so, pkg);
	else
		snprintf(why, whylen, "%s cannot be loaded: %s (install the Debian package %s)",
			 so, err, pkg);
}

const char *e4_dl_soname(enum e4_dl_lib lib)
{
	return libs[lib].soname;
}

const char *e4_dl_package(enum e4_dl_lib lib)
{
	return libs[lib].package;
}

#if E4DUMP_DLOPEN

#include <dlfcn.h>

/* libbfio as each library uses it (dynlib.h); only the libyal ones' are
 * filled */
static struct e4_dl_bfio bfio[E4_DL_N];
static struct e4_dl_ewf ewf;
static struct e4_dl_qcow qcow;
static struct e4_dl_vhdi vhdi;
static struct e4_dl_vmdk vmdk;
static struct e4_dl_smraw smraw;
static struct e4_dl_sparse sparse;
static struct e4_dl_blkid blkid;
static struct e4_dl_fuse fuse;

/* Each library's state: written once, under its pthread_once (one
 * entry a library: E4_DL_N of them). */
static struct {
	pthread_once_t once;
	int ok;
	char why[512];
} state[E4_DL_N] = {
	{ PTHREAD_ONCE_INIT, 0, "" }, { PTHREAD_ONCE_INIT, 0, "" },
	{ PTHREAD_ONCE_INIT, 0, "" }, { PTHREAD_ONCE_INIT, 0, "" },
	{ PTHREAD_ONCE_INIT, 0, "" }, { PTHREAD_ONCE_INIT, 0, "" },
	{ PTHREAD_ONCE_INIT, 0, "" }, { PTHREAD_ONCE_INIT, 0, "" },
	{ PTHREAD_ONCE_INIT, 0, "" },
};

/* lib's handle, or NULL with state[lib].why: from the search path
 * (LD_LIBRARY_PATH, the cache), then its directory if it has one; the
 * reason is the first attempt's. */
static void *load(enum e4_dl_lib lib)
{
	const char *so = libs[lib].soname, *pkg = libs[lib].package;
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	char first[400], path[512];

	if (h)
		return h;
	snprintf(first, sizeof(first), "%s", dlerror());
	if (libs[lib].dir) {
		snprintf(path, sizeof(path), "%s/%s", libs[lib].dir, so);
		if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
			return h;
	}
	e4_dl_why(so, pkg, first, state[lib].why, sizeof(state[lib].why));
	return NULL;
}

/* name from the process's global scope (an interposer, or the library
 * linked into the host program), else from h; NULL with why. */
static void *sym(enum e4_dl_lib lib, void *h, const char *name)
{
	void *f = dlsym(RTLD_DEFAULT, name);

	if (!f)
		f = dlsym(h, name);
	if (!f)
		snprintf(state[lib].why, sizeof(state[lib].why),
			 "%s has no function %s: not the library e4dump was built for (install the Debian package %s)",
			 libs[lib].soname, name, libs[lib].package);
	return f;
}

#define GET(prefix, name) \
	if (!(t->name = (__typeof__(t->name))sym(lib, h, #prefix #name))) \
		return;
#define GET_BFIO(prefix, name) \
	if (!(b->name = (__typeof__(b->name))sym(lib, h, #prefix #name))) \
		return;

/* init_NAME: lib's table from its symbol list, under its once. */
#define LOADER(fn, table, LIB, SYMBOLS) \
	static void fn(void) \
	{ \
		enum e4_dl_lib lib = LIB; \
		__typeof__(table) *t = &table; \
		void *h = load(lib); \
		if (!h) \
			return; \
		SYMBOLS(GET) \
		state[lib].ok = 1; \
	}
/* the same for a libyal library, with libbfio as it uses it */
#define LOADER_BFIO(fn, table, LIB, SYMBOLS) \
	static void fn(void) \
	{ \
		enum e4_dl_lib lib = LIB; \
		__typeof__(table) *t = &table; \
		struct e4_dl_bfio *b = &bfio[LIB]; \
		void *h = load(lib); \
		(void)t; \
		if (!h) \
			return; \
		SYMBOLS(GET) \
		E4_DL_BFIO_SYMBOLS(GET_BFIO) \
		state[lib].ok = 1; \
	}

#define NONE(X)
LOADER_BFIO(init_bfio, bfio[E4_DL_BFIO], E4_DL_BFIO, NONE)
LOADER_BFIO(init_ewf, ewf, E4_DL_EWF, E4_DL_EWF_SYMBOLS)
LOADER_BFIO(init_qcow, qcow, E4_DL_QCOW, E4_DL_QCOW_SYMBOLS)
LOADER_BFIO(init_vhdi, vhdi, E4_DL_VHDI, E4_DL_VHDI_SYMBOLS)
LOADER_BFIO(init_vmdk, vmdk, E4_DL_VMDK, E4_DL_VMDK_SYMBOLS)
LOADER_BFIO(init_smraw, smraw, E4_DL_SMRAW, E4_DL_SMRAW_SYMBOLS)
LOADER(init_sparse, sparse, E4_DL_SPARSE, E4_DL_SPARSE_SYMBOLS)
LOADER(init_blkid, blkid, E4_DL_BLKID, E4_DL_BLKID_SYMBOLS)
LOADER(init_fuse, fuse, E4_DL_FUSE, E4_DL_FUSE_SYMBOLS)

static void (*const init[E4_DL_N])(void) = {
	[E4_DL_BFIO] = init_bfio, [E4_DL_EWF] = init_ewf, [E4_DL_QCOW] = init_qcow,
	[E4_DL_VHDI] = init_vhdi, [E4_DL_VMDK] = init_vmdk, [E4_DL_SMRAW] = init_smraw,
	[E4_DL_SPARSE] = init_sparse, [E4_DL_BLKID] = init_blkid, [E4_DL_FUSE] = init_fuse,
};

int e4_dl_need(enum e4_dl_lib lib, char *why, size_t whylen)
{
	pthread_once(&state[lib].once, init[lib]);
	if (state[lib].ok)
		return 0;
	if (why && whylen)
		snprintf(why, whylen, "%s", state[lib].why);
	return -1;
}

#define ACCESSOR(type, table, LIB) \
	const struct type *type(void) \
	{ \
		pthread_once(&state[LIB].once, init[LIB]); \
		return &table; \
	}

const struct e4_dl_bfio *e4_dl_bfio(enum e4_dl_lib lib)
{
	pthread_once(&state[lib].once, init[lib]);
	return &bfio[lib];
}

#else /* linked */

#define DIRECT(prefix, name) .name = prefix##name,

static const struct e4_dl_bfio bfio = { E4_DL_BFIO_SYMBOLS(DIRECT) };
static const struct e4_dl_ewf ewf = { E4_DL_EWF_SYMBOLS(DIRECT) };
static const struct e4_dl_qcow qcow = { E4_DL_QCOW_SYMBOLS(DIRECT) };
static const struct e4_dl_vhdi vhdi = { E4_DL_VHDI_SYMBOLS(DIRECT) };
static const struct e4_dl_vmdk vmdk = { E4_DL_VMDK_SYMBOLS(DIRECT) };
static const struct e4_dl_smraw smraw = { E4_DL_SMRAW_SYMBOLS(DIRECT) };
static const struct e4_dl_sparse sparse = { E4_DL_SPARSE_SYMBOLS(DIRECT) };
static const struct e4_dl_blkid blkid = { E4_DL_BLKID_SYMBOLS(DIRECT) };
static const struct e4_dl_fuse fuse = { E4_DL_FUSE_SYMBOLS(DIRECT) };

int e4_dl_need(enum e4_dl_lib lib, char *why, size_t whylen)
{
	(void)lib, (void)why, (void)whylen;
	return 0;
}

#define ACCESSOR(type, table, LIB) \
	const struct type *type(void) \
	{ \
		return &table; \
	}

const struct e4_dl_bfio *e4_dl_bfio(enum e4_dl_lib lib)
{
	(void)lib;
	return &bfio;
}

#endif

ACCESSOR(e4_dl_ewf, ewf, E4_DL_EWF)
ACCESSOR(e4_dl_qcow, qcow, E4_DL_QCOW)
ACCESSOR(e4_dl_vhdi, vhdi, E4_DL_VHDI)
ACCESSOR(e4_dl_vmdk, vmdk, E4_DL_VMDK)
ACCESSOR(e4_dl_smraw, smraw, E4_DL_SMRAW)
ACCESSOR(e4_dl_sparse, sparse, E4_DL_SPARSE)
ACCESSOR(e4_dl_blkid, blkid, E4_DL_BLKID)
ACCESSOR(e4_dl_fuse, fuse, E4_DL_FUSE)
