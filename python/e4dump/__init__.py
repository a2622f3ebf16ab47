"""e4dump: read fscrypt-encrypted ext4 images, offline and read-only.

The Python face of libe4dump (the library of the e4dump tool).  Open an
image (a path, or any Python file object with read and seek) with master
keys, walk its tree with the names decrypted, and read its files
decrypted, with random access::

    import hashlib, e4dump
    with e4dump.open("disk.img", key_files=["master.key"]) as fs:
        for e in fs.walk("/"):
            if e.is_file() and not e.locked:
                with fs.open(e) as f:
                    print(hashlib.sha256(f.read()).hexdigest(), e.path)

An Entry has the fields of the CLI's JSON "entry" record
(schema/e4dump-records.schema.json); Entry.record() gives that record.
Errors are e4dump.Error (with .status, .problem, .ino, .path), of a
subclass by status: NotFoundError, NoKeyError, CorruptError, ...

Diagnostics of the library (which key opened what, damage met) go to the
logging module (logger "e4dump") unless open(..., diag=CALLABLE) takes
them as Diagnostic tuples (diag=False drops them).

Threads: the GIL is released while the library reads and decrypts.
Files opened in several threads read in parallel when the image is a
file or a block device (not over a Python file object, which is read in
one thread at a time).  One File object is read by one thread at a time.
"""

import collections
import datetime
import enum
import io
import logging
import os

from . import _e4dump

__all__ = ["open", "FS", "Entry", "File", "Journal", "Transaction", "JournalCopy",
           "Deleted", "Recovery", "Error", "Status", "Problem",
           "Diagnostic", "NotFoundError", "NotADirError", "NoKeyError",
           "CorruptError", "ImageIOError", "LimitError", "InvalidError"]


class Status(enum.IntEnum):
    """enum e4_status (e4status.h)."""
    OK = 0
    CORRUPT = 1
    UNRECOGNIZED = 2
    UNSUPPORTED = 3
    BAD_KEY = 4
    CRYPTO = 5
    NOMEM = 6
    IO = 7
    NO_KEY = 8
    NOT_FOUND = 9
    NOT_DIR = 10
    LIMIT = 11
    INVALID = 12
    STOPPED = 13


class Problem(enum.IntEnum):
    """enum e4_problem (fs.h): what a diagnostic is about."""
    OTHER = 0
    DIR_BLOCK = 1
    DIR_LOOP = 2
    DIR_RELINK = 3
    DEPTH = 4
    NAME = 5
    DUP_NAME = 6
    UNUSED_INODE = 7
    BLOCK_MAP = 8
    INODE = 9
    INODE_SIZE = 10
    CONTEXT = 11
    NO_KEY = 12
    SHORT = 13


class Level(enum.IntEnum):
    """enum e4_diag_level (fs.h)."""
    INFO = 0
    NOTE = 1
    WARNING = 2
    ERROR = 3


assert _e4dump.STATUS_LAST == max(Status), "Status out of step with e4status.h"
assert _e4dump.PROBLEM_LAST == max(Problem), "Problem out of step with fs.h"

Diagnostic = collections.namedtuple(
    "Diagnostic", "level status problem ino path message")
Diagnostic.__doc__ = """One diagnostic of the library (struct e4_diag): level
(Level), status (Status), problem (Problem), ino (0: none), path (display
form, or None) and message (for humans; never key bytes)."""


class Error(Exception):
    """An error of the library: status (Status), problem (Problem), ino
    and path of the diagnostic that explained it (0 / None when none)."""

    def __init__(self, message, status=Status.INVALID, problem=Problem.OTHER,
                 ino=0, path=None):
        super().__init__(message)
        self.status = Status(status)
        self.problem = Problem(problem)
        self.ino = ino
        self.path = path


class NotFoundError(Error, FileNotFoundError):
    """E4_NOT_FOUND: no such entry."""


class NotADirError(Error, NotADirectoryError):
    """E4_NOT_DIR: a directory was expected."""


class NoKeyError(Error, PermissionError):
    """E4_NO_KEY: no given key opens the policy (it stays locked)."""


class CorruptError(Error):
    """E4_CORRUPT / E4_UNRECOGNIZED: the image is not what a kernel wrote."""


class ImageIOError(Error, OSError):
    """E4_IO: the image could not be read."""


class LimitError(Error):
    """E4_LIMIT: a safety limit was reached (depth, entries, size)."""


