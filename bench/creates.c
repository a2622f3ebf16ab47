/* The kernel's share of extracting many small files, without e4dump: N
 * files (default 30,000, 1-16 KiB each) created in 100 directories under
 * DIR by T threads, each with openat(O_CREAT|O_EXCL), one pwrite,
 * futimens and close (what extract asks per file).  Issue 33 item 2:
 * what writing the files alone costs, in CPU and on one or two cores.
 *
 *   cc -O2 -pthread bench/creates.c -o /tmp/creates
 *   rm -rf /dev/shm/c && /usr/bin/time -f "%e s %U u %S s" /tmp/creates /dev/shm/c 1
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DIRS 100
#define MAX_THREADS 8

static int root, threads, files;
static char data[16384];

static void *create_files(void *arg)
{
	long t = (long)arg;
	char name[64];

	for (int i = (int)t; i < files; i += threads) {
		struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
		int fd;

		snprintf(name, sizeof(name), "d%03d/f%06d", i / (files / DIRS), i);
		fd = openat(root, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 || pwrite(fd, data, 1024 + (size_t)(i * 7919) % 15360, 0) < 0 ||
		    futimens(fd, ts)) {
			perror(name);
			exit(1);
		}
		close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	char name[16];

	if (argc < 3 || (threads = atoi(argv[2])) < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "usage: creates DIR THREADS [FILES]\n");
		return 2;
	}
	files = argc > 3 ? atoi(argv[3]) : 30000;
	if (files < DIRS || mkdir(argv[1], 0755) ||
	    (root = open(argv[1], O_RDONLY | O_DIRECTORY)) < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int d = 0; d < DIRS; d++) {
		snprintf(name, sizeof(name), "d%03d", d);
		if (mkdirat(root, name, 0755)) {
			perror(name);
			return 1;
		}
	}
	for (long t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, create_files, (void *)t);
	for (int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	return 0;
}
