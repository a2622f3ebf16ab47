/* The scan of a memory capture (capture_scan.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "capture_scan.h"
#include "byteorder.h"
#include "kdf.h"

/* Bytes past a chunk's last position a window may need: the largest
 * structure (aesni_xts_ctx), rounded up. */
#define OVERLAP 1024u
_Static_assert(E4_AESNI_XTS_CTX_SIZE <= OVERLAP, "window larger than the overlap");
_Static_assert(E4_HMAC_STATES_SIZE <= OVERLAP && E4_AES_CTX_SIZE <= OVERLAP &&
	       E4_USER_KEY_PAYLOAD_SIZE <= OVERLAP && E4_MK_SECRET_WINDOW <= OVERLAP,
	       "window larger than the overlap");

const char *e4_memkey_kind_name(enum e4_memkey_kind k)
{
	switch (k) {
	case E4_MEMKEY_LOGON: return "v1-logon";
	case E4_MEMKEY_SECRET_V1: return "v1-ioctl";
	case E4_MEMKEY_HKDF: return "v2-hkdf";
	case E4_MEMKEY_AES: return "aes-schedule";
	case E4_MEMKEY_AES_XTS: return "aes-xts-schedule";
	case E4_MEMKEY_DESCRIPTION: return "key-description";
	}
	return "?";
}

/* A stretch of physical memory with no gap: ranges that follow each other
 * in memory, read as one (a structure may straddle their border). */
struct run {
	uint64_t phys, len;
	uint64_t before;  /* bytes of the runs before it */
};

struct scan {
	struct e4_source *src;
	const struct e4_capture *c;
	struct run *run;
	size_t n_run;
	uint64_t total;
	unsigned int threads;
	e4_memkey_fn fn;
	void *arg;
	pthread_mutex_t lock;
	atomic_int stop;
	enum e4_status st;      /* the first failure (under lock) */
	uint64_t scanned;       /* (under lock) */
};

struct worker {
	struct scan *s;
	unsigned int index;
	pthread_t tid;
};

static void fail(struct scan *s, enum e4_status st)
{
	pthread_mutex_lock(&s->lock);
	if (s->st == E4_OK)
		s->st = st;
	pthread_mutex_unlock(&s->lock);
	atomic_store(&s->stop, 1);
}

static void deliver(struct scan *s, struct e4_memkey_hit *h, uint64_t phys)
{
	const struct e4_capture_range *r = e4_capture_find(s->c, phys);
	int stop;

	h->phys = phys;
	h->file_off = r ? r->file_off + (phys - r->phys) : 0;
	pthread_mutex_lock(&s->lock);
	stop = atomic_load(&s->stop) ? 0 : s->fn(s->arg, h);
	if (stop && s->st == E4_OK)
		s->st = E4_STOPPED;
	pthread_mutex_unlock(&s->lock);
	if (stop)
		atomic_store(&s->stop, 1);
	e4_wipe(h, sizeof(*h));
}

/* Offer every 8-aligned position p of buf[0 .. n) to the recognisers;
 * the window of a position runs to buf + len (len >= n).  Cheap tests of
 * one field each come first: almost every position fails them. */
static void scan_buffer(struct scan *s, const uint8_t *buf, size_t n,
			size_t len, uint64_t phys)
{
	struct e4_memkey_hit h;

	memset(&h, 0, sizeof(h));
	for (size_t i = (size_t)(-phys & 7); i < n; i += 8) {
		const uint8_t *p = buf + i;
		size_t w = len - i;

		if (w >= E4_HMAC_STATES_SIZE && e4_le64(p + 64) == 128 &&
		    e4_hmac_states_match(p, w, &h.states)) {
			h.kind = E4_MEMKEY_HKDF;
			deliver(s, &h, phys + i);
		}
		if (w >= E4_USER_KEY_PAYLOAD_SIZE && e4_le16(p + 0x10) == 72 &&
		    e4_logon_payload_match(p, w, &h.key)) {
			h.kind = E4_MEMKEY_LOGON;
			deliver(s, &h, phys + i);
		}
		if ((p[0] == 'f' || p[0] == 'e') && w >= 8 &&
		    e4_key_description_match(p, w, &h.key)) {
			h.kind = E4_MEMKEY_DESCRIPTION;
			deliver(s, &h, phys + i);
		}
		if (w >= E4_MK_SECRET_WINDOW && e4_le64(p) == 0 &&
		    e4_mk_secret_v1_match(p, w, &h.key)) {
			h.kind = E4_MEMKEY_SECRET_V1;
			deliver(s, &h, phys + i);
		}
		if (w >= E4_AES_CTX_SIZE) {
			uint32_t kl = e4_le32(p + 0x1e0);

			if ((kl == 16 || kl == 24 || kl == 32) &&
			    e4_aes_ctx_match(p, w, &h.key)) {
				h.kind = E4_MEMKEY_AES;
				deliver(s, &h, phys + i);
				if (w >= E4_AESNI_XTS_CTX_SIZE &&
				    e4_aesni_xts_match(p, w, &h.key)) {
					h.kind = E4_MEMKEY_AES_XTS;
					deliver(s, &h, phys + i);
				}
			}
		}
		if ((i & 0xfffff) == 0 && atomic_load(&s->stop))
			return;
	}
}