class InvalidError(Error, ValueError):
    """E4_INVALID: a bad argument (not a regular file, not a symlink)."""


class BadKeyError(Error, ValueError):
    """E4_BAD_KEY: a key of the wrong size or form."""


_ERRORS = {
    Status.NOT_FOUND: NotFoundError, Status.NOT_DIR: NotADirError,
    Status.NO_KEY: NoKeyError, Status.CORRUPT: CorruptError,
    Status.UNRECOGNIZED: CorruptError, Status.IO: ImageIOError,
    Status.LIMIT: LimitError, Status.INVALID: InvalidError,
    Status.BAD_KEY: BadKeyError,
}


def _make_error(status, problem, message, ino, path):
    cls = _ERRORS.get(status, Error)
    e = cls.__new__(cls, message)
    Error.__init__(e, message, status, problem if problem in
                   Problem._value2member_map_ else 0, ino, path)
    return e


_e4dump._set_error_factory(_make_error)

_log = logging.getLogger("e4dump")
_LOG_LEVELS = {0: logging.INFO, 1: logging.INFO, 2: logging.WARNING,
               3: logging.ERROR}


def _diag_to_logging(level, status, problem, ino, path, message):
    _log.log(_LOG_LEVELS.get(level, logging.ERROR), "%s%s", 
             f"{path}: " if path else "", message)


def _diag_to_callable(fn):
    def deliver(level, status, problem, ino, path, message):
        fn(Diagnostic(Level(level), Status(status),
                      Problem(problem) if problem in Problem._value2member_map_
                      else problem, ino, path, message))
    return deliver


def open(source, keys=(), key_files=(), passphrase=None, partition=None,
         offset=None, *, salt=None, diag=None, size=None):
    """Open an ext4 image read-only and return an FS (a context manager).

    source: a path (str, bytes or os.PathLike) of a raw image, block
    device or container (E01, qcow2, VMDK, VHD/VHDX, split raw, Android
    sparse), or a Python file object with read() and seek() (its size
    from seek(0, 2) unless size= is given); its volume is chosen as the
    CLI does (the disk when it is ext4, else its only ext4 partition), or
    by partition=N (1-based, as Linux numbers them) or offset=BYTES.

    keys: master keys as bytes-like (raw, 16..64 bytes) or str (a key
    file's text: hex, or the HKDF states form of e4dump.1).  key_files:
    paths of key files.  passphrase: an e4crypt passphrase (str or
    bytes; the superblock's salt, or salt=).  The library wipes its
    copies of every key; pass a bytearray and clear it to wipe yours.

    diag: None (the logging module, logger "e4dump"), a callable taking
    a Diagnostic, or False (dropped).
    """
    if diag is None:
        dfn = _diag_to_logging
    elif diag is False:
        dfn = None
    else:
        dfn = _diag_to_callable(diag)
    kw = {}
    if partition is not None:
        kw["partition"] = int(partition)
    if offset is not None:
        kw["offset"] = int(offset)
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if isinstance(source, (str, bytes)):
        sz = 0
    else:
        if not (hasattr(source, "read") and hasattr(source, "seek")):
            raise TypeError("source must be a path or a file object with read and seek")
        if size is None:
            size = source.seek(0, 2)
            if size is None:
                size = source.tell()
        sz = int(size)
    c = _e4dump.open(source, sz, keys=list(keys), key_files=[os.fspath(k) for k in key_files],
                     passphrase=passphrase, salt=salt, diag=dfn, **kw)
    return FS(c, source)


_FT_BY_MODE = {0o140000: "socket", 0o120000: "symlink", 0o100000: "regular",
               0o060000: "blockdev", 0o040000: "directory", 0o020000: "chardev",
               0o010000: "fifo"}
_FT_BY_ENTRY = {1: "regular", 2: "directory", 3: "chardev", 4: "blockdev",
                5: "fifo", 6: "socket", 7: "symlink"}
