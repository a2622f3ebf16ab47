/* The libraries only some inputs need (the containers' libyal family and
 * Android's libsparse, libblkid for the partitions' filesystems, libfuse3
 * for the mount), loaded when first needed, so that a command on a raw
 * image loads what it did before they were linked.  One rule, here: each
 * library's soname, its Debian package and the functions used of it are
 * in one table (dynlib.c and the symbol lists below); its callers call
 * through the table, never the library directly.
 *
 * Built with E4DUMP_DLOPEN off, the tables hold the linked functions
 * themselves and e4_dl_need never fails: the same callers, linked as
 * before.
 *
 * With it on (the default), e4_dl_need dlopens the library (RTLD_NOW:
 * every symbol bound at once, as the link's -z now does, so that the lazy
 * binder never runs during a decryption; RTLD_LOCAL: its symbols stay
 * out of the process's scope) and resolves each function of its list;
 * a function already in the process's global scope (an LD_PRELOAD
 * interposer, or the library linked into a host program) is taken from
 * there first, as the dynamic linker would have bound it.  Loading is
 * done once per process and library (pthread_once) and is never undone;
 * the tables are written only then and read-only after: safe from any
 * thread.  A library that cannot be loaded, or lacks a function, stays
 * so for the process (the same reason each time). */
#ifndef E4_DYNLIB_H
#define E4_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>
#define LIBEWF_HAVE_BFIO
#define LIBQCOW_HAVE_BFIO
#define LIBVHDI_HAVE_BFIO
#define LIBVMDK_HAVE_BFIO
#define LIBSMRAW_HAVE_BFIO
#include <libbfio.h>
#include <libewf.h>
#include <libqcow.h>
#include <libvhdi.h>
#include <libvmdk.h>
#include <libsmraw.h>
#include <blkid/blkid.h>
#include <sparse/sparse.h>

enum e4_dl_lib {
	E4_DL_BFIO,
	E4_DL_EWF,
	E4_DL_QCOW,
	E4_DL_VHDI,
	E4_DL_VMDK,
	E4_DL_SMRAW,
	E4_DL_SPARSE,
	E4_DL_BLKID,
	E4_DL_FUSE,
	E4_DL_N
};

/* Make lib's table usable: 0, or -1 with why ("libewf.so.2 not found
 * (install the Debian package libewf2)", or why it could not be loaded
 * or which function it lacks, with the package). */
int e4_dl_need(enum e4_dl_lib lib, char *why, size_t whylen);

/* why for a library (soname so, Debian package pkg) dlopen refused with
 * err (dlerror's text): "so not found (install the Debian package pkg)"
 * when it is nowhere, else "so cannot be loaded: err (install ...)".
 * (Apart for the tests: a library cannot be made missing.) */
void e4_dl_why(const char *so, const char *pkg, const char *err, char *why,
	       size_t whylen);

/* The library's soname and Debian package (messages, tests). */
const char *e4_dl_soname(enum e4_dl_lib lib);
const char *e4_dl_package(enum e4_dl_lib lib);

/* The functions used of each library, X(prefix, name): the table's
 * member name is the function's name without its prefix, and its type
 * the header's own declaration (__typeof__), so a signature cannot be
 * mistyped here. */
#define E4_DL_BFIO_SYMBOLS(X) \
	X(libbfio_, handle_initialize) X(libbfio_, handle_open) \
	X(libbfio_, handle_free) X(libbfio_, handle_get_io_handle) \
	X(libbfio_, pool_initialize) X(libbfio_, pool_set_handle) \
	X(libbfio_, pool_free) X(libbfio_, pool_get_number_of_handles) \
	X(libbfio_, pool_get_handle) X(libbfio_, pool_get_size)
/* (and of the libraries that carry libbfio, the same list: e4_dl_bfio) */

