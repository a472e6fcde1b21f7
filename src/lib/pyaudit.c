/* pyaudit: the plugin's audit hook filtered in C (include/testfence.h's tf_audit_filter):
 * CPython calls it for every audit event; it calls into Python for the few the plugin watches. */
#include "testfence.h"

#include "public.h"

#include <string.h>

#define MAX_EVENTS 64
#define MAX_NAME 64

/* The event CPython raises as it starts clearing an interpreter, just before it drops the
 * hooks of sys.addaudithook: the plugin's hook is not called past it either (builtins and
 * module globals are gone by then), as when it was added with sys.addaudithook. */
#define INTERPRETER_CLEAR "cpython.PyInterpreterState_Clear"

/* Set once, before the hook is registered, and only read after (but for `over`, written by
 * the one thread that finalizes the interpreter): the hook needs no lock. */
static struct {
    tf_python_api api;
    void *interpreter, *callable;
    char name[MAX_EVENTS][MAX_NAME];
    size_t n;
    int set;
    int over; /* the interpreter is being cleared: Python is no longer called */
} filter;

TF_PUBLIC int tf_audit_filter_set(const tf_python_api *api, void *interpreter, void *callable,
                                  const char *const *events, size_t nevents)
{
    if (filter.set || !api || !api->call_function || !api->dec_ref || !api->interpreter ||
        !api->thread_state || !api->enter_tracing || !api->leave_tracing || !api->is_finalizing ||
        !interpreter || !callable || nevents > MAX_EVENTS || (nevents && !events))
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

/* Is EVENT the start of the end of this interpreter? Only while the runtime finalizes: a
 * sub-interpreter a test ends raises the same event, and must not switch the hook off. */
static int interpreter_ends(const char *event)
{
    return event[0] == 'c' && !strcmp(event, INTERPRETER_CLEAR) &&
           filter.api.interpreter() == filter.interpreter && filter.api.is_finalizing();
}

TF_PUBLIC int tf_audit_filter(const char *event, void *args, void *data)
{
    (void)data;
    if (!filter.set || filter.over || !event)
        return 0;
    if (interpreter_ends(event)) {
        filter.over = 1;
        return 0;
    }
    if (!watched(event) || filter.api.interpreter() != filter.interpreter)
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