_NAME_STATES = {0: "plain", 1: "decrypted", 2: "no-key", 3: "bad"}
# i_flags by fs/ext4/ext4.h's names (tool/record.c's table)
_INODE_FLAGS = [
    (0x00000001, "SECRM"), (0x00000002, "UNRM"), (0x00000004, "COMPR"),
    (0x00000008, "SYNC"), (0x00000010, "IMMUTABLE"), (0x00000020, "APPEND"),
    (0x00000040, "NODUMP"), (0x00000080, "NOATIME"), (0x00000100, "DIRTY"),
    (0x00000200, "COMPRBLK"), (0x00000400, "NOCOMPR"), (0x00000800, "ENCRYPT"),
    (0x00001000, "INDEX"), (0x00002000, "IMAGIC"), (0x00004000, "JOURNAL_DATA"),
    (0x00008000, "NOTAIL"), (0x00010000, "DIRSYNC"), (0x00020000, "TOPDIR"),
    (0x00040000, "HUGE_FILE"), (0x00080000, "EXTENTS"), (0x00100000, "VERITY"),
    (0x00200000, "EA_INODE"), (0x02000000, "DAX"), (0x10000000, "INLINE_DATA"),
    (0x20000000, "PROJINHERIT"), (0x40000000, "CASEFOLD"),
]
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _iso(t):
    if t is None:
        return None
    sec, nsec = t
    d = _EPOCH + datetime.timedelta(seconds=sec)
    return f"{d.year:04d}-{d:%m-%dT%H:%M:%S}.{nsec:09d}Z"


def _flag_names(flags):
    out = []
    for bit, name in _INODE_FLAGS:
        if flags & bit:
            out.append(name)
            flags &= ~bit
    out += [f"0x{1 << b:08x}" for b in range(32) if flags & (1 << b)]
    return out