#define E4_DL_EWF_SYMBOLS(X) \
	X(libewf_, error_backtrace_sprint) X(libewf_, error_free) \
	X(libewf_, glob) X(libewf_, glob_free) \
	X(libewf_, handle_initialize) X(libewf_, handle_open_file_io_pool) \
	X(libewf_, handle_close) X(libewf_, handle_free) \
	X(libewf_, handle_read_random) X(libewf_, handle_get_media_size) \
	X(libewf_, handle_segment_files_corrupted) \
	X(libewf_, handle_get_bytes_per_sector) X(libewf_, handle_get_sectors_per_chunk) \
	X(libewf_, handle_get_number_of_checksum_errors) \
	X(libewf_, handle_get_checksum_error) \
	X(libewf_, handle_get_utf8_hash_value_size) X(libewf_, handle_get_utf8_hash_value) \
	X(libewf_, handle_get_number_of_header_values) \
	X(libewf_, handle_get_header_value_identifier_size) \
	X(libewf_, handle_get_header_value_identifier) \
	X(libewf_, handle_get_utf8_header_value_size) \
	X(libewf_, handle_get_utf8_header_value)

#define E4_DL_QCOW_SYMBOLS(X) \
	X(libqcow_, error_backtrace_sprint) X(libqcow_, error_free) \
	X(libqcow_, file_initialize) X(libqcow_, file_open_file_io_handle) \
	X(libqcow_, file_close) X(libqcow_, file_free) \
	X(libqcow_, file_read_buffer_at_offset) X(libqcow_, file_get_media_size) \
	X(libqcow_, file_get_utf8_backing_filename_size)

#define E4_DL_VHDI_SYMBOLS(X) \
	X(libvhdi_, error_backtrace_sprint) X(libvhdi_, error_free) \
	X(libvhdi_, file_initialize) X(libvhdi_, file_open_file_io_handle) \
	X(libvhdi_, file_close) X(libvhdi_, file_free) \
	X(libvhdi_, file_read_buffer_at_offset) X(libvhdi_, file_get_media_size) \
	X(libvhdi_, file_get_disk_type)

#define E4_DL_VMDK_SYMBOLS(X) \
	X(libvmdk_, error_backtrace_sprint) X(libvmdk_, error_free) \
	X(libvmdk_, handle_initialize) X(libvmdk_, handle_open_file_io_handle) \
	X(libvmdk_, handle_open_extent_data_files_file_io_pool) \
	X(libvmdk_, handle_close) X(libvmdk_, handle_free) \
	X(libvmdk_, handle_read_buffer_at_offset) X(libvmdk_, handle_get_media_size) \
	X(libvmdk_, handle_get_utf8_parent_filename_size) \
	X(libvmdk_, handle_get_number_of_extents) X(libvmdk_, handle_get_extent_descriptor) \
	X(libvmdk_, extent_descriptor_free) X(libvmdk_, extent_descriptor_get_type) \
	X(libvmdk_, extent_descriptor_get_utf8_filename_size) \
	X(libvmdk_, extent_descriptor_get_utf8_filename)

#define E4_DL_SMRAW_SYMBOLS(X) \
	X(libsmraw_, error_backtrace_sprint) X(libsmraw_, error_free) \
	X(libsmraw_, glob) X(libsmraw_, glob_free) \
	X(libsmraw_, handle_initialize) X(libsmraw_, handle_open_file_io_pool) \
	X(libsmraw_, handle_close) X(libsmraw_, handle_free) \
	X(libsmraw_, handle_read_buffer_at_offset) X(libsmraw_, handle_get_media_size)

#define E4_DL_SPARSE_SYMBOLS(X) \
	X(sparse_, file_import) X(sparse_, file_destroy)

#define E4_DL_BLKID_SYMBOLS(X) \
	X(blkid_, new_probe) X(blkid_, free_probe) X(blkid_, probe_set_device) \
	X(blkid_, probe_enable_superblocks) X(blkid_, probe_set_superblocks_flags) \
	X(blkid_, do_safeprobe) X(blkid_, probe_lookup_value)

