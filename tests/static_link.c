/* static_link.c - a program a distributor links statically against
 * libpathgate.a with the flags of pkg-config --static: it pulls in the
 * judge (libunistring), the batch (liburing) and the envelope (libseccomp),
 * and checks one allowed and one refused open in directory argv[1]. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pathgate.h>

int main(int argc, char **argv)
{
	static const char text[] = "write .\ndeny .ENV\n";
	const char *paths[] = { "a", ".env" };
	struct pg_verdict v[2];
	pg_policy *p = pg_policy_new();
	pg_root *root;
	int fd;

	if (argc != 2 || !p || pg_policy_parse(p, text, strlen(text)) < 0)
		return 2;
	root = pg_root_open(argv[1], p, 0);
	pg_policy_free(p);
	if (!root)
		return 2;
	fd = pg_open(root, "a", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	if (pg_open(root, ".env", O_WRONLY | O_CREAT, 0600) >= 0 ||
	    pg_last_refusal()->code != PG_REFUSAL_DENIED)
		return 1;
	if (pg_check_batch(root, paths, 2, PG_OP_WRITE, v, 0) != 1 || v[1].allowed)
		return 1;
	if (pg_plan_build(root, 0) == NULL && errno == 0)
		return 1;
	printf("%s: static libpathgate %s: %s refused\n", argv[0], pg_version(),
	       pg_refusal_name(v[1].code));
	pg_root_close(root);
	return 0;
}
