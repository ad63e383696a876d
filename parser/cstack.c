/*
 * parser/cstack.c -- the C stack guard (see parser/cstack.h)
 */
#include "config.h"
#include "parser/cstack.h"

#include <sys/resource.h>
#ifdef HAVE_PTHREAD_GETATTR_NP
#include <pthread.h>
#endif

/* The fallback when the thread's stack bounds are unknown: the stack size
   when the soft limit is unlimited or unknown. */
#define FALLBACK_SIZE ((uintptr_t)8 * 1024 * 1024)
#define RESERVE_MIN ((uintptr_t)256 * 1024)

#ifndef __GNUC__
uintptr_t vl_cstack_here(void)
{
    volatile char c = 0;
    return (uintptr_t)&c;
}
#endif

void vl_cstack_enter(VlCStack *cs)
{
    uintptr_t here = VL_CSTACK_HERE();
    cs->entry = here;
    cs->limit = here > VL_CSTACK_PROBE ? here - VL_CSTACK_PROBE : 0;
    cs->exact = 0;
}

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

/* The exact limit: the bottom of the stack plus the reserve. */
static uintptr_t exact_limit(const VlCStack *cs, uintptr_t here)
{
    uintptr_t lo, hi;
    if (!stack_bounds(&lo, &hi) || here < lo || here >= hi) {
        /* the stack ends about RLIMIT_STACK below the entry point (the
           entry point is close to its top in a program's main thread) */
        struct rlimit rl;
        uintptr_t size = FALLBACK_SIZE;
        if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
            && rl.rlim_cur < FALLBACK_SIZE * 64)
            size = (uintptr_t)rl.rlim_cur;
        hi = cs->entry;
        lo = hi > size ? hi - size : 0;
    }
    uintptr_t size = hi - lo;
    uintptr_t reserve = size / 8;
    if (reserve < RESERVE_MIN)
        reserve = RESERVE_MIN < size / 2 ? RESERVE_MIN : size / 2;
    return lo + reserve;
}

int vl_cstack_slow(VlCStack *cs, uintptr_t here)
{
    if (!cs->exact) {
        cs->limit = exact_limit(cs, here);
        cs->exact = 1;
    }
    return here < cs->limit;
}
