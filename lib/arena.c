/* arena.c - bump allocation for what a policy owns for as long as it
 * lives (rules, their text, trie keys), freed all at once.  Its own module
 * so that the policy and its compiled form both use it without calling
 * each other. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"

struct pg_arena_block {
	struct pg_arena_block *next;
	size_t used, size;
	max_align_t data[];
};

#define ARENA_BLOCK (64u << 10)

static void *arena_take(struct pg_arena *a, size_t size, size_t align)
{
	struct pg_arena_block *b = a->head;
	size_t at;

	at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (!b || at > b->size || b->size - at < size) {
		size_t bsize = size > ARENA_BLOCK / 4 ? size : ARENA_BLOCK;

		b = malloc(sizeof(*b) + bsize);
		if (!b)
			return NULL;
		b->size = bsize;
		b->used = 0;
		at = 0;
		if (a->head && size > ARENA_BLOCK / 4) {
			/* A big one-off: keep the current block for small ones. */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	b->used = at + size;
	return (char *)b->data + at;
}

void *pg_arena_alloc(struct pg_arena *a, size_t size)
{
	return arena_take(a, size, sizeof(max_align_t));
}

void *pg_arena_alloc_aligned(struct pg_arena *a, size_t size, size_t align)
{
	return arena_take(a, size, align);
}

void *pg_arena_alloc_bytes(struct pg_arena *a, size_t size)
{
	return arena_take(a, size, 1);
}

char *pg_arena_strndup(struct pg_arena *a, const char *s, size_t len)
{
	char *d = pg_arena_alloc_bytes(a, len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

void pg_arena_free(struct pg_arena *a)
{
	struct pg_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}
