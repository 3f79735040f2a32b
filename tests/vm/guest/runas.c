// SPDX-License-Identifier: GPL-2.0-only
/*
 * runas UID COMMAND [ARG...]: drops every group, gid and uid to UID (all
 * capabilities go with root's uid) and execs COMMAND. The environment is
 * kept, so LD_LIBRARY_PATH still finds the project's libraries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t id;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID COMMAND [ARG...]\n");
		return 2;
	}
	id = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) < 0 || setresgid(id, id, id) < 0 || setresuid(id, id, id) < 0) {
		fprintf(stderr, "runas: dropping to uid %u: %s\n", (unsigned)id, strerror(errno));
		return 126;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "runas: exec %s: %s\n", argv[2], strerror(errno));
	return 127;
}