/* Scan bytes [from, to) of run r (offsets inside it). */
static int scan_piece(struct scan *s, uint8_t *buf, const struct run *r,
		      uint64_t from, uint64_t to)
{
	while (from < to && !atomic_load(&s->stop)) {
		uint64_t n = to - from < E4_SCAN_CHUNK ? to - from : E4_SCAN_CHUNK;
		uint64_t len = r->len - from < n + OVERLAP ? r->len - from : n + OVERLAP;
		enum e4_status st = e4_capture_read_phys(s->src, s->c, r->phys + from,
							 buf, (size_t)len);

		if (st != E4_OK) {
			fail(s, st);
			return -1;
		}
		scan_buffer(s, buf, (size_t)n, (size_t)len, r->phys + from);
		pthread_mutex_lock(&s->lock);
		s->scanned += n;
		pthread_mutex_unlock(&s->lock);
		from += n;
	}
	return 0;
}

/* Worker t scans bytes [total * t / T, total * (t + 1) / T) of the runs
 * laid end to end. */
static void *work(void *arg)
{
	struct worker *wk = arg;
	struct scan *s = wk->s;
	uint64_t lo = s->total / s->threads * wk->index, hi;
	size_t cap = (s->total < E4_SCAN_CHUNK ? (size_t)s->total : E4_SCAN_CHUNK) + OVERLAP;
	uint8_t *buf = malloc(cap);

	hi = wk->index + 1 == s->threads ? s->total : lo + s->total / s->threads;
	if (!buf) {
		fail(s, E4_NOMEM);
		return NULL;
	}
	for (size_t i = 0; i < s->n_run && !atomic_load(&s->stop); i++) {
		const struct run *r = &s->run[i];
		uint64_t a = r->before, b = r->before + r->len;

		if (b <= lo || a >= hi)
			continue;
		if (scan_piece(s, buf, r, (lo > a ? lo : a) - a, (hi < b ? hi : b) - a))
			break;
	}
	e4_wipe(buf, cap);
	free(buf);
	return NULL;
}

static enum e4_status make_runs(struct scan *s)
{
	const struct e4_capture *c = s->c;

	s->run = calloc(c->n ? c->n : 1, sizeof(*s->run));
	if (!s->run)
		return E4_NOMEM;
	for (size_t i = 0; i < c->n; i++) {
		struct run *last = s->n_run ? &s->run[s->n_run - 1] : NULL;

		if (last && last->phys + last->len == c->r[i].phys) {
			last->len += c->r[i].len;
		} else {
			s->run[s->n_run].phys = c->r[i].phys;
			s->run[s->n_run].len = c->r[i].len;
			s->run[s->n_run].before = s->total;
			s->n_run++;
		}
		s->total += c->r[i].len;
	}
	return E4_OK;
}

enum e4_status e4_capture_scan(struct e4_source *src,
			       const struct e4_capture *c, unsigned int threads,
			       e4_memkey_fn fn, void *arg, uint64_t *scanned)
{
	struct scan s;
	struct worker wk[E4_SCAN_MAX_THREADS];
	unsigned int started = 0;
	enum e4_status st;

	memset(&s, 0, sizeof(s));
	s.src = src;
	s.c = c;
	s.fn = fn;
	s.arg = arg;
	threads = threads < 1 ? 1 : threads > E4_SCAN_MAX_THREADS ? E4_SCAN_MAX_THREADS : threads;
	if (pthread_mutex_init(&s.lock, NULL))
		return E4_NOMEM;
	atomic_init(&s.stop, 0);
	st = make_runs(&s);
	if (st == E4_OK) {
		/* no more threads than chunks */
		uint64_t chunks = s.total / E4_SCAN_CHUNK + 1;

		s.threads = chunks < threads ? (unsigned int)chunks : threads;
		for (unsigned int t = 0; t < s.threads; t++) {
			wk[t].s = &s;
			wk[t].index = t;
		}
		for (unsigned int t = 1; t < s.threads; t++, started++)
			if (pthread_create(&wk[t].tid, NULL, work, &wk[t])) {
				fail(&s, E4_NOMEM);
				break;
			}
		work(&wk[0]);
		for (unsigned int t = 1; t <= started; t++)
			pthread_join(wk[t].tid, NULL);
		st = s.st;
	}
	if (scanned)
		*scanned = s.scanned;
	free(s.run);
	pthread_mutex_destroy(&s.lock);
	return st;
}