class Entry:
    """An entry of the image: a walk's or listing's item, or stat()'s.

    Fields (the names of the JSON "entry" record): path (display form, as
    the CLI prints it), name, inode, name_state ("plain", "decrypted",
    "no-key", "bad"; None for a path given itself), raw_name (the stored
    name's bytes), file_type, mode (permission bits), st_mode, uid, gid,
    links, size (what lstat gives: a symlink's target length), atime,
    mtime, ctime, crtime (UTC strings with nanoseconds; crtime None
    without room for it) and atime_ns ... crtime_ns (integers), dtime,
    orphan_next, allocated, flags (i_flags names), i_flags, encrypted,
    encryption (the policy dict: versions, modes, flags, descriptor or
    identifier, nonce, key, key_how, state; None when not encrypted),
    policy (the same), nonce (hex, or None), locked, target (a symlink's
    target as bytes: decrypted, or the kernel's no-key form when
    locked), error (why the inode could not be read, or None), and
    xattrs (read on first use).  name_bytes is the shown name's bytes
    (what lookups take); raw_path the shown names joined with "/".
    """

    __slots__ = ("_fs", "path", "raw_path", "name", "name_bytes", "inode",
                 "name_state", "raw_name", "file_type", "mode", "st_mode", "uid",
                 "gid", "links", "size", "i_size", "atime", "mtime", "ctime",
                 "crtime", "atime_ns", "mtime_ns", "ctime_ns", "crtime_ns",
                 "dtime", "orphan_next", "allocated", "flags", "i_flags",
                 "encrypted", "encryption", "target", "error", "generation",
                 "_xattrs")

    def __init__(self, fs, d, raw_path):
        self._fs = fs
        self._xattrs = None
        self.path = d["path"]
        self.raw_path = raw_path
        self.inode = d["inode"]
        nb = d.get("name_bytes")
        self.name_bytes = nb
        if nb is not None:
            self.name = os.fsdecode(nb)
            self.name_state = _NAME_STATES.get(d["name_state"])
            self.raw_name = d["raw_name"]
        else:
            self.name = self.path if self.path in ("/",) or self.path.startswith("<") \
                else self.path.rsplit("/", 1)[-1]
            self.name_state = None
            self.raw_name = None
        if "i_mode" not in d:
            self.error = ("inode not in use" if d.get("inode_status") == Status.NOT_FOUND
                          else "inode unreadable: " + _e4dump.status_str(d.get("inode_status", 7)))
            ft = d.get("entry_type")
            self.file_type = _FT_BY_ENTRY.get(ft, "unknown") if ft is not None else None
            for k in ("mode", "st_mode", "uid", "gid", "links", "size", "i_size",
                      "atime", "mtime", "ctime", "crtime", "atime_ns", "mtime_ns",
                      "ctime_ns", "crtime_ns", "dtime", "orphan_next", "allocated",
                      "flags", "i_flags", "encrypted", "encryption", "target",
                      "generation"):
                setattr(self, k, None)
            return
        self.error = None
        m = d["i_mode"]
        self.st_mode = m
        self.mode = m & 0o7777
        self.file_type = _FT_BY_MODE.get(m & 0o170000, "unknown")
        self.uid, self.gid, self.links = d["uid"], d["gid"], d["links"]
        self.size, self.i_size = d["size"], d["i_size"]
        for k in ("atime", "mtime", "ctime", "crtime"):
            t = d.get(k)
            setattr(self, k, _iso(t))
            setattr(self, k + "_ns", None if t is None else t[0] * 1_000_000_000 + t[1])
        self.dtime = d["dtime"] or None
        self.orphan_next = d["orphan_next"] or None
        a = d["allocated"]
        self.allocated = None if a < 0 else bool(a)
        self.i_flags = d["i_flags"]
        self.flags = _flag_names(d["i_flags"])
        self.encrypted = d["encrypted"]
        self.encryption = d.get("encryption")
        self.target = d.get("target")
        self.generation = d["generation"]

    @property
    def policy(self):
        """The encryption policy (the same dict as encryption), or None."""
        return self.encryption

    @property
    def nonce(self):
        """The inode's 16-byte nonce in hex, or None."""
        return (self.encryption or {}).get("nonce")

    @property
    def locked(self):
        """Encrypted under a policy no given key opens (or unreadable)."""
        return bool(self.encrypted) and (self.encryption or {}).get("state") != "decrypted"

    @property
    def xattrs(self):
        """The extended attributes Linux lists: {name: bytes} (read once)."""
        if self._xattrs is None:
            self._xattrs = {x["name"]: x.get("value") for x in
                            self._fs.xattrs(self.inode) if x["listed"]}
        return self._xattrs

    def is_dir(self):
        """A directory (by its inode)."""
        return self.file_type == "directory"

    def is_file(self):
        """A regular file (by its inode)."""
        return self.file_type == "regular"

    def is_symlink(self):
        """A symbolic link (by its inode)."""
        return self.file_type == "symlink"

    def record(self):
        """This entry as the CLI's JSON "entry" record (a dict, without the
        xattrs unless they were read)."""
        r = {"type": "entry", "path": self.path, "name": self.name, "inode": self.inode}
        if self.name_state is not None:
            r["name_state"] = self.name_state
            r["raw_name_hex"] = self.raw_name.hex()
        if self.error:
            r["error"] = self.error
            return r
        r.update(file_type=self.file_type, mode=f"0{self.mode:o}" if self.mode > 0o777
                 else f"0{self.mode:03o}", uid=self.uid, gid=self.gid, links=self.links,
                 size=self.size, atime=self.atime, mtime=self.mtime, ctime=self.ctime,
                 crtime=self.crtime, dtime=_iso((self.dtime, 0)) if self.dtime else None,
                 orphan_next=self.orphan_next, allocated=self.allocated,
                 flags=self.flags, encrypted=self.encrypted)
        if self.encrypted:
            enc = {k: v for k, v in (self.encryption or {}).items()
                   if k not in ("key_index", "flags")}
            if self.encryption and "flags" in self.encryption:
                enc["flags"] = self.encryption["flags"].split("|")
            r["encryption"] = enc
        else:
            r["encryption"] = None
        if self.target is not None:
            r["target"] = self.target.decode("utf-8", "backslashreplace")
        if self._xattrs is not None:
            r["xattrs"] = [{"name": k, "value_hex": v.hex()} for k, v in self._xattrs.items()
                           if v is not None]
        return r

    def __repr__(self):
        return f"<e4dump.Entry {self.path!r} inode {self.inode} {self.file_type}>"