#define E4_DL_FUSE_SYMBOLS(X) \
	X(fuse_, req_userdata) X(fuse_, req_ctx) X(fuse_, reply_err) \
	X(fuse_, reply_entry) X(fuse_, reply_attr) X(fuse_, reply_readlink) \
	X(fuse_, reply_open) X(fuse_, reply_buf) X(fuse_, reply_xattr) \
	X(fuse_, reply_statfs) X(fuse_, add_direntry) \
	X(fuse_, opt_add_arg) X(fuse_, opt_free_args) \
	X(fuse_, session_new) X(fuse_, session_mount) X(fuse_, session_loop_mt) \
	X(fuse_, loop_cfg_create) X(fuse_, loop_cfg_destroy) X(fuse_, loop_cfg_set_max_threads) \
	X(fuse_, session_unmount) X(fuse_, session_destroy) \
	X(fuse_, set_signal_handlers) X(fuse_, remove_signal_handlers) \
	X(fuse_, daemonize)

#define E4_DL_FIELD(prefix, name) __typeof__(prefix##name) *name;

/* Each table, after e4_dl_need(its library) returned 0 (before, its
 * members are NULL). */
struct e4_dl_bfio { E4_DL_BFIO_SYMBOLS(E4_DL_FIELD) };
struct e4_dl_ewf { E4_DL_EWF_SYMBOLS(E4_DL_FIELD) };
struct e4_dl_qcow { E4_DL_QCOW_SYMBOLS(E4_DL_FIELD) };
struct e4_dl_vhdi { E4_DL_VHDI_SYMBOLS(E4_DL_FIELD) };
struct e4_dl_vmdk { E4_DL_VMDK_SYMBOLS(E4_DL_FIELD) };
struct e4_dl_smraw { E4_DL_SMRAW_SYMBOLS(E4_DL_FIELD) };
struct e4_dl_sparse { E4_DL_SPARSE_SYMBOLS(E4_DL_FIELD) };
struct e4_dl_blkid { E4_DL_BLKID_SYMBOLS(E4_DL_FIELD) };

/* libbfio as lib uses it (E4_DL_BFIO: libbfio.so.1 itself).  Debian's
 * libewf, libqcow and libvhdi each carry a copy of libbfio of their own,
 * which they export; libvmdk and libsmraw use libbfio.so.1.  The handles
 * given to a library must be made by its own copy (the copies' handles
 * differ), so each library's is resolved from it.  (Linked, every
 * libbfio_ symbol binds to the first library of the link that exports
 * it, libewf's copy, for e4dump and the libraries alike.) */
const struct e4_dl_bfio *e4_dl_bfio(enum e4_dl_lib lib);
const struct e4_dl_ewf *e4_dl_ewf(void);
const struct e4_dl_qcow *e4_dl_qcow(void);
const struct e4_dl_vhdi *e4_dl_vhdi(void);
const struct e4_dl_vmdk *e4_dl_vmdk(void);
const struct e4_dl_smraw *e4_dl_smraw(void);
const struct e4_dl_sparse *e4_dl_sparse(void);
const struct e4_dl_blkid *e4_dl_blkid(void);

/* The tables as the callers name them. */
#define E4_EWF (e4_dl_ewf())
#define E4_QCOW (e4_dl_qcow())
#define E4_VHDI (e4_dl_vhdi())
#define E4_VMDK (e4_dl_vmdk())
#define E4_SMRAW (e4_dl_smraw())
#define E4_SPARSE (e4_dl_sparse())
#define E4_BLKID (e4_dl_blkid())

/* libfuse3's table, for the mount (which includes fuse_lowlevel.h with
 * its FUSE_USE_VERSION first; dynlib.c uses the same version). */
#ifdef FUSE_USE_VERSION
#include <fuse_lowlevel.h>
struct e4_dl_fuse { E4_DL_FUSE_SYMBOLS(E4_DL_FIELD) };
const struct e4_dl_fuse *e4_dl_fuse(void);
#define E4_FUSE (e4_dl_fuse())
#endif

#endif
