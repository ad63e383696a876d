/*
 * parser/cstack.c -- the C stack guard (see parser/cstack.h)
 */
#include "config.h"
#include "parser/cstack.h"

#include <sys/resource.h>
#ifdef HAVE_PTHREAD_GETATTR_NP
#include <pthread.h>
#endif

/* The stack size assumed when the thread's bounds are unknown and the soft
   limit is unlimited or unknown; the largest reserve. */
#define FALLBACK_SIZE ((uintptr_t)8 * 1024 * 1024)
#define RESERVE_MAX ((uintptr_t)1024 * 1024)

/* The running thread's stack bounds, found once per thread: a fact about
   the thread, not state of an interpreter (initial-exec: a plain offset
   from the thread pointer, as in vm/core/gc.c). */
#if defined(__GNUC__)
#define VL_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define VL_TLS _Thread_local
#endif
static VL_TLS uintptr_t thread_lo, thread_hi;   /* 0, 0: not known yet */

#ifndef __GNUC__
uintptr_t vl_cstack_here(void)
{
    volatile char c = 0;
    return (uintptr_t)&c;
}
#endif

/* The lowest and highest address of the running thread's stack; 0 when
   unknown. */
static int stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
#ifdef HAVE_PTHREAD_GETATTR_NP
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    void *addr = NULL;
    size_t size = 0;
    int ok = pthread_attr_getstack(&attr, &addr, &size) == 0;
    pthread_attr_destroy(&attr);
    if (!ok || addr == NULL || size == 0)
        return 0;
    *lo = (uintptr_t)addr;
    *hi = (uintptr_t)addr + size;
    return 1;
#else
    (void)lo;
    (void)hi;
    return 0;
#endif
}

/* The bounds of the stack 'here' is on: the thread's (cached), else
   RLIMIT_STACK below 'here' (the entry point of a program's main thread
   is close to the top of its stack); 1 when they are the real ones. */
static int bounds_of(uintptr_t here, uintptr_t *lo, uintptr_t *hi)
{
    if (here < thread_lo || here >= thread_hi) {
        uintptr_t l, h;
        if (stack_bounds(&l, &h) && here >= l && here < h) {
            thread_lo = l;
            thread_hi = h;
        }
    }
    if (here >= thread_lo && here < thread_hi) {
        *lo = thread_lo;
        *hi = thread_hi;
        return 1;
    }
    /* unknown (no pthread_getattr_np, or a stack of the host's own, such
       as a coroutine's) */
    struct rlimit rl;
    uintptr_t size = FALLBACK_SIZE;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
        && rl.rlim_cur < FALLBACK_SIZE * 64)
        size = (uintptr_t)rl.rlim_cur;
    *hi = here;
    *lo = here > size ? here - size : 0;
    return 0;
}

void vl_cstack_enter(VlCStack *cs)
{
    uintptr_t here = VL_CSTACK_HERE(), lo, hi;
    (void)bounds_of(here, &lo, &hi);
    uintptr_t reserve = (hi - lo) / 8;
    if (reserve > RESERVE_MAX)
        reserve = RESERVE_MAX;
    if (reserve < VL_CSTACK_RESERVE)
        reserve = VL_CSTACK_RESERVE;
    cs->limit = lo + reserve;
}

size_t vl_cstack_short(uintptr_t here, size_t need)
{
    uintptr_t lo, hi;
    if (!bounds_of(here, &lo, &hi))
        return 0;       /* unknown: assume enough */
    size_t room = (size_t)(here - lo);
    return room >= need ? 0 : room > 0 ? room : 1;
}
