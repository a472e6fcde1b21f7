/* A library a test loads with ctypes after the plugin fenced pytest: its own call to open()
 * (through its own PLT) must reach the shim too. tf_write(PATH): 0, or errno. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int tf_write(const char *path);

int tf_write(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}
