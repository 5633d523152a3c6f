/* alloc.c - a malloc interposer that counts: calls to the allocator and
 * the bytes live, so the bench can print allocations per operation and
 * the heap a compiled policy holds.  The program's own definitions of
 * malloc and friends take precedence over libc's for every library in the
 * process (symbol interposition); they forward to glibc's __libc_*
 * entry points.  Under ASan the sanitizer owns the allocator: the
 * interposer is left out and the memory rows say so. */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <unistd.h>
#include <stdlib.h>

#include "bench.h"

#if defined(__SANITIZE_ADDRESS__)
#define BENCH_NO_INTERPOSER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_NO_INTERPOSER 1
#endif
#endif

static uint64_t calls;
static int64_t live, peak;

#ifndef BENCH_NO_INTERPOSER

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void  __libc_free(void *p);
void *__libc_memalign(size_t align, size_t size);

static void account(void *p, int sign)
{
	int64_t now;

	if (!p)
		return;
	now = __atomic_add_fetch(&live, sign * (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
	if (sign > 0 && now > __atomic_load_n(&peak, __ATOMIC_RELAXED))
		__atomic_store_n(&peak, now, __ATOMIC_RELAXED);
}

static void *counted(void *p)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	account(p, +1);
	return p;
}

void *malloc(size_t size)
{
	return counted(__libc_malloc(size));
}

void *calloc(size_t n, size_t size)
{
	return counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t size)
{
	void *q;

	if (p && size == 0) {
		free(p);
		return NULL;
	}
	account(p, -1);
	q = __libc_realloc(p, size);
	if (!q && p) {
		account(p, +1);    /* the old block is still there */
		__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	return counted(q);
}

void free(void *p)
{
	account(p, -1);
	__libc_free(p);
}

void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

void *memalign(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size));
}

void *aligned_alloc(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size));
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = counted(__libc_memalign(align, size));
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t size)
{
	return counted(__libc_memalign((size_t)sysconf(_SC_PAGESIZE), size));
}

bool bench_alloc_available(void)
{
	return true;
}

#else

bool bench_alloc_available(void)
{
	return false;
}

#endif

uint64_t bench_alloc_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}

int64_t bench_alloc_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}

int64_t bench_alloc_peak(void)
{
	return __atomic_load_n(&peak, __ATOMIC_RELAXED);
}

void bench_alloc_reset_peak(void)
{
	__atomic_store_n(&peak, bench_alloc_live(), __ATOMIC_RELAXED);
}

double bench_allocs_per_op(bench_fn fn, void *ctx, size_t n)
{
	uint64_t before;

	if (!bench_alloc_available() || n == 0)
		return -1;
	if (fn(ctx, 1) < 0)
		return -1;
	before = bench_alloc_calls();
	if (fn(ctx, n) < 0)
		return -1;
	return (double)(bench_alloc_calls() - before) / (double)n;
}
