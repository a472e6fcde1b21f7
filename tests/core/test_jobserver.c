/* Unit tests for src/core/jobserver.c: make's jobserver as MAKEFLAGS names it. */
#include "check.h"
#include "core/jobserver.h"

int main(void)
{
    struct jobserver js;
    jobserver_parse(NULL, &js);
    CHECK(js.kind == JOBSERVER_NONE);
    jobserver_parse(" -j4 --jobserver-auth=3,4", &js);
    CHECK(js.kind == JOBSERVER_FDS && js.fds[0] == 3 && js.fds[1] == 4);
    jobserver_parse("w -- --jobserver-fds=5,6 -j", &js);
    CHECK(js.kind == JOBSERVER_FDS && js.fds[0] == 5 && js.fds[1] == 6);
    jobserver_parse("-j2 --jobserver-auth=fifo:/tmp/GMfifo123", &js);
    CHECK(js.kind == JOBSERVER_FIFO);
    CHECK_STR(js.fifo, "/tmp/GMfifo123");
    jobserver_parse("--jobserver-auth=3,x --jobserver-auth=,4 --jobserver-auth=-1,2", &js);
    CHECK(js.kind == JOBSERVER_NONE);
    jobserver_parse("--jobserver-auth=3,4 --jobserver-auth=7,8", &js); /* the last wins */
    CHECK(js.fds[0] == 7 && js.fds[1] == 8);
    return check_done("test_jobserver");
}
