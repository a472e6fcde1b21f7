/* pyaudit: the plugin's audit hook filtered in C (include/testfence.h's tf_audit_filter):
 * CPython calls it for every audit event; it calls into Python for the few the plugin watches. */
#include "testfence.h"

#include "public.h"

#include <string.h>

#define MAX_EVENTS 64
#define MAX_NAME 64

/* Set once, before the hook is registered, and only read after: the hook needs no lock. The
 * hook is called until CPython drops it, the last thing it does as it clears the interpreter
 * at exit: it never stops by itself, as an event that would say "stop" could be raised by a
 * test too (sys.audit). Late, with the plugin's module cleared, the callable fails (a
 * TypeError): the write it was asked about fails with it. */
static struct {
    tf_python_api api;
    void *interpreter, *callable;
    char name[MAX_EVENTS][MAX_NAME];
    size_t n;
    int set;
} filter;

TF_PUBLIC int tf_audit_filter_set(const tf_python_api *api, void *interpreter, void *callable,
                                  const char *const *events, size_t nevents)
{
    if (filter.set || !api || !api->call_function || !api->dec_ref || !api->interpreter ||
        !api->thread_state || !api->enter_tracing || !api->leave_tracing || !interpreter ||
        !callable || nevents > MAX_EVENTS || (nevents && !events))
        return -1;
    for (size_t i = 0; i < nevents; i++)
        if (!events[i] || strlen(events[i]) >= MAX_NAME)
            return -1;
    for (size_t i = 0; i < nevents; i++)
        memcpy(filter.name[i], events[i], strlen(events[i]) + 1);
    filter.api = *api;
    filter.interpreter = interpreter;
    filter.callable = callable;
    filter.n = nevents;
    filter.set = 1;
    return 0;
}

static int watched(const char *event)
{
    for (size_t i = 0; i < filter.n; i++)
        if (filter.name[i][0] == event[0] && !strcmp(filter.name[i], event))
            return 1;
    return 0;
}

TF_PUBLIC int tf_audit_filter(const char *event, void *args, void *data)
{
    (void)data;
    if (!filter.set || !event || !watched(event) || filter.api.interpreter() != filter.interpreter)
        return 0;
    void *tstate = filter.api.thread_state();
    filter.api.enter_tracing(tstate); /* as CPython runs the hooks of sys.addaudithook */
    void *result = filter.api.call_function(filter.callable, "sO", event, args);
    filter.api.leave_tracing(tstate);
    if (!result)
        return -1;
    filter.api.dec_ref(result);
    return 0;
}
