/* open_bench: N successful open()+close() pairs on one file, the shim's hot path.
 * bench/shim.sh runs it with and without the shim. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: open_bench PATH COUNT read|write\n");
        return 2;
    }
    long n = strtol(argv[2], NULL, 10);
    int flags = argv[3][0] == 'w' ? O_WRONLY | O_CREAT : O_RDONLY;
    for (long i = 0; i < n; i++) {
        int fd = open(argv[1], flags | O_CLOEXEC, 0644);
        if (fd < 0) {
            perror(argv[1]);
            return 1;
        }
        close(fd);
    }
    return 0;
}