class File(io.RawIOBase):
    """A regular file of the image, decrypted (or its stored ciphertext
    when opened with raw=True): read, readinto, seek, tell, pread; random
    access at any offset.  Holes read as zeros.  Keeps its FS open."""

    def __init__(self, fs, handle, path):
        super().__init__()
        self._fs = fs
        self._h = handle
        self._pos = 0
        self.name = path

    @property
    def size(self):
        """The file's size (i_size)."""
        return self._h.size

    def readable(self):
        return True

    def seekable(self):
        return True

    def readinto(self, b):
        """Read into the writable buffer b at the position; the count."""
        self._checkClosed()
        n = self._h.preadinto(self._pos, b)
        self._pos += n
        return n

    def read(self, n=-1):
        """Up to n bytes (all to the end when n is negative or None)."""
        self._checkClosed()
        if n is None or n < 0:
            n = max(self._h.size - self._pos, 0)
        data = self._h.pread(self._pos, n)
        self._pos += len(data)
        return data

    def readall(self):
        """The rest of the file."""
        return self.read(-1)

    def pread(self, offset, n):
        """Up to n bytes at offset, leaving the position alone (safe to call
        from several threads on one File, which then take turns)."""
        self._checkClosed()
        return self._h.pread(offset, n)

    def seek(self, offset, whence=io.SEEK_SET):
        """Move the position (SEEK_SET, SEEK_CUR, SEEK_END); the new one."""
        self._checkClosed()
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self._h.size + offset
        else:
            raise ValueError(f"invalid whence ({whence})")
        if pos < 0:
            raise ValueError(f"negative seek position {pos}")
        self._pos = pos
        return pos

    def tell(self):
        """The position."""
        self._checkClosed()
        return self._pos

    def close(self):
        """Close the handle (the FS is closed for good once its last File is)."""
        if not self.closed:
            self._h.close()
        super().close()

    def __repr__(self):
        return f"<e4dump.File {self.name!r} size {self.size}>"


JournalCopy = collections.namedtuple("JournalCopy", "block journal_block trust index escaped")
JournalCopy.__doc__ = """A copy of filesystem block `block` that a transaction
holds at `journal_block` of the journal: trust ("verified": its tag
checksum matches; "committed": its transaction committed, no checksum to
check; "uncommitted"), index (for Journal.read_copy) and escaped (jbd2
replaced its first four bytes, which read_copy puts back)."""

Recovery = collections.namedtuple("Recovery", "size suspects runs locked data")
Recovery.__doc__ = """What Deleted.recover() rebuilt: size (bytes passed:
i_size, or whole blocks of ciphertext when locked), suspects (ranges of
logical blocks whose bytes cannot be trusted: (lblk, count, why)), runs
(the block map used: (lblk, pblk, len, unwritten)), locked (the
ciphertext was written: no key opens its policy) and data (the bytes,
when no writer was given; else None).  undelete calls a file "exact"
when it has no suspects and nothing else is in doubt (Deleted's
inode_committed, orphan, name_state)."""


class Transaction:
    """A jbd2 transaction still in the log (the CLI's journal "transaction"
    record): sequence, age (its distance from the superblock's sequence:
    the order), committed, commit_time (UTC string) and commit_time_ns,
    commit_checksum (None: none stored, True/False: it matches or not),
    live (in the log the kernel would replay), descriptors,
    bad_descriptor_blocks, overwritten (copies a newer transaction took
    the journal block of), bad_checksums, blocks (JournalCopy list, in
    tag order) and revoked (the filesystem blocks it revoked)."""

    __slots__ = ("sequence", "age", "committed", "commit_time", "commit_time_ns",
                 "commit_checksum", "live", "descriptors", "bad_descriptor_blocks",
                 "overwritten", "bad_checksums", "blocks", "revoked")

    def __init__(self, d):
        for k in ("sequence", "age", "committed", "live", "descriptors",
                  "bad_descriptor_blocks", "overwritten", "bad_checksums", "revoked"):
            setattr(self, k, d[k])
        t = d["commit_time"]
        self.commit_time = _iso(t)
        self.commit_time_ns = None if t is None else t[0] * 1_000_000_000 + t[1]
        self.commit_checksum = {0: None, 1: True, -1: False}[d["commit_checksum"]]
        self.blocks = [JournalCopy(*b) for b in d["blocks"]]

    def __repr__(self):
        return (f"<e4dump.Transaction {self.sequence} "
                f"{'committed' if self.committed else 'uncommitted'} "
                f"{len(self.blocks)} blocks>")


