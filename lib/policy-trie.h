/* policy-trie.h - the compiled policy's layout, shared by the compiler
 * (policy-trie.c: building the tries as rules are added) and the judge
 * (policy-judge.c: walking them for a name).  Nothing outside those two
 * includes this. */
#ifndef PG_POLICY_TRIE_H
#define PG_POLICY_TRIE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "policy-internal.h"

/* LIT, SFX, PFX lead to a child node; GSFX, GPFX to a bucket of general
 * patterns sharing a literal suffix or prefix, each still matched whole. */
enum edge_kind { EDGE_LIT = 1, EDGE_SFX, EDGE_PFX, EDGE_GSFX, EDGE_GPFX };

#define NODE_HAS_LIT  0x01u
#define NODE_HAS_SFX  0x02u
#define NODE_HAS_PFX  0x04u
#define NODE_DSTAR    0x08u  /* this node is a '**' component */
#define NODE_BELOW    0x10u  /* a deny or read rule ends strictly beneath */
#define NODE_HAS_GSFX 0x20u
#define NODE_HAS_GPFX 0x40u
#define NODE_ANY_BELOW 0x80u /* some rule, of any access, ends strictly beneath */

/* Which suffix (prefix) lengths a node's affix children have: bit L % 64.
 * A judge tries each length of the component whose bit is set; for names
 * over 63 bytes a set bit can stand for several lengths, costing a lookup
 * that misses, never a wrong answer. */

/* 12 bytes: a million-rule policy has over a million nodes, and most
 * have only literal children and no final rule, so what the others need
 * is in a record of its own (struct extra). */
struct node {
	uint32_t best;    /* 1 + index of the strictest, first rule ending here */
	uint32_t extra;   /* 1 + index of the node's extra record, or 0 */
	uint32_t flags;
};

struct extra {
	uint32_t cap;     /* 1 + index of the strictest, first final rule ending here */
	uint32_t dstar;   /* the '**' child, or 0 */
	uint32_t globs;   /* 1 + index of the first unindexed pattern child */
	uint32_t affix;   /* 1 + index of the affix length bitmaps */
};

struct edge {
	uint32_t    hash;    /* 0: an empty slot */
	uint32_t    parent;
	uint32_t    child;
	uint16_t    len;
	uint8_t     kind;
	const char *key;
};

struct glob_child {
	const char *pat;
	uint32_t    len;
	uint32_t    child;
	uint32_t    next;    /* 1 + index of the next in the list, or 0 */
};

struct affix {
	uint64_t len[EDGE_GPFX + 1];   /* by edge kind */
	/* The byte every key of a kind must end (suffix) or start (prefix)
	 * with, bit B % 64; all bits for an empty key.  A component whose
	 * byte is not set reaches no affix child of that kind, which spares
	 * the '**' state of a rule like "deny **", "*.pem" beneath it, a probe
	 * per length at every component of every name. */
	uint64_t anchor[EDGE_GPFX - EDGE_SFX + 1];
};

/* Roots: [absolute][restrictive] (restrictive: the deny/read trie). */
struct pg_trie {
	struct node       *nodes;
	uint32_t           nnodes, capnodes;
	struct edge       *edges;
	uint32_t           nedges, capedges;   /* any size: see edge_slot */
	struct glob_child *globs;
	uint32_t           nglobs, capglobs;
	struct affix      *affixes;
	uint32_t           naffixes, capaffixes;
	struct extra      *extras;
	uint32_t           nextras, capextras;
	uint32_t           root[2][2];
};

/* A node's extra record, all zero when it has none. */
static inline struct extra node_extra(const struct pg_trie *t, uint32_t node)
{
	uint32_t x = t->nodes[node].extra;

	return x ? t->extras[x - 1] : (struct extra){ 0, 0, 0, 0 };
}

/* ----------------------------------------------------------------- hashes */

#define HASH_MUL UINT64_C(0x100000001b3)

static inline uint32_t mix(uint64_t h, uint32_t parent, unsigned kind)
{
	h ^= (uint64_t)parent * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)kind << 59;
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	/* Never 0, which marks an empty slot; the low bits pick the slot, so
	 * they must stay as mixed as the rest. */
	return (uint32_t)h ? (uint32_t)h : 1u;
}

/* Literal and prefix keys hash left to right, suffix keys right to left,
 * so a judge extends one running hash across every prefix or suffix of a
 * component. */
static inline uint64_t hash_forward(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * HASH_MUL;
	return h;
}

static inline uint64_t hash_backward(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	while (len--)
		h = (h ^ (unsigned char)s[len]) * HASH_MUL;
	return h;
}

/* The first slot of HASH in a table of CAP slots: a table grown edge by
 * edge has a power of two and takes the low bits; one cut to its size
 * after a bulk compile (pg_trie_trim), which a power of two would at
 * worst double, takes a slot by multiplication. */
static inline uint32_t edge_slot(uint32_t hash, uint32_t cap)
{
	if ((cap & (cap - 1)) == 0)
		return hash & (cap - 1);
	return (uint32_t)(((uint64_t)hash * cap) >> 32);
}

static inline uint32_t edge_next(uint32_t i, uint32_t cap)
{
	return i + 1 == cap ? 0 : i + 1;
}

static inline const struct edge *edge_find(const struct pg_trie *t, uint32_t hash, uint32_t parent,
				    unsigned kind, const char *key, size_t len)
{
	uint32_t cap = t->capedges, i;

	if (!cap)
		return NULL;
	for (i = edge_slot(hash, cap); t->edges[i].hash; i = edge_next(i, cap)) {
		const struct edge *e = &t->edges[i];

		if (e->hash == hash && e->parent == parent && e->kind == kind &&
		    e->len == len && memcmp(e->key, key, len) == 0)
			return e;
	}
	return NULL;
}

static inline bool is_dstar(const char *c, size_t len)
{
	return len == 2 && c[0] == '*' && c[1] == '*';
}

static inline bool backward(unsigned kind)
{
	return kind == EDGE_SFX || kind == EDGE_GSFX;
}

static inline uint32_t kind_flag(unsigned kind)
{
	static const uint32_t flags[] = {
		[EDGE_LIT] = NODE_HAS_LIT, [EDGE_SFX] = NODE_HAS_SFX, [EDGE_PFX] = NODE_HAS_PFX,
		[EDGE_GSFX] = NODE_HAS_GSFX, [EDGE_GPFX] = NODE_HAS_GPFX,
	};

	return flags[kind];
}

#endif
