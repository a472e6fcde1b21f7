/* test_colour: colour only on a terminal, never with NO_COLOR (non-empty) or TERM=dumb. */
#include "check.h"

#include "core/colour.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* A terminal to ask about: the slave side of a new pty, or -1 where none can be made. */
static int open_tty(int *master)
{
    *master = posix_openpt(O_RDWR | O_NOCTTY);
    if (*master < 0)
        return -1;
    const char *name = grantpt(*master) == 0 && unlockpt(*master) == 0 ? ptsname(*master) : NULL;
    int fd = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    if (fd < 0)
        close(*master);
    return fd;
}

static void not_a_terminal(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
    CHECK(!colour_wanted(p[1]));
    CHECK(!colour_wanted(-1)); /* a closed or bad fd is no terminal */
    close(p[0]);
    close(p[1]);
}

static void on_a_terminal(void)
{
    int master, tty = open_tty(&master);
    if (tty < 0) {
        printf("test_colour: no pty here; the terminal checks are skipped\n");
        return;
    }
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
    CHECK(colour_wanted(tty));
    unsetenv("TERM"); /* no TERM says nothing against colour */
    CHECK(colour_wanted(tty));
    setenv("NO_COLOR", "", 1); /* set but empty: no-color.org says it does not count */
    CHECK(colour_wanted(tty));
    setenv("NO_COLOR", "1", 1);
    CHECK(!colour_wanted(tty));
    unsetenv("NO_COLOR");
    setenv("TERM", "dumb", 1);
    CHECK(!colour_wanted(tty));
    setenv("TERM", "dumber", 1); /* only "dumb" itself */
    CHECK(colour_wanted(tty));
    close(tty);
    close(master);
}

int main(void)
{
    CHECK_STR(colour_if(true, COLOUR_RED), "\033[1;31m");
    CHECK_STR(colour_if(false, COLOUR_RED), "");
    CHECK_STR(colour_if(true, COLOUR_OFF), "\033[0m");
    not_a_terminal();
    on_a_terminal();
    return check_done("test_colour");
}