class Journal:
    """The filesystem's jbd2 journal (FS.journal()): every transaction whose
    blocks are still in its area, live or past the live log, and the
    entries deleted that its copies of directory blocks still name.  A
    context manager; it keeps its FS open until closed."""

    def __init__(self, fs, h):
        self._fs = fs
        self._h = h

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Free the journal (its Deleted entries can no longer recover)."""
        self._h.close()

    def info(self):
        """The journal superblock's facts (the CLI's "journal" record names):
        inode, version, block_size, blocks, first, log_end, sequence,
        start, superblock_checksum (0 none, 1 matches, -1 not),
        transactions, copies, unreadable_blocks and the feature words."""
        return self._h.info()

    def transactions(self):
        """The Transactions, oldest first."""
        return [Transaction(d) for d in self._h.transactions()]

    def read_copy(self, copy):
        """The bytes of a JournalCopy (or its index): the filesystem block as
        the transaction logged it."""
        return self._h.read_copy(copy.index if isinstance(copy, JournalCopy) else int(copy))

    def deleted(self, path="/"):
        """The entries deleted from directory path and below it (a list of
        Deleted, parents before what was deleted with them; from the root
        also the freed inodes no name was found for, as orphans)."""
        ino, _, _ = self._fs._resolve(path)
        return [Deleted(self, h) for h in self._h.deleted(ino)]

    def __repr__(self):
        return f"<e4dump.Journal of {self._fs!r}>"


class Deleted:
    """A deleted entry as the journal's copies give it (undelete's record):
    path (as the CLI's records show it: "/a/b", names escaped, an orphan
    "/$OrphanFiles/OrphanFile-INO"), raw_path (the shown names' bytes
    joined with "/"), name, name_bytes, inode, parent, file_type (of the
    entry), name_state, raw_name, orphan (no copy holds its name: named
    "<INODE>"), deleted_with_parent, seen_sequence (newest transaction
    holding the name), deleted_sequence (the transaction without it, or
    None), still_in_use (renamed or another link remains: not a deleted
    file), recoverable (an inode copy from before the deletion was
    found), why_not (when not), and from that inode copy: inode_sequence,
    inode_trust, inode_committed, mode, st_mode, uid, gid, links, size
    (what lstat gave: a symlink's target length), i_size, atime ... crtime (and _ns), dtime (the freeing time, or None) with
    dtime_sequence, flags, encrypted and encryption (its policy, with the
    key that opens it)."""

    __slots__ = ("_j", "_h", "path", "raw_path", "name", "name_bytes", "inode",
                 "parent", "file_type", "name_state", "raw_name", "orphan",
                 "deleted_with_parent", "seen_sequence", "deleted_sequence",
                 "still_in_use", "recoverable", "why_not", "inode_sequence",
                 "inode_trust", "inode_committed", "mode", "st_mode", "uid", "gid",
                 "links", "size", "i_size", "atime", "mtime", "ctime", "crtime", "atime_ns",
                 "mtime_ns", "ctime_ns", "crtime_ns", "dtime", "dtime_sequence",
                 "flags", "i_flags", "encrypted", "encryption")

    def __init__(self, journal, h):
        self._j = journal
        self._h = h
        d = h.facts()
        self.path, self.raw_path = d["path"], d["raw_path"]
        self.name_bytes = d["name_bytes"]
        self.name = os.fsdecode(self.name_bytes)
        self.inode, self.parent = d["inode"], d["parent"]
        self.file_type = _FT_BY_ENTRY.get(d["entry_type"], "unknown")
        self.name_state = _NAME_STATES.get(d["name_state"])
        self.raw_name = d["raw_name"]
        for k in ("orphan", "deleted_with_parent", "seen_sequence", "deleted_sequence",
                  "still_in_use"):
            setattr(self, k, d[k])
        self.recoverable = d["have_inode"] and not d["still_in_use"]
        self.why_not = d.get("no_inode_why") or None
        c = d.get("inode_copy")
        for k in self.__slots__[self.__slots__.index("inode_sequence"):]:
            setattr(self, k, None)
        if c is None:
            return
        self.inode_sequence, self.inode_trust = d["inode_sequence"], d["inode_trust"]
        self.inode_committed = d["inode_committed"]
        self.st_mode = c["i_mode"]
        self.mode = c["i_mode"] & 0o7777
        self.uid, self.gid, self.links = c["uid"], c["gid"], c["links"]
        self.size = self.i_size = c["i_size"]
        if self.recoverable and self.file_type == "symlink":
            # what lstat gives: the target's length (decrypted, or its
            # no-key form), not the stored bytes' i_size
            try:
                self.size = len(h.symlink(True)[0])
            except Error:
                pass
        for k in ("atime", "mtime", "ctime", "crtime"):
            t = c.get(k)
            setattr(self, k, _iso(t))
            setattr(self, k + "_ns", None if t is None else t[0] * 1_000_000_000 + t[1])
        self.dtime, self.dtime_sequence = d["dtime"], d["dtime_sequence"]
        self.i_flags = c["i_flags"]
        self.flags = _flag_names(c["i_flags"])
        self.encrypted = c["encrypted"]
        self.encryption = d.get("encryption")

    @property
    def locked(self):
        """Encrypted under a policy no given key opens."""
        return bool(self.encrypted) and (self.encryption or {}).get("state") != "decrypted"

    def recover(self, out=None, locked=False):
        """Rebuild a deleted regular file: its block map from the journal's
        inode and extent-tree copies, its data blocks read where they still
        are in the image, decrypted.  out: a writable binary file object
        (seekable ones get holes by seeking) or None (Recovery.data holds
        the bytes).  locked=True writes the ciphertext when no key opens
        it (else NoKeyError).  ValueError when it is not a recoverable
        regular file.  Returns a Recovery."""
        buf = io.BytesIO() if out is None else out
        seekable = out is None or (hasattr(out, "seekable") and out.seekable())
        base = buf.tell() if seekable else 0
        pos = [0]

        def write(off, data):
            if off > pos[0]:
                if seekable:
                    buf.seek(base + off)
                else:
                    _write_zeros(buf, off - pos[0])
            buf.write(data)
            pos[0] = off + len(data)

        r = self._h.recover(write, bool(locked))
        if pos[0] < r["size"]:
            # a hole at the end
            if seekable:
                buf.seek(base + r["size"])
                buf.truncate()
            else:
                _write_zeros(buf, r["size"] - pos[0])
        return Recovery(r["size"], r["suspects"], r["runs"], r["locked"],
                        buf.getvalue() if out is None else None)

    def read(self, locked=False):
        """The recovered bytes (recover() into memory): the Recovery's data."""
        return self.recover(None, locked).data

    def readlink(self, locked=False):
        """A deleted symlink's target (bytes), decrypted; with locked=True
        and no key, the kernel's no-key form (and no NoKeyError)."""
        return self._h.symlink(bool(locked))[0]

    def __repr__(self):
        return f"<e4dump.Deleted {self.path!r} inode {self.inode} {self.file_type}>"


def _write_zeros(f, n):
    z = bytes(min(n, 1 << 20))
    while n > 0:
        k = min(n, len(z))
        f.write(z[:k])
        n -= k


class FS:
    """An ext4 image opened read-only with its keys (e4dump.open).  A
    context manager; close() waits for the Files still open.  Paths are
    '/'-separated shown names (decrypted or no-key names; "<N>" is inode
    N); an int is an inode number; an Entry stands for its inode."""

    MAX_DEPTH = 8192

    def __init__(self, c, source):
        self._c = c
        self.source = source

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Close the image.  Files still open go on reading; the library's
        filesystem is freed (its key material wiped) after the last."""
        self._c.close()

    @property
    def closed(self):
        """Whether close() was called."""
        return self._c.closed

    def info(self):
        """Superblock facts (a dict: block_size, uuid, features, ...)."""
        return self._c.info()

    def volumes(self):
        """The disk's partition table: scheme, id, sector_size, disk_size,
        container, note and volumes (each partition: index, slot, start,
        size, type, name, fs, ext, odd, why_odd, ...)."""
        return self._c.volumes()

    def policies(self):
        """Every encryption policy of the image's inodes with what opens it:
        policy_version, modes, flags, descriptor or identifier, inodes,
        key (the key's label: a key file's path or "keys[i]"), key_index,
        key_how (how it matched, or why none does) and state."""
        pols = self._c.policies()
        for p in pols:
            p["flags"] = p["flags"].split("|")
        return pols

    # -- resolving -----------------------------------------------------

    @staticmethod
    def _raw(p):
        return os.fsencode(p)

    def _resolve(self, what):
        """(inode, raw path for the walker, shown path)"""
        if isinstance(what, Entry):
            return what.inode, what.raw_path or f"<{what.inode}>".encode(), what.path
        if isinstance(what, int):
            return what, f"<{what}>".encode(), f"<{what}>"
        raw = self._raw(what)
        ino = self._c.lookup(raw)
        if not raw.startswith(b"/") and not raw.startswith(b"<"):
            raw = b"/" + raw
        return ino, raw, os.fsdecode(raw)

    def lookup(self, path):
        """The inode number of path (shown names, no-key names, "<N>")."""
        return self._c.lookup(self._raw(path))

    def stat(self, path_or_inode):
        """The Entry of a path, an inode number or an Entry (read again)."""
        ino, raw, shown = self._resolve(path_or_inode)
        start, _, _ = self._c.list(ino, raw, None, False)
        return Entry(self, start, raw)

    @staticmethod
    def _child_raw(parent_raw, name):
        return (parent_raw.rstrip(b"/") if parent_raw != b"/" else b"") + b"/" + name

    def scandir(self, path="/"):
        """The Entries of a directory, in listing order (sorted by shown
        name), inodes read."""
        ino, raw, _ = self._resolve(path)
        start, children, _ = self._c.list(ino, raw, None, True)
        if (start.get("i_mode", 0) & 0o170000) != 0o040000:
            raise _make_error(Status.NOT_DIR, 0, f"{start['path']}: not a directory",
                              ino, start["path"])
        return [Entry(self, d, self._child_raw(raw, d["name_bytes"])) for d in children]

    def listdir(self, path="/"):
        """The shown names of a directory (str; bytes no UTF-8 decodes are
        kept as surrogate escapes, os.fsdecode's rule)."""
        return [e.name for e in self.scandir(path)]

    def walk(self, path="/"):
        """Every entry from path down, depth first, each directory's
        entries in listing order, path itself first (a generator of
        Entry).  A directory met a second time (a cycle, or a second link)
        or deeper than MAX_DEPTH is yielded but not entered; that is
        reported as a diagnostic."""
        ino, raw, _ = self._resolve(path)
        start, children, _ = self._c.list(ino, raw, None, True)
        top = Entry(self, start, raw)
        yield top
        if not top.is_dir():
            return
        entered = {ino}
        stack = [(raw, iter(children))]
        while stack:
            praw, it = stack[-1]
            d = next(it, None)
            if d is None:
                stack.pop()
                continue
            e = Entry(self, d, self._child_raw(praw, d["name_bytes"]))
            yield e
            if not e.is_dir():
                continue
            if e.inode in entered:
                _log.warning("%s: directory inode %d entered already (a loop or a "
                             "second link): not entered again", e.path, e.inode)
                continue
            if len(stack) >= self.MAX_DEPTH:
                _log.error("%s: deeper than %d levels: not entered", e.path, self.MAX_DEPTH)
                continue
            entered.add(e.inode)
            try:
                _, kids, _ = self._c.list(e.inode, e.raw_path, e.path, True)
            except Error as exc:
                _log.error("%s", exc)
                continue
            stack.append((e.raw_path, iter(kids)))

    # -- contents ----------------------------------------------------------

    def open(self, path_or_inode, raw=False):
        """A File of a regular file, decrypted; raw=True gives its stored
        bytes (the ciphertext of an encrypted file, holes as zeros) and
        works without the key.  NoKeyError when locked and not raw."""
        ino, _, shown = self._resolve(path_or_inode)
        return File(self, self._c.open_file(ino, raw), shown)

    def readlink(self, path_or_inode, nokey=False):
        """A symlink's target (bytes): decrypted, or the kernel's no-key
        form when no key opens it (or nokey=True)."""
        ino, _, _ = self._resolve(path_or_inode)
        return self._c.readlink(ino, nokey)

    def xattrs(self, path_or_inode):
        """Every extended attribute of an inode in listxattr's order: dicts
        with name, value (bytes; a POSIX ACL in its VFS form), listed
        (Linux's listxattr shows it), and when applicable error, stored
        (an ACL as ext4 stores it) and acl_error.  What could not be read
        is logged as a diagnostic and left out."""
        ino, _, shown = self._resolve(path_or_inode)
        items, why = self._c.xattrs(ino)
        if why:
            _log.error("%s: extended attributes: %s", shown, why)
        out = []
        for name, value, listed, err, stored, aclerr in items:
            x = {"name": name, "value": value if err is None else None, "listed": listed}
            if err:
                x["error"] = err
            if stored:
                x["stored"] = stored
            if aclerr:
                x["acl_error"] = aclerr
            out.append(x)
        return out

    # -- the journal ------------------------------------------------------

    def journal(self):
        """The internal jbd2 journal (a Journal; NotFoundError without one)."""
        return Journal(self, self._c.journal())

    def deleted(self, path="/"):
        """The entries deleted from directory path and below it, from the
        journal's copies (a generator of Deleted: Journal.deleted, the
        journal kept open while any of them is alive)."""
        j = self.journal()
        yield from j.deleted(path)

    def __repr__(self):
        return f"<e4dump.FS {self.source!r}{' closed' if self.closed else ''}>"
